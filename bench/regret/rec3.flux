// An order-3 linear recurrence (tribonacci): bench/regret.
intent trib(n: Natural) -> Natural:
    constraints:
        - trib(0) = 0
        - trib(1) = 0
        - trib(2) = 1
        - trib(n) = trib(n-1) + trib(n-2) + trib(n-3)
