# the condition over a collection must name its element
type User = { name: String, age: Int }

intent adults(users: List[User], age_min: Int) -> List[User]:
    constraints:
        - result contains all users where age_min >= 18
