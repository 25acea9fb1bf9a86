// An order-4 linear recurrence, a gap in its offsets: bench/regret.
intent quad(n: Natural) -> Natural:
    constraints:
        - quad(0) = 1
        - quad(1) = 1
        - quad(2) = 2
        - quad(3) = 3
        - quad(n) = quad(n-1) + 2 * quad(n-3) + quad(n-4)
