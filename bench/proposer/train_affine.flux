// A fold whose body is affine in its variable (a closed form).
// call: affine_total(200000, 3)
// call: affine_total(300000, 5)
// call: affine_total(250000, 1)
intent affine_total(n: Natural, k: Int) -> Int:
    constraints:
        - result = sum(5 * i + k for i in 1..n)
