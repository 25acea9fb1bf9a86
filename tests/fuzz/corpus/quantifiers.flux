intent is_prime(p: Natural) -> Bool:
    constraints:
        - result = p >= 2 and forall d in 2..p: p mod d != 0

intent contains_zero(xs: List[Int]) -> Bool:
    constraints:
        - result = exists x in xs: x = 0
        - result = exists i in 0..len(xs): forall j in 0..i: xs[j] != 0 and xs[i] = 0
