# a record's field that does not exist; the closest one is suggested
type User = { name: String, age: Int }

intent age_of(u: User) -> Int:
    constraints:
        - result = u.agee
