(* LinRec.v -- linear recurrences with constant coefficients, any order k.

   What is proved, in words.  Take integer coefficients c_1 .. c_k and an
   integer sequence f with f(n+k) = c_1 f(n+k-1) + ... + c_k f(n) for all n
   (`recurrence k c f`).  Let the state vector be
   v(n) = (f(n+k-1), ..., f(n)) and M the companion matrix (first row
   c_1 .. c_k, below it the shifted identity).  Then
     - companion_step:    v(n+1) = M * v(n);
     - companion_power:   v(n) = M^n * v(0), with M^n the plain power
                          (n repeated multiplications, `mpow`);
     - fastpow_correct:   square-and-multiply on the binary expansion of the
                          exponent (`fastpow`, recursive on N / positive)
                          gives the same matrix as `mpow`;
     - companion_fastpow: hence v(n) = fastpow(M, n) * v(0);
     - companion_power_2: the order-2 case f(n+2) = c1 f(n+1) + c2 f(n)
                          spelled out, for arbitrary c1, c2.
   The order k is arbitrary (k = 0 is allowed and trivial).  Vectors are
   functions nat -> Z and matrices nat -> nat -> Z; only indices below k
   are ever read, and matrix equality is pointwise equality on indices
   below k (`meq k`), so no functional extensionality is needed.

   What Flux uses it for.  The prover cites these lemmas when the optimizer
   replaces a linear recurrence computed by a loop (Fibonacci-like code) by
   the O(k^3 log n) companion-matrix fast power: the rewrite is sound
   because the n-th state vector is M^n v(0) and square-and-multiply
   computes M^n.  All arithmetic is over Z (unbounded); overflow of the
   generated machine code is a separate matter. *)

Require Import Arith Lia NArith ZArith.

Open Scope Z_scope.

Definition vec := nat -> Z.
Definition mat := nat -> nat -> Z.

Fixpoint sum (k : nat) (g : nat -> Z) : Z :=
  match k with
  | O => 0
  | S k' => sum k' g + g k'
  end.

Lemma sum_ext : forall k f g, (forall l, (l < k)%nat -> f l = g l) -> sum k f = sum k g.
Proof.
  induction k; intros f g H; simpl; auto.
  rewrite (IHk f g) by (intros; apply H; lia). rewrite H by lia. reflexivity.
Qed.

Lemma sum_zero : forall k f, (forall l, (l < k)%nat -> f l = 0) -> sum k f = 0.
Proof.
  induction k; intros f H; simpl; auto.
  rewrite IHk by (intros; apply H; lia). rewrite H by lia. reflexivity.
Qed.

Lemma sum_plus : forall k f g, sum k (fun l => f l + g l) = sum k f + sum k g.
Proof. induction k; intros; simpl; [reflexivity| rewrite IHk; ring]. Qed.

Lemma sum_mult_l : forall k z f, z * sum k f = sum k (fun l => z * f l).
Proof. induction k; intros; simpl; [ring| rewrite <- IHk; ring]. Qed.

Lemma sum_mult_r : forall k z f, sum k f * z = sum k (fun l => f l * z).
Proof. induction k; intros; simpl; [ring| rewrite <- IHk; ring]. Qed.

Lemma sum_swap : forall a b (F : nat -> nat -> Z),
  sum a (fun l => sum b (fun m => F l m)) = sum b (fun m => sum a (fun l => F l m)).
Proof.
  induction a; intros; simpl.
  - symmetry; apply sum_zero; reflexivity.
  - rewrite IHa. rewrite <- sum_plus. reflexivity.
Qed.

Lemma sum_delta : forall k m g, (m < k)%nat ->
  sum k (fun j => (if Nat.eqb m j then 1 else 0) * g j) = g m.
Proof.
  induction k; intros m g H; [lia|]. simpl.
  destruct (Nat.eq_dec m k) as [->|Hne].
  - rewrite Nat.eqb_refl, sum_zero; [ring|].
    intros l Hl. replace (Nat.eqb k l) with false by (symmetry; apply Nat.eqb_neq; lia). ring.
  - rewrite IHk by lia. replace (Nat.eqb m k) with false by (symmetry; apply Nat.eqb_neq; lia). ring.
Qed.

(* Matrices and vectors of dimension k: only indices below k matter. *)
Definition mmul (k : nat) (A B : mat) : mat :=
  fun i j => sum k (fun l => A i l * B l j).
Definition mvec (k : nat) (A : mat) (v : vec) : vec :=
  fun i => sum k (fun l => A i l * v l).
