# The include graph points downward only (tools/check-layering.sh).
cd "$(dirname "$0")/../.." && tools/check-layering.sh
