"""The evaluator: five probabilities and equity of a position, and the net that gave them.

fastbg's evaluator (``docs/evaluator.md``) reads a position by its class: pure bear-offs
from the one-sided bear-off database, races of at most 4 checkers a side from the
small-race database (:mod:`fastbg.reference.racedb`), other races by the race net,
everything else by the contact net (Tesauro's inputs plus 20 features a side), or by the
crashed net (the same inputs) in crashed contact positions when the shipped nets have one
(:func:`fastbg.reference.features.is_crashed`). The nets are trained by the
generations of ``experiments/evaluator/`` (recipe in experiments/TRAINING.md) and shipped
in ``fastbg/data/nn/nn2.npz`` with their SHA-256 and record (``nn2.json``); the first
network (one 196-input TD net, ``nn.npz``/``nn.json``) is kept as the ``nn1`` policy.
The nets are loaded and verified once per process.

Both engines compute the same numbers bit for bit (see :mod:`fastbg.reference.nn`),
so ``engine="python"`` is a slow, independent check of ``engine="cython"``.
"""
from __future__ import annotations

import json

import numpy as np

from ..engine import get_engine
from ..game.families import classify as _families
from ..game.outcomes import PROBABILITY_KEYS
from ..game.parse import position_and_roll
from ..game.position import GAME_OVER
from ..spec import nets as _nets
from ..spec import nn as _nn
from ..spec import nply as _nply

__all__ = ["evaluate", "evaluate_many", "network_info", "weaker_families", "PROBABILITY_KEYS",
           "EVALUATED_BY", "SMALL_RACE_BY", "CRASHED_BY"]


_POLICIES: dict = {}


def _policy(engine: str):
    """The engine's evaluator on the shipped nets (built once per process)."""
    if engine not in ("cython", "python"):
        raise ValueError(f"unknown engine {engine!r}: choose one of cython, python")
    if engine not in _POLICIES:
        _POLICIES[engine] = get_engine(engine).evaluator.EvalPolicy()
    return _POLICIES[engine]


#: What evaluates each position class (docs/evaluator.md).
EVALUATED_BY = {"bearoff": "the one-sided bear-off database", "race": "the race net",
                "contact": "the contact net"}
#: What evaluates a crashed contact position (:func:`fastbg.reference.features.is_crashed`)
#: when the shipped nets have a crashed net (class ``"contact"``).
CRASHED_BY = "the crashed net"
#: What evaluates a race of at most :data:`fastbg.reference.racedb.RACE_MAX` checkers a
#: side that is not a home-board bear-off (class ``"race"``).
SMALL_RACE_BY = "the small-race database"


