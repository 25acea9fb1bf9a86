intent sum_even_squares(n: Natural) -> Natural:
    constraints:
        - result = sum(x*x for x in 0..n if even(x))

intent stats(xs: List[Int]) -> Int:
    constraints:
        - result = max(x for x in xs) - min(x for x in xs) + count(x for x in xs if x > 0)
        - product(k for k in 1..=3) = 6
        - result = sum(xs[i] * 2 ^ i for i in 0..len(xs))
