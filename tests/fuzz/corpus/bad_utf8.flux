intent f(x: Int) -> Int:
    constraints:
        - result = x ÿş â‰
