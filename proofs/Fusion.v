(* Fusion.v -- the law of fold fusion that Flux's unfolding proof cites
   (src/proof/unfold.h, rule_fuse.c): a fold over the list a comprehension
   builds is the fold over the comprehension's domain whose step first
   computes the element, `let x = f y in step acc x`.

   Evaluation may fail (an index out of range, a division by zero), so
   functions return an option, None for a failure, and the comprehension
   builds its whole list before the fold starts (mapM), while the fused
   fold computes each element at its step.  The two fail together and give
   the same value otherwise: fold_map_fusion.  Without failures it is the
   familiar law (fold_map_fusion_total), and a comprehension of a
   comprehension is one comprehension (collect_fusion). *)
From Coq Require Import List.
Import ListNotations.

Section Fusion.
Variables A B C : Type.

Definition bind {X Y : Type} (m : option X) (k : X -> option Y) : option Y :=
  match m with Some x => k x | None => None end.

(* the comprehension [f y for y in ys]: every element, then the list *)
Fixpoint mapM (f : A -> option B) (ys : list A) : option (list B) :=
  match ys with
  | [] => Some []
  | y :: rest => bind (f y) (fun x => bind (mapM f rest) (fun xs => Some (x :: xs)))
  end.

(* a fold whose step may fail *)
Fixpoint foldM {X : Type} (step : C -> X -> option C) (acc : C) (xs : list X) : option C :=
  match xs with
  | [] => Some acc
  | x :: rest => bind (step acc x) (fun acc' => foldM step acc' rest)
  end.

Lemma bind_none : forall (X Y : Type) (m : option X),
  bind m (fun _ => @None Y) = None.
Proof. intros X Y m. destruct m; reflexivity. Qed.

Theorem fold_map_fusion : forall (f : A -> option B) (step : C -> B -> option C)
    (ys : list A) (acc : C),
  bind (mapM f ys) (fun xs => foldM step acc xs)
  = foldM (fun acc y => bind (f y) (fun x => step acc x)) acc ys.
Proof.
  intros f step ys. induction ys as [|y rest IH]; intros acc; simpl.
  - reflexivity.
  - destruct (f y) as [x|]; simpl; [|reflexivity].
    destruct (step acc x) as [acc'|] eqn:E; simpl.
    + rewrite <- IH. destruct (mapM f rest); simpl; [rewrite E|]; reflexivity.
    + destruct (mapM f rest); simpl; [rewrite E|]; reflexivity.
Qed.

Theorem fold_map_fusion_total : forall (f : A -> B) (step : C -> B -> C)
    (ys : list A) (acc : C),
  fold_left step (map f ys) acc = fold_left (fun acc y => let x := f y in step acc x) ys acc.
Proof.
  intros f step ys. induction ys as [|y rest IH]; intros acc; simpl; [reflexivity | apply IH].
Qed.

Theorem collect_fusion : forall (f : A -> B) (g : B -> C) (ys : list A),
  map g (map f ys) = map (fun y => let x := f y in g x) ys.
Proof. intros f g ys. rewrite map_map. reflexivity. Qed.

End Fusion.
