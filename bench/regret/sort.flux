// The sort of integers: bench/regret.
intent sort_ints(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending
