// Binomial coefficients by Pascal's rule (memoizable).
// call: choose(20, 10)
// call: choose(21, 10)
// call: choose(22, 11)
intent choose(n: Natural, k: Natural) -> Natural:
    constraints:
        - choose(n, 0) = 1
        - choose(0, k) = if k = 0 then 1 else 0
        - choose(n, k) = choose(n-1, k-1) + choose(n-1, k)
