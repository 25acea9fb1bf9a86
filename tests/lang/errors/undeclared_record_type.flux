# a record type must be declared with `type`
intent age_of(u: User) -> Int:
    constraints:
        - result = u.age
