# Equations on lists and strings whose guards compare lengths only: the
# solver sees each parameter through its length, and the conjuncts it
# cannot read (a[0] <= b[0]) are left out, so these never meet and check
# without a warning
intent total(xs: List[Int]) -> Int:
    constraints:
        - total(xs) = 0 when len(xs) = 0
        - total(xs) = xs[0] + total(xs[1..len(xs)]) when len(xs) > 0

intent letters(s: String) -> Natural:
    constraints:
        - letters(s) = 0 when len(s) = 0
        - letters(s) = 1 + letters(s[1..len(s)]) when len(s) > 0

intent halves(xs: List[Int]) -> List[Int]:
    constraints:
        - halves(xs) = xs when len(xs) <= 1
        - halves(xs) = halves(xs[0..len(xs) div 2]) ++ halves(xs[len(xs) div 2..len(xs)]) when len(xs) > 1

intent pick(a: List[Int], b: List[Int]) -> Int:
    constraints:
        - pick(a, b) = 0 when len(a) = 0
        - pick(a, b) = a[0] when len(a) > 0 and len(b) > 0 and a[0] <= b[0]
        - pick(a, b) = b[0] when len(a) > 0 and len(b) = 0
