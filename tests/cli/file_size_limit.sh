#!/usr/bin/env bash
# file_size_limit.sh: a run past `ulimit -f` is a store that cannot grow:
# exit 4 and a message that says so, not SIGXFSZ killing the process
# unexplained (exit 153); the store is left as it was, and usable.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "file_size_limit: $*"; exit 1; }
cd "$tmp"
cat > p.flux <<'F'
intent big(n: Natural) -> List[Natural]:
    constraints:
        - result = [i * i for i in 0..n]
F
export FLUX_LEARN=off
set +e
err=$(ulimit -f 20; "$FLUX" run p.flux 'len(big(1000))' --store s 2>&1 >/dev/null)
rc=$?
set -e
[ $rc = 4 ] || fail "want exit 4, got $rc: $err"
[[ "$err" == *"cannot grow: the file size limit (ulimit -f) is reached"* ]] || fail "message: $err"
# without the limit, the same store works
[ "$("$FLUX" run p.flux 'len(big(1000))' --store s)" = 1000 ] || fail "the store after the limit"
"$FLUX" store check --store s >/dev/null || fail "store check after the limit"
echo ok
