type User = { name: String, age: Int }
type Point = { x: Float, y: Float }
type Empty = { }
type Nested = { owner: User, tags: List[String], grid: Matrix[3, 4, Int] }

intent norm2(p: Point) -> Float:
    constraints:
        - result = p.x * p.x + p.y * p.y
        - result >= 0.0
