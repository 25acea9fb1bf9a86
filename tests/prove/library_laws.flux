// Rewrites over the numeric library (docs/prover.md, "Library functions"):
// two that only the laws of isqrt and log2 prove, one true but beyond
// them, one false, and two over Floats, which are never proved.

intent root_fits(n: Natural) -> Bool:
    constraints:
        - result = isqrt(n) * isqrt(n) <= n

intent root_fits__law(n: Natural) -> Bool:
    constraints:
        - result = true

intent roots_ordered(a: Natural, b: Natural) -> Bool:
    constraints:
        - result = if a <= b then isqrt(a) <= isqrt(b) else log2(a + 1) >= log2(b + 1)

intent roots_ordered__law(a: Natural, b: Natural) -> Bool:
    constraints:
        - result = true

intent twice(n: Natural) -> Natural:
    constraints:
        - result = log2(2 * n + 2)

intent twice__power(n: Natural) -> Natural:
    constraints:
        - result = log2(n + 1) + 1

intent half_root(n: Natural) -> Natural:
    constraints:
        - result = isqrt(n)

intent half_root__wrong(n: Natural) -> Natural:
    constraints:
        - result = n div 2

intent square(x: Float) -> Float:
    constraints:
        - result = sqrt(x) * sqrt(x)

intent square__real(x: Float) -> Float:
    constraints:
        - result = x

intent down(x: Float) -> Bool:
    constraints:
        - result = floor(x) <= x

intent down__law(x: Float) -> Bool:
    constraints:
        - result = true
