// The Computer Language Benchmarks Game's spectral-norm: the spectral norm
// of the infinite matrix A with a(i, j) = 1 / ((i + j)(i + j + 1) / 2 + i + 1),
// truncated to n x n, by 10 rounds of the power method on AᵀA
// (each round v = AᵀA u, then u = AᵀA v: AᵀA 19 times to v, once more to
// u), printed as "%.9f" prints it.
//   flux run examples/benchmarks/spectral_norm.flux 'spectral_norm(100)'   "1.274219991"

intent a(i: Natural, j: Natural) -> Float:
    constraints:
        - result = 1.0 / ((i + j) * (i + j + 1) div 2 + i + 1)

// A u
intent times(u: List[Float]) -> List[Float]:
    constraints:
        - result = [sum(a(i, j) * u[j] for j in 0..len(u)) for i in 0..len(u)]

// Aᵀ u
intent times_transposed(u: List[Float]) -> List[Float]:
    constraints:
        - result = [sum(a(j, i) * u[j] for j in 0..len(u)) for i in 0..len(u)]

intent times_ata(u: List[Float]) -> List[Float]:
    constraints:
        - result = times_transposed(times(u))

// AᵀA applied k times to u
intent power(u: List[Float], k: Natural) -> List[Float]:
    constraints:
        - power(u, 0) = u
        - power(u, k) = power(times_ata(u), k - 1)

intent dot(u: List[Float], v: List[Float]) -> Float:
    constraints:
        - result = sum(u[i] * v[i] for i in 0..len(u))

// sqrt(uᵀv / vᵀv) with u = AᵀA v
intent ratio(u: List[Float], v: List[Float]) -> Float:
    constraints:
        - result = sqrt(dot(u, v) / dot(v, v))

intent estimate(v: List[Float]) -> Float:
    constraints:
        - result = ratio(times_ata(v), v)

// x rounded to 9 digits after the point, as C's "%.9f" rounds it (the
// double nearest those digits prints as exactly them, trailing zeros aside)
intent nine_digits(x: Float) -> String:
    constraints:
        - result = str(round(x * 10.0 ^ 9) / 10.0 ^ 9)

intent spectral_norm(n: Natural) -> String:
    constraints:
        - result = nine_digits(estimate(power([1.0 for i in 0..n], 19)))
