# cython: language_level=3
"""The core's policies by name: the one module that knows them all.

Mirror of :mod:`fastbg.reference.policies`. The policies are defined below it
(``eval``: uniform random and pubeval; ``nn``: the network at 0 and 1 ply); the game
loops above it (``rollout``, ``cubeful``) take a policy or its name through
``as_policy``.
"""
from fastbg._core.eval cimport Policy, RandomPolicy, PubevalPolicy
from fastbg._core.nn cimport NNPolicy
from fastbg._core.evaluator cimport EvalPolicy, EvalPolicy1Ply

from fastbg.spec.policies import POLICIES


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


cdef Policy as_policy(object policy):
    if isinstance(policy, str):
        return make_policy(policy)
    if not isinstance(policy, Policy):
        raise TypeError(
            f"policy must come from make_policy() (or be its name), got {type(policy).__name__}"
        )
    return <Policy>policy
