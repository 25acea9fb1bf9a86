# Intents for the simplifying rules (tests/unit/rules_simplify_test.c):
# constant folding, common sub-expression elimination, dead code elimination.

# 60 * 60 is one constant; x * 1 and + 0 go.
intent seconds(hours: Int) -> Int:
    constraints:
        - result = hours * (60 * 60) * 1 + 0

# Big integers fold exactly, beyond 64 bits.
intent big(x: Int) -> Int:
    constraints:
        - result = x + 4294967296 * 4294967296 * 4294967296 - 3 * 5 ^ 16

# An untaken branch is dropped, its division by zero with it.
intent dead_branch(n: Int) -> Int:
    constraints:
        - result = if 2 > 3 then 1 div 0 else n * 1 + (2 ^ 10 - 24)

# A division by zero under a condition that depends on n stays as it is.
intent guarded(n: Int) -> Int:
    constraints:
        - result = if n > 5 then 1 div 0 else n + 0

# and/or decided by a constant left side.
intent logic(a: Bool, n: Int) -> Bool:
    constraints:
        - result = (1 < 2 and a) or (not true and n div 0 = 1)

# f(n-1) + f(n-1): two identical calls, 2^n of them; one after CSE.
intent doubling(n: Natural) -> Natural:
    constraints:
        - doubling(0) = 1
        - doubling(n) = doubling(n - 1) + doubling(n - 1)

# The outer n * n runs whenever the branch's does: the branch may read it.
intent outer_first(n: Int) -> Int:
    constraints:
        - result = n * n + (if n > 0 then n * n else 0)

# The same, the branch written first.
intent branch_first(n: Int) -> Int:
    constraints:
        - result = (if n > 0 then n * n else 0) + n * n

# 100 div n in two sibling branches: neither runs whenever the other
# does (both are skipped for n = 0), so they stay apart.
intent siblings(n: Int) -> Int:
    constraints:
        - result = (if n = 0 then 0 else 100 div n) + (if n = 0 then 1 else 100 div n)

# A division inside a loop body that may not run (xs empty) must not be
# merged with anything outside it, nor moved out.
intent loop_body(xs: List[Int], d: Int) -> Int:
    constraints:
        - result = sum(x div d for x in xs) + sum(x div d for x in xs)

# Two equal conditionals in one region merge whole, branches included.
intent twin_ifs(n: Natural) -> Natural:
    constraints:
        - result = (if n > 3 then n div 2 else n) * (if n > 3 then n div 2 else n)

# Folding uncovers a duplicate: n * 1 + n is n + n.
intent fold_then_cse(n: Int) -> Int:
    constraints:
        - result = (n * 1 + 7) * (n + (3 + 4))

# f(n) * 0 is not 0 where f fails (pred(0) breaks its postcondition);
# n * 0 is.
intent times_zero(n: Int) -> Int:
    constraints:
        - result = n * 0 + pred(n) * 0

intent pred(n: Int) -> Int:
    constraints:
        - result = n - 1
        - result >= 0

// a shared call first computed among another call's arguments: computed
// once, though the callee's frame is where the arguments were
intent square_of(n: Int) -> Int:
    constraints:
        - result = n * n

intent plus_one(a: Int, b: Int) -> Int:
    constraints:
        - result = a + b + 1

intent shared_argument(n: Int) -> Int:
    constraints:
        - result = plus_one(square_of(n), square_of(n)) + square_of(n)
