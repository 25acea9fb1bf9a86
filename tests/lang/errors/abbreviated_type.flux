# An abbreviated type name gets a suggestion; so does a transposed function name.
intent r(n: Nat) -> Natural:
    constraints:
        - result = gdc(n, n)
