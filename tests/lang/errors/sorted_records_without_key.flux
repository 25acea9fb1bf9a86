# records have no order of their own; `by` gives one
type P = { x: Int }

intent f(ps: List[P]) -> List[P]:
    constraints:
        - result is a permutation of ps
        - result is sorted ascending
