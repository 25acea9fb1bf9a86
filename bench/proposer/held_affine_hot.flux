// An affine fold asked again for the same arguments (closed form, and a
// table of recurring inputs).
// call: affine_again(300000, 9)
// call: affine_again(300000, 9)
// call: affine_again(300000, 9)
// call: affine_again(150000, 9)
// call: affine_again(300000, 9)
intent affine_again(n: Natural, k: Int) -> Int:
    constraints:
        - result = sum(3 * i + k for i in 0..n)
