# misspelt library functions are suggested; `sqrt` is no misspelt `str`
intent k(s: String) -> String:
    constraints:
        - result = uper(s) ++ revers(s) ++ startswith(s) ++ sqrt(s)
