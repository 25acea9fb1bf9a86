# the order of the result is given once
intent f(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending
        - result is sorted descending
