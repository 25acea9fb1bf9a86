// a lone name after `by` that is neither a field nor a function would
// stand for the element itself: a typo sorting by the elements, silently
intent byfoo(xs: List[String]) -> List[String]:
    constraints:
        - result is a permutation of xs
        - result is sorted descending by foo
