# negation is not monotone
intent neg(x: Int) -> Int:
    constraints:
        - result = -x
    properties:
        - monotone
