"""The rows of a breakdown by first roll, shared by the cubeless and cubeful rollouts.

A rollout broken down by first roll (``by_first_roll=True``) counts each game in the row of
its first roll as well as in the totals; both kinds of rollout number those rows the same
way, from this one table.
"""
from __future__ import annotations

import numpy as np

__all__ = ["first_roll_keys"]


def first_roll_keys(opening: bool) -> tuple[np.ndarray, list]:
    """The rows of a breakdown by first roll: which row each roll goes to, and the labels.

    Parameters
    ----------
    opening : bool
        The games begin with the opening roll (each side rolls one die; no doubles).

    Returns
    -------
    keys : numpy.ndarray of int64, shape (36,)
        Roll index ``r`` (die 1 = ``r // 6 + 1``, die 2 = ``r % 6 + 1``, DESIGN section 4)
        -> its row, -1 for a roll that cannot come first (a double of the opening roll).
    labels : list of (str, str or None)
        Each row's roll (``"6-5"``, larger die first) and who rolled it: without the opening
        roll the 21 rolls, ``(roll, None)``; from the opening roll the 15 rolls that the
        player wins it with (``"player"``; its die is die 1) and then the 15 the opponent
        wins it with (``"opponent"``).
    """
    keys = np.full(36, -1, dtype=np.int64)
    labels = []
    if opening:
        for who in ("player", "opponent"):
            for hi in range(2, 7):
                for lo in range(1, hi):
                    a, b = (hi, lo) if who == "player" else (lo, hi)  # a: the player's die
                    keys[6 * (a - 1) + (b - 1)] = len(labels)
                    labels.append((f"{hi}-{lo}", who))
    else:
        for hi in range(1, 7):
            for lo in range(1, hi + 1):
                keys[6 * (hi - 1) + (lo - 1)] = keys[6 * (lo - 1) + (hi - 1)] = len(labels)
                labels.append((f"{hi}-{lo}", None))
    return keys, labels
