// Imported by language_tour.flux.
type Square = { side: Natural }

intent side_area(s: Natural) -> Natural:
    constraints:
        - result = s * s
