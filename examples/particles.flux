// The seed's simulate_particles as Flux writes it: "update position and
// velocity" and "handle collisions" become rules (examples/seed/ holds the
// seed's text, and tests/cli/seed_examples.sh what Flux says of it).
// Particles are soft spheres of diameter 0.02 in the unit box: two that
// overlap push each other apart (a pairwise force proportional to the
// overlap, along the line between their centres), each moves, and one that
// would leave the box bounces off its wall. Each new particle reads only
// the old state, so the particles are independent: the OpenCL device runs
// one a work-item (docs/devices.md).
type Particle = { x: Float, y: Float, vx: Float, vy: Float }

intent simulate_particles(particles: List[Particle], dt: Float) -> List[Particle]:
    constraints:
        - for each particle: bounce(move(push(particle, particles, dt), dt))
    properties:
        - parallelizable (independent particles: each new particle reads only the old state)

intent dist2(p: Particle, q: Particle) -> Float:
    constraints:
        - result = (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)

// How far two spheres overlap; 0.0 apart, and for a particle and itself.
intent overlap(p: Particle, q: Particle) -> Float:
    constraints:
        - result = if dist2(p, q) > 0.0 and dist2(p, q) < 0.0004 then 0.02 - sqrt(dist2(p, q)) else 0.0

intent force_x(p: Particle, q: Particle) -> Float:
    constraints:
        - result = if overlap(p, q) > 0.0 then 50.0 * overlap(p, q) * (p.x - q.x) / sqrt(dist2(p, q)) else 0.0

intent force_y(p: Particle, q: Particle) -> Float:
    constraints:
        - result = if overlap(p, q) > 0.0 then 50.0 * overlap(p, q) * (p.y - q.y) / sqrt(dist2(p, q)) else 0.0

// The forces of all the others change the velocity.
intent push(p: Particle, ps: List[Particle], dt: Float) -> Particle:
    constraints:
        - result = p with {vx: p.vx + dt * sum(force_x(p, q) for q in ps), vy: p.vy + dt * sum(force_y(p, q) for q in ps)}

intent move(p: Particle, dt: Float) -> Particle:
    constraints:
        - result = p with {x: p.x + p.vx * dt, y: p.y + p.vy * dt}

intent bounce(p: Particle) -> Particle:
    constraints:
        - result = p with {x: reflect(p.x), y: reflect(p.y), vx: if outside(p.x) then 0.0 - p.vx else p.vx, vy: if outside(p.y) then 0.0 - p.vy else p.vy}

intent outside(c: Float) -> Bool:
    constraints:
        - result = c < 0.0 or c > 1.0

intent reflect(c: Float) -> Float:
    constraints:
        - result = if c < 0.0 then 0.0 - c else if c > 1.0 then 2.0 - c else c

// A reproducible cloud of n particles, for tests and benchmarks.
intent cloud(n: Natural) -> List[Particle]:
    constraints:
        - result = [{x: float((i * 7919) % 1000) / 1000.0, y: float((i * 104729) % 997) / 997.0, vx: float(i % 13) / 13.0 - 0.5, vy: float(i % 7) / 7.0 - 0.5} for i in 0..n]
