# `flux demo` tours every bundled example and succeeds, then shows fibonacci
# evolving version by version, each step proved and explained.
set -u
cd "$(dirname "$0")/../.."
out=$("$FLUX" demo 2>&1) || { echo "demo failed: $out"; exit 1; }
for f in examples/*.flux; do
    printf '%s\n' "$out" | grep -qF "== $(basename "$f") ==" || { echo "demo skipped $f"; exit 1; }
done
printf '%s\n' "$out" | grep -qF "property pure: holds" || { echo "no property verdicts"; exit 1; }
printf "%s\n" "$out" | grep -qE "(^|: )error:|^flux: " && { echo "demo printed an error: $out"; exit 1; }
# the living loop: fibonacci from naive to memoized to loop to matrix power
for step in 'installed v2: memoization (proof #' 'installed v3: recursion to iteration (proof #' \
    'installed v4: matrix power (proof #' 'variant power: matrix power chosen: n = 300000' \
    '19532821287077577316...68996526838242546875   (208988 digits'; do
    printf '%s\n' "$out" | grep -qF "$step" || { echo "the demo lacks: $step"; exit 1; }
done
exit 0
