intent square_all(xs: Stream[Int]) -> Stream[Int]:
    constraints:
        - result[i] = xs[i] ^ 2
    performance_hints:
        - latency < 100ms
        - memory < 512MB
        - if GPU_available then prefer_parallel
        - prefer_blocked_computation (cache_locality)
        - optimize_for throughput
        - optimize_for energy
        - make_it_fast (unknown hint: a warning)
    properties:
        - parallelizable
