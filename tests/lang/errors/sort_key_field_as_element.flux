// in an expression a field's name alone stands for the whole record
type Person = { name: String, age: Int }

intent oldest(ps: List[Person]) -> List[Person]:
    constraints:
        - result is a permutation of ps
        - result is sorted descending by -age

intent named(ps: List[Person]) -> List[Person]:
    constraints:
        - result is a permutation of ps
        - result is sorted ascending by len(name)
