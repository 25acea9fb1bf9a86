# a tab in the indentation is an error at the tab, even where the columns add up
intent double(n: Natural) -> Natural:
    constraints:
       	- result = 2 * n
