// A fold no rule knows, written as a user would: a helper that mixes a
// number, summed over a range.
//   flux run bench/user/fold.flux 'mixed_sum(1000000)'

intent mix(i: Natural) -> Natural:
    constraints:
        - result = (i * i) mod 7 * (i mod 3) + i div 5

intent mixed_sum(n: Natural) -> Natural:
    constraints:
        - result = sum(mix(i) for i in 0..n)
