# A comprehension whose condition has a conjunct `E = x` where E mentions
# x: the checker does not count it as a bound of x (the chain `x <= n`
# bounds it), but the lowering takes it for one and meets x unbound. The
# same with `x in 0..x + 1` (gen_fuzz seed 1801).
# Known, fixed on main (16a9925); found again by gen_fuzz.
# run: flux run 001-comp-eq-var.flux 'f(3)'
# symptom: flux: internal error at src/graph/lower.c:155: unresolved name `x` reached lowering (abort)
# probe: run f(3) => [0, 1, 2, 3]
# avoid: comp-eq-var
intent f(n: Natural) -> List[Natural]:
    constraints:
        - result contains all x where x <= n and x * 1 = x
