# columns count characters, not bytes: `≤` is one column
intent f(n: Natural) -> List[Natural]:
    constraints:
        - result contains all p where 2 ≤ p ≤ n and q > 1
