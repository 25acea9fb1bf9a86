// A third-order linear recurrence (memoization and the loop both apply).
// call: trib3(18)
// call: trib3(19)
// call: trib3(20)
intent trib3(n: Natural) -> Natural:
    constraints:
        - trib3(0) = 0
        - trib3(1) = 0
        - trib3(2) = 1
        - trib3(n) = trib3(n-1) + trib3(n-2) + trib3(n-3)
