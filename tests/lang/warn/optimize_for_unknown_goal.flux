# `optimize_for` takes energy, latency or throughput
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    performance_hints:
        - optimize_for speed
