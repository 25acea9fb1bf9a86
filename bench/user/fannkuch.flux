// fannkuch-redux written as a user might, declaratively: each permutation
// of the benchmark's order made afresh from its number (idx in the
// factorial number system, one rotation per digit), its flips counted;
// the checksum adds the flips of the even-numbered permutations and
// subtracts those of the odd ones (examples/benchmarks/fannkuch_redux.flux
// steps from one permutation to the next, as the game's programs do; C of
// this algorithm: bench/user/fannkuch.c).
//   flux run bench/user/fannkuch.flux 'fannkuch_redux(7)'
//   "228\nPfannkuchen(7) = 16"

// p with its first k + 1 elements rotated left by d
intent rotated(p: List[Natural], k: Natural, d: Natural) -> List[Natural]:
    constraints:
        - result = p[d..k + 1] ++ p[0..d] ++ p[k + 1..len(p)]

// the permutation number idx of the benchmark's order: idx in the factorial
// number system, digit k (from n - 1 down to 1) the rotation of the first
// k + 1 elements
intent permutation(p: List[Natural], k: Natural, idx: Natural) -> List[Natural]:
    constraints:
        - permutation(p, 0, idx) = p
        - permutation(p, k, idx) = permutation(rotated(p, k, idx div factorial(k)), k - 1, idx mod factorial(k))

intent factorial(n: Natural) -> Natural:
    constraints:
        - factorial(0) = 1
        - factorial(n) = n * factorial(n - 1)

intent flips(p: List[Natural]) -> Natural:
    constraints:
        - flips(p) = 0 when p[0] = 0
        - flips(p) = 1 + flips(reverse(p[0..p[0] + 1]) ++ p[p[0] + 1..len(p)])

intent flips_at(n: Natural, idx: Natural) -> Natural:
    constraints:
        - result = flips(permutation([k for k in 0..n], n - 1, idx))

// the flips of every permutation, in the benchmark's order
intent all_flips(n: Natural) -> List[Natural]:
    constraints:
        - result = [flips_at(n, idx) for idx in 0..factorial(n)]

intent checksum(fs: List[Natural]) -> Int:
    constraints:
        - result = sum(if idx mod 2 = 0 then fs[idx] else -fs[idx] for idx in 0..len(fs))

intent report(n: Natural, fs: List[Natural]) -> String:
    constraints:
        - result = str(checksum(fs)) ++ "\nPfannkuchen(" ++ str(n) ++ ") = " ++ str(max(fs))

intent fannkuch_redux(n: Natural) -> String:
    constraints:
        - result = report(n, all_flips(n))
