#!/usr/bin/env bash
# Checks that #includes point downward only (docs/design.md):
#   base <- proof/smt <- lang <- graph <- proof (the rest) <- {exec, opt, hw, trace} <- web <- api
# and that z3.h / sqlite3.h / flux.h are included only where they belong.
set -u
cd "$(dirname "$0")/.."
rank() {
    case $1 in
    base) echo 0 ;; proof) echo 1 ;; lang) echo 2 ;; graph) echo 3 ;; prove) echo 3 ;;
    exec | opt | hw | trace) echo 4 ;; web) echo 5 ;; api) echo 6 ;; *) echo 9 ;;
    esac
}
bad=0
for f in src/*/*.[ch]; do
    layer=$(basename "$(dirname "$f")")
    # the solver API sits low (the checker uses it); the rest of proof/,
    # which reasons about graphs, sits above them
    case $f in src/proof/smt.*) ;; src/proof/*) layer=prove ;; esac
    while read -r inc; do
        dep=${inc%%/*}
        [ "$dep" = "$inc" ] && continue # same-folder include
        if [ "$(rank "$dep")" -gt "$(rank "$layer")" ]; then
            echo "$f includes $inc: $layer may not depend on $dep"
            bad=1
        fi
    done < <(sed -n 's/^#include "\(.*\)"/\1/p' "$f")
done
for pair in "z3.h:src/proof/smt.c" "sqlite3.h:src/trace/store.c src/exec/data.c" "flux.h:src/api/*"; do
    header=${pair%%:*} owners=${pair#*:}
    for f in $(grep -l "#include [<\"]$header[>\"]" src/*/*.[ch] 2>/dev/null); do
        case " $owners " in
        *" $f "* | *" ${f%/*}/* "*) ;;
        *) echo "$f includes $header (only $owners may)"; bad=1 ;;
        esac
    done
done
exit $bad
