// A descending sort of integer lists.
// call: sort_down(LIST(400, 1))
// call: sort_down(LIST(500, 2))
// call: sort_down(LIST(600, 3))
intent sort_down(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted descending
