# The prelude is to see only the prelude (docs/language.md §2: "its gcd
# and lcm keep calling its own abs whatever your files define"), but a
# user intent named like a prelude intent replaces it inside the prelude
# too: here `lcm` calls this `gcd`, with two integers where it takes a
# list, and `len` of an integer trips an assertion. (With a user `abs`
# that returns `0 - x`, the prelude's `gcd(-6, 4)` answers -2, a negative
# Natural.)
# Found by gen_fuzz (seed 500847).
# run: flux run 012-prelude-sees-user.flux 'f(6)'
# symptom: flux: internal error at src/exec/value.c:365: assertion failed: list.kind == FX_VAL_LIST (abort)
# probe: run f(6) => 12
# avoid: prelude-sees-user
intent gcd(n: Natural, xs: List[Int]) -> Natural:
    constraints:
        - result = len(xs)
intent f(n: Int) -> Natural:
    constraints:
        - result = lcm(n, 4)
