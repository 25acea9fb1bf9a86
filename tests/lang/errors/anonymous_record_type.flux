# a record type written inline has no name; it must be declared with `type`
intent age_of(u: { name: String, age: Int }) -> Int:
    constraints:
        - result = u.age
