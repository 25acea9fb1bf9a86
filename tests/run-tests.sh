#!/usr/bin/env bash
# Runs every test against one build and ends with the line "N passed, N failed".
#
#   tests/run-tests.sh BUILD_DIR        (make test / make asan call this)
#   UPDATE_GOLDEN=1 tests/run-tests.sh build   rewrites the .expected files
#
# Suites:
#   unit         BUILD/tests/*_test, each printing its own "N passed, N failed"
#   lang/ok      .flux files that must check with no output and exit 0
#                (also every bundled example)
#   lang/errors  .flux files whose stderr must equal NAME.expected, exit 3
#   lang/warn    .flux files whose stderr must equal NAME.expected, exit 0
#   cli          tests/cli/*.sh, run with $FLUX set; exit 0 means pass
#   web          tests/web/serve.test.mjs under node --test: the page of
#                `flux serve` in Debian's chromium (playwright-core); each
#                of its tests counts
#   python       tests/python/test_flux.py under python3 -m unittest: the
#                Python binding (python/flux) on BUILD/libflux.so; each of its
#                tests counts (under ASan the runtime is preloaded)
#   fuzz/gen     BUILD/tests/gen_fuzz: generated well-typed programs through
#                check, lower and run for $FLUX_GEN_SECONDS (default 30),
#                avoiding the known bugs of tests/fuzz/found that still fail
#                (docs/testing.md); one program in 3 also runs as native code
#                and must answer as the interpreter does; 0 skips it
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
flux="$root/$build/flux"
export FLUX="$flux"
# a test that names no store writes here, never into the checkout
FLUX_STORE=$(mktemp -d)
export FLUX_STORE
# learning rounds run in the `flux run` that triggers them, so that what a
# test sees does not depend on a background process (tests/cli/learn.sh
# checks the background mode itself)
export FLUX_LEARN=wait
# the variant chooser's one-in-16 exploration is random: off, except where a
# test asks for it
export FLUX_EXPLORE=off
# native code is used only when a timing shows it no slower than the
# interpreter; that timing is a test's subject in tests/cli/native_judge.sh
# only, elsewhere a loaded machine would decide what a test sees
export FLUX_NATIVE_JUDGE=off
# this user's key for MACs (docs/store.md, "Trust"): the run's own, so that a
# home that cannot be written does not change what the tests see
key_dir=$(mktemp -d)
export FLUX_KEY_FILE="$key_dir/key"
trap 'rm -rf "$FLUX_STORE" "$key_dir"' EXIT
passed=0
failed=0

failures=""
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL $1"; failures="$failures
FAIL $1"; }

