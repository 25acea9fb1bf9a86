(* Matmul.v -- the matrix product is associative and distributes over
   entrywise addition.

   Setting.  A matrix is a function nat -> nat -> R: entry (i, j) is
   A i j.  Its sizes are explicit only through the bounds of the sums: the
   product of A (M x K) by B (K x N) is

     mul K A B i j  =  sum over k in [0, K) of A i k * B k j,

   where the finite sum is defined by recursion on the bound, exactly as
   Flux folds `sum(A[i, k] * B[k, j] for k in 0..K)`: start from 0 and add
   the terms for k = 0, 1, ..., K-1, left to right,

     sum 0 f = 0,     sum (S n) f = sum n f + f n.

   The sizes M and N of the result never enter the definition, so the
   theorems below hold for every index (i, j), in particular for every
   0 <= i < M, 0 <= j < N.  Entrywise addition is madd A B i j = A i j +
   B i j.

   What is proved, in words.  Over any commutative semiring R (given by
   Coq's semi_ring_theory with Leibniz equality, Section Semiring):
     - sum_ext, sum_zero, sum_add, sum_scale_l, sum_scale_r, sum_swap: the
       laws of finite sums used below: sums of equal terms are equal, a sum
       of zeros is 0, the sum of a pointwise sum is the sum of the sums, a
       constant factor (on the left or on the right) comes out of a sum,
       and two nested finite sums may be exchanged;
     - matmul_assoc_sr: for all K L and matrices A (M x K), B (K x L),
       C (L x N), and every i, j:
         mul L (mul K A B) C i j = mul K A (mul L B C) i j,
       i.e. (A B) C = A (B C);
     - matmul_distrib_left_sr: for all K, A (M x K), B, C (K x N), every
       i, j:  mul K A (madd B C) i j = madd (mul K A B) (mul K A C) i j,
       i.e. A (B + C) = A B + A C;
     - matmul_distrib_right_sr: for all K, A, B (M x K), C (K x N), every
       i, j:  mul K (madd A B) C i j = madd (mul K A C) (mul K B C) i j,
       i.e. (A + B) C = A C + B C.
   Instantiated at
     - Z (Flux's Int):               matmul_assoc, matmul_distrib_left,
                                     matmul_distrib_right;
     - N (Flux's Natural):           matmul_assoc_N, matmul_distrib_left_N,
                                     matmul_distrib_right_N;
     - nat (Natural, unary):         matmul_assoc_nat, matmul_distrib_left_nat,
                                     matmul_distrib_right_nat.

   What Flux uses it for.  The checker proves the properties `associative`
   and `distributive` of an intent whose definition has the matrix-product
   shape, result[i, j] = sum(A[i, k] * B[k, j] for k in 0..K), for Int and
   Natural elements, by citing these theorems: Flux's Int and Natural are
   exact (arbitrary precision), so they form a commutative ring (Z) and a
   commutative semiring (N), and the fold of the sum is the recursion
   above.  For Float elements the theorems do not hold bit for bit:
   floating-point addition is not associative (and rounding breaks
   distributivity), so reordering the sums changes the last bits of the
   result; there the checker keeps `associative` and `distributive` as
   documented assumptions, not as proved properties. *)

Require Import ZArith NArith Arith Ring_theory.

(* ------------------------------------------------------------------ *)
(* A commutative semiring, and finite sums over it.                    *)

Section Semiring.

Context {R : Type} (rO rI : R) (radd rmul : R -> R -> R).
Context (Rth : semi_ring_theory rO rI radd rmul (@eq R)).

Local Infix "+" := radd.
Local Infix "*" := rmul.
Local Notation "0" := rO.

Let add_0_l := SRadd_0_l Rth.
Let add_comm := SRadd_comm Rth.
Let add_assoc := SRadd_assoc Rth.
Let mul_0_l := SRmul_0_l Rth.
Let mul_comm := SRmul_comm Rth.
Let mul_assoc := SRmul_assoc Rth.
Let distr_l := SRdistr_l Rth.

Lemma add_0_r : forall x, x + 0 = x.
Proof. intros x. rewrite add_comm. apply add_0_l. Qed.

Lemma mul_0_r : forall x, x * 0 = 0.
Proof. intros x. rewrite mul_comm. apply mul_0_l. Qed.

Lemma distr_r : forall c x y, c * (x + y) = c * x + c * y.
Proof.
  intros c x y. rewrite (mul_comm c (x + y)), distr_l, (mul_comm x c), (mul_comm y c).
  reflexivity.
Qed.

(* (a + b) + (c + d) = (a + c) + (b + d) *)
Lemma add_shuffle : forall a b c d, (a + b) + (c + d) = (a + c) + (b + d).
Proof.
  intros a b c d.
  rewrite <- (add_assoc a b (c + d)), (add_assoc b c d), (add_comm b c),
          <- (add_assoc c b d), (add_assoc a c (b + d)).
  reflexivity.
Qed.

(* The sum of f k for k = 0, 1, ..., n-1, folded from 0, left to right. *)
Fixpoint sum (n : nat) (f : nat -> R) : R :=
  match n with
  | O => 0
  | S n' => sum n' f + f n'
  end.

Lemma sum_ext : forall n f g, (forall k, k < n -> f k = g k) -> sum n f = sum n g.
Proof.
  induction n as [|n IH]; intros f g H; simpl; [reflexivity|].
  rewrite (IH f g) by (intros k Hk; apply H; auto).
  rewrite (H n) by auto. reflexivity.
Qed.

Lemma sum_zero : forall n, sum n (fun _ => 0) = 0.
Proof. induction n as [|n IH]; simpl; [reflexivity|]. rewrite IH. apply add_0_l. Qed.

Lemma sum_add : forall n f g, sum n (fun k => f k + g k) = sum n f + sum n g.
Proof.
  induction n as [|n IH]; intros f g; simpl.
  - symmetry. apply add_0_l.
  - rewrite IH. apply add_shuffle.
Qed.

Lemma sum_scale_l : forall n c f, c * sum n f = sum n (fun k => c * f k).
Proof.
  induction n as [|n IH]; intros c f; simpl.
  - apply mul_0_r.
  - rewrite distr_r, IH. reflexivity.
Qed.

Lemma sum_scale_r : forall n c f, sum n f * c = sum n (fun k => f k * c).
Proof.
  intros n c f. rewrite mul_comm, sum_scale_l.
  apply sum_ext. intros k _. apply mul_comm.
Qed.

Lemma sum_swap : forall m n (f : nat -> nat -> R),
  sum m (fun i => sum n (fun j => f i j)) = sum n (fun j => sum m (fun i => f i j)).
Proof.
  induction m as [|m IH]; intros n f; simpl.
  - symmetry. apply sum_zero.
  - rewrite IH. symmetry. apply (sum_add n (fun j => sum m (fun i => f i j)) (fun j => f m j)).
Qed.

(* ------------------------------------------------------------------ *)
(* Matrices: the product and entrywise addition.                       *)

Definition mul (K : nat) (A B : nat -> nat -> R) : nat -> nat -> R :=
  fun i j => sum K (fun k => A i k * B k j).

Definition madd (A B : nat -> nat -> R) : nat -> nat -> R :=
  fun i j => A i j + B i j.

Theorem matmul_assoc_sr : forall (K L : nat) (A B C : nat -> nat -> R) (i j : nat),
  mul L (mul K A B) C i j = mul K A (mul L B C) i j.
Proof.
  intros K L A B C i j. unfold mul.
  transitivity (sum L (fun l => sum K (fun k => A i k * (B k l * C l j)))).
  - apply sum_ext. intros l _. rewrite sum_scale_r.
    apply sum_ext. intros k _. symmetry. apply mul_assoc.
  - rewrite sum_swap. apply sum_ext. intros k _. symmetry. apply sum_scale_l.
Qed.

Theorem matmul_distrib_left_sr : forall (K : nat) (A B C : nat -> nat -> R) (i j : nat),
  mul K A (madd B C) i j = madd (mul K A B) (mul K A C) i j.
Proof.
  intros K A B C i j. unfold mul, madd.
  rewrite <- sum_add. apply sum_ext. intros k _. apply distr_r.
Qed.

Theorem matmul_distrib_right_sr : forall (K : nat) (A B C : nat -> nat -> R) (i j : nat),
  mul K (madd A B) C i j = madd (mul K A C) (mul K B C) i j.
Proof.
  intros K A B C i j. unfold mul, madd.
  rewrite <- sum_add. apply sum_ext. intros k _. apply distr_l.
Qed.

End Semiring.

(* ------------------------------------------------------------------ *)
(* Int: integer matrices (Z, a commutative ring).                      *)

Lemma ZRth : semi_ring_theory 0%Z 1%Z Z.add Z.mul (@eq Z).
Proof.
  constructor.
  - exact Z.add_0_l.
  - exact Z.add_comm.
  - exact Z.add_assoc.
  - exact Z.mul_1_l.
  - exact Z.mul_0_l.
  - exact Z.mul_comm.
  - exact Z.mul_assoc.
  - exact Z.mul_add_distr_r.
Qed.

Definition sumZ : nat -> (nat -> Z) -> Z := sum 0%Z Z.add.
Definition mulZ : nat -> (nat -> nat -> Z) -> (nat -> nat -> Z) -> nat -> nat -> Z :=
  mul 0%Z Z.add Z.mul.
Definition maddZ : (nat -> nat -> Z) -> (nat -> nat -> Z) -> nat -> nat -> Z :=
  madd Z.add.

(* The definitions, unfolded: they are the sum and product Flux computes. *)
Lemma sumZ_0 : forall f, sumZ 0 f = 0%Z.
Proof. reflexivity. Qed.
Lemma sumZ_S : forall n f, sumZ (S n) f = (sumZ n f + f n)%Z.
Proof. reflexivity. Qed.
Lemma mulZ_def : forall K A B i j, mulZ K A B i j = sumZ K (fun k => A i k * B k j)%Z.
Proof. reflexivity. Qed.
Lemma maddZ_def : forall A B i j, maddZ A B i j = (A i j + B i j)%Z.
Proof. reflexivity. Qed.

Theorem matmul_assoc : forall (K L : nat) (A B C : nat -> nat -> Z) (i j : nat),
  mulZ L (mulZ K A B) C i j = mulZ K A (mulZ L B C) i j.
Proof. exact (matmul_assoc_sr 0%Z 1%Z Z.add Z.mul ZRth). Qed.

Theorem matmul_distrib_left : forall (K : nat) (A B C : nat -> nat -> Z) (i j : nat),
  mulZ K A (maddZ B C) i j = maddZ (mulZ K A B) (mulZ K A C) i j.
Proof. exact (matmul_distrib_left_sr 0%Z 1%Z Z.add Z.mul ZRth). Qed.

Theorem matmul_distrib_right : forall (K : nat) (A B C : nat -> nat -> Z) (i j : nat),
  mulZ K (maddZ A B) C i j = maddZ (mulZ K A C) (mulZ K B C) i j.
Proof. exact (matmul_distrib_right_sr 0%Z 1%Z Z.add Z.mul ZRth). Qed.

(* ------------------------------------------------------------------ *)
(* Natural: matrices over N (binary naturals, a commutative semiring). *)

Lemma NRth : semi_ring_theory 0%N 1%N N.add N.mul (@eq N).
Proof.
  constructor.
  - exact N.add_0_l.
  - exact N.add_comm.
  - exact N.add_assoc.
  - exact N.mul_1_l.
  - exact N.mul_0_l.
  - exact N.mul_comm.
  - exact N.mul_assoc.
  - exact N.mul_add_distr_r.
Qed.

Definition sumN : nat -> (nat -> N) -> N := sum 0%N N.add.
Definition mulN : nat -> (nat -> nat -> N) -> (nat -> nat -> N) -> nat -> nat -> N :=
  mul 0%N N.add N.mul.
Definition maddN : (nat -> nat -> N) -> (nat -> nat -> N) -> nat -> nat -> N :=
  madd N.add.

Lemma mulN_def : forall K A B i j, mulN K A B i j = sumN K (fun k => A i k * B k j)%N.
Proof. reflexivity. Qed.

Theorem matmul_assoc_N : forall (K L : nat) (A B C : nat -> nat -> N) (i j : nat),
  mulN L (mulN K A B) C i j = mulN K A (mulN L B C) i j.
Proof. exact (matmul_assoc_sr 0%N 1%N N.add N.mul NRth). Qed.

Theorem matmul_distrib_left_N : forall (K : nat) (A B C : nat -> nat -> N) (i j : nat),
  mulN K A (maddN B C) i j = maddN (mulN K A B) (mulN K A C) i j.
Proof. exact (matmul_distrib_left_sr 0%N 1%N N.add N.mul NRth). Qed.

Theorem matmul_distrib_right_N : forall (K : nat) (A B C : nat -> nat -> N) (i j : nat),
  mulN K (maddN A B) C i j = maddN (mulN K A C) (mulN K B C) i j.
Proof. exact (matmul_distrib_right_sr 0%N 1%N N.add N.mul NRth). Qed.

(* ------------------------------------------------------------------ *)
(* Natural, unary: matrices over nat.                                  *)

Definition sumNat : nat -> (nat -> nat) -> nat := sum 0 Nat.add.
Definition mulNat : nat -> (nat -> nat -> nat) -> (nat -> nat -> nat) -> nat -> nat -> nat :=
  mul 0 Nat.add Nat.mul.
Definition maddNat : (nat -> nat -> nat) -> (nat -> nat -> nat) -> nat -> nat -> nat :=
  madd Nat.add.

Lemma mulNat_def : forall K A B i j, mulNat K A B i j = sumNat K (fun k => A i k * B k j).
Proof. reflexivity. Qed.

Theorem matmul_assoc_nat : forall (K L : nat) (A B C : nat -> nat -> nat) (i j : nat),
  mulNat L (mulNat K A B) C i j = mulNat K A (mulNat L B C) i j.
Proof. exact (matmul_assoc_sr 0 1 Nat.add Nat.mul natSRth). Qed.

Theorem matmul_distrib_left_nat : forall (K : nat) (A B C : nat -> nat -> nat) (i j : nat),
  mulNat K A (maddNat B C) i j = maddNat (mulNat K A B) (mulNat K A C) i j.
Proof. exact (matmul_distrib_left_sr 0 1 Nat.add Nat.mul natSRth). Qed.

Theorem matmul_distrib_right_nat : forall (K : nat) (A B C : nat -> nat -> nat) (i j : nat),
  mulNat K (maddNat A B) C i j = maddNat (mulNat K A C) (mulNat K B C) i j.
Proof. exact (matmul_distrib_right_sr 0 1 Nat.add Nat.mul natSRth). Qed.
