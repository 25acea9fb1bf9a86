#!/usr/bin/env bash
# Checks that #includes point downward only (docs/design.md, "Layers"):
#   base < smt < lang < graph < proof < hw < exec < trace < opt < api < web, cli
# (smt is src/proof/smt.*, the solver API the checker uses; the rest of
# proof/ reasons about graphs). A file may include its own layer and any
# layer below it. The executor runs a resolved program: from lang/ it may
# include only the program's type definitions (resolved.h, ast.h), never the
# parser, the checker or the loader. cli/ uses include/flux.h alone, and
# z3.h / sqlite3.h / flux.h are included only where they belong.
set -u
cd "$(dirname "$0")/.."
# the rank of a layer into R, the layer of a file or include path into L:
# no subshell per include (the check ran in 5 s of forks; now under 1)
rank() {
    case $1 in
    base) R=0 ;; smt) R=1 ;; lang) R=2 ;; graph) R=3 ;; proof) R=4 ;;
    hw) R=5 ;; exec) R=6 ;; trace) R=7 ;; opt) R=8 ;; api) R=9 ;;
    web | cli) R=10 ;; *) R=99 ;;
    esac
}
layer_of() {
    case $1 in
    */proof/smt.* | proof/smt.*) L=smt ;;
    src/*/* | cli/*) L=${1#src/}; L=${L%%/*} ;;
    */*) L=${1%%/*} ;;
    *) L= ;;
    esac
}
bad=0
# every file's quoted includes, "FILE INCLUDE", in one pass
while read -r f inc; do
    case $inc in */*) ;; *) continue ;; esac # same-folder include
    layer_of "$f"; layer=$L
    layer_of "$inc"; dep=$L
    rank "$dep"; dep_rank=$R
    rank "$layer"
    if [ "$layer" = cli ]; then
        echo "$f includes $inc: cli may use include/flux.h only"
        bad=1
    elif [ "$dep_rank" -gt "$R" ]; then
        echo "$f includes $inc: $layer may not depend on $dep"
        bad=1
    elif [ "$layer" = exec ] && [ "$dep" = lang ]; then
        case $inc in lang/resolved.h | lang/ast.h) ;;
        *) echo "$f includes $inc: exec may take only lang/resolved.h and lang/ast.h"; bad=1 ;;
        esac
    fi
done < <(awk 'match($0, /^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"/) {
             s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/".*$/, "", s)
             print FILENAME, s }' src/*/*.[ch] cli/*.[ch] 2>/dev/null)
for pair in "z3.h:src/proof/smt.c" "sqlite3.h:src/trace/store.c src/trace/walvfs.c src/trace/guard.c src/trace/guard.h src/trace/recover.c src/exec/data.c" \
    "flux.h:src/api/* src/web/* cli/*"; do
    header=${pair%%:*} owners=${pair#*:}
    for f in $(grep -l "#include [<\"]$header[>\"]" src/*/*.[ch] cli/*.[ch] 2>/dev/null); do
        case " $owners " in
        *" $f "* | *" ${f%/*}/* "*) ;;
        *) echo "$f includes $header (only $owners may)"; bad=1 ;;
        esac
    done
done
exit $bad
