# a string is indexed by one position; a slice takes one range of integers
intent g(s: String, n: Int, m: Matrix[R, C]) -> String:
    constraints:
        - result = s[0, 1]
        - s[0..1, 2] = s["a"..2]
        - n[0..1] = 2
        - len(m[0..1]) = 1
        - s[1.5] = "x"
