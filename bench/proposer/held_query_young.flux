// Another selection over a data source (query index).
// call: sum(len(younger(a)) for a in 10..20)
type Member = { name: String, age: Int }
data members: List[Member] from "people.csv"

intent younger(age_max: Int) -> List[Member]:
    constraints:
        - result contains all members where member.age <= age_max
