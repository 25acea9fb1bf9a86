# The matrix kernel through the CLI: a round measures the element-wise
# definition against the kernel and installs it, proved; the answers stay
# those of v1 (Int exactly, Float bit for bit), and explain names the kernel.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
mm="$root/examples/matrix.flux"
python3 - <<'PY'
import random
random.seed(5)
n = 48
A = [[random.randint(-10**6, 10**6) for _ in range(n)] for _ in range(n)]
F = [[random.uniform(-1, 1) for _ in range(n)] for _ in range(n)]
open("int.expr", "w").write("matrix_multiply_int(%s, %s)" % (A, A))
open("float.expr", "w").write("matrix_multiply(%s, %s)" % (F, F))
PY
"$FLUX" run "$mm" "$(cat int.expr)" > int.v1 || fail "v1 int"
"$FLUX" run "$mm" "$(cat float.expr)" > float.v1 || fail "v1 float"
out=$("$FLUX" optimize "$mm") || fail "optimize"
case $out in *"matrix_multiply_int: installed v2: matrix kernel (proof #"*) ;; *) fail "int: $out" ;; esac
case $out in *"matrix_multiply: installed v2: matrix kernel (proof #"*) ;; *) fail "float: $out" ;; esac
"$FLUX" run "$mm" "$(cat int.expr)" | cmp -s - int.v1 || fail "the Int product changed"
"$FLUX" run "$mm" "$(cat float.expr)" | cmp -s - float.v1 || fail "the Float product changed"
"$FLUX" explain "$mm" "$(cat int.expr)" | grep -q '^|    - matmul blocked: 48 x 48 times 48 x 48, int64 (exact)' ||
    fail "explain: $("$FLUX" explain "$mm" "$(cat int.expr)" | grep matmul)"
"$FLUX" proofs "$mm" | grep -q 'matrix kernel for `matrix_multiply`: accepted' || fail "proofs"
"$FLUX" graph "$mm" matrix_multiply | grep -q 'map \[slot 2, slot 3\]' || fail "graph"
exit 0