Definition ident : mat := fun i j => if Nat.eqb i j then 1 else 0.

Definition meq (k : nat) (A B : mat) : Prop :=
  forall i j, (i < k)%nat -> (j < k)%nat -> A i j = B i j.

Fixpoint mpow (k : nat) (M : mat) (n : nat) : mat :=
  match n with
  | O => ident
  | S n' => mmul k M (mpow k M n')
  end.

Lemma mmul_proper : forall k A A' B B', meq k A A' -> meq k B B' ->
  meq k (mmul k A B) (mmul k A' B').
Proof.
  unfold meq, mmul; intros. apply sum_ext; intros. rewrite H, H0 by lia. reflexivity.
Qed.

Lemma mmul_assoc : forall k A B C, meq k (mmul k (mmul k A B) C) (mmul k A (mmul k B C)).
Proof.
  unfold meq, mmul; intros.
  transitivity (sum k (fun l => sum k (fun m => A i m * B m l * C l j))).
  - apply sum_ext; intros. rewrite sum_mult_r. reflexivity.
  - rewrite sum_swap. apply sum_ext; intros. rewrite sum_mult_l.
    apply sum_ext; intros. ring.
Qed.

Lemma mmul_ident_l : forall k B, meq k (mmul k ident B) B.
Proof. unfold meq, mmul, ident; intros. apply (sum_delta k i (fun l => B l j)); auto. Qed.

Lemma mmul_ident_r : forall k A, meq k (mmul k A ident) A.
Proof.
  unfold meq, mmul, ident; intros.
  rewrite sum_ext with (g := fun l => (if Nat.eqb j l then 1 else 0) * A i l).
  - apply sum_delta; auto.
  - intros. rewrite Nat.eqb_sym. ring.
Qed.

Lemma mvec_assoc : forall k A B v i, mvec k (mmul k A B) v i = mvec k A (mvec k B v) i.
Proof.
  unfold mvec, mmul; intros.
  transitivity (sum k (fun l => sum k (fun m => A i m * B m l * v l))).
  - apply sum_ext; intros. rewrite sum_mult_r. reflexivity.
  - rewrite sum_swap. apply sum_ext; intros. rewrite sum_mult_l.
    apply sum_ext; intros. ring.
Qed.

Lemma meq_refl : forall k A, meq k A A.
Proof. unfold meq; auto. Qed.
Lemma meq_trans : forall k A B C, meq k A B -> meq k B C -> meq k A C.
Proof. unfold meq; intros. rewrite H by auto. auto. Qed.

Lemma mpow_add : forall k M a b, meq k (mpow k M (a + b)) (mmul k (mpow k M a) (mpow k M b)).
Proof.
  induction a; intros b; simpl.
  - unfold meq; intros; symmetry; apply mmul_ident_l; auto.
  - eapply meq_trans.
    + apply mmul_proper; [apply meq_refl | apply IHa].
    + unfold meq; intros; symmetry; apply mmul_assoc; auto.
Qed.

(* Square-and-multiply on the binary expansion of the exponent. *)
Fixpoint pfast (k : nat) (M : mat) (p : positive) : mat :=
  match p with
  | xH => M
  | xO q => let R := pfast k M q in mmul k R R
  | xI q => let R := pfast k M q in mmul k M (mmul k R R)
  end.

Definition fastpow (k : nat) (M : mat) (n : N) : mat :=
  match n with
  | N0 => ident
  | Npos p => pfast k M p
  end.

Lemma pfast_correct : forall k M p, meq k (pfast k M p) (mpow k M (Pos.to_nat p)).
Proof.
  induction p; simpl pfast.
  - replace (Pos.to_nat p~1) with (S (Pos.to_nat p + Pos.to_nat p)) by lia.
    simpl mpow. apply mmul_proper; [apply meq_refl|].
    eapply meq_trans; [apply mmul_proper; eauto|].
    unfold meq; intros; symmetry; apply mpow_add; auto.
  - replace (Pos.to_nat p~0) with (Pos.to_nat p + Pos.to_nat p)%nat by lia.
    eapply meq_trans; [apply mmul_proper; eauto|].
    unfold meq; intros; symmetry; apply mpow_add; auto.
  - rewrite Pos2Nat.inj_1. simpl mpow.
    unfold meq; intros; symmetry; apply mmul_ident_r; auto.
Qed.

Theorem fastpow_correct : forall k M n, meq k (fastpow k M n) (mpow k M (N.to_nat n)).
Proof.
  intros k M [|p]; simpl.
  - apply meq_refl.
  - apply pfast_correct.
