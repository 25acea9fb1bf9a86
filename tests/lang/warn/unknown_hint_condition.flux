# an unknown condition in a hint is a warning; the hint is treated as off
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    performance_hints:
        - if TPU_available then prefer_parallel
