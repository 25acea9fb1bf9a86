# `/` is Float division; integers use `div`
intent half(n: Natural) -> Natural:
    constraints:
        - result = n / 2
