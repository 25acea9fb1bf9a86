# A range is built as a list in one step, whatever the memory budget:
# `0..n` with n = 4·10^7 holds 640 MB under a budget of 64 MB; with
# n = 2·10^8 it asks for 3.2 GB at once, and with n = 2^31 for 34 GB,
# which aborts ("out of memory") where refused and else wakes the OOM
# killer. (Ranges are refused only past 2^31 elements.)
# Found by gen_fuzz (seed 6629: `16..=n` given n = 2147483648).
# run: flux run --no-learn --max-memory 64 011-range-budget.flux 'len(r(2147483648))'
# symptom: flux: out of memory allocating 34359738368 bytes (abort), under ulimit -v 4000000
# probe: budget len(r(40000000))
# avoid: range-budget
intent r(n: Natural) -> List[Natural]:
    constraints:
        - result = 0..n
