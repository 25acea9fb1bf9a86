# `latency` needs a bound such as `latency < 100ms`
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    performance_hints:
        - latency
