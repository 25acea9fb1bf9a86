# the result type follows `->`
intent f(n: Int) Int:
    constraints:
        - result = n
