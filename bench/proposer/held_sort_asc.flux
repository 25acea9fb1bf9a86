// An ascending sort of integer lists.
// call: sort_up(LIST(450, 7))
// call: sort_up(LIST(550, 8))
// call: sort_up(LIST(650, 9))
intent sort_up(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending
