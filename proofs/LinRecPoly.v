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

(* ================================================================== *)
(* The shortcuts of the C kernel.

   What is proved, in words.  The design comment of src/exec/linrec.c
   lists three shortcuts beyond the operations above.  The first (small
   start: the leading bits run the same operations in int64 with overflow
   checks) changes no value, so it needs no lemma: it computes a prefix of
   rloop.  The other two are proved here, stated on the formulas the C
   functions evaluate.
     - last_bit_correct (final_step):  for any f with `recurrence k c f`
                   and r for a,
                     f(2a+b) = sum_{i<k} r i * sum_{j<k} r j * f(i+j+b)
                   for every a and b (b = 0 or 1 in the C code, any b here);
                   last_bit_loop: the same with r = rloop bits, a the value
                   of the bits, i.e. what fx_linrec_power does on its
                   general path (ladder over the bits of a = n >> 1, then
                   final_step with b = n & 1).
     - The norm for k = 2 (norm_square, norm_of, norm_final).  With
                     N(r) = r0^2 + c_1 r0 r1 - c_2 r1^2   (`norm`),
                   norm_r0: N(r0) = 1; norm_shift: N(shift r) = -c_2 N(r);
                   norm_mul: N(mul r s) = N(r) N(s); hence norm_rpow:
                   N(rpow a) = (-c_2)^a and norm_rloop: N(rloop bits) =
                   (-c_2)^(bits_val bits), for the vectors the algorithm
                   computes (any k = 2 coefficients, no condition on c).
                   norm_of_correct: for c_2 = +-1, (-c_2)^a is the C
                   norm_of: -1 when c_2 = 1 and a is odd, else 1.
                   norm_cross: N(r) = nu  ->
                     c_1 (r0 r1) = nu - r0^2 + c_2 r1^2.
                   norm_square_c is norm_square transcribed (the branches
                   on c_2 = 1, on nu > 0, on |c_1| even / > 2 / > 1 and on
                   c_1 < 0, the two mpz_divexact_ui included);
                   norm_square_exact: when c_1 <> 0, c_2 = +-1, nu = +-1
                   and N(r) = nu, both divisions are exact (|c_1|/2 divides
                   d when |c_1| is even, |c_1| divides 2d when it is odd,
                   d = nu - r0^2 + c_2 r1^2);
                   norm_square_correct: under the same hypotheses
                   norm_square_c gives mul r r (on indices 0 and 1).
                   norm_final_correct: for r for a with N(r) = nu,
                     f(2a+b) = f(b) nu + r1 ((2 f(b+1) - c_1 f(b)) r0
                                              + (f(b+2) + c_2 f(b)) r1);
                   norm_final_c is norm_final transcribed.
                   norm_loop_correct: the C ladder of the norm path
                   (`nloop`: from r with a the value done so far, per bit
                   r := norm_square_c with nu = norm_of a, then shift if
                   the bit is 1), started from rloop pre (the small start),
                   gives rloop (pre ++ bits);
                   norm_power_correct: and norm_final_c on it with nu =
                   norm_of a gives f(2a+b), a = bits_val (pre ++ bits):
                   the whole norm path of fx_linrec_power, for c_1 <> 0
                   and c_2 = +-1 (the condition the C code tests).

   As above, all arithmetic is over Z; Z.div stands for mpz_divexact_ui,
   whose exactness norm_square_exact proves. *)

(* ------------------------------------------------------------------ *)
(* Shortcut 2: the last bit (final_step).                               *)

Theorem last_bit_correct : forall k c f a b r, recurrence k c f -> is_for k c a r ->
  f (2 * a + b)%nat = sum k (fun i => r i * sum k (fun j => r j * f (i + j + b)%nat)).
Proof.
  intros k c f a b r Hrec Hr.
  replace (2 * a + b)%nat with (a + (a + b))%nat by lia.
  rewrite (Hr f Hrec (a + b)%nat). apply sum_ext; intros i Hi. f_equal.
  replace (a + b + i)%nat with (a + (b + i))%nat by lia.
  rewrite (Hr f Hrec (b + i)%nat). apply sum_ext; intros j Hj. f_equal. f_equal. lia.
Qed.

(* The general path of fx_linrec_power: the ladder over the bits of a,
   then final_step. *)
Theorem last_bit_loop : forall k c f bits b, recurrence k c f ->
  f (2 * bits_val bits + b)%nat =
  sum k (fun i => rloop k c bits i * sum k (fun j => rloop k c bits j * f (i + j + b)%nat)).
Proof. intros k c f bits b Hrec. apply last_bit_correct with c; auto. apply rloop_for. Qed.

(* ------------------------------------------------------------------ *)
(* Shortcut 3: the norm for k = 2.                                       *)

(* N(r) = r0^2 + c_1 r0 r1 - c_2 r1^2. *)
Definition norm (c : nat -> Z) (r : vec) : Z :=
  r 0%nat * r 0%nat + c 1%nat * r 0%nat * r 1%nat - c 2%nat * r 1%nat * r 1%nat.

Lemma norm_veq : forall c r s, veq 2 r s -> norm c r = norm c s.
Proof. unfold norm; intros c r s H. rewrite !H by lia. reflexivity. Qed.

Theorem norm_r0 : forall c, norm c r0 = 1.
Proof. intros c; cbv [norm r0 Nat.eqb]. ring. Qed.

Theorem norm_shift : forall c r, norm c (shift 2 c r) = - c 2%nat * norm c r.
Proof. intros c r; cbv [norm shift Nat.eqb Nat.sub]. ring. Qed.

Theorem norm_mul : forall c r s, norm c (mul 2 c r s) = norm c r * norm c s.
Proof. intros c r s; cbv [norm mul shift sum Nat.iter nat_rect Nat.eqb Nat.sub]. ring. Qed.

Lemma pow_double : forall (x : Z) (n : nat) (b : bool),
  x ^ Z.of_nat (2 * n + if b then 1 else 0) =
  (if b then x else 1) * (x ^ Z.of_nat n * x ^ Z.of_nat n).
Proof.
  intros x n b.
  replace (Z.of_nat (2 * n + if b then 1 else 0))
    with (Z.of_nat n + Z.of_nat n + if b then 1 else 0) by (destruct b; lia).
  destruct b; rewrite !Z.pow_add_r by lia; ring.
Qed.

Lemma norm_rpos : forall c p, norm c (rpos 2 c p) = (- c 2%nat) ^ Z.pos p.
Proof.
  intros c. induction p; simpl rpos.
  - rewrite norm_shift, norm_mul, IHp.
    replace (Z.pos p~1) with (Z.pos p + Z.pos p + 1) by lia.
    rewrite !Z.pow_add_r, Z.pow_1_r by lia. ring.
  - rewrite norm_mul, IHp.
    replace (Z.pos p~0) with (Z.pos p + Z.pos p) by lia.
    rewrite Z.pow_add_r by lia. ring.
  - rewrite norm_shift, norm_r0. ring.
Qed.

(* (c) for the vector rpow computes. *)
Theorem norm_rpow : forall c n, norm c (rpow 2 c n) = (- c 2%nat) ^ Z.of_N n.
Proof.
  intros c [|p]; simpl.
  - apply norm_r0.
  - apply norm_rpos.
Qed.

Lemma norm_fold : forall c bits n r, norm c r = (- c 2%nat) ^ Z.of_nat n ->
  norm c (fold_left (rstep 2 c) bits r) =
  (- c 2%nat) ^ Z.of_nat (fold_left (fun n (b : bool) => (2 * n + if b then 1 else 0)%nat) bits n).
Proof.
  intros c. induction bits as [|b bits IH]; intros n r H; cbn [fold_left]; [exact H|].
  apply IH. rewrite pow_double, <- H. unfold rstep. destruct b.
  - rewrite norm_shift, norm_mul. ring.
  - rewrite norm_mul. ring.
Qed.

(* (c) for the vector the loop computes, for any list of bits. *)
Theorem norm_rloop : forall c bits, norm c (rloop 2 c bits) = (- c 2%nat) ^ Z.of_nat (bits_val bits).
Proof. intros c bits. apply norm_fold. rewrite norm_r0. reflexivity. Qed.

(* norm_of in the C code: (-c_2)^a for c_2 = +-1. *)
Definition norm_of (c2 : Z) (a : nat) : Z :=
  if andb (c2 =? 1) (Nat.odd a) then -1 else 1.

Lemma pow_minus_one : forall a, (-1) ^ Z.of_nat a = if Nat.odd a then -1 else 1.
Proof.
  induction a; [reflexivity|].
  rewrite Nat2Z.inj_succ, Z.pow_succ_r, IHa by lia.
  rewrite Nat.odd_succ, <- Nat.negb_odd. destruct (Nat.odd a); reflexivity.
Qed.

Theorem norm_of_correct : forall c2 a, c2 = 1 \/ c2 = -1 ->
  norm_of c2 a = (- c2) ^ Z.of_nat a.
Proof.
  intros c2 a [-> | ->]; unfold norm_of; simpl.
  - rewrite pow_minus_one. reflexivity.
  - rewrite Z.pow_1_l by lia. reflexivity.
Qed.

Lemma norm_of_unit : forall c2 a, norm_of c2 a = 1 \/ norm_of c2 a = -1.
Proof. intros; unfold norm_of; destruct (andb _ _); auto. Qed.

(* (d) The cross product from the two squares. *)
Theorem norm_cross : forall c r nu, norm c r = nu ->
  c 1%nat * (r 0%nat * r 1%nat) = nu - r 0%nat * r 0%nat + c 2%nat * (r 1%nat * r 1%nat).
Proof. intros c r nu H. subst nu. unfold norm. ring. Qed.

(* d := 2 d / c_1 as norm_square computes it, on g = |c_1|. *)
Definition twice_div (g d : Z) : Z :=
  if Z.even g then (if g >? 2 then d / (g / 2) else d)
  else (if g >? 1 then (2 * d) / g else 2 * d).

(* norm_square transcribed: r := mul(r, r) for k = 2 given nu = N(r). *)
Definition norm_square_c (c : nat -> Z) (nu : Z) (r : vec) : vec :=
  let c1 := c 1%nat in
  let c2 := c 2%nat in
  let a := r 0%nat * r 0%nat in
  let b := r 1%nat * r 1%nat in
  let r0' := if c2 =? 1 then a + b else a - b in
  let d := if c2 =? 1 then b - a else - (a + b) in
  let d := if nu >? 0 then d + 1 else d - 1 in
  let d := twice_div (Z.abs c1) d in
  let d := if c1 <? 0 then - d else d in
  fun j => if Nat.eqb j 0 then r0' else d + c1 * b.

(* The d of norm_square before the division. *)
Definition norm_d (c : nat -> Z) (nu : Z) (r : vec) : Z :=
  let a := r 0%nat * r 0%nat in
  let b := r 1%nat * r 1%nat in
  let d := if c 2%nat =? 1 then b - a else - (a + b) in
  if nu >? 0 then d + 1 else d - 1.

Lemma norm_d_eq : forall c nu r, c 2%nat = 1 \/ c 2%nat = -1 -> nu = 1 \/ nu = -1 ->
  norm c r = nu -> norm_d c nu r = c 1%nat * (r 0%nat * r 1%nat).
Proof.
  intros c nu r Hc2 Hnu H. rewrite (norm_cross c r nu H). unfold norm_d.
  destruct Hc2 as [E | E]; rewrite E;
    [replace (1 =? 1) with true by reflexivity | replace (-1 =? 1) with false by reflexivity];
    (destruct Hnu as [-> | ->];
      [replace (1 >? 0) with true by reflexivity | replace (-1 >? 0) with false by reflexivity]);
    ring.
Qed.

(* The two mpz_divexact_ui of norm_square are exact. *)
Theorem norm_square_exact : forall c nu r, c 2%nat = 1 \/ c 2%nat = -1 -> nu = 1 \/ nu = -1 ->
  norm c r = nu ->
  (Z.even (Z.abs (c 1%nat)) = true -> (Z.abs (c 1%nat) / 2 | norm_d c nu r)) /\
  (Z.even (Z.abs (c 1%nat)) = false -> (Z.abs (c 1%nat) | 2 * norm_d c nu r)).
Proof.
  intros c nu r Hc2 Hnu H. rewrite (norm_d_eq c nu r Hc2 Hnu H).
  assert (Hg : (Z.abs (c 1%nat) | c 1%nat * (r 0%nat * r 1%nat))).
  { apply Z.divide_mul_l, Z.divide_abs_l, Z.divide_refl. }
  split; intros He.
  - apply Z.divide_trans with (Z.abs (c 1%nat)); [|exact Hg].
    apply Zeven_bool_iff, Zeven_ex in He. destruct He as [h Hh]. rewrite Hh.
    replace (2 * h / 2) with h by (rewrite Z.mul_comm, Z.div_mul by lia; reflexivity).
    exists 2. ring.
  - apply Z.divide_mul_r. exact Hg.
Qed.

