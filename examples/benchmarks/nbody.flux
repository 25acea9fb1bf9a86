// The Computer Language Benchmarks Game's n-body: the Jovian planets and
// the sun, advanced n steps of 0.01 days by the symplectic Euler method of
// the benchmark (velocities from every pair's attraction, then positions),
// with the energy before and after, each as "%.9f" prints it, a line each.
//   flux run examples/benchmarks/nbody.flux 'nbody(1000)'
//   "-0.169075164\n-0.169087605"

type Body = { x: Float, y: Float, z: Float, vx: Float, vy: Float, vz: Float, mass: Float }

intent solar_mass() -> Float:
    constraints:
        - result = 4.0 * pi * pi

intent days_per_year() -> Float:
    constraints:
        - result = 365.24

// position in AU, velocity in AU/day scaled to years, mass in solar masses
intent planet(x: Float, y: Float, z: Float, vx: Float, vy: Float, vz: Float, mass: Float) -> Body:
    constraints:
        - result = {x: x, y: y, z: z, vx: vx * days_per_year(), vy: vy * days_per_year(),
                    vz: vz * days_per_year(), mass: mass * solar_mass()}

intent planets() -> List[Body]:
    constraints:
        - result = [planet(4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01, 1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05, 9.54791938424326609e-04), planet(8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01, -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05, 2.85885980666130812e-04), planet(1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01, 2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05, 4.36624404335156298e-05), planet(1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01, 2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05, 5.15138902046611451e-05)]

// the sun, moving so that the system's momentum is zero
intent sun(ps: List[Body]) -> Body:
    constraints:
        - result = {x: 0.0, y: 0.0, z: 0.0, vx: -sum(p.vx * p.mass for p in ps) / solar_mass(),
                    vy: -sum(p.vy * p.mass for p in ps) / solar_mass(),
                    vz: -sum(p.vz * p.mass for p in ps) / solar_mass(), mass: solar_mass()}

intent system() -> List[Body]:
    constraints:
        - result = [sun(planets())] ++ planets()

intent squared_distance(a: Body, b: Body) -> Float:
    constraints:
        - result = (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)

// dt / d^3 from d^2: the factor of a pair's velocity changes
intent pull(d2: Float, dt: Float) -> Float:
    constraints:
        - result = dt / (d2 * sqrt(d2))

// what body i's velocity changes by along each axis, per unit of distance
// on it, from each body j (nothing from itself)
intent pulls(bs: List[Body], i: Natural, dt: Float) -> List[Float]:
    constraints:
        - result = [if j = i then 0.0 else bs[j].mass * pull(squared_distance(bs[i], bs[j]), dt) for j in 0..len(bs)]

// body i after every other body's attraction, then moved
intent moved(bs: List[Body], i: Natural, f: List[Float], dt: Float) -> Body:
    constraints:
        - result = kicked(bs[i] with {vx: bs[i].vx - sum((bs[i].x - bs[j].x) * f[j] for j in 0..len(bs)),
                                      vy: bs[i].vy - sum((bs[i].y - bs[j].y) * f[j] for j in 0..len(bs)),
                                      vz: bs[i].vz - sum((bs[i].z - bs[j].z) * f[j] for j in 0..len(bs))}, dt)

intent kicked(b: Body, dt: Float) -> Body:
    constraints:
        - result = b with {x: b.x + dt * b.vx, y: b.y + dt * b.vy, z: b.z + dt * b.vz}

intent advance(bs: List[Body], n: Natural) -> List[Body]:
    constraints:
        - advance(bs, 0) = bs
        - advance(bs, n) = advance([moved(bs, i, pulls(bs, i, 0.01), 0.01) for i in 0..len(bs)], n - 1)

intent kinetic(bs: List[Body]) -> Float:
    constraints:
        - result = sum(0.5 * b.mass * (b.vx ^ 2 + b.vy ^ 2 + b.vz ^ 2) for b in bs)

// every pair once
intent potential(bs: List[Body]) -> Float:
    constraints:
        - result = sum(bs[i].mass * bs[j].mass / sqrt(squared_distance(bs[i], bs[j])) for i in 0..len(bs) for j in i + 1..len(bs))

intent energy(bs: List[Body]) -> Float:
    constraints:
        - result = kinetic(bs) - potential(bs)

intent nine_digits(x: Float) -> String:
    constraints:
        - result = str(round(x * 10.0 ^ 9) / 10.0 ^ 9)

intent nbody(n: Natural) -> String:
    constraints:
        - result = nine_digits(energy(system())) ++ "\n" ++ nine_digits(energy(advance(system(), n)))
