# `flux demo` tours every bundled example and succeeds.
set -u
cd "$(dirname "$0")/../.."
out=$("$FLUX" demo 2>&1) || { echo "demo failed: $out"; exit 1; }
for f in examples/*.flux; do
    printf '%s\n' "$out" | grep -qF "== $(basename "$f") ==" || { echo "demo skipped $f"; exit 1; }
done
printf '%s\n' "$out" | grep -qF "property pure: holds" || { echo "no property verdicts"; exit 1; }
printf '%s\n' "$out" | grep -q "error" && { echo "demo printed an error: $out"; exit 1; }
exit 0
