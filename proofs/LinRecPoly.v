(* LinRecPoly.v -- Fiduccia's method for linear recurrences of any order k.

   What is proved, in words.  Take a recurrence as in LinRec.v
   (`recurrence k c f`: f(n+k) = c_1 f(n+k-1) + ... + c_k f(n), where, as
   there, the Coq function c holds c_i at index i, for 1 <= i <= k; c 0 is
   never read).  A coefficient vector r : nat -> Z (only indices below k are
   read) is "for n" (`is_for k c n r`) when
       f(n+m) = sum_{j<k} r j * f(m+j)    for every m and every such f,
   i.e. r holds the coordinates of x^n modulo the characteristic polynomial.
   Then
     - r0_for:     r0 = e_0 is for 0;
     - for_shift:  r for n  ->  shift r for n+1, where
                     (shift r) 0 = r(k-1) * c_k,
                     (shift r) j = r(j-1) + r(k-1) * c_{k-j}   (1 <= j < k);
     - for_iter:   r for n  ->  shift^i r for n+i;
     - for_mul:    r for a, s for b  ->  mul r s for a+b, where
                     (mul r s) j = sum_{i<k} s i * (shift^i r) j;
     - rpow_for:   rpow n (square-and-multiply, `rpow`, recursive on
                   N / positive like LinRec.v's fastpow) is for n;
     - fiduccia_correct:  f(n) = sum_{j<k} (rpow n) j * f(j);
     - rloop_eq, rloop_for, fiduccia_loop_correct:  the loop the C code runs
                   (`rloop`: start from r0; for each bit of n, most
                   significant first, r := mul r r, then r := shift r if the
                   bit is 1) computes the same vector as rpow on every
                   index below k, and is itself for n.
   All statements hold for every k, including k = 0 (then f is identically
   zero and every sum is empty).  Vectors are compared only on indices
   below k (`veq k`), so no functional extensionality is needed.

   What Flux uses it for.  The prover cites these lemmas when the optimizer
   rewrites a linear recurrence computed by a loop into the O(k^2 log n)
   Fiduccia kernel (polynomial arithmetic modulo the characteristic
   polynomial instead of the O(k^3 log n) companion-matrix power): the
   rewrite is sound because rpow n is for n, so f(n) is the dot product of
   rpow n with the initial values f(0) .. f(k-1).  All arithmetic is over Z
   (unbounded); overflow of the generated machine code is a separate
   matter. *)

Require Import Arith Lia NArith ZArith List.
From Flux Require Import LinRec.

Open Scope Z_scope.

(* ------------------------------------------------------------------ *)
(* Two more facts about sums.                                           *)

Lemma sum_first : forall k g, sum (S k) g = g 0%nat + sum k (fun j => g (S j)).
Proof.
  induction k; intros g; simpl; [ring|].
  simpl in IHk. rewrite IHk. ring.
Qed.

Lemma sum_rev : forall k g, sum k g = sum k (fun j => g (k - 1 - j)%nat).
Proof.
  induction k; intros g; [reflexivity|].
  rewrite (sum_first k (fun j => g (S k - 1 - j)%nat)). simpl sum at 1.
  rewrite (sum_ext k (fun j => g (S k - 1 - S j)%nat) (fun j => g (k - 1 - j)%nat))
    by (intros; f_equal; lia).
  rewrite <- IHk. replace (S k - 1 - 0)%nat with k by lia. ring.
Qed.

(* ------------------------------------------------------------------ *)
(* The operations of the C kernel.                                       *)

(* r is for n: f(n+m) = sum_{j<k} r j * f(m+j) for all m and all f. *)
Definition is_for (k : nat) (c : nat -> Z) (n : nat) (r : vec) : Prop :=
  forall f, recurrence k c f ->
  forall m, f (n + m)%nat = sum k (fun j => r j * f (m + j)%nat).

(* e_0. *)
Definition r0 : vec := fun j => if Nat.eqb j 0 then 1 else 0.

(* Multiplication by x modulo the characteristic polynomial. *)
Definition shift (k : nat) (c : nat -> Z) (r : vec) : vec :=
  fun j => if Nat.eqb j 0 then r (k - 1)%nat * c k
           else r (j - 1)%nat + r (k - 1)%nat * c (k - j)%nat.

(* Product modulo the characteristic polynomial: sum_i s_i x^i r. *)
Definition mul (k : nat) (c : nat -> Z) (r s : vec) : vec :=
  fun j => sum k (fun i => s i * Nat.iter i (shift k c) r j).

(* Square-and-multiply.  rpos p unfolds exactly the loop of the C code:
   the leading bit 1 of p gives shift r0 (the loop's mul r0 r0 is r0),
   each further bit squares (mul R R) and, when the bit is 1, shifts. *)
Fixpoint rpos (k : nat) (c : nat -> Z) (p : positive) : vec :=
  match p with
  | xH => shift k c r0
  | xO q => let R := rpos k c q in mul k c R R
  | xI q => let R := rpos k c q in shift k c (mul k c R R)
  end.

Definition rpow (k : nat) (c : nat -> Z) (n : N) : vec :=
  match n with
  | N0 => r0
  | Npos p => rpos k c p
  end.

(* ------------------------------------------------------------------ *)
(* Soundness.                                                            *)

Theorem r0_for : forall k c, is_for k c 0 r0.
Proof.
  unfold is_for; intros k c f Hrec m. destruct k as [|k'].
  - simpl. specialize (Hrec m). rewrite Nat.add_0_r in Hrec. exact Hrec.
  - rewrite (sum_ext (S k') _ (fun j => (if Nat.eqb 0 j then 1 else 0) * (fun j => f (m + j)%nat) j)).
    + rewrite sum_delta by lia. f_equal; lia.
    + intros l _. unfold r0. rewrite Nat.eqb_sym. reflexivity.
Qed.

Theorem for_shift : forall k c n r, is_for k c n r -> is_for k c (S n) (shift k c r).
Proof.
  unfold is_for; intros k c n r Hr f Hrec m. destruct k as [|k'].
  - simpl. specialize (Hrec (S n + m)%nat). rewrite Nat.add_0_r in Hrec. exact Hrec.
  - replace (S n + m)%nat with (n + S m)%nat by lia. rewrite (Hr f Hrec (S m)).
    simpl sum at 1. replace (S (m + k'))%nat with (m + S k')%nat by lia.
    rewrite (Hrec m).
    (* reverse the recurrence sum: c_{k-j} f(m+j) *)
    rewrite (sum_rev (S k')).
    rewrite (sum_ext (S k') _ (fun j => c (S k' - j)%nat * f (m + j)%nat))
      by (intros j Hj; f_equal; [f_equal|f_equal]; lia).
    rewrite !sum_first. unfold shift. simpl Nat.eqb. cbv iota.
    replace (S k' - 1)%nat with k' by lia.
    rewrite (sum_ext k' (fun j => (r (S j - 1)%nat + r k' * c (S k' - S j)%nat) * f (m + S j)%nat)
                        (fun j => r j * f (S (m + j)) + r k' * (c (S k' - S j)%nat * f (m + S j)%nat)))
      by (intros j Hj; replace (S j - 1)%nat with j by lia;
          replace (S (m + j)) with (m + S j)%nat by lia; ring).
    rewrite sum_plus, <- sum_mult_l. rewrite !Nat.add_0_r, Nat.sub_0_r. ring.
Qed.

Theorem for_iter : forall k c n r i, is_for k c n r ->
  is_for k c (n + i) (Nat.iter i (shift k c) r).
Proof.
  induction i; intros Hr; simpl.
  - rewrite Nat.add_0_r. exact Hr.
  - replace (n + S i)%nat with (S (n + i)) by lia. apply for_shift, IHi, Hr.
Qed.

Theorem for_mul : forall k c a b r s, is_for k c a r -> is_for k c b s ->
  is_for k c (a + b) (mul k c r s).
Proof.
  unfold is_for; intros k c a b r s Hr Hs f Hrec m.
  replace (a + b + m)%nat with (b + (a + m))%nat by lia.
  rewrite (Hs f Hrec).
  rewrite (sum_ext k _ (fun i => s i * sum k (fun j => Nat.iter i (shift k c) r j * f (m + j)%nat))).
  - rewrite (sum_ext k _ (fun i => sum k (fun j => s i * (Nat.iter i (shift k c) r j * f (m + j)%nat))))
      by (intros; apply sum_mult_l).
    rewrite sum_swap. apply sum_ext; intros j _. unfold mul. rewrite sum_mult_r.
    apply sum_ext; intros; ring.
  - intros i _. f_equal. replace (a + m + i)%nat with (a + i + m)%nat by lia.
    apply (for_iter k c a r i Hr f Hrec).
Qed.

Lemma rpos_for : forall k c p, is_for k c (Pos.to_nat p) (rpos k c p).
Proof.
  induction p; simpl rpos.
  - rewrite Pos2Nat.inj_xI. replace (2 * Pos.to_nat p)%nat with (Pos.to_nat p + Pos.to_nat p)%nat by lia.
    apply for_shift. apply for_mul; auto.
  - rewrite Pos2Nat.inj_xO. replace (2 * Pos.to_nat p)%nat with (Pos.to_nat p + Pos.to_nat p)%nat by lia.
    apply for_mul; auto.
  - rewrite Pos2Nat.inj_1. apply for_shift, r0_for.
Qed.

Theorem rpow_for : forall k c n, is_for k c (N.to_nat n) (rpow k c n).
Proof.
  intros k c [|p]; simpl.
  - apply r0_for.
  - apply rpos_for.
Qed.

Theorem fiduccia_correct : forall k c f n, recurrence k c f ->
  f (N.to_nat n) = sum k (fun j => rpow k c n j * f j).
Proof.
  intros k c f n Hrec.
  rewrite <- (Nat.add_0_r (N.to_nat n)). rewrite (rpow_for k c n f Hrec 0%nat).
  apply sum_ext; intros; reflexivity.
Qed.

(* ------------------------------------------------------------------ *)
(* The loop of the C code, bit by bit, and its agreement with rpow.      *)

(* Vectors equal on the indices below k. *)
Definition veq (k : nat) (r s : vec) : Prop := forall j, (j < k)%nat -> r j = s j.

(* One step of the loop: square, then shift when the bit is 1. *)
Definition rstep (k : nat) (c : nat -> Z) (r : vec) (b : bool) : vec :=
  let r2 := mul k c r r in if b then shift k c r2 else r2.

(* The loop over the bits, most significant first, starting from r0. *)
Definition rloop (k : nat) (c : nat -> Z) (bits : list bool) : vec :=
  fold_left (rstep k c) bits r0.

(* The number a list of bits (most significant first) denotes. *)
Definition bits_val (bits : list bool) : nat :=
  fold_left (fun n (b : bool) => (2 * n + if b then 1 else 0)%nat) bits 0%nat.

(* The binary expansion of a positive, most significant bit first. *)
Fixpoint pos_bits (p : positive) : list bool :=
  match p with
  | xH => true :: nil
  | xO q => pos_bits q ++ false :: nil
  | xI q => pos_bits q ++ true :: nil
  end.

Definition N_bits (n : N) : list bool :=
  match n with
  | N0 => nil
  | Npos p => pos_bits p
  end.

Lemma shift_veq : forall k c r s, veq k r s -> veq k (shift k c r) (shift k c s).
Proof.
  unfold veq, shift; intros k c r s H j Hj.
  destruct (Nat.eqb j 0); rewrite !H by lia; reflexivity.
Qed.

Lemma iter_veq : forall k c r s i, veq k r s ->
  veq k (Nat.iter i (shift k c) r) (Nat.iter i (shift k c) s).
Proof. induction i; intros H; simpl; [exact H| apply shift_veq, IHi, H]. Qed.

Lemma mul_veq : forall k c r r' s s', veq k r r' -> veq k s s' ->
  veq k (mul k c r s) (mul k c r' s').
Proof.
  unfold mul; intros k c r r' s s' Hr Hs j Hj. apply sum_ext; intros i Hi.
  rewrite Hs by auto. rewrite (iter_veq k c r r' i Hr j Hj). reflexivity.
Qed.

Lemma mul_r0 : forall k c, veq k (mul k c r0 r0) r0.
Proof.
  unfold veq, mul; intros k c j Hj.
  rewrite (sum_ext k _ (fun i => (if Nat.eqb 0 i then 1 else 0) *
                                 (fun i => Nat.iter i (shift k c) r0 j) i)).
  - rewrite sum_delta by lia. reflexivity.
  - intros i _. unfold r0 at 1. rewrite Nat.eqb_sym. reflexivity.
Qed.

Lemma rstep_veq : forall k c r s b, veq k r s -> veq k (rstep k c r b) (rstep k c s b).
Proof.
  unfold rstep; intros k c r s [|] H.
  - apply shift_veq, mul_veq; auto.
  - apply mul_veq; auto.
Qed.

Lemma fold_rstep_veq : forall k c bits r s, veq k r s ->
  veq k (fold_left (rstep k c) bits r) (fold_left (rstep k c) bits s).
Proof.
  induction bits; intros r s H; simpl; [exact H|]. apply IHbits, rstep_veq, H.
Qed.

(* The loop and rpow compute the same vector (on the indices that matter). *)
Theorem rloop_eq : forall k c n, veq k (rloop k c (N_bits n)) (rpow k c n).
Proof.
  intros k c [|p]; simpl; [unfold veq; reflexivity|].
  unfold rloop. induction p; simpl pos_bits; simpl rpos; rewrite ?fold_left_app; simpl.
  - unfold rstep at 1. apply shift_veq, mul_veq; exact IHp.
  - unfold rstep at 1. apply mul_veq; exact IHp.
  - unfold rstep. apply shift_veq, mul_r0.
Qed.

Lemma fold_rstep_for : forall k c bits n r, is_for k c n r ->
  is_for k c (fold_left (fun n (b : bool) => (2 * n + if b then 1 else 0)%nat) bits n)
             (fold_left (rstep k c) bits r).
Proof.
  induction bits as [|b bits IH]; intros n r H; simpl; [exact H|].
  apply IH. unfold rstep. destruct b.
  - match goal with |- is_for _ _ ?x _ => replace x with (S (n + n)) by lia end.
    apply for_shift, for_mul; auto.
  - match goal with |- is_for _ _ ?x _ => replace x with (n + n)%nat by lia end.
    apply for_mul; auto.
Qed.

(* The loop is for the number its bits denote (any list of bits, leading
   zeros allowed). *)
Theorem rloop_for : forall k c bits, is_for k c (bits_val bits) (rloop k c bits).
Proof. intros. apply fold_rstep_for, r0_for. Qed.

(* The binary expansion denotes n. *)
Lemma pos_bits_val : forall p, bits_val (pos_bits p) = Pos.to_nat p.
Proof.
  unfold bits_val. induction p; simpl pos_bits; rewrite ?fold_left_app;
    cbn [fold_left]; rewrite ?IHp; lia.
Qed.

Theorem fiduccia_loop_correct : forall k c f n, recurrence k c f ->
  f (N.to_nat n) = sum k (fun j => rloop k c (N_bits n) j * f j).
Proof.
  intros k c f n Hrec. rewrite (fiduccia_correct k c f n Hrec).
  apply sum_ext; intros j Hj. rewrite (rloop_eq k c n j Hj). reflexivity.
Qed.

(* Sanity check: Fibonacci, F(90) = 2880067194370816120. *)
Example fib_fiduccia_90 :
  sum 2 (fun j => rpow 2 (fun _ => 1) 90%N j * fib j) = 2880067194370816120.
Proof. vm_compute. reflexivity. Qed.
