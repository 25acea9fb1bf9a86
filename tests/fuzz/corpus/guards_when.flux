intent collatz_steps(n: Natural) -> Natural:
    constraints:
        - steps(1) = 0
        - steps(n) = 1 + steps(n div 2) when n mod 2 = 0
        - steps(n) = 1 + steps(3 * n + 1) when n mod 2 = 1 and n > 1
    properties:
        - total (assumed, not proven)

intent clamp(x: Int, lo: Int, hi: Int) -> Int:
    constraints:
        - result = lo when x < lo
        - result = hi when x > hi
        - result = x
