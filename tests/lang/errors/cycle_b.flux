# cycle_b.flux and cycle_a.flux import each other
import "cycle_a.flux"

intent b(n: Natural) -> Natural:
    constraints:
        - result = n
