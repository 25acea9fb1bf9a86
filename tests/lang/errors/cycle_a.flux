# cycle_a.flux and cycle_b.flux import each other
import "cycle_b.flux"

intent a(n: Natural) -> Natural:
    constraints:
        - result = n
