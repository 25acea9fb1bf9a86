# a comprehension variable needs an upper bound
intent multiples(n: Natural) -> List[Natural]:
    constraints:
        - result contains all m where m mod n = 0
