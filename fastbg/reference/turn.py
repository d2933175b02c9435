"""One turn of the pure-Python engine: the opening roll and a roll played by a policy.

Every game loop of the reference engine (rollouts, cubeful games, matches between two
policies, TD training) takes its turns through these two functions; mirror of
``fastbg._core.turn``. They take a policy object (anything with
``choose(board_before, plays, bitgen)``), never a name: :mod:`fastbg.reference.policies`
owns the names.
"""
from __future__ import annotations

import numpy as np

from .board import swap
from ..spec.dice import opening_roll
from .movegen import legal_plays

__all__ = ["opening_turn", "play_turn"]


def opening_turn(board, bitgen, dice=None):
    """The opening roll, as every game loop of the reference engine plays it.

    Each side rolls one die (ties re-rolled, :func:`fastbg.spec.dice.opening_roll`);
    the higher die moves first and plays both. Returns ``(board, root, d1, d2)``:
    ``board`` with the winner in row 0 (swapped if the opponent won), ``root`` True if
    the winner is row 0 of the given board, and the winner's die first. ``dice``: the two
    dice ``(a, b)`` (row 0's first, ``a != b``) when they are given (quasi-random dice)
    instead of drawn.
    """
    a, b = opening_roll(bitgen) if dice is None else dice
    if a > b:
        return board, True, a, b
    return swap(board), False, b, a


def play_turn(board, d1: int, d2: int, policy, bitgen) -> np.ndarray:
    """The position after the player on roll plays ``d1-d2`` (rows not swapped).

    No legal play: ``board`` itself; one: that play, without consulting the policy;
    more: the policy's choice among them in canonical order (it may draw from
    ``bitgen``). Every game loop of the reference engine takes its turns here.
    """
    plays = legal_plays(board, d1, d2)
    if len(plays) == 0:
        return board
    if len(plays) == 1:
        return plays[0]
    return plays[policy.choose(board, plays, bitgen)]

