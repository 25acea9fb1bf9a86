// A fourth-order recurrence.
// call: tetra4(16)
// call: tetra4(17)
// call: tetra4(18)
intent tetra4(n: Natural) -> Natural:
    constraints:
        - tetra4(0) = 0
        - tetra4(1) = 0
        - tetra4(2) = 0
        - tetra4(3) = 1
        - tetra4(n) = tetra4(n-1) + tetra4(n-2) + tetra4(n-3) + tetra4(n-4)
