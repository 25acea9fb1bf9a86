# a name that is neither a parameter nor a local; the parameter is suggested
intent double(count: Natural) -> Natural:
    constraints:
        - result = 2 * cout
