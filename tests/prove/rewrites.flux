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

intent distribute(x: Int, y: Int, z: Int) -> Int:
    constraints:
        - result = x * (y + z)
intent distribute__ok_1(x: Int, y: Int, z: Int) -> Int:
    constraints:
        - result = x * y + x * z
intent distribute__bad_1_cex(x: Int, y: Int, z: Int) -> Int:
    constraints:
        - result = x * y + z

intent pick(b: Bool, x: Int, y: Int) -> Int:
    constraints:
        - result = if b then x else y
intent pick__ok_1(b: Bool, x: Int, y: Int) -> Int:
    constraints:
        - result = if not b then y else x
intent pick__bad_1_cex(b: Bool, x: Int, y: Int) -> Int:
    constraints:
        - result = if b then y else x

intent smaller(a: Int, b: Int) -> Int:
    constraints:
        - result = min(a, b)
intent smaller__ok_1(a: Int, b: Int) -> Int:
    constraints:
        - result = if a <= b then a else b
intent smaller__bad_1_cex(a: Int, b: Int) -> Int:
    constraints:
        - result = if a < b then b else a

intent parity_known(a: Int) -> Bool:
    constraints:
        - result = a mod 2 = 0 or a mod 2 = 1
intent parity_known__ok_1(a: Int) -> Bool:
    constraints:
        - result = true
intent parity_known__bad_1_cex(a: Int) -> Bool:
    constraints:
        - result = a mod 2 = 0

intent eighth(x: Int) -> Int:
    constraints:
        - result = (x div 4) div 2
intent eighth__ok_1(x: Int) -> Int:
    constraints:
        - result = x div 8
intent eighth__bad_1_cex(x: Int) -> Int:
    constraints:
        - result = (x div 2) div 2

intent negneg(x: Int) -> Int:
    constraints:
        - result = -(-x)
intent negneg__ok_1(x: Int) -> Int:
    constraints:
        - result = x
intent negneg__bad_1_cex(x: Int) -> Int:
    constraints:
        - result = -x

intent scaled(x: Int) -> Int:
    constraints:
        - result = sum(i for i in 0..=4) * x
intent scaled__ok_1(x: Int) -> Int:
    constraints:
        - result = 10 * x
intent scaled__bad_1_cex(x: Int) -> Int:
    constraints:
        - result = 10 * x + 1

intent divisible35() -> Bool:
    constraints:
        - result = forall d in 2..7: 35 mod d != 0
intent divisible35__ok_1() -> Bool:
    constraints:
        - result = false
intent divisible35__bad_1_cex() -> Bool:
    constraints:
        - result = true

intent signed(x: Int) -> Int:
    constraints:
        - result = sign(x) * abs(x)
intent signed__ok_1(x: Int) -> Int:
    constraints:
        - result = x
intent signed__bad_1_cex(x: Int) -> Int:
    constraints:
        - result = abs(x)

intent either(a: Bool, b: Bool) -> Bool:
    constraints:
        - result = not (not a and not b)
intent either__ok_1(a: Bool, b: Bool) -> Bool:
    constraints:
        - result = a or b
intent either__bad_1_cex(a: Bool, b: Bool) -> Bool:
    constraints:
        - result = a and b

intent power(b: Int, e: Natural) -> Int:
    constraints:
        - power(b, 0) = 1
        - power(b, e) = b * power(b, e - 1)
intent power__ok_1(b: Int, e: Natural) -> Int:
    constraints:
        - result = if e = 0 then 1 else b * power__ok_1(b, e - 1)
intent power__bad_1(b: Int, e: Natural) -> Int:
    constraints:
        - p(b, 0) = 1
        - p(b, e) = b * p(b, e - 2)

intent euclid(a: Natural, b: Natural) -> Natural:
    constraints:
        - euclid(a, 0) = a
        - euclid(a, b) = euclid(b, a mod b)
intent euclid__ok_1(a: Natural, b: Natural) -> Natural:
    constraints:
        - result = if b = 0 then a else euclid__ok_1(b, a mod b)
intent euclid__bad_1(a: Natural, b: Natural) -> Natural:
    constraints:
        - e(a, 0) = a
        - e(a, b) = e(a mod b, b)

# Folds for the reassociation check (a parallel reduction), not rewrites.
intent int_total(n: Natural) -> Int:
    constraints:
        - result = sum(k * k for k in 0..n)
intent float_total(xs: List[Float]) -> Float:
    constraints:
        - result = sum(x for x in xs)
intent float_smallest(xs: List[Float]) -> Float:
    constraints:
        - result = min(x for x in xs)
intent all_even(xs: List[Int]) -> Bool:
    constraints:
        - result = forall x in xs: even(x)

# Linear recurrences for the lemma-instance check (certificates in prove_test.c).
intent pell(n: Natural) -> Natural:
    constraints:
        - pell(0) = 0
        - pell(1) = 1
        - pell(n) = 2 * pell(n - 1) + pell(n - 2)
intent tribonacci(n: Natural) -> Natural:
    constraints:
        - t(0) = 0
        - t(1) = 0
        - t(2) = 1
        - t(n) = t(n - 1) + t(n - 2) + t(n - 3)
intent padovan(n: Natural) -> Natural:
    constraints:
        - result = if n < 3 then 1 else padovan(n - 2) + padovan(n - 3)

intent sort(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending
intent sort__bad_1(xs: List[Int]) -> List[Int]:
    constraints:
        - result contains all xs where x > -1000000
        - result is sorted ascending

# Failure counts: a rewrite that drops a computation that can fail (here a
# division by zero at n = 0, then multiplied by 0) computes a value where
# the intent fails, and is refuted by the definedness obligation; one that
# keeps the failure is proved.
intent zeroed(n: Int) -> Int:
    constraints:
        - result = (10 div n) * 0 + 1
intent zeroed__bad_1_cex(n: Int) -> Int:
    constraints:
        - result = 1
intent zeroed__ok_1(n: Int) -> Int:
    constraints:
        - result = 1 + 0 * (10 div n)

# A Natural result: the intent fails where the difference is negative; a
# candidate that clamps it at 0 gives a value there instead.
intent gap(a: Natural, b: Natural) -> Natural:
    constraints:
        - result = a - b
intent gap__bad_1_cex(a: Natural, b: Natural) -> Natural:
    constraints:
        - result = max(a - b, 0)

# Both sides fail alike (a division by zero): both failing is agreement,
# whatever value the solver would give a division by zero. Each was refuted
# before with a counterexample that does not reproduce ("a = 0, b = 0: the
# current version gives -1, the candidate 0", where both fail).
intent remainder(a: Int, b: Int) -> Int:
    constraints:
        - result = a mod b
intent remainder__ok_1(a: Int, b: Int) -> Int:
    constraints:
        - result = a - b * (a div b)
intent ratio(a: Int, b: Int) -> Int:
    constraints:
        - result = a div b + 1
intent ratio__ok_1(a: Int, b: Int) -> Int:
    constraints:
        - result = (a + b) div b
intent ratio__bad_1_cex(a: Int, b: Int) -> Int:
    constraints:
        - result = (a + 1) div b
intent never(x: Int, n: Int) -> Int:
    constraints:
        - result = x div (n - n)
intent never__ok_1(x: Int, n: Int) -> Int:
    constraints:
        - result = (x + 1) div 0
