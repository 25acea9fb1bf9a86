# guards on a list's length that overlap (len(xs) = 2 meets both): the
# values cannot be compared, so it is a warning, and the first applies
intent both(xs: List[Int]) -> Int:
    constraints:
        - both(xs) = 0 when len(xs) <= 2
        - both(xs) = xs[0] + both(xs[1..len(xs)]) when len(xs) > 1
