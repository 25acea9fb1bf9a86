# A comprehension over a variable bounded by `x in xs` (docs/language.md
# §4 counts `v in ...` as both bounds) crashes when it runs.
# Known, fixed on main (16a9925); found again by gen_fuzz.
# run: flux run 002-comp-in-list.flux 'g([1, -2, 3])'
# symptom: SIGSEGV
# probe: run g([1, -2, 3]) => [1, 3]
# avoid: comp-in-list
intent g(xs: List[Int]) -> List[Int]:
    constraints:
        - result contains all x where x in xs and x > 0
