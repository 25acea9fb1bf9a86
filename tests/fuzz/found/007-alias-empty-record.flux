# A record literal takes the declared record type with exactly its fields
# (docs/language.md §3), but an alias of a record counts as a record with
# no fields: `{}` takes the type `P2` (that is `Pair`), not `Box`, when the
# alias comes first.
# Found by gen_fuzz (seed 194).
# run: flux check 007-alias-empty-record.flux
# symptom: exit 3: the value of `f` must be Box, but it is Pair (want exit 0)
# probe: check
# avoid: alias-empty-record
type Pair = {name: Int}
type P2 = Pair
type Box = {}
intent f(b: Box) -> Box:
    constraints:
        - result = {}