Lemma twice_div_mul : forall g y, g > 0 -> twice_div g (g * y) = 2 * y.
Proof.
  intros g y Hg. unfold twice_div. destruct (Z.even g) eqn:He.
  - apply Zeven_bool_iff, Zeven_ex in He. destruct He as [h Hh]. subst g.
    replace (2 * h / 2) with h by (rewrite Z.mul_comm, Z.div_mul by lia; reflexivity).
    destruct (2 * h >? 2) eqn:H2.
    + replace (2 * h * y) with (2 * y * h) by ring. apply Z.div_mul. lia.
    + rewrite Z.gtb_ltb in H2. apply Z.ltb_ge in H2.
      assert (h = 1) by lia. subst h. ring.
  - destruct (g >? 1) eqn:H1.
    + replace (2 * (g * y)) with (2 * y * g) by ring. apply Z.div_mul. lia.
    + rewrite Z.gtb_ltb in H1. apply Z.ltb_ge in H1.
      assert (g = 1) by lia. subst g. ring.
Qed.

Theorem norm_square_correct : forall c nu r, c 1%nat <> 0 ->
  c 2%nat = 1 \/ c 2%nat = -1 -> nu = 1 \/ nu = -1 -> norm c r = nu ->
  veq 2 (norm_square_c c nu r) (mul 2 c r r).
Proof.
  intros c nu r Hc1 Hc2 Hnu H j Hj.
  pose proof (norm_d_eq c nu r Hc2 Hnu H) as Hd. unfold norm_d in Hd.
  unfold norm_square_c, mul, shift; simpl.
  destruct j as [|[|j]]; [| |lia]; simpl.
  - destruct Hc2 as [-> | ->]; simpl; ring.
  - rewrite Hd. destruct (c 1%nat <? 0) eqn:Hs.
    + apply Z.ltb_lt in Hs.
      replace (c 1%nat * (r 0%nat * r 1%nat)) with (Z.abs (c 1%nat) * (- (r 0%nat * r 1%nat)))
        by (rewrite Z.abs_neq by lia; ring).
      rewrite twice_div_mul by lia. ring.
    + apply Z.ltb_ge in Hs.
      replace (c 1%nat * (r 0%nat * r 1%nat)) with (Z.abs (c 1%nat) * (r 0%nat * r 1%nat))
        by (rewrite Z.abs_eq by lia; ring).
      rewrite twice_div_mul by lia. ring.
Qed.

(* (e) norm_final: one big multiplication for the last bit. *)
Theorem norm_final_correct : forall c f a b r nu, recurrence 2 c f -> is_for 2 c a r ->
  norm c r = nu ->
  f (2 * a + b)%nat = f b * nu + r 1%nat * ((2 * f (b + 1)%nat - c 1%nat * f b) * r 0%nat
                                            + (f (b + 2)%nat + c 2%nat * f b) * r 1%nat).
Proof.
  intros c f a b r nu Hrec Hr H. subst nu.
  rewrite (last_bit_correct 2 c f a b r Hrec Hr). cbv [norm sum].
  replace (1 + 1 + b)%nat with (b + 2)%nat by lia.
  replace (0 + 1 + b)%nat with (b + 1)%nat by lia.
  replace (1 + 0 + b)%nat with (b + 1)%nat by lia.
  replace (0 + 0 + b)%nat with b by lia. ring.
Qed.

(* norm_final transcribed. *)
Definition norm_final_c (c : nat -> Z) (f : nat -> Z) (b : nat) (nu : Z) (r : vec) : Z :=
  let alpha := 2 * f (b + 1)%nat - f b * c 1%nat in
  let beta := f (b + 2)%nat + c 2%nat * f b in
  let out := r 1%nat * (r 0%nat * alpha + r 1%nat * beta) in
  if nu >? 0 then out + f b else out - f b.

(* The ladder of the norm path: a is the value of the bits done so far. *)
Fixpoint nloop (c : nat -> Z) (bits : list bool) (r : vec) (a : nat) : vec :=
  match bits with
  | nil => r
  | bit :: rest =>
      let r2 := norm_square_c c (norm_of (c 2%nat) a) r in
      nloop c rest (if bit then shift 2 c r2 else r2) (2 * a + if bit then 1 else 0)%nat
  end.

Lemma nloop_fold : forall c bits r s n, c 1%nat <> 0 -> c 2%nat = 1 \/ c 2%nat = -1 ->
  veq 2 r s -> norm c s = (- c 2%nat) ^ Z.of_nat n ->
  veq 2 (nloop c bits r n) (fold_left (rstep 2 c) bits s).
