"""The checker-play policies both engines offer, by name.

Each engine builds them itself (:mod:`fastbg.reference.policies`, ``fastbg._core.policies``);
the names, and which is the rollouts' default, are the engine spec's.
"""
from __future__ import annotations

__all__ = ["POLICIES"]

#: The policies of both engines. ``nn`` is the default of the rollouts.
POLICIES = ("pubeval", "random", "nn", "nn-1ply", "nn1")
