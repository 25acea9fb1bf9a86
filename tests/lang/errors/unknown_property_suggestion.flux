# a misspelt property gets a suggestion as well as the list
intent add(a: Int, b: Int) -> Int:
    constraints:
        - result = a + b
    properties:
        - comutative
