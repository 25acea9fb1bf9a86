// A fifth-order recurrence.
// call: penta5(15)
// call: penta5(16)
// call: penta5(17)
intent penta5(n: Natural) -> Natural:
    constraints:
        - penta5(0) = 0
        - penta5(1) = 0
        - penta5(2) = 0
        - penta5(3) = 0
        - penta5(4) = 1
        - penta5(n) = penta5(n-1) + penta5(n-2) + penta5(n-3) + penta5(n-4) + penta5(n-5)
