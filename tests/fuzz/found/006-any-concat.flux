# The element of an empty list has no type yet, and the checker lets it go
# anywhere (`max([]) + 1`, `max([]) < s` are accepted), except as an
# operand of `++` next to a string, which is rejected.
# Found by gen_fuzz (seed 164).
# run: flux check 006-any-concat.flux
# symptom: exit 3: `++` joins two lists or two strings (want exit 0; at run time
#   max([]) is the empty-sequence error)
# probe: check
# avoid: any-concat
intent g(s: String) -> String:
    constraints:
        - result = max([]) ++ s
