"""Position families: back games, ace-point games, primes, crunched boards and the like.

Backgammon evaluators are known to be weakest in a few kinds of position that ordinary
play seldom reaches (issue 36). This module holds the rules that say whether a contact
position is of such a *family*, and which side is its *subject* (the side holding the back
game, the crunched side, the side on the bar, ...). The rules are fastbg's own, written
from the field's usual descriptions of these games; ``experiments/families.py`` makes
positions of each family for the family benchmark and the training sets, and
``fastbg eval`` names the families of the position it evaluates.

A side's points are counted from its own side (DESIGN section 2): index ``i`` is its point
``i + 1``, 24 its bar; the other side's home board is its indices 18..23. A side *holds* a
point with two or more checkers on it.

============== ==========================================================================
family         rule (for some side, the subject)
============== ==========================================================================
backgame       holds 2 or more points in the other side's home board and trails the race
               by 40 pips or more
ace_point      holds the other side's ace point and no other point there, trails by 40
               pips or more, and the other side has 9 or more checkers home or off
prime          has 4 or more consecutive points, the highest its 7-point or beyond, with
               an opposing checker behind them (on the bar or further back)
crunched       has 6 or more checkers on one of its 1-, 2- or 3-points (or 8 on its 1- and
               2-points together) and 2 or more checkers outside its home board
crashed_anchor has at most 7 checkers in play (:func:`fastbg.reference.features.checkers_in_play`)
               while the other side holds a point in its home board
bear_anchor    has every checker on its points 1-12 or off, 9 or more home or off, more
               than 7 in play, and the other side holds a point in its home board
blitz          has a checker on the bar against 4 or more home points of the other side
               (or 3, with 3 or more of its checkers on the bar or in that home board), and
               the other side has no checker off
holding        (both sides) each holds a point on the other side's 3- to 7-points and at
               most one point in its home board, and the pip counts are within 40
============== ==========================================================================
"""
from __future__ import annotations

import numpy as np

from ..engine import get_engine
from ..spec.board import validate_board

__all__ = ["FAMILIES", "FAMILY_NAMES", "FAMILY_RULES", "classify"]


def _features():
    """The pure-Python engine's features: classifying a position needs no compiled core."""
    return get_engine("python").features

_PIP_WEIGHTS = np.arange(1, 26)


def _pips(b: np.ndarray) -> tuple[int, int]:
    return int(b[0] @ _PIP_WEIGHTS), int(b[1] @ _PIP_WEIGHTS)


def _made(b: np.ndarray, s: int, lo: int, hi: int) -> int:
    """Side ``s``'s points among its own indices ``lo..hi``."""
    return int((b[s, lo:hi + 1] >= 2).sum())


def _holds_in_home_of_other(b: np.ndarray, s: int) -> int:
    return _made(b, s, 18, 23)


def longest_trapping_prime(b: np.ndarray, s: int, min_top: int = 6) -> int:
    """Length of side ``s``'s longest run of points whose highest index is at least
    ``min_top``, with an opposing checker behind it: on the bar, or on one of ``s``'s
    indices below the run's lowest one (that checker has yet to pass the run)."""
    theirs = b[1 - s]
    best, run = 0, 0
    for i in range(24):
        run = run + 1 if b[s, i] >= 2 else 0
        if run >= 2 and i >= min_top:
            low = i - run + 1
            # the other side's checkers on s's indices 0..low-1 are its indices 24-low..23
            if theirs[24] > 0 or theirs[24 - low:24].sum() > 0:
                best = max(best, run)
    return best


def _backgame(b):
    p = _pips(b)
    for s in (0, 1):
        if _holds_in_home_of_other(b, s) >= 2 and p[s] - p[1 - s] >= 40:
            return s
    return None


def _ace_point(b):
    p = _pips(b)
    for s in (0, 1):
        o = 1 - s
        if (b[s, 23] >= 2 and _made(b, s, 18, 22) == 0 and p[s] - p[o] >= 40
                and int(b[o, 0:6].sum()) + 15 - int(b[o].sum()) >= 9):
            return s
    return None


def _prime(b):
    best = max((longest_trapping_prime(b, s), s) for s in (0, 1))
    return best[1] if best[0] >= 4 else None


def _crunched(b):
    for s in (0, 1):
        if (int(b[s, 0:3].max()) >= 6 or int(b[s, 0:2].sum()) >= 8) and int(b[s, 6:25].sum()) >= 2:
            return s
    return None


def _crashed_anchor(b):
    inplay = _features().checkers_in_play(b[None])[0]
    for s in (0, 1):
        if inplay[s] <= 7 and _holds_in_home_of_other(b, 1 - s) >= 1:
            return s
    return None


def _bear_anchor(b):
    inplay = _features().checkers_in_play(b[None])[0]
    for s in (0, 1):
        home_or_off = int(b[s, 0:6].sum()) + 15 - int(b[s].sum())
        if (not b[s, 12:25].any() and home_or_off >= 9 and inplay[s] > 7
                and _holds_in_home_of_other(b, 1 - s) >= 1):
            return s
    return None


def _blitz(b):
    for s in (0, 1):
        o = 1 - s
        home = _made(b, o, 0, 5)
        if (b[s, 24] >= 1 and int(b[o].sum()) == 15
                and (home >= 4 or (home >= 3 and int(b[s, 18:25].sum()) >= 3))):
            return s
    return None


def _holding(b):
    p = _pips(b)
    if abs(p[0] - p[1]) > 40:
        return None
    if all(_made(b, s, 17, 21) >= 1 and _holds_in_home_of_other(b, s) <= 1 for s in (0, 1)):
        return 0
    return None


#: The rules, by family: a function of a valid contact board (int64, shape (2, 25)) that
#: returns the subject's row (0: the side on roll) or None (module docstring's table).
FAMILY_RULES = {
    "backgame": _backgame,
    "ace_point": _ace_point,
    "prime": _prime,
    "crunched": _crunched,
    "crashed_anchor": _crashed_anchor,
    "bear_anchor": _bear_anchor,
    "blitz": _blitz,
    "holding": _holding,
}

#: The families, in the order reports list them.
FAMILIES = tuple(FAMILY_RULES)

#: Each family's name in words, as ``fastbg eval`` prints it.
FAMILY_NAMES = {
    "backgame": "back game",
    "ace_point": "ace-point game",
    "prime": "prime with a checker trapped behind it",
    "crunched": "crunched board",
    "crashed_anchor": "crashed board against an anchor",
    "bear_anchor": "bearing in or off against an anchor",
    "blitz": "blitz",
    "holding": "mutual holding game",
}


def classify(board) -> dict:
    """The families of a position and each one's subject.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        A valid board (DESIGN section 2), the side on roll in row 0.

    Returns
    -------
    dict
        ``{family: row}`` for every family whose rule holds (row 0: the subject is the
        side on roll), in :data:`FAMILIES`' order; empty for a position of none, and for
        any position that is not a contact position (a race, a bear-off, a finished game).

    Raises
    ------
    ValueError
        For an invalid board (the message names the problem).
    """
    b = validate_board(board).astype(np.int64)
    if _features().position_class(b) != "contact":
        return {}
    out = {}
    for name, rule in FAMILY_RULES.items():
        s = rule(b)
        if s is not None:
            out[name] = s
    return out
