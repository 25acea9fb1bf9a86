// A sum of cubes asked again for the same n (a table of recurring inputs).
// call: cube_sum(60000)
// call: cube_sum(60000)
// call: cube_sum(60000)
// call: cube_sum(9)
// call: cube_sum(60000)
intent cube_sum(n: Natural) -> Natural:
    constraints:
        - result = sum(i * i * i for i in 0..n)
