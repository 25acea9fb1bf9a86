(* Assumptions.v -- prints the assumptions of every main theorem.
   check.sh compiles this file last and fails unless each theorem below is
   "Closed under the global context", i.e. depends on no unproved
   statement at all.  Add new main theorems here. *)
From Flux Require LinRec LinRecPoly Sieve SortUnique Matmul Fusion.

Print Assumptions Flux.LinRec.companion_step.
Print Assumptions Flux.LinRec.companion_power.
Print Assumptions Flux.LinRec.fastpow_correct.
Print Assumptions Flux.LinRec.companion_fastpow.
Print Assumptions Flux.LinRec.companion_power_2.
Print Assumptions Flux.LinRecPoly.r0_for.
Print Assumptions Flux.LinRecPoly.for_shift.
Print Assumptions Flux.LinRecPoly.for_iter.
Print Assumptions Flux.LinRecPoly.for_mul.
Print Assumptions Flux.LinRecPoly.rpow_for.
Print Assumptions Flux.LinRecPoly.fiduccia_correct.
Print Assumptions Flux.LinRecPoly.rloop_eq.
Print Assumptions Flux.LinRecPoly.rloop_for.
Print Assumptions Flux.LinRecPoly.fiduccia_loop_correct.
Print Assumptions Flux.LinRecPoly.last_bit_correct.
Print Assumptions Flux.LinRecPoly.last_bit_loop.
Print Assumptions Flux.LinRecPoly.norm_r0.
Print Assumptions Flux.LinRecPoly.norm_shift.
Print Assumptions Flux.LinRecPoly.norm_mul.
Print Assumptions Flux.LinRecPoly.norm_rpow.
Print Assumptions Flux.LinRecPoly.norm_rloop.
Print Assumptions Flux.LinRecPoly.norm_of_correct.
Print Assumptions Flux.LinRecPoly.norm_cross.
Print Assumptions Flux.LinRecPoly.norm_square_exact.
Print Assumptions Flux.LinRecPoly.norm_square_correct.
Print Assumptions Flux.LinRecPoly.norm_final_correct.
Print Assumptions Flux.LinRecPoly.norm_loop_correct.
Print Assumptions Flux.LinRecPoly.norm_power_correct.
Print Assumptions Flux.Sieve.sieve_correct.
Print Assumptions Flux.Sieve.sieve_sorted.
Print Assumptions Flux.Sieve.composite_has_small_factor.
Print Assumptions Flux.Sieve.crossing_starts_at_square.
Print Assumptions Flux.Sieve.remove_multiples_from_square.
Print Assumptions Flux.Sieve.sieve_fast_correct.
Print Assumptions Flux.Sieve.sieve_fast_sorted.
Print Assumptions Flux.Sieve.sieve_fast_eq.
Print Assumptions Flux.SortUnique.sorted_permutation_unique.
Print Assumptions Flux.SortUnique.sort_correct_any.
Print Assumptions Flux.Matmul.sum_add.
Print Assumptions Flux.Matmul.sum_scale_l.
Print Assumptions Flux.Matmul.sum_scale_r.
Print Assumptions Flux.Matmul.sum_swap.
Print Assumptions Flux.Matmul.matmul_assoc_sr.
Print Assumptions Flux.Matmul.matmul_distrib_left_sr.
Print Assumptions Flux.Matmul.matmul_distrib_right_sr.
Print Assumptions Flux.Matmul.matmul_assoc.
Print Assumptions Flux.Matmul.matmul_distrib_left.
Print Assumptions Flux.Matmul.matmul_distrib_right.
Print Assumptions Flux.Matmul.matmul_assoc_N.
Print Assumptions Flux.Matmul.matmul_distrib_left_N.
Print Assumptions Flux.Matmul.matmul_distrib_right_N.
Print Assumptions Flux.Matmul.matmul_assoc_nat.
Print Assumptions Flux.Matmul.matmul_distrib_left_nat.
Print Assumptions Flux.Matmul.matmul_distrib_right_nat.
Print Assumptions Flux.Fusion.fold_map_fusion.
Print Assumptions Flux.Fusion.fold_map_fusion_total.
Print Assumptions Flux.Fusion.collect_fusion.
