# without an unguarded equation, some argument is covered by none
intent sign_word(n: Int) -> Int:
    constraints:
        - sign_word(n) = 1 when n > 0
        - sign_word(n) = -1 when n < 0
