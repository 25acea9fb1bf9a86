# Recording a run converts the value of the top call to text before it
# decides to keep only a summary, and no budget covers that: `p(10^8) > 0`
# evaluates at once, then `flux run` spends 5 s writing 2^(10^8) in decimal
# for the store (2^(10^9): 71 s and 830 MB, under budgets of 1 s and 64 MB).
# Found by gen_fuzz (a power of a parameter given a big argument).
# run: flux run --no-learn --max-seconds 1 --max-memory 64 010-big-power.flux 'p(100000000) > 0'
# symptom: prints true after 5.4 s (want: done at once, or a budget error)
# probe: budget-store p(100000000) > 0
# avoid: big-power
intent p(n: Natural) -> Natural:
    constraints:
        - result = 2 ^ n
