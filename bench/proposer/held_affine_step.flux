// An affine fold with a step (a closed form).
// call: step_total(200000, 4)
// call: step_total(300000, 6)
// call: step_total(250000, 2)
intent step_total(n: Natural, k: Int) -> Int:
    constraints:
        - result = sum(7 * i - k for i in 0..n)
