// An n-body written as a new user would: small helper intents, the
// distance computed three times inside a pull, the pull called once per
// axis, records updated with `with`. Five bodies, n steps of 0.01, then
// the total energy to 9 digits.
//   flux run bench/user/nbody.flux 'energy_after(1000)'

type Body = { x: Float, y: Float, z: Float, vx: Float, vy: Float, vz: Float, m: Float }

intent body(x: Float, y: Float, z: Float, vx: Float, vy: Float, vz: Float, m: Float) -> Body:
    constraints:
        - result = {x: x, y: y, z: z, vx: vx, vy: vy, vz: vz, m: m}

intent bodies() -> List[Body]:
    constraints:
        - result = [body(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 39.47), body(4.84, -1.16, -0.10, 0.60, 2.81, -0.02, 0.037), body(8.34, 4.12, -0.40, -1.01, 1.82, 0.008, 0.011), body(12.89, -15.11, -0.22, 1.08, 0.86, -0.01, 0.0017), body(15.37, -25.91, 0.17, 0.97, 0.59, -0.03, 0.002)]

intent dist(a: Body, b: Body) -> Float:
    constraints:
        - result = sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z))

// the pull of b on a along an axis on which b is dx ahead of a
intent pull(a: Body, b: Body, dx: Float) -> Float:
    constraints:
        - result = b.m * dx / (dist(a, b) * dist(a, b) * dist(a, b))

intent accel_x(bs: List[Body], i: Natural) -> Float:
    constraints:
        - result = sum(if j = i then 0.0 else pull(bs[i], bs[j], bs[j].x - bs[i].x) for j in 0..len(bs))

intent accel_y(bs: List[Body], i: Natural) -> Float:
    constraints:
        - result = sum(if j = i then 0.0 else pull(bs[i], bs[j], bs[j].y - bs[i].y) for j in 0..len(bs))

intent accel_z(bs: List[Body], i: Natural) -> Float:
    constraints:
        - result = sum(if j = i then 0.0 else pull(bs[i], bs[j], bs[j].z - bs[i].z) for j in 0..len(bs))

intent kick(bs: List[Body], i: Natural, dt: Float) -> Body:
    constraints:
        - result = bs[i] with {vx: bs[i].vx + dt * accel_x(bs, i), vy: bs[i].vy + dt * accel_y(bs, i), vz: bs[i].vz + dt * accel_z(bs, i)}

intent drift(b: Body, dt: Float) -> Body:
    constraints:
        - result = b with {x: b.x + dt * b.vx, y: b.y + dt * b.vy, z: b.z + dt * b.vz}

intent step(bs: List[Body], dt: Float) -> List[Body]:
    constraints:
        - result = [drift(kick(bs, i, dt), dt) for i in 0..len(bs)]

intent simulate(bs: List[Body], n: Natural) -> List[Body]:
    constraints:
        - simulate(bs, 0) = bs
        - simulate(bs, n) = simulate(step(bs, 0.01), n - 1)

intent kinetic(b: Body) -> Float:
    constraints:
        - result = 0.5 * b.m * (b.vx * b.vx + b.vy * b.vy + b.vz * b.vz)

intent energy(bs: List[Body]) -> Float:
    constraints:
        - result = sum(kinetic(b) for b in bs) - sum(bs[i].m * bs[j].m / dist(bs[i], bs[j]) for i in 0..len(bs) for j in i + 1..len(bs))

intent nine_digits(x: Float) -> String:
    constraints:
        - result = str(round(x * 10.0 ^ 9) / 10.0 ^ 9)

intent energy_after(n: Natural) -> String:
    constraints:
        - result = nine_digits(energy(simulate(bodies(), n)))
