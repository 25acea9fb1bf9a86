// A 1-D heat stencil written as a user would: a list of floats, a helper
// for a neighbour, a step over the list and a recursion over the steps;
// the sum of squares after k steps of rate 0.25, to 9 digits.
//   flux run bench/user/heat.flux 'heat_sum(1000)'

intent at(u: List[Float], i: Int) -> Float:
    constraints:
        - result = u[i]

intent step(u: List[Float], r: Float) -> List[Float]:
    constraints:
        - result = [if i = 0 or i + 1 = len(u) then u[i] else u[i] + r * (at(u, i - 1) - 2.0 * u[i] + at(u, i + 1)) for i in 0..len(u)]

intent heat(u: List[Float], k: Natural) -> List[Float]:
    constraints:
        - heat(u, 0) = u
        - heat(u, k) = heat(step(u, 0.25), k - 1)

intent nine_digits(x: Float) -> String:
    constraints:
        - result = str(round(x * 10.0 ^ 9) / 10.0 ^ 9)

intent heat_sum(n: Natural) -> String:
    constraints:
        - result = nine_digits(sum(x * x for x in heat([if i = n div 2 then 100.0 else 0.0 for i in 0..n], 200)))
