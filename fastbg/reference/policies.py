"""The policies of the pure-Python engine by name: the one module that knows them all.

Mirror of ``fastbg._core.policies``. The modules below it define the policies
(:mod:`fastbg.reference.eval`: uniform random and pubeval;
:mod:`fastbg.reference.evaluator`: the shipped evaluator, contact and race nets, at 0 and
1 ply; :mod:`fastbg.reference.nn`: the first network, kept as ``nn1`` for comparisons); the game loops above it (:mod:`fastbg.reference.rollout`,
the cubeful loop) take a policy object or a name and turn names into policies here.
"""
from __future__ import annotations

from ..spec.policies import POLICIES, check_rollout_ply
from .eval import PubevalPolicy, RandomPolicy
from .evaluator import EvalPolicy, EvalPolicy1Ply, EvalPolicyNPly
from .nn import NNPolicy

__all__ = ["POLICIES", "make_policy", "checker_policy", "as_policy"]


def make_policy(name: str):
    """A policy by name.

    Parameters
    ----------
    name : {"pubeval", "random", "nn", "nn-1ply", "nn1"}
        ``nn`` and ``nn-1ply``: the shipped evaluator at 0 and 1 ply; ``nn1``: the first
        network (196 inputs, TD self-play) at 0 ply.

    Returns
    -------
    RandomPolicy, PubevalPolicy, EvalPolicy, EvalPolicy1Ply or NNPolicy

    Raises
    ------
    ValueError
        If ``name`` is not a known policy.
    """
    if name == "random":
        return RandomPolicy()
    if name == "pubeval":
        return PubevalPolicy()
    if name == "nn":
        return EvalPolicy()
    if name == "nn-1ply":
        return EvalPolicy1Ply()
    if name == "nn1":
        return NNPolicy()
    raise ValueError(f"unknown policy {name!r}: choose one of {', '.join(POLICIES)}")


def checker_policy(name: str, ply: int = 0, move_filter=None):
    """The checker play of a rollout (mirror of the core's): the policy ``name`` at 0 ply,
    or the shipped evaluator at ``ply`` through ``move_filter``
    (:class:`~fastbg.reference.evaluator.EvalPolicyNPly`).

    Raises
    ------
    ValueError
        For an unknown name, a bad ply or filter, or ``ply >= 1`` with a policy other
        than ``"nn"`` (:func:`fastbg.spec.policies.check_rollout_ply`).
    """
    if isinstance(ply, bool) or ply != 0:
        check_rollout_ply(name, ply)
        return EvalPolicyNPly(ply=ply, move_filter=move_filter)
    return make_policy(name)


def as_policy(policy):
    """A policy object from a policy or its name (:func:`make_policy`).

    Raises
    ------
    TypeError
        For anything that is neither a name nor an object with ``choose``.
    ValueError
        For an unknown name.
    """
    if isinstance(policy, str):
        return make_policy(policy)
    if not callable(getattr(policy, "choose", None)):
        raise TypeError(
            "policy must come from make_policy() (or be its name), "
            f"got {type(policy).__name__}"
        )
    return policy
