# (main only: `Matrix[len(u), ...]` sizes are not in this branch yet.)
# A matrix size may be the length of a list parameter (`Matrix[len(u), 2]`,
# docs/language.md §3), but not when the parameter's type is written as an
# alias of a list type: the size is then refused.
# Found by gen_fuzz against main's library with --features 0x9 (seed 1104421).
# run: flux check 013-len-size-alias.flux
# symptom: exit 3: `len(xs)`: a size is the length of a list or a string parameter (want exit 0)
# probe: check
# avoid: len-size-alias
type Names = List[Int]
intent walk(n: Int, xs: Names) -> Matrix[len(xs), 1, Int]:
    constraints:
        - result[i, j] = n
