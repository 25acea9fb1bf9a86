(* Sieve.v -- the sieve of Eratosthenes is correct.

   What is proved, in words.  With Flux's definition of primality on the
   naturals, prime p := p >= 2 /\ forall d, 2 <= d < p -> p mod d <> 0:
     - sieve_correct:  for all n and x, x is in (sieve n) iff 2 <= x <= n
                       and x is prime.  `sieve n` starts from [2..n], takes
                       the head p, removes the multiples of p from the
                       rest, and recurses;
     - sieve_sorted:   (sieve n) is strictly ascending (StronglySorted lt),
                       so in particular has no duplicates;
     - composite_has_small_factor: if 2 <= x and x is not prime, then x has
                       a divisor d with 2 <= d and d * d <= x;
     - crossing_starts_at_square: during the sieve, every multiple of the
                       current head p still in the list, other than p,
                       is >= p * p (so crossing out may start at p * p);
       remove_multiples_from_square: striking only multiples >= p * p
                       gives the same list;
     - sieve_fast_correct / sieve_fast_sorted / sieve_fast_eq: the
                       optimized sieve that stops as soon as the head p has
                       p * p > n (returning what is left unchanged) has the
                       same specification and returns exactly (sieve n).

   What Flux uses it for.  The prover cites sieve_correct when a
   primality-filter loop over [2..n] is replaced by a sieve, and
   composite_has_small_factor / crossing_starts_at_square /
   sieve_fast_eq to justify the optimizer's two refinements: crossing out
   starts at p * p, and only primes p with p * p <= n are sieved. *)

Require Import Arith Bool Lia List Sorting.
Import ListNotations.

Definition prime (p : nat) : Prop :=
  2 <= p /\ forall d, 2 <= d < p -> p mod d <> 0.

(* ------------------------------------------------------------------ *)
(* Arithmetic facts.                                                   *)

Lemma mod0_trans : forall x d e, e <> 0 -> d <> 0 ->
  d mod e = 0 -> x mod d = 0 -> x mod e = 0.
Proof.
  intros x d e He Hd H1 H2.
  apply Nat.mod_divide in H1; auto. apply Nat.mod_divide in H2; auto.
  apply Nat.mod_divide; auto. eapply Nat.divide_trans; eauto.
Qed.

Lemma mod0_factor : forall x d, d <> 0 -> x mod d = 0 -> x = d * (x / d).
Proof.
  intros x d Hd H. pose proof (Nat.div_mod x d Hd). lia.
Qed.

Lemma mod_mul_l : forall a b, a <> 0 -> (a * b) mod a = 0.
Proof. intros. rewrite Nat.mul_comm. apply Nat.mod_mul; auto. Qed.

(* Bounded search: either x has a divisor in [2, m) or it has none. *)
Lemma divisor_search : forall x m,
  (exists d, 2 <= d < m /\ x mod d = 0) \/ (forall d, 2 <= d < m -> x mod d <> 0).
Proof.
  intros x m. induction m.
  - right; intros; lia.
  - destruct IHm as [[d [Hd Hm]]|Hno].
    + left; exists d; split; auto; lia.
    + destruct (Nat.eq_dec (x mod m) 0) as [Hz|Hnz].
      * destruct (le_lt_dec 2 m).
        -- left; exists m; split; auto; lia.
        -- right; intros d Hd; apply Hno; lia.
      * right; intros d Hd. destruct (Nat.eq_dec d m) as [->|]; auto. apply Hno; lia.
Qed.

Lemma prime_dec : forall x, prime x \/ ~ prime x.
Proof.
  intros x. destruct (le_lt_dec 2 x).
  - destruct (divisor_search x x) as [[d [Hd Hm]]|Hno].
    + right; intros [_ Hp]. apply (Hp d); auto.
    + left; split; auto.
  - right; intros [H _]; lia.
Qed.

(* If x has some proper divisor, it has one whose square is at most x. *)
Lemma small_factor_of_divisor : forall x d, 2 <= d < x -> x mod d = 0 ->
  exists e, 2 <= e /\ e * e <= x /\ x mod e = 0.
