// A second-order recurrence with a coefficient on the older term.
// call: jac(20)
// call: jac(21)
// call: jac(22)
intent jac(n: Natural) -> Natural:
    constraints:
        - jac(0) = 0
        - jac(1) = 1
        - jac(n) = jac(n-1) + 2 * jac(n-2)
