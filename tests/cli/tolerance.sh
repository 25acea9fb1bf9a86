# Float reassociation only under a declared tolerance: the same matrix
# product, once with `tolerance(1e-12)` and once without. Both get the
# matrix kernel, proved. Without the tolerance the answer stays v1's bit for
# bit; with it the kernel reorders the sums, explain says so and names the
# tolerance, the proof cites the bound, and each element stays within
# 1e-12 times the magnitude of its terms of v1's. A K whose bound exceeds
# the tolerance, or an entry too large to bound, keeps the order. A
# malformed tolerance is an error.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
cat > mm.flux <<'FLUX'
intent loose(A: Matrix[M,K], B: Matrix[K,N]) -> Matrix[M,N]:
    constraints:
        - result[i,j] = sum(A[i,k] * B[k,j] for k in 0..K)
    properties:
        - tolerance(1e-12)

intent strict(A: Matrix[M,K], B: Matrix[K,N]) -> Matrix[M,N]:
    constraints:
        - result[i,j] = sum(A[i,k] * B[k,j] for k in 0..K)
FLUX
python3 - <<'PY'
import random
random.seed(7)
m, k, n = 32, 50, 32
A = [[random.uniform(-1, 1) for _ in range(k)] for _ in range(m)]
B = [[random.uniform(-1, 1) for _ in range(n)] for _ in range(k)]
for name in ("loose", "strict"):
    open(name + ".expr", "w").write("%s(%s, %s)" % (name, A, B))
open("ab.py", "w").write("A = %r\nB = %r\n" % (A, B))
Big = [row[:] for row in A]
Big[0][0] = 1e300  # too large to bound: the order is kept
open("big.expr", "w").write("loose(%s, %s)" % (Big, B))
PY
# (the round measures each intent's newest run: the bounded product last)
"$FLUX" run mm.flux "$(cat big.expr)" > big.v1 || fail "v1 big"
for f in loose strict; do "$FLUX" run mm.flux "$(cat $f.expr)" > $f.v1 || fail "v1 $f"; done
out=$("$FLUX" optimize mm.flux) || fail "optimize"
case $out in *"loose: installed v2: matrix kernel (proof #"*) ;; *) fail "loose: $out" ;; esac
case $out in *"strict: installed v2: matrix kernel (proof #"*) ;; *) fail "strict: $out" ;; esac
"$FLUX" run mm.flux "$(cat strict.expr)" | cmp -s - strict.v1 || fail "strict changed"
"$FLUX" run mm.flux "$(cat loose.expr)" > loose.v2 || fail "v2 loose"
python3 - <<'PY' || fail "loose: beyond the tolerance"
exec(open("ab.py").read())
v1 = eval(open("loose.v1").read().replace("\n", " "))
v2 = eval(open("loose.v2").read().replace("\n", " "))
differ = 0
for i in range(len(A)):
    for j in range(len(B[0])):
        mag = sum(abs(A[i][q] * B[q][j]) for q in range(len(B)))
        assert abs(v1[i][j] - v2[i][j]) <= 1e-12 * mag, (i, j, v1[i][j], v2[i][j])
        differ += v1[i][j] != v2[i][j]
assert differ > 0, "no element was reordered"
PY
"$FLUX" explain mm.flux "$(cat loose.expr)" | grep -q '^|    - matmul reassociated: 32 x 50 times 50 x 32, doubles, sums reordered (FMA, blocked) under the declared tolerance 1e-12: each element within 1.1e-14 times the magnitude of its terms' ||
    fail "explain loose: $("$FLUX" explain mm.flux "$(cat loose.expr)" | grep matmul)"
"$FLUX" explain mm.flux "$(cat big.expr)" | grep -q "each sum in the definition's order (an entry is infinite, NaN, or too large or small to bound)" ||
    fail "explain big: $("$FLUX" explain mm.flux "$(cat big.expr)" | grep matmul)"
"$FLUX" run mm.flux "$(cat big.expr)" | cmp -s - big.v1 || fail "big changed"
"$FLUX" proofs mm.flux | grep -q 'matrix kernel for `loose`: accepted' || fail "proofs"
id=$("$FLUX" proofs mm.flux | grep 'matrix kernel for `loose`' | grep -o '#[0-9]*' | head -1 | tr -d '#')
"$FLUX" proofs mm.flux "$id" | grep -q 'Higham' || fail "the proof does not cite the bound: $("$FLUX" proofs mm.flux "$id")"

printf 'intent f(x: Int) -> Int:\n    constraints:\n        - result = x\n    properties:\n        - tolerance(1e-9)\n' > int.flux
"$FLUX" check int.flux 2> err && fail "tolerance on an Int accepted"
grep -q 'int.flux:5:11: error: `tolerance` allows floating-point sums to be reordered, but `f` returns Int' err || fail "int: $(cat err)"
printf 'intent g(x: Float) -> Float:\n    constraints:\n        - result = x\n    properties:\n        - tolerance(2)\n' > two.flux
"$FLUX" check two.flux 2> err && fail "tolerance 2 accepted"
grep -q 'two.flux:5:21: error: `tolerance` takes one number between 0 and 1' err || fail "two: $(cat err)"
exit 0
