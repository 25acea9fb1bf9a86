# Nesting some 10^4 levels deep (here an EXPR of 30000 parentheses; a
# program nested as deep does the same) overflows the C stack: the parser,
# the checker and the lowering recurse once a level. docs/language.md now
# limits nesting to 1000 levels with a positioned error.
# Known, fixed on main (8f1083a); found again by gen_fuzz.
# run: flux run 003-deep-stack.flux "$(python3 -c "print('(' * 30000 + 'id(1)' + ')' * 30000)")"
# symptom: SIGSEGV (stack overflow)
# probe: deep 30000
# avoid: deep-stack
intent id(n: Int) -> Int:
    constraints:
        - result = n
