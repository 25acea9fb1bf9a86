// The Computer Language Benchmarks Game's fannkuch-redux, with the game's
// algorithm: for every permutation of 0..n-1, in the game's order, the
// number of flips (reverse the first p[0] + 1 elements until 0 comes
// first); the checksum adds the flips of the even-numbered permutations and
// subtracts those of the odd ones. Prints the checksum, then the largest
// number of flips. The permutations are stepped through as the game's
// programs do: perm1's first r + 1 elements rotated while count[r] runs
// out. (bench/user/fannkuch.flux computes each one from its number.)
//   flux run examples/benchmarks/fannkuch_redux.flux 'fannkuch_redux(7)'
//   "228\nPfannkuchen(7) = 16"

type Totals = { checksum: Int, most: Natural }

intent flips(p: List[Natural]) -> Natural:
    constraints:
        - flips(p) = 0 when p[0] = 0
        - flips(p) = 1 + flips(reverse(p[0..p[0] + 1]) ++ p[p[0] + 1..len(p)])

// the first r + 1 elements rotated left by one
intent rotate(p: List[Natural], r: Natural) -> List[Natural]:
    constraints:
        - result = p[1..r + 1] ++ [p[0]] ++ p[r + 1..len(p)]

// count[r] one less
intent lower(count: List[Natural], r: Natural) -> List[Natural]:
    constraints:
        - result = [if i = r then count[i] - 1 else count[i] for i in 0..len(count)]

// the counts below r back to 1..r
intent reset(count: List[Natural], r: Natural) -> List[Natural]:
    constraints:
        - result = [if i < r then i + 1 else count[i] for i in 0..len(count)]

intent add(t: Totals, idx: Natural, f: Natural) -> Totals:
    constraints:
        - result = {checksum: t.checksum + (if idx mod 2 = 0 then f else -f), most: max(t.most, f)}

// at a new permutation (fresh), its flips; then the next permutation
intent walk(perm1: List[Natural], count: List[Natural], r: Natural, idx: Natural, t: Totals, n: Natural, fresh: Bool) -> Totals:
    constraints:
        - result = if fresh then walk(perm1, count, 1, idx, add(t, idx, flips(perm1)), n, false) else if r = n then t else if count[r] > 1 then walk(rotate(perm1, r), reset(lower(count, r), r), 1, idx + 1, t, n, true) else walk(rotate(perm1, r), lower(count, r), r + 1, idx, t, n, false)

intent fannkuch_redux(n: Natural) -> String:
    constraints:
        - result = report(n, walk([k for k in 0..n], reset([0 for k in 0..n], n), 1, 0, {checksum: 0, most: 0}, n, true))

intent report(n: Natural, t: Totals) -> String:
    constraints:
        - result = str(t.checksum) ++ "\nPfannkuchen(" ++ str(n) ++ ") = " ++ str(t.most)
