"""The neural-network evaluator: five probabilities and equity of a position.

The network is fastbg's own TD-Gammon style net (Tesauro 1992, 1995), trained by
TD(0) self-play (experiments/train_td.py, recipe in experiments/TRAINING.md) and
shipped in ``fastbg/data/nn/`` with its SHA-256 and recipe (``nn.json``). It is
loaded and verified once per process.

Both engines compute the same numbers bit for bit (see :mod:`fastbg.reference.nn`),
so ``engine="python"`` is a slow, independent check of ``engine="cython"``.
"""
from __future__ import annotations

import json

import numpy as np

from ..engine import get_engine
from ..game.outcomes import PROBABILITY_KEYS
from ..game.parse import position_and_roll
from ..reference import nn as _ref

__all__ = ["evaluate", "evaluate_many", "network_info", "PROBABILITY_KEYS"]


_POLICIES: dict = {}


def _policy(engine: str):
    """The engine's nn policy on the shipped weights (built once per process)."""
    if engine not in ("cython", "python"):
        raise ValueError(f"unknown engine {engine!r}: choose one of cython, python")
    if engine not in _POLICIES:
        _POLICIES[engine] = get_engine(engine).nn.NNPolicy()
    return _POLICIES[engine]


def evaluate(position, engine: str = "cython") -> dict:
    """0-ply cubeless evaluation of a position by the shipped network.

    The evaluation is the ``nn`` policy's own, so it ranks plays exactly as the policy
    does: the network in integers (:func:`fastbg.reference.nn.quantize`), or, in a pure
    bear-off (both sides with all their checkers in their home boards), the one-sided
    bear-off database (:mod:`fastbg.reference.bearoffdb`; GNU Backgammon's method).

    Parameters
    ----------
    position : Position, str or array_like of int, shape (2, 25)
        The side on roll in row 0, before it rolls. A string is parsed by
        :meth:`fastbg.Position.parse` (``"start"``, a Position ID or an XGID).
    engine : {"cython", "python"}
        Which engine's forward pass to use (the results are identical).

    Returns
    -------
    dict
        ``win``, ``win_gammon``, ``win_backgammon``, ``lose_gammon``,
        ``lose_backgammon`` (floats; DESIGN section 5, gammons include
        backgammons, consistent: backgammon <= gammon <= win, lose_backgammon <=
        lose_gammon <= 1 - win), ``lose`` = 1 - win, and ``equity``, the cubeless
        equity in points per unit cube.

    Raises
    ------
    ValueError
        For an invalid position, a finished game, an XGID with the dice rolled, or
        corrupt shipped weights.
    FileNotFoundError
        If the shipped weights are missing.
    """
    pos, rolled = position_and_roll(position)
    if rolled is not None:
        raise ValueError(
            f"the position has the dice rolled ({rolled[0]}-{rolled[1]}): the evaluation "
            "is of a position before the roll (dice 00 in an XGID)")
    b = pos.board
    if not b[0].any() or not b[1].any():
        raise ValueError("the game is over: a side has no checker left")
    p = _policy(engine).probabilities(b)
    out = {k: float(v) for k, v in zip(PROBABILITY_KEYS, p)}
    out["lose"] = 1.0 - out["win"]
    out["equity"] = float(_ref.equity(p))
    return out


def evaluate_many(boards, engine: str = "cython") -> np.ndarray:
    """Consistent probabilities of many boards.

    Parameters
    ----------
    boards : array_like of int, shape (n, 2, 25)

    Returns
    -------
    numpy.ndarray of float64, shape (n, 5)
    """
    arr = np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25)
    pol = _policy(engine)
    if engine == "python":
        return pol.probabilities(arr)
    return np.array([pol.probabilities(b) for b in arr]).reshape(-1, 5)


def network_info() -> dict:
    """The shipped network's metadata (``fastbg/data/nn/nn.json``): recipe, strength, checksum."""
    path = _ref.DATA_DIR / _ref.META_NAME
    if not path.is_file():
        raise FileNotFoundError(f"no shipped network: {path} is missing")
    return json.loads(path.read_text())
