# unary `-` needs a number
intent f(s: String) -> String:
    constraints:
        - result = -s
