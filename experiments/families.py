"""Position families where backgammon evaluators are known to fail, made on purpose (issue 36).

Every benchmark fastbg had drew its positions from its own self-play, where back games,
crunched boards and the like are rare; so none of them could show that the evaluator reads
such positions badly. This module makes positions of each such *family* directly, and
tells whether any position belongs to one.

A family is two things:

* a **rule** (``RULES[name](board)``, :data:`fastbg.game.families.FAMILY_RULES`): whether a
  position is of the family, and which side is its *subject* (the side holding the back
  game, the crunched side, the side on the bar, ...), as the row index 0 (on roll) or 1,
  or ``None``. The rules are ours, written from the field's usual descriptions of these
  games, and live in the library, where ``fastbg eval`` reads them; they read any
  position, so the self-consistency probe (``probe.py``) can sort positions nobody
  generated on purpose (``classify``).
* a **set-up** (``SETUPS[name](rng)``): a random position of the family, its subject in
  row 0, built from the family's anatomy (anchors and timing, primes and the checkers
  trapped behind them, stacks on low points, a home board against checkers on the bar,
  ...). The set-ups vary what decides these games: which points are held, how far
  behind in the race the holder is (its timing), how many checkers are off, who is on
  roll.

:func:`generate` makes ``n`` positions of a family: a set-up, the sides swapped at random
(so the subject is on roll about half the time), then 0 to ``forward`` half-moves played
by a mix of players (fastbg's nets, often choosing at random among plays close to their
best; pubeval; now and then a random play), and the position is kept only if the
family's rule still holds and it is a contact position. Playing on from the set-up makes
positions a game reaches (checkers where play puts them, not where a set-up drops them),
and the players' mix keeps them from being only the positions fastbg's own play reaches.
Every position is legal (``fastbg.reference.board.validate_board``), has both sides in
play, and is de-duplicated.

Families (``FAMILIES``):

``backgame``
    A side holds two or more points in the other side's home board and trails the race
    by 40 pips or more. Anchor pairs from the 1-2 to the 4-5 points, timing from
    checkers still on the midpoint to a crunched home board, 0-6 of the other side's
    checkers off.
``ace_point``
    A side holds the other side's ace point and no other point there, trails by 40 pips
    or more, and the other side has at least 9 checkers home or off: the ace-point game.
``prime``
    Containment and prime versus prime: a side has 4 or more consecutive points, reaching
    its bar point or beyond, with an opposing checker behind them (on the bar or further
    back); the set-up gives the other side a prime of its own half the time.
``crunched``
    A side has 6 or more checkers on one of its 1-, 2- or 3-points (or 8 on its 1- and
    2-points together) while 2 or more of its checkers are still outside its home board:
    a board that collapsed while its back checkers waited.
``crashed_anchor``
    A side is crashed (at most 7 checkers in play, ``fastbg.reference.features.is_crashed``'s
    count) and the other side holds a point in its home board.
``bear_anchor``
    Bearing in and off against an anchor: every checker of a side is on its points 1-12 or
    off, 9 or more of them home or off, more than 7 in play (else it is crashed), and the
    other side holds a point in its home board.
``blitz``
    A side has a checker on the bar against 4 or more made home points of the other side
    (or 3, with 3 or more of its checkers on the bar or in that home board), and the other
    side has borne no checker off.
``holding``
    Mutual holding: each side holds a point on the other side's 3- to 7-points (an anchor
    or an outfield point), neither holds two points in the other's home board, and the
    race is within 40 pips.
``control``
    Ordinary play: contact positions of fastbg's self-play from the opening (with
    exploration), the distribution the training data came from. No rule: any position is
    ordinary.

Seeds: training sets use seeds 1..89999, benchmark sets 90001 and up (as
``experiments/evaluator/positions.py`` and ``errorrate.py``), so the training never sees a
benchmark position by construction, only by coincidence (and ``family_bench.py positions``
can drop any it is given).

Usage::

    python experiments/families.py --family backgame --n 300 --seed 90001 --out /tmp/bg
    python experiments/families.py --classify 4HPwATDgc/ABMA AMWgmxv/gBKYAg
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from fastbg.game.families import FAMILY_RULES, classify  # noqa: F401  (classify: re-exported)
from fastbg.reference.board import validate_board
from fastbg.reference.features import position_class

# ---------------------------------------------------------------------------
# the rules live in the library (fastbg.game.families), where `fastbg eval` reads them;
# "control" (ordinary play) has no rule: any position is ordinary


def rule_control(b):
    return 0


RULES = {**FAMILY_RULES, "control": rule_control}

#: The families, in the order reports list them.
FAMILIES = tuple(RULES)


def in_contact(b: np.ndarray) -> bool:
    return position_class(b) == "contact"


# ---------------------------------------------------------------------------
# set-ups: a random position of the family, its subject in row 0


def _free(b, s, i) -> bool:
    """Whether side ``s`` may put a checker on its index ``i`` (0..23): no opposing
    checker there. The bar (24) is always free."""
    return i == 24 or b[1 - s, 23 - i] == 0


def _put(b, s, i, n=1) -> bool:
    if n <= 0:
        return True
    if not _free(b, s, i) or b[s].sum() + n > 15:
        return False
    b[s, i] += n
    return True


def _scatter(rng, b, s, n, weights: dict) -> int:
    """Put up to ``n`` checkers of side ``s`` one by one on its free indices, each drawn
    with the given weights ``{index: weight}``; returns how many were put."""
    put = 0
    for _ in range(n):
        idx = [i for i, w in weights.items() if w > 0 and _free(b, s, i)]
        if not idx or b[s].sum() >= 15:
            break
        w = np.array([weights[i] for i in idx], float)
        b[s, int(rng.choice(idx, p=w / w.sum()))] += 1
        put += 1
    return put


def _points(rng, b, s, k, candidates, extra=0.3) -> list[int]:
    """Make ``k`` points of side ``s`` among ``candidates`` (free ones), 2 checkers each
    and a third with probability ``extra``; returns the indices made."""
    free = [i for i in candidates if _free(b, s, i) and b[s, i] == 0]
    rng.shuffle(free)
    made = []
    for i in free[:k]:
        n = 2 + int(rng.random() < extra)
        if _put(b, s, i, min(n, 15 - int(b[s].sum()))) and b[s, i] >= 2:
            made.append(i)
    return made


def _u(lo, hi, peak=None):
    """Weights over indices lo..hi, flat or rising towards ``peak``."""
    if peak is None:
        return {i: 1.0 for i in range(lo, hi + 1)}
    return {i: 1.0 / (1.0 + abs(i - peak)) for i in range(lo, hi + 1)}


#: Back-game anchor pairs as the other side's points (1 = its ace point) with weights:
#: the 1-3, 2-3 and 2-4 are the classic ones, the others are met too.
BACKGAME_PAIRS = {(1, 3): 3, (2, 3): 3, (2, 4): 3, (1, 2): 2, (3, 4): 2, (1, 4): 2,
                  (2, 5): 1, (3, 5): 1, (1, 5): 1, (4, 5): 1, (1, 6): 0.5, (3, 6): 0.5}


def setup_backgame(rng):
    b = np.zeros((2, 25), np.int64)
    pairs = list(BACKGAME_PAIRS)
    w = np.array([BACKGAME_PAIRS[p] for p in pairs], float)
    pair = pairs[int(rng.choice(len(pairs), p=w / w.sum()))]
    for p in pair:
        b[0, 24 - p] = 2 + int(rng.random() < 0.35)
    if rng.random() < 0.25:                       # a third point or a spare back
        b[0, 24 - int(rng.integers(1, 7))] += 1 if rng.random() < 0.6 else 2
    if rng.random() < 0.25:
        b[0, 24] += int(rng.integers(1, 3))        # just hit
    timing = rng.random()                          # share of the rest still outside home
    rest = 15 - int(b[0].sum())
    out_n = int(rng.binomial(rest, timing))
    _scatter(rng, b, 0, out_n, {**_u(6, 17, 11), 12: 2.0})
    home_peak = int(rng.integers(0, 6)) if timing > 0.4 else int(rng.integers(0, 3))
    _scatter(rng, b, 0, 15 - int(b[0].sum()), _u(0, 5, home_peak))
    # the other side, coming home and bearing off around the anchors
    off = int(rng.integers(0, 7)) if timing < 0.4 else int(rng.integers(0, 3))
    n = 15 - off
    stragglers = int(rng.choice([0, 0, 0, 1, 1, 2]))
    _scatter(rng, b, 1, stragglers, _u(12, 20))
    outside = int(rng.integers(0, 6))
    _scatter(rng, b, 1, outside, _u(6, 11, 6))
    k = int(rng.integers(2, 6))
    _points(rng, b, 1, k, list(range(0, 6)))
    _scatter(rng, b, 1, n - int(b[1].sum()), _u(0, 5))
    return b


def setup_ace_point(rng):
    b = np.zeros((2, 25), np.int64)
    b[0, 23] = int(rng.choice([2, 2, 2, 3, 3, 4]))
    if rng.random() < 0.3:
        b[0, 24] += 1
    if rng.random() < 0.3:                         # a blot elsewhere in the other's home
        _scatter(rng, b, 0, 1, _u(18, 22))
    rest = 15 - int(b[0].sum())
    out_n = int(rng.binomial(rest, rng.uniform(0.0, 0.6)))
    _scatter(rng, b, 0, out_n, _u(6, 17, 10))
    _scatter(rng, b, 0, 15 - int(b[0].sum()), _u(0, 5, int(rng.integers(0, 4))))
    off = int(rng.choice([0, 0, 1, 2, 3, 4, 5, 6, 8, 10]))
    n = 15 - off
    outside = int(rng.choice([0, 0, 0, 1, 2, 3]))
    _scatter(rng, b, 1, outside, _u(6, 12, 6))
    _points(rng, b, 1, int(rng.integers(1, 6)), list(range(0, 6)))
    _scatter(rng, b, 1, n - int(b[1].sum()), _u(0, 5))
    return b


def _prime(rng, b, s, length, low):
    for i in range(low, low + length):
        if not _put(b, s, i, 2 + int(rng.random() < 0.25)):
            return False
    return True


def setup_prime(rng):
    b = np.zeros((2, 25), np.int64)
    length = int(rng.choice([4, 4, 5, 5, 6]))
    top = int(rng.integers(6, 11))                 # the prime reaches the bar point or beyond
    low = max(0, top - length + 1)
    _prime(rng, b, 0, top - low + 1, low)
    trapped = int(rng.choice([1, 2, 2, 3]))
    for _ in range(trapped):                       # behind the prime: the bar or s's 0..low-1
        if rng.random() < 0.15 or low == 0:
            b[1, 24] += 1
        else:
            _scatter(rng, b, 1, 1, _u(24 - low, 23, 23 - low // 2))
    if rng.random() < 0.5:                         # prime versus prime
        length2 = int(rng.choice([4, 4, 5, 6]))
        top2 = int(rng.integers(6, 11))
        low2 = max(0, top2 - length2 + 1)
        ok = all(_free(b, 1, i) for i in range(low2, top2 + 1))
        if ok:
            _prime(rng, b, 1, top2 - low2 + 1, low2)
            for _ in range(int(rng.choice([1, 2, 2, 3]))):
                if low2 > 0:
                    _scatter(rng, b, 0, 1, _u(24 - low2, 23))
    for s in (0, 1):                               # the rest: midpoint, outfield, home
        _scatter(rng, b, s, 15 - int(b[s].sum()), {**_u(0, 5), **_u(6, 13, 11), 12: 2.0})
    return b


def setup_crunched(rng):
    b = np.zeros((2, 25), np.int64)
    stack_at = int(rng.choice([0, 0, 1, 1, 2]))
    b[0, stack_at] = int(rng.integers(6, 10))
    _scatter(rng, b, 0, int(rng.integers(0, 4)), _u(0, 5, 1))
    back = int(rng.integers(2, 6))                 # still out: an anchor, the bar, transit
    if rng.random() < 0.6:
        p = 24 - int(rng.integers(1, 6))
        b[0, p] = 2
        back -= 2
    for _ in range(max(back, 0)):
        if rng.random() < 0.25:
            b[0, 24] += 1
        else:
            _scatter(rng, b, 0, 1, _u(6, 23, 18))
    _scatter(rng, b, 0, 15 - int(b[0].sum()), _u(0, 5, 0))
    # the other side: a prime or a good board, perhaps a checker or two back
    if rng.random() < 0.5:
        _prime(rng, b, 1, int(rng.integers(3, 6)), int(rng.integers(2, 6)))
    else:
        _points(rng, b, 1, int(rng.integers(2, 5)), list(range(0, 8)))
    if rng.random() < 0.5:
        _scatter(rng, b, 1, int(rng.integers(1, 3)), _u(18, 23))
    off = int(rng.choice([0, 0, 0, 1, 2]))
    _scatter(rng, b, 1, 15 - off - int(b[1].sum()), {**_u(0, 5), **_u(6, 12, 7)})
    return b


def setup_crashed_anchor(rng):
    b = np.zeros((2, 25), np.int64)
    # crashed side: a pile on its 1- and 2-points, a few more home, 0-8 off, and perhaps
    # a checker or two still out (or on the bar)
    off = int(rng.choice([0, 0, 0, 1, 2, 3, 4, 6, 8]))
    n = 15 - off
    out_n = int(rng.choice([0, 0, 1, 1, 2, 3]))
    for _ in range(min(out_n, n)):
        if rng.random() < 0.3:
            b[0, 24] += 1
        else:
            _scatter(rng, b, 0, 1, _u(6, 23))
    pile = int(rng.integers(0, max(1, n - int(b[0].sum()) - 2)))
    b[0, 0] += pile // 2 + pile % 2
    b[0, 1] += pile // 2
    _scatter(rng, b, 0, n - int(b[0].sum()), _u(0, 5, int(rng.integers(0, 4))))
    # the other side: an anchor in the crashed side's home board, the rest its own
    a = 24 - int(rng.integers(1, 7))
    if not _free(b, 1, a):
        return None
    b[1, a] = 2 + int(rng.random() < 0.3)
    if rng.random() < 0.3:
        _scatter(rng, b, 1, 2, _u(18, 23))         # a second anchor or a blot
    _points(rng, b, 1, int(rng.integers(1, 5)), list(range(0, 8)))
    _scatter(rng, b, 1, 15 - int(rng.choice([0, 0, 0, 1, 2])) - int(b[1].sum()),
             {**_u(0, 5), **_u(6, 17, 8)})
    return b


def setup_bear_anchor(rng):
    b = np.zeros((2, 25), np.int64)
    off = int(rng.choice([0, 0, 0, 0, 1, 2, 3, 4, 5, 6]))
    n = 15 - off
    # the other side's anchor first (so the bearing side goes around it)
    a = 24 - int(rng.integers(1, 7))
    b[1, a] = 2 + int(rng.random() < 0.3)
    if rng.random() < 0.25:
        _scatter(rng, b, 1, int(rng.integers(1, 3)), _u(18, 23))
    outside = int(rng.choice([0, 0, 1, 2, 3, 4, 5]))   # still bearing in from 7..12
    _scatter(rng, b, 0, outside, _u(6, 11, 6))
    _points(rng, b, 0, int(rng.integers(2, 6)), list(range(0, 6)), extra=0.5)
    _scatter(rng, b, 0, n - int(b[0].sum()), _u(0, 5))
    _points(rng, b, 1, int(rng.integers(1, 6)), list(range(0, 8)))
    _scatter(rng, b, 1, 15 - int(b[1].sum()), {**_u(0, 5), **_u(6, 17, 9)})
    return b


def setup_blitz(rng):
    b = np.zeros((2, 25), np.int64)
    # row 0: the side on the bar (early game: midpoint and some points of its own)
    b[0, 24] = int(rng.choice([1, 1, 2, 2, 3]))
    # row 1: the attacker, 3-5 home points, builders, blots
    k = int(rng.integers(3, 6))
    _points(rng, b, 1, k, list(range(0, 6)), extra=0.2)
    _scatter(rng, b, 1, int(rng.integers(0, 3)), _u(0, 5))      # slots
    _scatter(rng, b, 1, int(rng.integers(2, 6)), _u(6, 10, 7))  # builders
    _scatter(rng, b, 1, int(rng.integers(0, 2)), _u(18, 23))    # its own back checker
    _scatter(rng, b, 1, 15 - int(b[1].sum()), {12: 3.0, **_u(6, 13, 12)})
    _scatter(rng, b, 0, int(rng.integers(0, 3)), _u(18, 23))    # more back, in the board
    _points(rng, b, 0, int(rng.integers(0, 3)), list(range(2, 8)))
    _scatter(rng, b, 0, 15 - int(b[0].sum()), {12: 4.0, **_u(0, 11, 5)})
    return b


def setup_holding(rng):
    b = np.zeros((2, 25), np.int64)
    for s in (0, 1):
        for _ in range(5):
            i = int(rng.choice([17, 18, 19, 20, 20, 20, 21, 17, 19]))
            if _free(b, s, i) and _put(b, s, i, 2 + int(rng.random() < 0.2)):
                break
    for s in (0, 1):
        _points(rng, b, s, int(rng.integers(1, 4)), list(range(2, 12)))
        _scatter(rng, b, s, 15 - int(b[s].sum()), {12: 3.0, **_u(0, 15, 6)})
    return b


SETUPS = {
    "backgame": setup_backgame,
    "ace_point": setup_ace_point,
    "prime": setup_prime,
    "crunched": setup_crunched,
    "crashed_anchor": setup_crashed_anchor,
    "bear_anchor": setup_bear_anchor,
    "blitz": setup_blitz,
    "holding": setup_holding,
}

#: How many half-moves :func:`generate` plays on from a set-up, at most (the blitz changes
#: fast; a back game keeps its shape for many rolls).
FORWARD = {"backgame": 10, "ace_point": 8, "prime": 8, "crunched": 8, "crashed_anchor": 6,
           "bear_anchor": 8, "blitz": 3, "holding": 8, "control": 0}


# ---------------------------------------------------------------------------
# playing on


class Players:
    """The mix that plays positions on: fastbg's nets (the shipped ``nn`` unless given
    other nets), choosing at random among the plays within ``window`` of their best with
    probability ``explore``; pubeval with probability ``pubeval``; a random play with
    probability ``random``."""

    def __init__(self, nets=None, explore=0.3, window=0.12, pubeval=0.2, random=0.05):
        from fastbg._core.evaluator import EvalPolicy
        from fastbg import get_engine
        self.eng = get_engine("cython")
        self.nets = nets
        if nets is None:
            self.nn = EvalPolicy()
        else:
            from fastbg.reference.evaluator import load_nets
            self.nn = EvalPolicy(load_nets(nets))
        self.pubeval = self.eng.make_policy("pubeval")
        self.explore, self.window, self.p_pubeval, self.p_random = explore, window, pubeval, random

    def play(self, rng, board) -> np.ndarray:
        """One half-move with a random roll; returns the board with the other side on roll."""
        d1, d2 = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        b = np.ascontiguousarray(board, dtype=np.int8)
        plays = self.eng.legal_plays(b, d1, d2)
        if len(plays):
            u = rng.random()
            if u < self.p_random:
                k = int(rng.integers(0, len(plays)))
            elif u < self.p_random + self.p_pubeval:
                k = self.pubeval.choose(b, plays, None)
            else:
                eq = self.nn.play_equities(b, plays)
                k = int(np.argmax(eq))
                if len(plays) > 1 and rng.random() < self.explore:
                    near = np.flatnonzero(eq >= eq[k] - self.window)
                    k = int(near[rng.integers(0, len(near))])
            b = np.array(plays[k], dtype=np.int8)
        return b[::-1].copy()


def _ok(b) -> bool:
    try:
        validate_board(b)
    except ValueError:
        return False
    return bool(b[0].sum() > 0 and b[1].sum() > 0 and in_contact(b))


def control_positions(players: Players, n: int, seed: int, seen: set) -> list[tuple]:
    """Contact positions of games from the opening played by ``players`` (:func:`generate`
    gives it the nets alone, choosing among the plays within 0.08 of their best 10% of the
    time: ordinary self-play), one position a game at a random half-move 2..59."""
    from fastbg.game import START_BOARD
    out, g = [], 0
    while len(out) < n:
        rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=(99, g))))
        g += 1
        b = np.array(START_BOARD, np.int8)
        stop = int(rng.integers(2, 60))
        for _ in range(stop):
            b = players.play(rng, b)
            if not b[0].any() or not b[1].any():
                break
        if _ok(b) and b.tobytes() not in seen:
            seen.add(b.tobytes())
            out.append((b, g - 1, stop, 0))
    return out


def generate(family: str, n: int, seed: int, players: Players | None = None,
             seen: set | None = None, max_tries: int | None = None) -> dict:
    """``n`` positions of ``family`` (see the module docstring).

    Returns a dict of arrays: ``boards`` (n, 2, 25) int8, ``attempt`` (n,) int32 (the set-up's
    number: attempt ``a`` draws from ``PCG64DXSM(SeedSequence(seed, spawn_key=(f, a)))``, ``f`` the
    family's index in :data:`FAMILIES`), ``forward`` (n,) int8 (half-moves played on) and
    ``subject`` (n,) int8 (the row of the family's subject: 0 when it is on roll).
    ``seen`` (a set of ``board.tobytes()``) is updated and its positions skipped.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; the families are {', '.join(FAMILIES)}")
    players = players or Players()
    seen = set() if seen is None else seen
    if family == "control":        # ordinary self-play: the nets alone, a little exploration
        ordinary = Players(players.nets, explore=0.1, window=0.08, pubeval=0.0, random=0.0)
        rows = control_positions(ordinary, n, seed, seen)
    else:
        fi = FAMILIES.index(family)
        rows, a = [], 0
        max_tries = max_tries or 200 * n + 1000
        while len(rows) < n and a < max_tries:
            rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=(fi, a))))
            a += 1
            b = SETUPS[family](rng)
            if b is None or int(b[0].sum()) == 0 or int(b[1].sum()) == 0:
                continue
            b = b.astype(np.int8)
            if rng.random() < 0.5:
                b = b[::-1].copy()
            k = int(rng.integers(0, FORWARD[family] + 1))
            if not _ok(b):
                continue
            for _ in range(k):
                b = players.play(rng, b)
                if not _ok(b):
                    break
            if not _ok(b) or b.tobytes() in seen:
                continue
            s = RULES[family](b.astype(np.int64))
            if s is None:
                continue
            seen.add(b.tobytes())
            rows.append((b, a - 1, k, s))
    return {"boards": np.array([r[0] for r in rows], np.int8).reshape(-1, 2, 25),
            "attempt": np.array([r[1] for r in rows], np.int32),
            "forward": np.array([r[2] for r in rows], np.int8),
            "subject": np.array([r[3] for r in rows], np.int8)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", choices=FAMILIES)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=90001)
    ap.add_argument("--out", help="write <out>.npz")
    ap.add_argument("--classify", nargs="+", metavar="POSITION",
                    help="print the families of these positions instead")
    args = ap.parse_args(argv)
    import fastbg
    if args.classify:
        for p in args.classify:
            try:
                b = fastbg.Position.parse(p).board
            except ValueError as e:
                ap.exit(2, f"families.py: {e}\n")
            print(p, json.dumps(classify(b)))
        return 0
    if not args.family or not args.out:
        ap.error("--family and --out are needed (or --classify)")
    res = generate(args.family, args.n, args.seed)
    np.savez_compressed(Path(args.out).with_suffix(".npz"), **res)
    ids = [fastbg.Position.parse(b).to_position_id() for b in res["boards"][:5]]
    print(f"{len(res['boards'])} {args.family} positions -> {args.out}.npz; first: {' '.join(ids)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
