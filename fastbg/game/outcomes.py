"""Outcome classes, probability keys and cube owners: the names everything else reads.

Probabilities are from the point of view of the player on roll, before the roll, in
GNU Backgammon's order (DESIGN section 5); gammon counts include backgammons and
``lose = 1 - win``. The six outcome classes are the integer counts a rollout block
returns (both engines define the same tuple, :data:`OUTCOME_CLASSES`, for their own
use; this module re-exports the reference engine's so there is one to read).
"""
from __future__ import annotations

import numpy as np

from ..spec.board import OUTCOME_CLASSES

__all__ = ["OUTCOME_CLASSES", "PROBABILITY_KEYS", "OUTCOME_INDICATORS", "CUBE_OWNERS"]

#: GNU Backgammon's order of the five cubeless probabilities (DESIGN section 5).
PROBABILITY_KEYS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")

# Outcome classes: win single/gammon/backgammon, lose single/gammon/backgammon.
# Rows: which classes count towards each probability.
OUTCOME_INDICATORS = np.array(
    [
        [1, 1, 1, 0, 0, 0],  # win
        [0, 1, 1, 0, 0, 0],  # win_gammon (backgammons included)
        [0, 0, 1, 0, 0, 0],  # win_backgammon
        [0, 0, 0, 0, 1, 1],  # lose_gammon (backgammons included)
        [0, 0, 0, 0, 0, 1],  # lose_backgammon
    ],
    dtype=np.int64,
)
OUTCOME_INDICATORS.setflags(write=False)

#: Who owns the cube, from the view of the player on roll (the side that may double).
CUBE_OWNERS = ("centred", "player", "opponent")
