// spectral-norm written as a user would: the matrix entry a helper, the
// product and its transpose each a helper, and the result repeating a
// sub-expression (the iterated vector is written four times in the norm).
//   flux run bench/user/spectral.flux 'norm(100)'

intent entry(i: Natural, j: Natural) -> Float:
    constraints:
        - result = 1.0 / ((i + j) * (i + j + 1) div 2 + i + 1)

intent times(u: List[Float]) -> List[Float]:
    constraints:
        - result = [sum(entry(i, j) * u[j] for j in 0..len(u)) for i in 0..len(u)]

intent times_t(u: List[Float]) -> List[Float]:
    constraints:
        - result = [sum(entry(j, i) * u[j] for j in 0..len(u)) for i in 0..len(u)]

intent ata(u: List[Float]) -> List[Float]:
    constraints:
        - result = times_t(times(u))

intent iterate(u: List[Float], k: Natural) -> List[Float]:
    constraints:
        - iterate(u, 0) = u
        - iterate(u, k) = iterate(ata(u), k - 1)

intent nine_digits(x: Float) -> String:
    constraints:
        - result = str(round(x * 10.0 ^ 9) / 10.0 ^ 9)

intent ones(n: Natural) -> List[Float]:
    constraints:
        - result = [1.0 for i in 0..n]

intent dot(u: List[Float], v: List[Float]) -> Float:
    constraints:
        - result = sum(u[i] * v[i] for i in 0..len(u))

intent norm(n: Natural) -> String:
    constraints:
        - result = nine_digits(sqrt(dot(ata(iterate(ones(n), 9)), iterate(ones(n), 9)) / dot(iterate(ones(n), 9), iterate(ones(n), 9))))
