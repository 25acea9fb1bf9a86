# `e` names the element of a selection when a field is read from it: a
# variable hides the constant (docs/language.md §3)
type Emp = { id: Int, dept: Int }

intent in_dept(employees: List[Emp], d: Int) -> List[Emp]:
    constraints:
        - result contains all employees where e.dept = d

intent by_dept(employees: List[Emp]) -> List[Emp]:
    constraints:
        - result is a permutation of employees
        - result is sorted descending by e.dept
