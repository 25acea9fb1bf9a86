# `\q` is not an escape sequence
intent f() -> String:
    constraints:
        - result = "a\qb"
