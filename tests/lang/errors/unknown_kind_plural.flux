# The plural rule: `widgets` names `widget`, and neither exists.
intent w(n: Natural) -> List[Natural]:
    constraints:
        - result contains all widgets w where 0 <= w < n
