// A keyed sort of records, stable: bench/regret.
type Item = { key: Int, tag: Int }

intent by_key(items: List[Item]) -> List[Item]:
    constraints:
        - result is a permutation of items
        - result is sorted ascending by key
