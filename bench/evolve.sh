#!/usr/bin/env bash
# The evolved fibonacci against GMP and C (bench/evolved.c), in a temporary
# store; then every version that store holds has its proof walked and
# re-checked by z3 (tools/check-proofs.sh).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
store=$(mktemp -d); trap 'rm -rf "$store"' EXIT
"$build/bench/evolved" "$store" "$root/examples" || exit 1
FLUX_STORE=$store FLUX=$build/flux "$root/tools/check-proofs.sh" "$root/examples/fibonacci.flux"
