// An order-2 linear recurrence (Pell numbers): bench/regret.
intent pell(n: Natural) -> Natural:
    constraints:
        - pell(0) = 0
        - pell(1) = 1
        - pell(n) = 2 * pell(n-1) + pell(n-2)
