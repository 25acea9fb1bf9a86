// Delannoy numbers: a two-argument recursion with three sub-calls (memoizable).
// call: delannoy(7, 7)
// call: delannoy(8, 7)
// call: delannoy(8, 8)
intent delannoy(m: Natural, n: Natural) -> Natural:
    constraints:
        - delannoy(0, n) = 1
        - delannoy(m, 0) = 1
        - delannoy(m, n) = delannoy(m-1, n) + delannoy(m, n-1) + delannoy(m-1, n-1)
