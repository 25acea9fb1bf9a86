(* SortUnique.v -- a sorted permutation is unique.

   What is proved, in words.
     - sorted_permutation_unique: for lists of integers (Z, with Z.le), if
       l1 and l2 are both sorted (Sorted Z.le) and l1 is a permutation of
       l2, then l1 = l2;
     - sorted_permutations_of_same: if l1 and l2 are both sorted
       permutations of the same list l, then l1 = l2;
     - sort_correct_any: any two functions that each return a sorted
       permutation of their input (`is_sort`) agree on every input.

   What Flux uses it for.  The prover cites sort_correct_any to swap one
   correct sort for another (bubble sort for pdqsort or radix sort): the
   output is determined by the input alone, so any correct sort gives the
   very same list, and the program's observable behaviour is unchanged. *)

Require Import ZArith List Permutation Sorting Lia.
Import ListNotations.
Open Scope Z_scope.

Lemma sorted_head_le : forall a l x, Sorted Z.le (a :: l) -> In x l -> a <= x.
Proof.
  intros a l x Hs Hin.
  apply Sorted_StronglySorted in Hs; [| intros u v w; lia].
  inversion Hs; subst. rewrite Forall_forall in H2. auto.
Qed.

Theorem sorted_permutation_unique : forall l1 l2 : list Z,
  Sorted Z.le l1 -> Sorted Z.le l2 -> Permutation l1 l2 -> l1 = l2.
Proof.
  induction l1 as [|a t1 IH]; intros l2 S1 S2 P.
  - apply Permutation_nil in P. auto.
  - destruct l2 as [|b t2].
    + apply Permutation_sym, Permutation_nil in P. discriminate.
    + assert (Hab : a = b).
      { assert (Ha : In a (b :: t2)) by (apply (Permutation_in a P); left; auto).
        assert (Hb : In b (a :: t1)) by (apply (Permutation_in b (Permutation_sym P)); left; auto).
        destruct Ha as [Ha|Ha]; [auto|]. destruct Hb as [Hb|Hb]; [auto|].
        pose proof (sorted_head_le _ _ _ S2 Ha). pose proof (sorted_head_le _ _ _ S1 Hb). lia. }
      subst b. f_equal. apply IH.
      * inversion S1; auto.
      * inversion S2; auto.
      * apply Permutation_cons_inv with a; auto.
Qed.

(* Both l1 and l2 sorted permutations of the same l. *)
Corollary sorted_permutations_of_same : forall l l1 l2 : list Z,
  Permutation l l1 -> Sorted Z.le l1 -> Permutation l l2 -> Sorted Z.le l2 -> l1 = l2.
Proof.
  intros. apply sorted_permutation_unique; auto.
  eapply Permutation_trans; [apply Permutation_sym|]; eauto.
Qed.

Definition is_sort (f : list Z -> list Z) : Prop :=
  forall l, Permutation l (f l) /\ Sorted Z.le (f l).

Theorem sort_correct_any : forall f g : list Z -> list Z,
  is_sort f -> is_sort g -> forall l, f l = g l.
Proof.
  intros f g Hf Hg l. destruct (Hf l), (Hg l).
  apply sorted_permutations_of_same with l; auto.
Qed.
