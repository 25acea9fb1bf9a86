intent big() -> Int:
    constraints:
        - result = 354224848179261915075 + 10^9 - 1e-9 * 1.5 + 2^3^2
        - result != -(-7) div 2 mod 3 % 4
        - [1, 2, 3] ++ [] ++ [len("a\"b\\c\n")] = [1, 2, 3, 1]
        - "" = "" and true or false
