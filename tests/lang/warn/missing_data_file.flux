# a data file that is not there is a warning; reading it at run time fails
type User = { name: String, age: Int }
data users: List[User] from "no_such_users.csv"

intent adults(age_min: Int) -> List[User]:
    constraints:
        - result contains all users where user.age >= age_min
