# A comprehension variable that reuses a parameter's name.
intent q(n: Natural) -> List[Natural]:
    constraints:
        - result contains all n where 0 <= n < 10
