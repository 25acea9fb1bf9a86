# a file with CRLF line ends reports the same positions
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * m
