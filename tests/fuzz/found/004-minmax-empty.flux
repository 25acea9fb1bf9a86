# max over two generators whose inner range is empty for the first value
# of the outer one (j in 0..i with i = 0) fails with "an empty sequence",
# although the whole sequence (i + j for i in 0..3, j in 0..i) is not empty.
# Known, fixed on main (16a9925); found again by gen_fuzz.
# run: flux run 004-minmax-empty.flux 'h(3)'
# symptom: exit 1: `min`/`max` of an empty sequence (want 3)
# probe: run h(3) => 3
# avoid: minmax-empty
intent h(n: Natural) -> Natural:
    constraints:
        - result = max(i + j for i in 0..n for j in 0..i)
