# cython: language_level=3
"""The core's policies by name: the one module that knows them all.

Mirror of :mod:`fastbg.reference.policies`. The policies are defined below it
(``eval``: uniform random and pubeval; ``nn``: the network at 0 and 1 ply); the game
loops above it (``rollout``, ``cubeful``) take a policy or its name through
``as_policy``.
"""
from fastbg._core.eval cimport Policy, RandomPolicy, PubevalPolicy
from fastbg._core.nn cimport NNPolicy
from fastbg._core.evaluator cimport EvalPolicy, EvalPolicy1Ply, EvalPolicyNPly

from fastbg.spec.policies import POLICIES, check_rollout_ply


def make_policy(name):
    """A policy by name: ``"random"``, ``"pubeval"`` (:mod:`fastbg._core.eval`), ``"nn"`` and
    ``"nn-1ply"`` (the shipped evaluator, :mod:`fastbg._core.evaluator`) or ``"nn1"`` (the
    first network, :mod:`fastbg._core.nn`).

    Raises
    ------
    ValueError
        For any other name.
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


def checker_policy(name, ply=0, move_filter=None):
    """The checker play of a rollout: the policy ``name`` at 0 ply, or the shipped evaluator
    at ``ply`` through ``move_filter`` (:class:`fastbg._core.evaluator.EvalPolicyNPly`).

    Parameters
    ----------
    name : str
        A policy name (:func:`make_policy`); ``"nn"`` for ``ply >= 1``.
    ply : int, default 0
        0..3.
    move_filter : fastbg.spec.nply.MoveFilter, str or sequence, optional
        For ``ply >= 1`` (default GNU Backgammon's Normal).

    Raises
    ------
    ValueError
        For an unknown name, a bad ply or filter, or ``ply >= 1`` with a policy other
        than ``"nn"``.
    """
    if isinstance(ply, bool) or ply != 0:
        check_rollout_ply(name, ply)
        return EvalPolicyNPly(ply=ply, move_filter=move_filter)
    return make_policy(name)


cdef Policy as_policy(object policy):
    if isinstance(policy, str):
        return make_policy(policy)
    if not isinstance(policy, Policy):
        raise TypeError(
            f"policy must come from make_policy() (or be its name), got {type(policy).__name__}"
        )
    return <Policy>policy
