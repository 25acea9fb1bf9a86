# the prelude's gcd takes two arguments
intent g(a: Int) -> Natural:
    constraints:
        - result = gcd(a)
