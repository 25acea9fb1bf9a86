// Every construct of the language reference, once, in a program that checks.
import "shapes.flux"

type Point = { x: Int, y: Int }
type Age = Natural

intent sub(a: Int, b: Int) -> Int:
    constraints:
        - result = a - b

intent add(a: Int, b: Int) -> Int:
    constraints:
        - result = a + b
    properties:
        - commutative (order of arguments does not matter)
        - associative
        - monotone
        - total

intent collatz_steps(n: Natural) -> Natural:
    constraints:
        - steps(1) = 0
        - steps(n) = 1 + steps(n div 2) when even(n) and n > 1
        - steps(n) = 1 + steps(3 * n + 1) when odd(n) and n > 1
        - steps(0) = 0

intent clamp(x: Int, lo: Int, hi: Int) -> Int:
    constraints:
        - result = if x < lo then lo else if x > hi then hi else x
        - lo <= hi or result = x

intent sum_of_squares(n: Natural) -> Natural:
    constraints:
        - result = sum(k ^ 2 for k in 0..=n)

intent evens_below(n: Natural) -> List[Natural]:
    constraints:
        - result contains all evens x where 0 <= x < n
        - result is sorted descending

intent divisors(n: Natural) -> List[Natural]:
    constraints:
        - result contains all d where 1 ≤ d ≤ n and n mod d = 0

intent by_distance(ps: List[Point]) -> List[Point]:
    constraints:
        - result is a permutation of ps
        - result is sorted ascending by p.x * p.x + p.y * p.y

intent has_zero(xs: List[Int]) -> Bool:
    constraints:
        - result = ∃ x ∈ xs: x = 0

intent all_positive(xs: List[Int]) -> Bool:
    constraints:
        - result = forall x in xs: x > 0

intent average(xs: List[Float]) -> Float:
    constraints:
        - result = if len(xs) = 0 then 0.0 else sum(xs) / len(xs)
    performance_hints:
        - latency < 100ms
        - memory < 512MB
        - optimize_for energy

intent twice(xs: List[Int]) -> List[Int]:
    constraints:
        - result = xs ++ xs
        - len(result) = 2 × len(xs)

intent greeting(name: String) -> String:
    constraints:
        - result = "Hello, \"" ++ name ++ "\"\n"

intent scale(A: Matrix[R, C, Int], k: Int) -> Matrix[R, C, Int]:
    constraints:
        - result[i, j] = k * A[i, j]
    properties:
        - parallelizable_over(i, j)
        - parallelizable
    performance_hints:
        - prefer_parallel

intent area_of(s: Square) -> Natural:
    constraints:
        - result = side_area(s.side)

intent big() -> Natural:
    constraints:
        - result = 354224848179261915075 + 10^9
