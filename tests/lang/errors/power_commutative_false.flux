# a power is not commutative; its exponent is a parameter, not a constant
intent pow_of(b: Natural, e: Natural) -> Natural:
    constraints:
        - result = b ^ e
    properties:
        - commutative
