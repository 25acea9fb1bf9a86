# the library functions check their arguments' kinds and number
intent f(s: String, n: Int, xs: List[Int]) -> String:
    constraints:
        - result = upper(n) ++ join(xs, ",") ++ replace(s, "a")
        - len(split(s, ",", " ")) = 1
        - find(s, 1) >= int(true)
        - float(xs) > 0.0
        - reverse(n) = reverse(s)