Qed.

(* ------------------------------------------------------------------ *)
(* Linear recurrences of order k with constant integer coefficients.   *)

(* c i is the coefficient c_i, for 1 <= i <= k. *)
Definition recurrence (k : nat) (c : nat -> Z) (f : nat -> Z) : Prop :=
  forall n, f (n + k)%nat = sum k (fun j => c (S j) * f (n + k - S j)%nat).

(* Companion matrix: first row c_1 .. c_k, then the shifted identity. *)
Definition companion (c : nat -> Z) : mat :=
  fun i j => if Nat.eqb i 0 then c (S j) else if Nat.eqb (Nat.pred i) j then 1 else 0.

(* State vector v(n) = (f(n+k-1), ..., f(n)): component i is f(n+k-1-i). *)
Definition state (k : nat) (f : nat -> Z) (n : nat) : vec :=
  fun i => f (n + k - 1 - i)%nat.

Theorem companion_step : forall k c f, recurrence k c f ->
  forall n i, (i < k)%nat -> state k f (S n) i = mvec k (companion c) (state k f n) i.
Proof.
  unfold recurrence, state, mvec, companion; intros k c f Hrec n i Hi.
  destruct i as [|i'].
  - replace (S n + k - 1 - 0)%nat with (n + k)%nat by lia. rewrite Hrec.
    apply sum_ext; intros l Hl. simpl. f_equal. f_equal. lia.
  - rewrite sum_ext with (g := fun l => (if Nat.eqb i' l then 1 else 0) * f (n + k - 1 - l)%nat).
    + rewrite sum_delta by lia. f_equal. lia.
    + intros l Hl. reflexivity.
Qed.

Theorem companion_power : forall k c f, recurrence k c f ->
  forall n i, (i < k)%nat -> state k f n i = mvec k (mpow k (companion c) n) (state k f 0) i.
Proof.
  intros k c f Hrec n. induction n; intros i Hi.
  - unfold mvec; simpl. symmetry.
    apply (sum_delta k i (fun l => state k f 0 l)); auto.
  - rewrite (companion_step k c f Hrec n i Hi). simpl mpow. rewrite mvec_assoc.
    unfold mvec at 1 3. apply sum_ext; intros l Hl. rewrite IHn by auto. reflexivity.
Qed.

(* The same with the fast power: what the generated code computes. *)
Theorem companion_fastpow : forall k c f, recurrence k c f ->
  forall n i, (i < k)%nat ->
  state k f n i = mvec k (fastpow k (companion c) (N.of_nat n)) (state k f 0) i.
Proof.
  intros k c f Hrec n i Hi. rewrite (companion_power k c f Hrec n i Hi).
  unfold mvec. apply sum_ext; intros l Hl.
  rewrite fastpow_correct by auto. rewrite Nat2N.id. reflexivity.
Qed.

(* Order 2 written out: f(n+2) = c1 f(n+1) + c2 f(n). *)
Theorem companion_power_2 : forall (c1 c2 : Z) (f : nat -> Z),
  (forall n, f (n + 2)%nat = c1 * f (n + 1)%nat + c2 * f n) ->
  forall n, f (n + 1)%nat = mvec 2 (fastpow 2 (companion (fun i => if Nat.eqb i 1 then c1 else c2)) (N.of_nat n)) (state 2 f 0) 0%nat
         /\ f n = mvec 2 (fastpow 2 (companion (fun i => if Nat.eqb i 1 then c1 else c2)) (N.of_nat n)) (state 2 f 0) 1%nat.
Proof.
  intros c1 c2 f Hf n.
  assert (Hrec : recurrence 2 (fun i => if Nat.eqb i 1 then c1 else c2) f).
  { unfold recurrence; intros m. simpl.
    replace (m + 2 - 1)%nat with (m + 1)%nat by lia.
    replace (m + 2 - 2)%nat with m by lia. rewrite Hf. ring. }
  split.
  - rewrite <- companion_fastpow by auto. unfold state. f_equal. lia.
  - rewrite <- companion_fastpow by auto. unfold state. f_equal. lia.
Qed.

(* Sanity check: Fibonacci via the fast power. F(90) = 2880067194370816120. *)
Fixpoint fib (n : nat) : Z :=
  match n with
  | O => 0
  | S O => 1
  | S (S m as p) => fib p + fib m
  end.

Example fib_fast_90 :
  fastpow 2 (companion (fun _ => 1)) 90%N 1%nat 0%nat = 2880067194370816120.
Proof. vm_compute. reflexivity. Qed.
