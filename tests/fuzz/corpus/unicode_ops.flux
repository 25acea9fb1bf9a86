// ≤ ≥ ≠ ∀ ∃ ∈ × → and the logical ∧ ∨ ¬
intent all_distinct(xs: List[Int]) → Bool:
    constraints:
        - result = ∀ i ∈ 0..len(xs): ∀ j ∈ 0..len(xs): i = j ∨ xs[i] ≠ xs[j]

intent has_square(n: Natural) → Bool:
    constraints:
        - result = ∃ k ∈ 0..=n: k × k = n ∧ ¬(n < 0)
        - 0 ≤ n ≥ 0