Proof.
  intros c bits. induction bits as [|bit bits IH]; intros r s n Hc1 Hc2 Hrs Hs; cbn [nloop fold_left]; [exact Hrs|].
  assert (Hn : norm c r = norm_of (c 2%nat) n)
    by (rewrite (norm_veq c r s Hrs), Hs; symmetry; apply norm_of_correct, Hc2).
  pose proof (norm_square_correct c _ r Hc1 Hc2 (norm_of_unit _ _) Hn) as Hsq.
  assert (Hm : veq 2 (norm_square_c c (norm_of (c 2%nat) n) r) (mul 2 c s s))
    by (intros j Hj; rewrite Hsq by exact Hj; apply mul_veq; auto).
  apply IH; auto.
  - unfold rstep. destruct bit; [apply shift_veq|]; exact Hm.
  - rewrite pow_double, <- Hs. unfold rstep. destruct bit.
    + rewrite norm_shift, norm_mul. ring.
    + rewrite norm_mul. ring.
Qed.

(* The norm ladder after the small start computes what rloop computes. *)
Theorem norm_loop_correct : forall c pre bits, c 1%nat <> 0 -> c 2%nat = 1 \/ c 2%nat = -1 ->
  veq 2 (nloop c bits (rloop 2 c pre) (bits_val pre)) (rloop 2 c (pre ++ bits)).
Proof.
  intros c pre bits Hc1 Hc2. unfold rloop at 2. rewrite fold_left_app.
  apply nloop_fold; auto.
  - intros j _. reflexivity.
  - apply norm_rloop.
Qed.

(* The whole norm path of fx_linrec_power: small start over pre, the
   norm ladder over bits, then norm_final with nu = norm_of a. *)
Theorem norm_power_correct : forall c f pre bits b, recurrence 2 c f ->
  c 1%nat <> 0 -> c 2%nat = 1 \/ c 2%nat = -1 ->
  norm_final_c c f b (norm_of (c 2%nat) (bits_val (pre ++ bits)))
               (nloop c bits (rloop 2 c pre) (bits_val pre))
  = f (2 * bits_val (pre ++ bits) + b)%nat.
Proof.
  intros c f pre bits b Hrec Hc1 Hc2.
  pose proof (norm_loop_correct c pre bits Hc1 Hc2) as Hl.
  set (a := bits_val (pre ++ bits)).
  set (r := nloop c bits (rloop 2 c pre) (bits_val pre)) in *.
  assert (Hfor : is_for 2 c a r).
  { intros g Hg m. unfold a. rewrite (rloop_for 2 c (pre ++ bits) g Hg m).
    apply sum_ext; intros j Hj. rewrite Hl by exact Hj. reflexivity. }
  assert (Hn : norm c r = norm_of (c 2%nat) a).
  { rewrite (norm_veq c r _ Hl), norm_rloop. symmetry. apply norm_of_correct, Hc2. }
  rewrite (norm_final_correct c f a b r _ Hrec Hfor Hn).
  unfold norm_final_c. destruct (norm_of_unit (c 2%nat) a) as [Hu | Hu]; rewrite Hu; simpl; ring.
Qed.

(* Sanity checks, run on the transcriptions: Fibonacci F(91) by the norm
   path, and the norm ladder against rpow for c = (-4, 1) (|c_1| even and
   > 2, c_1 < 0) and c = (3, -1) (|c_1| odd and > 1). *)
Example fib_norm_91 :
  norm_final_c (fun _ => 1) fib 1 (norm_of 1 45) (nloop (fun _ => 1) (N_bits 45) r0 0) =
  4660046610375530309.
Proof. vm_compute. reflexivity. Qed.

Example norm_ladder_m4_1 :
  let c := fun i => if Nat.eqb i 1 then -4 else 1 in
  let r := nloop c (N_bits 37) r0 0 in
  (r 0%nat, r 1%nat) = (rpow 2 c 37 0%nat, rpow 2 c 37 1%nat).
Proof. vm_compute. reflexivity. Qed.

Example norm_ladder_3_m1 :
  let c := fun i => if Nat.eqb i 1 then 3 else -1 in
  let r := nloop c (N_bits 41) r0 0 in
  (r 0%nat, r 1%nat) = (rpow 2 c 41 0%nat, rpow 2 c 41 1%nat).
Proof. vm_compute. reflexivity. Qed.
