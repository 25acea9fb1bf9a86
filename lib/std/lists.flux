// std.lists: operations on lists of integers (docs/stdlib.md). `import std.lists`.

intent sorted(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending

intent take(xs: List[Int], n: Natural) -> List[Int]:
    constraints:
        - result = [xs[i] for i in 0..len(xs) if i < n]

intent drop(xs: List[Int], n: Natural) -> List[Int]:
    constraints:
        - result = [xs[i] for i in 0..len(xs) if i >= n]

intent count_of(xs: List[Int], x: Int) -> Natural:
    constraints:
        - result = count(y for y in xs if y = x)

intent index_of(xs: List[Int], x: Int) -> Int:
    constraints:
        - result = if count_of(xs, x) = 0 then -1 else min(i for i in 0..len(xs) if xs[i] = x)

intent unique(xs: List[Int]) -> List[Int]:
    constraints:
        - result = [xs[i] for i in 0..len(xs) if count(j for j in 0..i if xs[j] = xs[i]) = 0]

intent running_sum(xs: List[Int]) -> List[Int]:
    constraints:
        - result = [sum(xs[j] for j in 0..=i) for i in 0..len(xs)]

intent pairwise_differences(xs: List[Int]) -> List[Int]:
    constraints:
        - result = [xs[i] - xs[i - 1] for i in 1..len(xs)]

intent argmax(xs: List[Int]) -> Natural:
    constraints:
        - result = min(i for i in 0..len(xs) if xs[i] = max(xs))

intent interleave(xs: List[Int], ys: List[Int]) -> List[Int]:
    constraints:
        - result = [if k mod 2 = 0 then xs[k div 2] else ys[k div 2] for k in 0..2 * min(len(xs), len(ys))]
