// A second-order recurrence with a coefficient.
// call: pell2(20)
// call: pell2(21)
// call: pell2(22)
intent pell2(n: Natural) -> Natural:
    constraints:
        - pell2(0) = 0
        - pell2(1) = 1
        - pell2(n) = 2 * pell2(n-1) + pell2(n-2)
