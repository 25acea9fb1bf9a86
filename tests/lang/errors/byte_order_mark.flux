# a UTF-8 byte order mark is not part of the program
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * m
