# a size may name a parameter only when it is a Natural: its value
intent square(x: Int) -> Matrix[x, x]:
    constraints:
        - result[i, j] = 1.0
