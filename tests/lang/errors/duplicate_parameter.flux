# parameter names are distinct
intent add(a: Int, a: Int) -> Int:
    constraints:
        - result = a + a
