# a data source is a list of records
data ages: List[Int] from "ages.csv"

intent oldest() -> Int:
    constraints:
        - result = max(ages)
