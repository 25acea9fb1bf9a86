// std.stats: descriptive statistics of lists of floats (docs/stdlib.md).
// `import std.stats`. An empty list is a run-time error where the
// statistic has no value (a mean of nothing).

intent average(xs: List[Float]) -> Float:
    constraints:
        - result = mean(xs)

intent variance(xs: List[Float]) -> Float:
    constraints:
        - result = sum((x - average(xs)) * (x - average(xs)) for x in xs) / len(xs)

intent std_dev(xs: List[Float]) -> Float:
    constraints:
        - result = sqrt(variance(xs))

intent sorted_floats(xs: List[Float]) -> List[Float]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending

intent median(xs: List[Float]) -> Float:
    constraints:
        - result = if len(xs) mod 2 = 1 then sorted_floats(xs)[len(xs) div 2] else (sorted_floats(xs)[len(xs) div 2 - 1] + sorted_floats(xs)[len(xs) div 2]) / 2.0

intent value_range(xs: List[Float]) -> Float:
    constraints:
        - result = max(xs) - min(xs)

intent covariance(xs: List[Float], ys: List[Float]) -> Float:
    constraints:
        - result = sum((xs[i] - average(xs)) * (ys[i] - average(ys)) for i in 0..len(xs)) / len(xs)

intent correlation(xs: List[Float], ys: List[Float]) -> Float:
    constraints:
        - result = covariance(xs, ys) / (std_dev(xs) * std_dev(ys))
