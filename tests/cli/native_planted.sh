#!/usr/bin/env bash
# native_planted.sh: a store cannot make flux run code (issue 32). An object
# in the store's cache/ is loaded only when the MAC its row keeps, made with
# this user's key (kept outside every store: FLUX_KEY_FILE here), holds for
# its bytes. A planted object with a constructor, its row forged with a MAC
# made under another key, is never opened: its constructor never runs, the
# call is exact and interpreted, and the next round builds the object again.
# A store copied to another user (another key) runs nothing of its objects
# and rebuilds them. The control: the same forgery with the user's own key
# is loaded, so it is the key that stops it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "native_planted: $*"; exit 1; }
command -v tcc >/dev/null || fail "tcc is missing (scripts/install-deps)"
cd "$tmp"
cp "$root/bench/native.flux" p.flux
export FLUX_EXPLORE=off FLUX_NATIVE_JUDGE=off FLUX_KEY_FILE="$tmp/keys/alice"
run() { "$FLUX" run p.flux "$@" --no-learn --store s; }
tier() {
    local out
    out=$(run "$1" --json)
    if [[ "$out" =~ \"native,\ ([a-z]+) ]]; then echo "${BASH_REMATCH[1]}"; else echo interpreted; fi
}
run 'fib(25)' >/dev/null
"$FLUX" optimize p.flux fib --rule "native code" --store s >/dev/null
[ "$(tier 'fib(22)')" = tcc ] || fail "fib is not native to begin with"
[ -s keys/alice ] && [ "$(stat -c %a keys/alice)" = 600 ] || fail "the key file is not made 0600"
[ "$(stat -c %a keys)" = 700 ] || fail "the key's folder is not 0700"
obj=$(ls s/cache/*-tcc.so)
key=$(basename "$obj" .so)

# the attacker's object: a constructor that leaves a mark, and an entry
cat > evil.c <<C
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void) { close(creat("$tmp/PWNED", 0644)); }
int fx_native_entry(void *c, const void *a, void *out) { return 1; }
C
cc -shared -fPIC -o evil.so evil.c
plant() { # plant evil.so as the object, its row's MAC made with key file $1
    cp evil.so "$obj"
    mac=$(python3 - "$1" evil.so <<'P'
import hashlib, hmac, sys
key = open(sys.argv[1], "rb").read()
print(hmac.new(key, open(sys.argv[2], "rb").read(), hashlib.sha512).hexdigest()[:64])
P
)
    sqlite3 s/flux.db "UPDATE learned SET value = json_set(value, '$.object_mac', '$mac')
                       WHERE kind = 'native' AND key = '$key'"
}
head -c 32 /dev/urandom > mallory
plant mallory
[ "$(run 'fib(22)')" = 17711 ] || fail "fib(22) with a planted object"
[ ! -e PWNED ] || fail "the planted object's constructor ran"
[ "$(tier 'fib(22)')" = interpreted ] || fail "a planted object was attached"
rc=0; "$FLUX" store check --store s > sc || rc=$?
[ $rc = 3 ] && grep -q "native object $key: its object .* was not built by this user's flux" sc ||
    fail "store check does not name the planted object: exit $rc, $(cat sc)"
[ ! -e PWNED ] || fail "store check opened the planted object"
rc=0; "$FLUX" proofs p.flux --verify --store s > verify || rc=$?
[ $rc = 3 ] && grep -q "native object $key: its object .* was not built by this user's flux" verify ||
    fail "proofs --verify does not name the planted object: exit $rc, $(cat verify)"
out=$("$FLUX" optimize p.flux fib --rule "native code" --store s)
[[ "$out" == *"was not built by this user's flux"*"building it again"* ]] || fail "no rebuild: $out"
[ ! -e PWNED ] || fail "the learning round opened the planted object"
[ "$(tier 'fib(22)')" = tcc ] || fail "not native after the rebuild"
"$FLUX" store check --store s > sc || fail "store check after the rebuild: $(cat sc)"

# the same store under another user's key: nothing of it is run, it is rebuilt
[ "$(FLUX_KEY_FILE="$tmp/keys/bob" tier 'fib(22)')" = interpreted ] ||
    fail "another user's flux ran this user's object"
[ -s keys/bob ] || fail "bob's key was not made"
out=$(FLUX_KEY_FILE="$tmp/keys/bob" "$FLUX" optimize p.flux fib --rule "native code" --store s)
[[ "$out" == *"was not built by this user's flux"*"building it again"* ]] || fail "bob: $out"
[ "$(FLUX_KEY_FILE="$tmp/keys/bob" tier 'fib(22)')" = tcc ] || fail "bob: not native after the rebuild"

# the control: the forgery made with alice's own key is accepted (so the key,
# nothing else, is what refused it above); its entry gives every call back
plant keys/alice
[ "$(run 'fib(22)')" = 17711 ] || fail "fib(22) with alice's forged object"
[ -e PWNED ] || fail "the control did not load: the test does not test the MAC"
echo "native_planted: ok"
