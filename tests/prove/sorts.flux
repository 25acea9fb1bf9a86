# Sorts for tests/unit/sort_evolved_test.c: the naive v1 (bubble sort) and
# the sort kernels must give the same lists, stably by key, in both
# directions, for int64 elements and for others.
intent asc(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending

intent desc(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted descending

type Item = { key: Int, tag: Int }

intent by_key(items: List[Item]) -> List[Item]:
    constraints:
        - result is a permutation of items
        - result is sorted ascending by key

intent by_key_desc(items: List[Item]) -> List[Item]:
    constraints:
        - result is a permutation of items
        - result is sorted descending by key

intent by_square(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending by x * x

intent words(ws: List[String]) -> List[String]:
    constraints:
        - result is a permutation of ws
        - result is sorted descending
