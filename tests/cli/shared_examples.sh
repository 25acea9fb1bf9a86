# Every example of ../shared/examples (when present) checks silently.
set -u
cd "$(dirname "$0")/../.."
dir=../shared/examples
[ -d "$dir" ] || exit 0
for f in "$dir"/*.flux; do
    out=$(cd "$dir" && "$FLUX" check "$(basename "$f")" 2>&1); rc=$?
    [ $rc = 0 ] && [ -z "$out" ] || { echo "$f: rc=$rc $out"; exit 1; }
done
exit 0