Proof.
  intros x d Hd Hm. pose proof (mod0_factor x d ltac:(lia) Hm) as Hx.
  set (q := x / d) in *.
  assert (Hq : 2 <= q) by nia.
  destruct (le_lt_dec (d * d) x).
  - exists d; repeat split; auto; lia.
  - exists q; repeat split; auto.
    + nia.
    + rewrite Hx. rewrite Nat.mod_mul; lia.
Qed.

(* The lemma the optimizer relies on: only primes p with p * p <= n need
   to be sieved. *)
Theorem composite_has_small_factor : forall x, 2 <= x -> ~ prime x ->
  exists d, 2 <= d /\ d * d <= x /\ x mod d = 0.
Proof.
  intros x Hx Hnp. destruct (divisor_search x x) as [[d [Hd Hm]]|Hno].
  - apply small_factor_of_divisor with d; auto.
  - exfalso; apply Hnp; split; auto.
Qed.

(* ------------------------------------------------------------------ *)
(* The sieve.                                                          *)

Definition remove_multiples (p : nat) (l : list nat) : list nat :=
  filter (fun x => negb (x mod p =? 0)) l.

(* Take the head p (a prime), strike its multiples from the rest, recurse.
   The fuel is the length of the list, so it never runs out. *)
Fixpoint sieve_aux (fuel : nat) (l : list nat) : list nat :=
  match fuel with
  | O => []
  | S f =>
    match l with
    | [] => []
    | p :: t => p :: sieve_aux f (remove_multiples p t)
    end
  end.

Definition sieve (n : nat) : list nat := sieve_aux n (seq 2 (n - 1)).

(* The optimized sieve: stop as soon as the head p has p * p > n; what is
   left is all prime. *)
Fixpoint sieve_fast_aux (n fuel : nat) (l : list nat) : list nat :=
  match fuel with
  | O => []
  | S f =>
    match l with
    | [] => []
    | p :: t => if n <? p * p then l else p :: sieve_fast_aux n f (remove_multiples p t)
    end
  end.

Definition sieve_fast (n : nat) : list nat := sieve_fast_aux n n (seq 2 (n - 1)).

(* ------------------------------------------------------------------ *)
(* The invariant: l is strictly ascending and holds exactly the numbers
   in [lo, n] with no divisor in [2, lo).                               *)

Definition Inv (n lo : nat) (l : list nat) : Prop :=
  2 <= lo /\ StronglySorted lt l /\
  forall x, In x l <-> (lo <= x <= n /\ forall d, 2 <= d < lo -> x mod d <> 0).

Lemma StronglySorted_filter : forall (f : nat -> bool) l,
  StronglySorted lt l -> StronglySorted lt (filter f l).
Proof.
  induction l; intros H; simpl; auto.
  inversion H; subst. destruct (f a); auto.
  constructor; auto. rewrite Forall_forall in *. intros x Hx.
  apply filter_In in Hx. apply H3; tauto.
Qed.

Lemma filter_length_le : forall (f : nat -> bool) l, length (filter f l) <= length l.
Proof. induction l; simpl; auto. destruct (f a); simpl; lia. Qed.

Lemma Inv_head : forall n lo p t, Inv n lo (p :: t) ->
  lo <= p <= n /\ (forall x, In x t -> p < x) /\
  (forall x, In x (p :: t) -> forall d, 2 <= d < p -> x mod d <> 0).
Proof.
  intros n lo p t [Hlo [Hs Hin]].
  inversion Hs; subst. rewrite Forall_forall in H2.
  assert (Hp : lo <= p <= n) by (apply Hin; left; auto).
  split; [auto | split; [auto|]].
  intros x Hx d Hd Hm.
  assert (Hxd : lo <= x <= n /\ forall e, 2 <= e < lo -> x mod e <> 0) by (apply Hin; auto).
  destruct Hxd as [Hxr Hxe].
  destruct (le_lt_dec lo d).
  - (* d itself survived to this list, and it is smaller than the head *)
    assert (Hdin : In d (p :: t)).
    { apply Hin. split; [lia|]. intros e He Hde. apply (Hxe e He).
      apply mod0_trans with d; auto; lia. }
    destruct Hdin as [Hdp|Hdt]; [lia|]. specialize (H2 d Hdt). lia.
  - apply (Hxe d); auto; lia.
