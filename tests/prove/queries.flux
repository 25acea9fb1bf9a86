# Selections for tests/unit/query_evolved_test.c: each comparison, on an
# Int field and a String field, over a collection passed in.
type Row = { name: String, age: Int }

intent at_least(rows: List[Row], k: Int) -> List[Row]:
    constraints:
        - result contains all rows where r.age >= k

intent above(rows: List[Row], k: Int) -> List[Row]:
    constraints:
        - result contains all rows where r.age > k

intent at_most(rows: List[Row], k: Int) -> List[Row]:
    constraints:
        - result contains all rows where r.age <= k

intent below(rows: List[Row], k: Int) -> List[Row]:
    constraints:
        - result contains all rows where r.age < k

intent aged(rows: List[Row], k: Int) -> List[Row]:
    constraints:
        - result contains all rows where r.age = k

intent named_from(rows: List[Row], s: String) -> List[Row]:
    constraints:
        - result contains all rows where r.name >= s
