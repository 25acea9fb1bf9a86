# a latency bound needs a time unit
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    performance_hints:
        - latency < 100
