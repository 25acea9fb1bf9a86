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
rank() {
    case $1 in
    base) echo 0 ;; smt) echo 1 ;; lang) echo 2 ;; graph) echo 3 ;; proof) echo 4 ;;
    hw) echo 5 ;; exec) echo 6 ;; trace) echo 7 ;; opt) echo 8 ;; api) echo 9 ;;
    web | cli) echo 10 ;; *) echo 99 ;;
    esac
}
layer_of() { # the layer of a file, or of an include path
    case $1 in
    */proof/smt.* | proof/smt.*) echo smt ;;
    src/*/* | cli/*) local d=${1#src/}; echo "${d%%/*}" ;;
    */*) echo "${1%%/*}" ;;
    esac
}
bad=0
for f in src/*/*.[ch] cli/*.[ch]; do
    [ -e "$f" ] || continue
    layer=$(layer_of "$f")
    while read -r inc; do
        case $inc in */*) ;; *) continue ;; esac # same-folder include
        dep=$(layer_of "$inc")
        if [ "$layer" = cli ]; then
            echo "$f includes $inc: cli may use include/flux.h only"
            bad=1
        elif [ "$(rank "$dep")" -gt "$(rank "$layer")" ]; then
            echo "$f includes $inc: $layer may not depend on $dep"
            bad=1
        elif [ "$layer" = exec ] && [ "$dep" = lang ]; then
            case $inc in lang/resolved.h | lang/ast.h) ;;
            *) echo "$f includes $inc: exec may take only lang/resolved.h and lang/ast.h"; bad=1 ;;
            esac
        fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(.*\)".*/\1/p' "$f")
done
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
