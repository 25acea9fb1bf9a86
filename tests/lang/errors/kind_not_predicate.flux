# the kind of a comprehension must be a predicate (one parameter, Bool)
intent squares(n: Natural) -> List[Natural]:
    constraints:
        - result contains all abs x where 0 <= x < n
