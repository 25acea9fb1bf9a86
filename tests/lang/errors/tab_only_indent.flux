# A plain tab in place of the indentation: one error, no cascade.
intent t(n: Int) -> Int:
    constraints:
	- result = 2 * n