Qed.

Lemma Inv_head_prime : forall n lo p t, Inv n lo (p :: t) -> prime p.
Proof.
  intros n lo p t H. pose proof (Inv_head _ _ _ _ H) as [Hp [_ Hd]].
  destruct H as [Hlo _]. split; [lia|]. apply Hd. left; auto.
Qed.

Lemma Inv_step : forall n lo p t, Inv n lo (p :: t) -> Inv n (S p) (remove_multiples p t).
Proof.
  intros n lo p t H. pose proof (Inv_head _ _ _ _ H) as [Hp [Ht Hd]].
  destruct H as [Hlo [Hs Hin]].
  split; [lia|]. split.
  - inversion Hs; subst. apply StronglySorted_filter; auto.
  - intros x. unfold remove_multiples. rewrite filter_In. split.
    + intros [Hx Hm]. apply Bool.negb_true_iff, Nat.eqb_neq in Hm.
      specialize (Ht x Hx).
      assert (Hxl : lo <= x <= n /\ _) by (apply Hin; right; exact Hx).
      split; [lia|]. intros d Hd'.
      destruct (Nat.eq_dec d p) as [->|]; auto.
      apply Hd; [right; auto | lia].
    + intros [Hr Hno].
      assert (Hxl : In x (p :: t)).
      { apply Hin. split; [lia|]. intros d Hd'; apply Hno; lia. }
      destruct Hxl as [Hxp|Hxt]; [lia|]. split; auto.
      apply Bool.negb_true_iff, Nat.eqb_neq. apply Hno; lia.
Qed.

(* Crossing out may start at p * p: every multiple of p still in the list,
   other than p, is at least p * p. *)
Theorem crossing_starts_at_square : forall n lo p t x, Inv n lo (p :: t) ->
  In x t -> x mod p = 0 -> p * p <= x.
Proof.
  intros n lo p t x H Hx Hm. pose proof (Inv_head _ _ _ _ H) as [Hp [Ht Hd]].
  destruct H as [Hlo _]. specialize (Ht x Hx).
  pose proof (mod0_factor x p ltac:(lia) Hm) as Hxq. set (q := x / p) in *.
  assert (Hq : 2 <= q) by nia.
  destruct (le_lt_dec p q); [nia|].
  exfalso. apply (Hd x (or_intror Hx) q); [lia|].
  rewrite Hxq. rewrite Nat.mod_mul; lia.
Qed.

(* Hence striking only the multiples from p * p on gives the same list. *)
Corollary remove_multiples_from_square : forall n lo p t, Inv n lo (p :: t) ->
  remove_multiples p t = filter (fun x => (x <? p * p) || negb (x mod p =? 0)) t.
Proof.
  intros n lo p t H. unfold remove_multiples. apply filter_ext_in.
  intros x Hx. destruct (Nat.eqb_spec (x mod p) 0) as [Hm|Hm]; simpl.
  - pose proof (crossing_starts_at_square _ _ _ _ _ H Hx Hm).
    symmetry; rewrite orb_false_r; apply Nat.ltb_ge; auto.
  - rewrite orb_true_r; auto.
Qed.

Lemma prime_no_small_divisor : forall x lo, prime x -> lo <= x ->
  forall d, 2 <= d < lo -> x mod d <> 0.
Proof. intros x lo [_ Hp] Hl d Hd. apply Hp; lia. Qed.

Lemma sieve_aux_correct : forall n fuel l lo, Inv n lo l -> length l <= fuel ->
  StronglySorted lt (sieve_aux fuel l) /\
  forall x, In x (sieve_aux fuel l) <-> (lo <= x <= n /\ prime x).
Proof.
  intros n fuel. induction fuel; intros l lo H Hlen.
  - destruct l; simpl in Hlen; [|lia]. split; [constructor|].
    intros x; simpl; split; [tauto|]. intros [Hr Hp].
    destruct H as [_ [_ Hin]]. apply (Hin x). split; auto.
    apply prime_no_small_divisor; auto; lia.
  - destruct l as [|p t].
    + simpl. split; [constructor|]. intros x; split; [tauto|]. intros [Hr Hp].
      destruct H as [_ [_ Hin]]. apply (Hin x). split; auto.
      apply prime_no_small_divisor; auto; lia.
    + simpl. pose proof (Inv_step _ _ _ _ H) as Hstep.
      pose proof (Inv_head _ _ _ _ H) as [Hp [Ht _]].
      pose proof (Inv_head_prime _ _ _ _ H) as Hpp.
      simpl in Hlen. pose proof (filter_length_le (fun x => negb (x mod p =? 0)) t).
      destruct (IHfuel _ _ Hstep) as [IHs IHin]; [unfold remove_multiples; lia|].
      split.
      * constructor; auto. apply Forall_forall. intros x Hx. apply IHin in Hx. lia.
      * intros x. split.
        -- intros [<-|Hx]; [auto|]. apply IHin in Hx. split; [lia|tauto].
        -- intros [Hr Hxp]. destruct (Nat.eq_dec x p) as [->|Hne]; [left; auto|].
           right. apply IHin. split; auto.
           assert (Hxl : In x (p :: t)).
           { destruct H as [_ [_ Hin]]. apply Hin. split; auto.
             apply prime_no_small_divisor; auto; lia. }
           destruct Hxl as [|Hxt]; [lia|]. specialize (Ht x Hxt). lia.
Qed.

Lemma StronglySorted_seq : forall k s, StronglySorted lt (seq s k).
Proof.
  induction k; intros s; simpl; constructor; auto.
  apply Forall_forall; intros x Hx. apply in_seq in Hx. lia.
Qed.

Lemma Inv_init : forall n, Inv n 2 (seq 2 (n - 1)).
Proof.
  intros n. split; [lia|]. split; [apply StronglySorted_seq|].
  intros x. rewrite in_seq. split.
  - intros Hx. split; [lia|]. intros; lia.
  - intros [Hx _]. lia.
Qed.

Theorem sieve_correct : forall n x, In x (sieve n) <-> (2 <= x <= n /\ prime x).
Proof.
  intros n. apply (sieve_aux_correct n n _ 2 (Inv_init n)).
  rewrite seq_length. lia.
Qed.

Theorem sieve_sorted : forall n, StronglySorted lt (sieve n).
Proof.
  intros n. apply (sieve_aux_correct n n _ 2 (Inv_init n)).
  rewrite seq_length. lia.
Qed.

(* The optimized sieve. *)
Lemma sieve_fast_aux_correct : forall n fuel l lo, Inv n lo l -> length l <= fuel ->
  StronglySorted lt (sieve_fast_aux n fuel l) /\
  forall x, In x (sieve_fast_aux n fuel l) <-> (lo <= x <= n /\ prime x).
Proof.
  intros n fuel. induction fuel; intros l lo H Hlen.
  - destruct l; simpl in Hlen; [|lia]. split; [constructor|].
    intros x; simpl; split; [tauto|]. intros [Hr Hp].
    destruct H as [_ [_ Hin]]. apply (Hin x). split; auto.
    apply prime_no_small_divisor; auto; lia.
  - destruct l as [|p t].
    + simpl. split; [constructor|]. intros x; split; [tauto|]. intros [Hr Hp].
      destruct H as [_ [_ Hin]]. apply (Hin x). split; auto.
      apply prime_no_small_divisor; auto; lia.
    + simpl. pose proof (Inv_head _ _ _ _ H) as [Hp [Ht Hd]].
      destruct (Nat.ltb_spec n (p * p)) as [Hbig|Hsmall].
      * (* p * p > n: everything left is prime *)
        destruct H as [Hlo [Hs Hin]]. split; auto. intros x. split.
        -- intros Hx. assert (Hxr : lo <= x <= n /\ _) by (apply Hin; exact Hx).
           split; [lia|].
           destruct (prime_dec x) as [|Hnp]; auto. exfalso.
           destruct (composite_has_small_factor x ltac:(lia) Hnp) as [d [Hd2 [Hdd Hdm]]].
           destruct (le_lt_dec p d); [nia|].
           apply (Hd x Hx d); auto.
        -- intros [Hr Hxp]. apply Hin. split; auto.
           apply prime_no_small_divisor; auto; lia.
      * pose proof (Inv_step _ _ _ _ H) as Hstep.
        pose proof (Inv_head_prime _ _ _ _ H) as Hpp.
        simpl in Hlen. pose proof (filter_length_le (fun x => negb (x mod p =? 0)) t).
        destruct (IHfuel _ _ Hstep) as [IHs IHin]; [unfold remove_multiples; lia|].
        split.
        -- constructor; auto. apply Forall_forall. intros x Hx. apply IHin in Hx. lia.
        -- intros x. split.
           ++ intros [<-|Hx]; [auto|]. apply IHin in Hx. split; [lia|tauto].
           ++ intros [Hr Hxp]. destruct (Nat.eq_dec x p) as [->|Hne]; [left; auto|].
              right. apply IHin. split; auto.
              assert (Hxl : In x (p :: t)).
              { destruct H as [_ [_ Hin]]. apply Hin. split; auto.
                apply prime_no_small_divisor; auto; lia. }
              destruct Hxl as [|Hxt]; [lia|]. specialize (Ht x Hxt). lia.
Qed.

Theorem sieve_fast_correct : forall n x, In x (sieve_fast n) <-> (2 <= x <= n /\ prime x).
Proof.
  intros n. apply (sieve_fast_aux_correct n n _ 2 (Inv_init n)).
  rewrite seq_length. lia.
Qed.

Theorem sieve_fast_sorted : forall n, StronglySorted lt (sieve_fast n).
Proof.
  intros n. apply (sieve_fast_aux_correct n n _ 2 (Inv_init n)).
  rewrite seq_length. lia.
Qed.

(* Two strictly ascending lists with the same elements are equal. *)
Lemma StronglySorted_lt_ext : forall l1 l2,
  StronglySorted lt l1 -> StronglySorted lt l2 -> (forall x, In x l1 <-> In x l2) -> l1 = l2.
Proof.
  induction l1 as [|a t1 IH]; intros [|b t2] S1 S2 E.
  - auto.
  - exfalso. apply (E b). left; auto.
  - exfalso. apply (E a). left; auto.
  - inversion S1; subst. inversion S2; subst.
    rewrite Forall_forall in *.
    assert (Hab : a = b).
    { destruct (proj1 (E a) (or_introl eq_refl)) as [|Ha]; auto.
      destruct (proj2 (E b) (or_introl eq_refl)) as [|Hb]; auto.
      specialize (H4 a Ha). specialize (H2 b Hb). lia. }
    subst b. f_equal. apply IH; auto. intros x. split; intros Hx.
    + destruct (proj1 (E x) (or_intror Hx)) as [Heq|]; auto. subst. specialize (H2 _ Hx); lia.
    + destruct (proj2 (E x) (or_intror Hx)) as [Heq|]; auto. subst. specialize (H4 _ Hx); lia.
Qed.

(* The optimized sieve returns exactly the same list. *)
Theorem sieve_fast_eq : forall n, sieve_fast n = sieve n.
Proof.
  intros n. apply StronglySorted_lt_ext.
  - apply sieve_fast_sorted.
  - apply sieve_sorted.
  - intros x. rewrite sieve_fast_correct, sieve_correct. tauto.
Qed.

Example sieve_30 : sieve 30 = [2; 3; 5; 7; 11; 13; 17; 19; 23; 29].
Proof. vm_compute. reflexivity. Qed.
Example sieve_fast_30 : sieve_fast 30 = [2; 3; 5; 7; 11; 13; 17; 19; 23; 29].
Proof. vm_compute. reflexivity. Qed.
