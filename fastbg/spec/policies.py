"""The checker-play policies both engines offer, by name.

Each engine builds them itself (:mod:`fastbg.reference.policies`, ``fastbg._core.policies``);
the names, and which is the rollouts' default, are the engine spec's.
"""
from __future__ import annotations

from .nply import check_ply

__all__ = ["POLICIES", "NPLY_POLICY", "check_rollout_ply"]

#: The policies of both engines. ``nn`` is the default of the rollouts.
POLICIES = ("pubeval", "random", "nn", "nn-1ply", "nn1")

#: The policy that plays at any ply (its checker play by the evaluator's n-ply ranking,
#: :mod:`fastbg.spec.nply`); the others play at their own depth only.
NPLY_POLICY = "nn"


def check_rollout_ply(policy: str, ply) -> int:
    """The checker-play ply of a rollout whose policy is ``policy``, checked: 0..3, and
    above 0 only for :data:`NPLY_POLICY`.

    Raises
    ------
    ValueError
        For a ply outside 0..3, or a ply above 0 with another policy (``nn-1ply`` is the
        1-ply policy of its own: ``policy="nn", ply=1`` is the filtered one).
    """
    p = check_ply(ply)
    if p > 0 and policy != NPLY_POLICY:
        raise ValueError(f"checker play at {p} ply is the {NPLY_POLICY!r} policy's (the evaluator "
                         f"ranking plays at {p} ply through a move filter); policy {policy!r} "
                         "plays at its own depth: give policy='nn' (or leave ply at 0)")
    return p
