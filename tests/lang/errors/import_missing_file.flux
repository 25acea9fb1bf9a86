# an import names a file that exists
import "nowhere.flux"

intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
