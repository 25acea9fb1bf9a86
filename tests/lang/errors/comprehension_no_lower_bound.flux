# an Int comprehension variable also needs a lower bound
intent below(n: Int) -> List[Int]:
    constraints:
        - result contains all x where x < n
