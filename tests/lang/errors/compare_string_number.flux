# a string cannot be compared with a number
intent is_zero(s: String) -> Bool:
    constraints:
        - result = s = 0
