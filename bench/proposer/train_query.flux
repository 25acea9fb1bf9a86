// A selection over a data source (query index).
// call: sum(len(adults(a)) for a in 60..70)
type Person = { name: String, age: Int }
data people: List[Person] from "people.csv"

intent adults(age_min: Int) -> List[Person]:
    constraints:
        - result contains all people where person.age >= age_min
