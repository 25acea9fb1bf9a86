# `memory` needs a size unit
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    performance_hints:
        - memory < 512
