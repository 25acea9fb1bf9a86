# `in` with a String on its right looks for a substring
intent h(s: String, n: Int) -> Bool:
    constraints:
        - result = n in s or s in n or "ab" in s
