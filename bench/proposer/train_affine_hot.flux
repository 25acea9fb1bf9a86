// An affine fold asked again for the same arguments (closed form, and a
// table of recurring inputs).
// call: affine_rep(200000, 2)
// call: affine_rep(200000, 2)
// call: affine_rep(200000, 2)
// call: affine_rep(100000, 2)
// call: affine_rep(200000, 2)
intent affine_rep(n: Natural, k: Int) -> Int:
    constraints:
        - result = sum(2 * i - k for i in 0..n)
