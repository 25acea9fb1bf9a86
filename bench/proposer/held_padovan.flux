// A third-order recurrence with a gap: f(n) = f(n-2) + f(n-3).
// call: gap3(30)
// call: gap3(32)
// call: gap3(34)
intent gap3(n: Natural) -> Natural:
    constraints:
        - gap3(0) = 1
        - gap3(1) = 1
        - gap3(2) = 1
        - gap3(n) = gap3(n-2) + gap3(n-3)
