# Candidate rewrites for the prover (tests/unit/prove_test.c). An intent
# `NAME__ok_K` is a rewrite of NAME that must be proved; `NAME__bad_K` one
# that must be rejected. `NAME__bad_K` intents whose name ends in `_cex`
# must be refuted with a counterexample, not merely left unproved.

intent add(a: Int, b: Int) -> Int:
    constraints:
        - result = a + b
intent add__ok_1(a: Int, b: Int) -> Int:
    constraints:
        - result = b + a

intent sub(a: Int, b: Int) -> Int:
    constraints:
        - result = a - b
intent sub__bad_1_cex(a: Int, b: Int) -> Int:
    constraints:
        - result = b - a

intent double(x: Int) -> Int:
    constraints:
        - result = x * 2
intent double__ok_1(x: Int) -> Int:
    constraints:
        - result = x + x
intent double__bad_1_cex(x: Int) -> Int:
    constraints:
        - result = x * x

intent square_sum(a: Int, b: Int) -> Int:
    constraints:
        - result = (a + b) * (a + b)
intent square_sum__ok_1(a: Int, b: Int) -> Int:
    constraints:
        - result = a * a + 2 * a * b + b * b
intent square_sum__ok_2(a: Int, b: Int) -> Int:
    constraints:
        - result = (a + b) ^ 2
intent square_sum__bad_1_cex(a: Int, b: Int) -> Int:
    constraints:
        - result = a * a + b * b

intent magnitude(x: Int) -> Natural:
    constraints:
        - result = abs(x)
intent magnitude__ok_1(x: Int) -> Natural:
    constraints:
        - result = if x >= 0 then x else -x
intent magnitude__ok_2(x: Int) -> Natural:
    constraints:
        - result = max(x, -x)
intent magnitude__bad_1_cex(x: Int) -> Natural:
    constraints:
        - result = x

intent bigger(a: Int, b: Int) -> Int:
    constraints:
        - result = max(a, b)
intent bigger__ok_1(a: Int, b: Int) -> Int:
    constraints:
        - result = if a >= b then a else b
intent bigger__ok_2(a: Int, b: Int) -> Int:
    constraints:
        - result = a + b - min(a, b)
intent bigger__bad_1_cex(a: Int, b: Int) -> Int:
    constraints:
        - result = if a > b then b else a

intent triangle(n: Natural) -> Natural:
    constraints:
        - result = n * (n + 1) div 2
intent triangle__ok_1(n: Natural) -> Natural:
    constraints:
        - result = (n * n + n) div 2
intent triangle__bad_1_cex(n: Natural) -> Natural:
    constraints:
        - result = n * (n - 1) div 2

intent fold10() -> Natural:
    constraints:
        - result = sum(k * k for k in 0..10)
intent fold10__ok_1() -> Natural:
    constraints:
        - result = 285
intent fold10__bad_1_cex() -> Natural:
    constraints:
        - result = 385

intent below(a: Int, b: Int) -> Bool:
    constraints:
        - result = a < b
intent below__ok_1(a: Int, b: Int) -> Bool:
    constraints:
        - result = not (a >= b)
intent below__bad_1_cex(a: Int, b: Int) -> Bool:
    constraints:
        - result = a <= b

intent is_even(n: Int) -> Bool:
    constraints:
        - result = even(n)
intent is_even__ok_1(n: Int) -> Bool:
    constraints:
        - result = not odd(n)
intent is_even__bad_1_cex(n: Int) -> Bool:
    constraints:
        - result = n mod 4 = 0

intent halve(x: Int) -> Int:
    constraints:
        - result = x div 2
intent halve__ok_1(x: Int) -> Int:
    constraints:
        - result = (x - x mod 2) div 2
intent halve__bad_1_cex(x: Int) -> Int:
    constraints:
        - result = (x + 1) div 2

intent fib(n: Natural) -> Natural:
    constraints:
        - fib(0) = 0
        - fib(1) = 1
        - fib(n) = fib(n - 1) + fib(n - 2)
intent fib__ok_1(n: Natural) -> Natural:
    constraints:
        - f(0) = 0
        - f(1) = 1
        - f(n) = f(n - 2) + f(n - 1)
intent fib__ok_2(n: Natural) -> Natural:
    constraints:
        - result = if n < 2 then n else fib__ok_2(n - 1) + fib__ok_2(n - 2)
intent fib__bad_1(n: Natural) -> Natural:
    constraints:
        - f(0) = 0
        - f(1) = 1
        - f(n) = f(n - 1) + 2 * f(n - 2)
intent fib__bad_2_cex(n: Natural) -> Natural:
    constraints:
        - f(0) = 0
        - f(1) = 2
        - f(n) = f(n - 1) + f(n - 2)
intent fib__bad_3(n: Natural) -> Natural:
    constraints:
        - f(0) = 0
        - f(1) = 1
        - f(n) = f(n) when n > 100
        - f(n) = f(n - 1) + f(n - 2)

intent countdown(n: Natural) -> Natural:
    constraints:
        - countdown(0) = 0
        - countdown(n) = countdown(n - 1)
intent countdown__bad_1(n: Natural) -> Natural:
    constraints:
        - c(0) = 0
        - c(n) = c(n + 1) when n > 5
        - c(n) = c(n - 1)

intent sum_squares(xs: List[Int]) -> Int:
    constraints:
        - result = sum(x ^ 2 for x in xs)
intent sum_squares__bad_1(xs: List[Int]) -> Int:
    constraints:
        - result = if len(xs) = 0 then 0 else xs[len(xs) - 1] ^ 2 * len(xs)
