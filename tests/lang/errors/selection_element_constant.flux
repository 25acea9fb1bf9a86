# `e` without a field is Euler's constant, so the condition names no element
intent big(xs: List[Int]) -> List[Int]:
    constraints:
        - result contains all xs where e > 1