def evaluate(position, engine: str = "cython", ply: int = 0) -> dict:
    """Cubeless evaluation of a position by the shipped evaluator, at 0 to 3 ply.

    The evaluation is the ``nn`` policy's own, so it ranks plays exactly as the policy
    does: by the position's class (:func:`fastbg.reference.features.position_class`), the
    one-sided bear-off database in a pure bear-off (both sides with all their checkers in
    their home boards; GNU Backgammon's method), the small-race database in a race of at
    most :data:`fastbg.reference.racedb.RACE_MAX` checkers a side, the race net in other
    races, the contact net otherwise (the crashed net in crashed contact positions, if
    the shipped nets have one), each in integers (:func:`fastbg.reference.evaluator.quantize_net`).

    Parameters
    ----------
    position : Position, str or array_like of int, shape (2, 25)
        The side on roll in row 0, before it rolls. A string is parsed by
        :meth:`fastbg.Position.parse` (``"start"``, a Position ID or an XGID).
    engine : {"cython", "python"}
        Which engine's forward pass to use (the results are identical).
    ply : {0, 1, 2, 3}
        The look-ahead, in GNU Backgammon's plies (:mod:`fastbg.spec.nply`): 0 the
        evaluator alone; n the average over the 21 rolls of the side on roll of the
        (n-1)-ply value after its best 0-ply play for the roll. The look-ahead chooses
        each play at 0 ply, as GNU Backgammon's position evaluation does, so no move
        filter enters it (filters prune the plays of a roll: :func:`fastbg.rank_plays`).
        About 0.5 ms at 1 ply, 15 ms at 2, 0.3 s at 3 in the compiled core; the
        pure-Python engine is some thousand times slower.

    Returns
    -------
    dict
        ``win``, ``win_gammon``, ``win_backgammon``, ``lose_gammon``,
        ``lose_backgammon`` (floats; DESIGN section 5, gammons include
        backgammons, consistent: backgammon <= gammon <= win, lose_backgammon <=
        lose_gammon <= 1 - win), ``lose`` = 1 - win, ``equity``, the cubeless
        equity in points per unit cube, ``class`` (``"bearoff"``, ``"race"`` or
        ``"contact"``), ``evaluated_by`` (the database or the net that read it:
        :data:`EVALUATED_BY` of the class, :data:`SMALL_RACE_BY` for a small race, or
        :data:`CRASHED_BY` for a crashed contact position read by a crashed net),
        ``families`` (``{family: row}``, the position families of
        :func:`fastbg.game.families.classify` with the row of each one's subject, 0 the
        player on roll) and ``weaker_in`` (those of them where the shipped nets were
        measured less exact than GNU Backgammon 0-ply: :func:`weaker_families`), and
        ``ply``. ``class`` and ``evaluated_by`` describe the 0-ply evaluation of the
        position itself (at 1 ply and more, the leaves are read the same way, each by
        its own class).

    Raises
    ------
    ValueError
        For an invalid position, a finished game, an XGID with the dice rolled, a ply
        outside 0..3, or corrupt shipped weights.
    FileNotFoundError
        If the shipped weights are missing.
    """
    ply = _nply.check_ply(ply)
    pos, rolled = position_and_roll(position)
    if rolled is not None:
        raise ValueError(
            f"the position has the dice rolled ({rolled[0]}-{rolled[1]}): the evaluation "
            "is of a position before the roll (dice 00 in an XGID)")
    b = pos.board
    if pos.game_over:     # in the words of the other commands and functions
        raise ValueError(GAME_OVER)
    pol = _policy(engine)
    p = pol.probabilities(b) if ply == 0 else pol.nply_probabilities(b, ply)[0]
    eng = get_engine(engine)
    out = {k: float(v) for k, v in zip(PROBABILITY_KEYS, p)}
    out["lose"] = 1.0 - out["win"]
    out["equity"] = float(_nn.equity(p))
    out["class"] = eng.features.position_class(b)
    if out["class"] == "race" and eng.racedb.is_small_race(b):
        out["evaluated_by"] = SMALL_RACE_BY
    elif out["class"] == "contact" and "crashed" in _nets.default_nets() and eng.features.is_crashed(b):
        out["evaluated_by"] = CRASHED_BY
    else:
        out["evaluated_by"] = EVALUATED_BY[out["class"]]
    out["families"] = _families(b)
    weak = weaker_families()
    out["weaker_in"] = [f for f in out["families"] if f in weak]
    out["ply"] = ply
    return out


def weaker_families() -> dict:
    """The position families where the shipped nets' 0-ply play or values were measured
    worse than GNU Backgammon 0-ply's, with the figures.

    Read from the nets' record (``fastbg/data/nn/nn2.json``, key ``families``, written when
    the nets were shipped from ``experiments/family_bench.py``'s report: per family the mean
    absolute 0-ply equity error against fastbg's rollouts and the checker-play error
    against GNU Backgammon 2-ply, fastbg's beside gnubg 0-ply's).

    Returns
    -------
    dict
        ``{family: figures}`` for the families marked ``weaker`` (``figures`` a dict with
        ``summary``, a sentence, and the numbers); empty if none is, or the record has none.
    """
    if "weaker" not in _RECORD:       # read once per process, as the nets are
        fams = network_info().get("families") or {}
        _RECORD["weaker"] = {f: v for f, v in fams.items() if v.get("weaker")}
    return dict(_RECORD["weaker"])


_RECORD: dict = {}


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
    return np.array([pol.probabilities(b) for b in arr]).reshape(-1, 5)


def network_info(which: str = "nn") -> dict:
    """The shipped nets' metadata: recipe, record, checksum.

    Parameters
    ----------
    which : {"nn", "nn1"}
        The evaluator (``fastbg/data/nn/nn2.json``) or the first network (``nn.json``).
    """
    if which not in ("nn", "nn1"):
        raise ValueError(f"which must be 'nn' or 'nn1', got {which!r}")
    path = _nn.DATA_DIR / (_nets.NETS_META if which == "nn" else _nn.META_NAME)
    if not path.is_file():
        raise FileNotFoundError(f"no shipped network: {path} is missing")
    return json.loads(path.read_text())