# unit tests
for t in "$root/$build"/tests/*_test; do
    [ -x "$t" ] || continue
    out=$("$t" 2>&1)
    rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
    if [ -z "$line" ]; then
        printf '%s\n' "$out" | tail -n 20
        fail "$(basename "$t") (crashed, rc=$rc)"
        continue
    fi
    p=${line%% passed*}
    f=${line#*, }; f=${f%% failed*}
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$f" != 0 ] || [ $rc != 0 ]; then
        printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed' | tail -n 20
        echo "FAIL $(basename "$t")"
        [ "$f" = 0 ] && failed=$((failed + 1))
    fi
done

# programs that must be accepted silently
for f in "$root"/tests/lang/ok/*.flux "$root"/examples/*.flux "$root"/examples/benchmarks/*.flux; do
    [ -f "$f" ] || continue
    out=$(cd "$(dirname "$f")" && "$flux" check "$(basename "$f")" 2>&1)
    rc=$?
    if [ $rc = 0 ] && [ -z "$out" ]; then pass; else
        printf '%s\n' "$out" | head -n 20
        fail "ok/$(basename "$f") (rc=$rc)"
    fi
done

# golden diagnostics: exact stderr and exit code
golden() {
    local dir=$1 want_rc=$2
    for f in "$root"/tests/lang/"$dir"/*.flux; do
        [ -f "$f" ] || continue
        local name=$(basename "$f" .flux) exp="${f%.flux}.expected"
        local out rc
        out=$(cd "$(dirname "$f")" && "$flux" check "$name.flux" 2>&1 >/dev/null)
        rc=$?
        if [ "${UPDATE_GOLDEN:-}" = 1 ]; then printf '%s\n' "$out" > "$exp"; fi
        if [ $rc = "$want_rc" ] && [ -f "$exp" ] && [ "$out" = "$(cat "$exp")" ]; then pass; else
            diff <(printf '%s\n' "$out") "$exp" | head -n 20
            fail "$dir/$name (rc=$rc, want $want_rc)"
        fi
    done
}
golden errors 3
golden warn 0

# the command line, as a user drives it: FLUX_TEST_JOBS tests at once (2 by
# default), each with a store of its own; a test that times itself or
# loads the machine (a line "# run alone: WHY") runs after them, alone.
# Reported in the files' order
cli_dir=$(mktemp -d)
cli_one() { # TEST: its output and exit code into cli_dir
    local n store
    n=$(basename "$1" .sh)
    store=$(mktemp -d)
    FLUX_STORE=$store bash "$1" > "$cli_dir/$n.out" 2>&1
    echo $? > "$cli_dir/$n.rc"
    rm -rf "$store"
}
lanes=${FLUX_TEST_JOBS:-2}
for t in "$root"/tests/cli/*.sh; do
    [ -f "$t" ] && ! grep -q '^# run alone:' "$t" || continue
    while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do wait -n; done
    cli_one "$t" &
done
wait
for t in "$root"/tests/cli/*.sh; do
    [ -f "$t" ] && grep -q '^# run alone:' "$t" && cli_one "$t"
done
for t in "$root"/tests/cli/*.sh; do
    [ -f "$t" ] || continue
    n=$(basename "$t" .sh)
    if [ "$(cat "$cli_dir/$n.rc" 2>/dev/null)" = 0 ]; then pass; else
        tail -n 20 "$cli_dir/$n.out" 2>/dev/null
        fail "cli/$n.sh"
    fi
done
rm -rf "$cli_dir"

# the web interface in a real browser (tests/web/, docs/web.md): each
# test of node --test counts, and its figures are printed. A failed file is
# run once more: a browser under a loaded machine has timed out where
# nothing was wrong. The first attempt's failures are printed either way,
# and again at the end, so that they are never lost
web() { (cd "$root/tests/web" && FLUX="$flux" FILL="$root/$build/tests/web_fill" \
        node --test serve.test.mjs 2>&1); }
web_failures() { printf '%s\n' "$1" | grep -A 25 '^not ok' | grep -vE '^ {4}at ' | head -n 60; }
if ! out=$(web); then
    first=$(web_failures "$out")
    printf 'web: the first attempt failed; once more:\n%s\n' "$first"
    failures="$failures
web, first attempt (passed or not on the second, below):
$first"
    out=$(web) || true
fi
n=$(printf '%s\n' "$out" | sed -n 's/^# pass //p')
if printf '%s\n' "$out" | grep -q '^# fail 0$'; then
    for _ in $(seq "${n:-0}"); do pass; done
    printf '%s\n' "$out" | grep -E '^# web:' | sed 's/^# //'
    [ "${n:-0}" -gt 0 ] || fail "web (no test ran)"
else
    printf '%s\n' "$out" | grep -vE '^ {4}at ' | tail -n 40
    fail "web/serve.test.mjs
$(web_failures "$out")"
fi

# the Python binding (python/flux, docs/python.md): each test counts. An
# ASan build's library needs its runtime first in the process (python3 is
# not built with it), and Python's own allocations are not ours to check.
# libstdc++ is preloaded with it: ASan binds its __cxa_throw interceptor at
# start-up, and python3 has no C++ then, so the first exception Z3 throws
# (a proof's timeout, in the learner thread) hit "real___cxa_throw != 0"
pyenv=(env FLUX_LIBRARY="$root/$build/libflux.so")
case "$build" in
*asan*) pyenv+=(LD_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libstdc++.so.6)"
                ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:intercept_tls_get_addr=0") ;;
esac
if out=$(cd "$root" && "${pyenv[@]}" python3 -m unittest -v tests/python/test_flux.py 2>&1); then
    n=$(printf '%s\n' "$out" | grep -c '\.\.\. ok$')
    for _ in $(seq "$n"); do pass; done
    [ "$n" -gt 0 ] || fail "python (no test ran)"
else
    printf '%s\n' "$out" | grep -m 3 -E 'Sanitizer|^(ERROR|FAIL):' || true
    printf '%s\n' "$out" | tail -n 40
    fail "python/test_flux.py"
fi

# generated programs, as many as fit in the time (docs/testing.md)
gen="$root/$build/tests/gen_fuzz"
gen_secs=${FLUX_GEN_SECONDS:-30}
if [ -x "$gen" ] && [ "$gen_secs" != 0 ]; then
    # one program in 3 also runs as native code, compared with the interpreter
    out=$(cd "$root" && FLUX_GEN_SECONDS=$gen_secs "$gen" --avoid-known=auto --native 3 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -E '^gen_fuzz: ([0-9]+ programs|native:)' | sed 's/^gen_fuzz:/fuzz\/gen:/'
    if [ $rc = 0 ]; then pass; else
        printf '%s\n' "$out" | tail -n 40
        fail "fuzz/gen (rc=$rc; the line to replay it is above)"
    fi
fi

[ -z "$failures" ] || printf '\nwhat failed:%s\n\n' "$failures"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
