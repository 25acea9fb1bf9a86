# The include graph points downward only (tools/check-layering.sh): the real
# tree passes, and a copy with one planted upward include (or an executor
# that reaches the parser, or a CLI that reaches past flux.h) fails, naming it.
set -u
fail() { echo "$*"; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$("$root/tools/check-layering.sh" 2>&1) || fail "the tree breaks the layering: $out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# plant FILE INCLUDE EXPECTED: a fresh copy where FILE includes INCLUDE must
# fail with a line naming EXPECTED
plant() {
    rm -rf "$tmp/t" && mkdir "$tmp/t" && cp -r "$root/src" "$root/cli" "$root/tools" "$tmp/t/"
    printf '#include "%s"\n' "$2" >> "$tmp/t/$1"
    out=$("$tmp/t/tools/check-layering.sh" 2>&1) && fail "planted $2 in $1: passed"
    case $out in *"$3"*) ;; *) fail "planted $2 in $1: $out" ;; esac
}
plant src/exec/vm.c opt/cost.h "exec may not depend on opt"     # the old shared rank
plant src/hw/pool.c exec/value.h "hw may not depend on exec"
plant src/trace/store.c opt/analyze.h "trace may not depend on opt"
plant src/proof/smt.c lang/ast.h "smt may not depend on lang"
plant src/graph/graph.c proof/prove.h "graph may not depend on proof"
plant src/api/api.c web/server.h "api may not depend on web"
plant src/exec/vm.c lang/parse.h "exec may take only lang/resolved.h"
plant src/exec/interp.h lang/program.h "exec may take only lang/resolved.h"
plant cli/main.c exec/value.h "cli may use include/flux.h only"
plant src/base/buf.c flux.h "only src/api/* src/web/* cli/* may"
# the planned web client may use the public API and any layer
mkdir -p "$tmp/t2" && cp -r "$root/src" "$root/cli" "$root/tools" "$tmp/t2/"
mkdir -p "$tmp/t2/src/web"
printf '#include "flux.h"\n#include "api/api_int.h"\n' > "$tmp/t2/src/web/server.c"
out=$("$tmp/t2/tools/check-layering.sh" 2>&1) || fail "web client refused: $out"
exit 0
