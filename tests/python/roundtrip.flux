// roundtrip.flux: identities for tests/python/test_flux.py's value round trips.
type Person = { name: String, age: Int }

intent same_int(x: Int) -> Int:
    constraints:
        - result = x

intent same_bool(b: Bool) -> Bool:
    constraints:
        - result = b

intent same_float(x: Float) -> Float:
    constraints:
        - result = x

intent same_text(s: String) -> String:
    constraints:
        - result = s

intent same_lists(xs: List[List[Int]]) -> List[List[Int]]:
    constraints:
        - result = xs

intent same_matrix(m: Matrix[R, C, Int]) -> Matrix[R, C, Int]:
    constraints:
        - result = m

intent older(p: Person) -> Person:
    constraints:
        - result = {name: p.name, age: p.age + 1}

intent people_over(ps: List[Person], n: Int) -> List[Person]:
    constraints:
        - result = [p for p in ps if p.age > n]

intent square(n: Int) -> Int:
    constraints:
        - result = n * n
