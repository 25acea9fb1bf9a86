# The same naive recursion in Python 3; prints the result and the seconds
# the call took (perf_counter around the call only).
import sys
import time


def fib(n):
    if n == 0:
        return 0
    if n == 1:
        return 1
    return fib(n - 1) + fib(n - 2)


n = int(sys.argv[1])
t = time.perf_counter()
r = fib(n)
print(r, time.perf_counter() - t)
