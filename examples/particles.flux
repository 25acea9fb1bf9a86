// The seed's simulate_particles as Flux writes it: "update position and
// velocity" and "handle collisions" become rules (examples/seed/ holds the
// seed's text, and tests/cli/seed_examples.sh what Flux says of it).
// Particles move in the unit box: one that touches another takes the
// other's velocity (equal masses meeting head on swap velocities), and one
// that would leave the box bounces off its wall.
type Particle = { x: Float, y: Float, vx: Float, vy: Float }

intent simulate_particles(particles: Vec[Particle], dt: Float) -> Vec[Particle]:
    constraints:
        - for each particle: bounce(move(collide(particle, particles), dt))
    properties:
        - parallelizable
        - order_independent

intent move(p: Particle, dt: Float) -> Particle:
    constraints:
        - result = p with {x: p.x + p.vx * dt, y: p.y + p.vy * dt}

intent touches(p: Particle, q: Particle) -> Bool:
    constraints:
        - result = p != q and (p.x - q.x) ^ 2 + (p.y - q.y) ^ 2 < 0.0025

intent collide(p: Particle, ps: Vec[Particle]) -> Particle:
    constraints:
        - result = if exists q in ps: touches(p, q) then p with {vx: [q for q in ps if touches(p, q)][0].vx, vy: [q for q in ps if touches(p, q)][0].vy} else p

intent bounce(p: Particle) -> Particle:
    constraints:
        - result = p with {x: reflect(p.x), y: reflect(p.y), vx: if outside(p.x) then 0.0 - p.vx else p.vx, vy: if outside(p.y) then 0.0 - p.vy else p.vy}

intent outside(c: Float) -> Bool:
    constraints:
        - result = c < 0.0 or c > 1.0

intent reflect(c: Float) -> Float:
    constraints:
        - result = if c < 0.0 then 0.0 - c else if c > 1.0 then 2.0 - c else c
