# misspelt library functions are suggested (`cbrt`, a cube root the library lacks, is nearest `sqrt`)
intent k(s: String) -> String:
    constraints:
        - result = uper(s) ++ revers(s) ++ startswith(s) ++ cbrt(s)
