intent in_range(a: Int, x: Int, b: Int) -> Bool:
    constraints:
        - result = a <= x < b
        - result = (0 < a <= x) or not (x != b >= a > 0)

intent between(lo: Int, hi: Int) -> List[Int]:
    constraints:
        - result contains all x where lo <= x <= hi and x != 0
        - result is sorted ascending
