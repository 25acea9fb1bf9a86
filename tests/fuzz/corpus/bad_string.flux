import "never closed
type T = { a: Int, b: }
data d: List[T] from "x.csv
intent h(s: String) -> String:
    constraints:
        - result = "abc\q
