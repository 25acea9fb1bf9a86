# The memory and time budgets are read every 2^16 steps, so steps whose
# cost grows go far past them first: here each call passes a list one
# longer, and 12000 calls hold some 10^8 elements (1.1 GB, 1.4 s) under a
# memory budget of 100 MB. With 70000 calls it took 24 GB before the
# kernel killed it.
# Found by gen_fuzz (seed 4006: a recursion that grows a list argument).
# The same with a recursion 10^6 calls deep (`f(n) = f(n - 1)` given
# n = 841144847247060390, seed 1006484): its stack doubles to 1 GB in one
# step under a budget of 512 MB. And libFuzzer: `f(n) = f(n + n) ++ ...`,
# 3.5 GB.
# run: flux run --no-learn --max-memory 100 009-budget-poll.flux 'grow(12000, [])'
# symptom: prints 12000 after using 1.1 GB (want: the memory budget is exhausted)
# probe: budget grow(12000, [])
# avoid: budget-poll
intent grow(n: Natural, xs: List[Int]) -> Natural:
    constraints:
        - grow(0, xs) = len(xs)
        - grow(n, xs) = grow(n - 1, [1] ++ xs)
