// Shapes no rule knows, for the native tier's benchmark (bench/native.sh)
// and test (tests/cli/native.sh): each stays a graph of fine nodes, which
// only native code makes fast.

// The naive recursion (bench/fib.flux's).
intent fib(n: Natural) -> Natural:
    constraints:
        - fib(0) = 0
        - fib(1) = 1
        - fib(n) = fib(n - 1) + fib(n - 2)

// A guarded recurrence of two arguments: a walk that steps down by 1 or 2
// as a guard says, folding its path into a checksum.
intent walk(a: Int, h: Int) -> Int:
    constraints:
        - walk(a, h) = if a <= 0 then h else if a mod 3 = 0 then walk(a - 1, (h * 31 + a) mod 1000003) else walk(a - 2, (h * 7 + 2 * a + 1) mod 1000003)

// A fold with a condition over a range.
intent odd_squares(n: Natural) -> Int:
    constraints:
        - result = sum(i * i mod 65521 for i in 0..n if i mod 3 != 1)

// An element-wise map over floats, and the list it maps.
intent ramp(n: Natural) -> List[Float]:
    constraints:
        - result = [float(i) * 0.5 - 7.25 for i in 0..n]

intent smooth(xs: List[Float]) -> List[Float]:
    constraints:
        - result = [sqrt(x * x + 1.0) * 2.5 - x / 3.0 for x in xs]
