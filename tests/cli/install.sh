#!/usr/bin/env bash
# install.sh: `make install` into a temporary prefix, staged with DESTDIR
# (docs/api.md): a C program built with `pkg-config --cflags --libs flux`
# against the installed library alone and a Python script using the
# installed package both run fibonacci(100) and its explanation; the man
# pages read; `make uninstall` leaves nothing behind.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(basename "$(dirname "$FLUX")")
[[ "$build" == build ]] || { echo "install: skipped for $FLUX (a sanitizer build)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=/opt/flux-test
stage=$tmp/stage
make -s -C "$root" install PREFIX=$prefix DESTDIR="$stage" >"$tmp/make.out" 2>&1 ||
    { cat "$tmp/make.out"; exit 1; }
p=$stage$prefix
for f in bin/flux lib/libflux.so.0.1.0 lib/libflux.a include/flux/flux.h lib/pkgconfig/flux.pc \
         share/man/man1/flux.1 share/man/man3/flux.3 lib/python3/dist-packages/flux/__init__.py; do
    [[ -e "$p/$f" ]] || { echo "not installed: $f"; exit 1; }
done
[[ $(readlink "$p/lib/libflux.so.0") == libflux.so.0.1.0 && $(readlink "$p/lib/libflux.so") == libflux.so.0 ]]
objdump -p "$p/lib/libflux.so.0.1.0" | grep -q 'SONAME *libflux.so.0$'
grep -qx "prefix=$prefix" "$p/lib/pkgconfig/flux.pc"
# the staged tree stands in for the prefix: pkg-config's sysroot maps it
export PKG_CONFIG_PATH=$p/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
flags=$(pkg-config --cflags --libs flux)
[[ "$flags" == *"-I$p/include/flux"* && "$flags" == *"-L$p/lib"* && "$flags" == *-lflux* ]] ||
    { echo "pkg-config: $flags"; exit 1; }
pkg-config --static --libs flux | grep -q -- -lgmp
# shellcheck disable=SC2086
cc -std=c11 -Wall -Werror "$root/tests/install/hello.c" $flags -o "$tmp/hello"
cp "$root/examples/fibonacci.flux" "$tmp/"
LD_LIBRARY_PATH=$p/lib "$tmp/hello" "$tmp/fibonacci.flux" "$tmp/store" >"$tmp/c.out"
LD_LIBRARY_PATH=$p/lib ldd "$tmp/hello" | grep -q "$p/lib/libflux.so.0" || { ldd "$tmp/hello"; exit 1; }
grep -qx 354224848179261915075 "$tmp/c.out"
grep -q '^|- version: v1 of .fibonacci.' "$tmp/c.out" || { cat "$tmp/c.out"; exit 1; }
grep -q '^libflux 0.1.0$' "$tmp/c.out"
# the Python package, from the prefix, finds the installed library itself
# (its _installed.py names PREFIX/lib: here the staged copy, through
# FLUX_LIBRARY, since nothing is at /opt)
(cd "$tmp" && PYTHONPATH=$p/lib/python3/dist-packages FLUX_LIBRARY=$p/lib/libflux.so.0 python3 -c '
import flux, sys
assert flux.__file__.startswith(sys.argv[1]), flux.__file__
p = flux.load("fibonacci.flux", store="store")
assert p.fibonacci(100) == 354224848179261915075
assert p.explain("fibonacci(100)")["value"] == 354224848179261915075
p.close()
print("python ok")' "$p") | grep -qx "python ok"
grep -q "^LIBRARY = \"$prefix/lib/libflux.so.0\"" "$p/lib/python3/dist-packages/flux/_installed.py"
# the man pages read without a warning
for page in man1/flux.1 man3/flux.3; do
    out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$p/share/man/$page" 2>&1 >/dev/null)
    [[ -z "$out" ]] || { echo "man $page: $out"; exit 1; }
done
LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$p/share/man/man3/flux.3" 2>/dev/null | grep -q 'pkg-config'
make -s -C "$root" uninstall PREFIX=$prefix DESTDIR="$stage" >/dev/null
left=$(find "$stage" -type f -o -type l)
[[ -z "$left" ]] || { echo "left after uninstall: $left"; exit 1; }
echo "install: ok"
