# a quantifier's condition follows `:`
intent f(xs: List[Int]) -> Bool:
    constraints:
        - result = forall x in xs x > 0
