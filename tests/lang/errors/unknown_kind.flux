# the kind of a comprehension must name a predicate in scope
intent widgets_below(n: Natural) -> List[Natural]:
    constraints:
        - result contains all widget w where 0 <= w < n
