# `flux optimize FILE` (flux_optimize with no intent named) on a file whose
# intents are all imported fails with exit 2 and prints a null pointer as
# the intent's name (`%s` of NULL): the round only looks at the root
# file's intents, and finding none it takes the absent name for an unknown
# one. (Intents of imported files are never optimized.)
# Found by gen_fuzz with optimization rounds (seed 3000128).
# run: flux optimize --store /tmp/s 014-optimize-imported.flux
# symptom: exit 2: flux: no intent `(null)` in this program (want exit 0, an
#   empty round, or the imported intents optimized)
# probe: optimize
# avoid: optimize-imported
import "../../lang/ok/shapes.flux"
