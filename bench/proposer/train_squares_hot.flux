// A sum of squares asked again for the same n (a table of recurring inputs).
// call: square_sum(90000)
// call: square_sum(90000)
// call: square_sum(90000)
// call: square_sum(7)
// call: square_sum(90000)
intent square_sum(n: Natural) -> Natural:
    constraints:
        - result = sum(i * i for i in 0..n)
