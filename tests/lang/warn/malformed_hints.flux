# Hint lines that do not read as hints are warnings, and the file is accepted.
intent f(n: Int) -> Int:
    constraints:
        - result = n
    performance_hints:
        - latency < 5 parsecs
        - latency < 100 ms
        - if GPU_available prefer_gpu
        - 42
        - memory < 10^9B
        - prefer_parallel
