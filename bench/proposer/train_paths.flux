// Lattice paths: a two-argument recursion with repeated sub-calls (memoizable).
// call: paths(9, 9)
// call: paths(10, 9)
// call: paths(10, 10)
intent paths(r: Natural, c: Natural) -> Natural:
    constraints:
        - paths(0, c) = 1
        - paths(r, 0) = 1
        - paths(r, c) = paths(r-1, c) + paths(r, c-1)
