# a string must end on its line
intent hello() -> String:
    constraints:
        - result = "hello
