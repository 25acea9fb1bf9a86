# strings in every position the checker types them
type Person = { name: String, age: Int }

intent initials(p: Person) -> String:
    constraints:
        - result = upper(p.name[0]) ++ "."
        - len(result) = 2

intent words(s: String) -> Natural:
    constraints:
        - result = len(split(s))

intent tail(xs: List[Int]) -> List[Int]:
    constraints:
        - result = if xs = [] then [] else xs[1..len(xs)]

intent shouted(s: String) -> Bool:
    constraints:
        - result = upper(s) = s and "!" in s

intent total(fields: List[String]) -> Int:
    constraints:
        - result = sum(int(f) for f in fields if trim(f) != "")

intent vowels(s: String) -> Natural:
    constraints:
        - result = count(c for c in chars(lower(s)) if c in "aeiou")
