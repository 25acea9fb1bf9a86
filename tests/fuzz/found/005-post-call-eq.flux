# A postcondition that starts with a call of another function and `=` is
# taken for a defining equation, whose right side then runs to the end of
# the line: `len(result) = 2 or true` is checked as
# `len(result) = (2 or true)`, and the program is rejected, although `or`
# binds looser than `=` (docs/language.md §5) and §4 says such a line is
# an ordinary equality. Found by gen_fuzz (seed 6).
# run: flux check 005-post-call-eq.flux
# symptom: exit 3: cannot compare Natural with Bool using `=` (want exit 0)
# probe: check
# avoid: post-call-eq
intent f(xs: List[Int]) -> List[Int]:
    constraints:
        - result = xs
        - len(result) = 2 or true
