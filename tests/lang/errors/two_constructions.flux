# the result is built one way: here a comprehension and an equation
intent evens(n: Natural) -> List[Natural]:
    constraints:
        - result contains all x where 0 <= x < n and even(x)
        - result = [0]
