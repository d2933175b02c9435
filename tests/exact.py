"""Exact outcome probabilities of small no-contact positions, by recursion over
every roll, for a given engine and policy.

The value is the policy's own exact value: at each roll the play is the one the
policy picks (pubeval: deterministic), or every play with equal weight (random),
so a rollout with that policy must agree with it within its standard error.
"""
from __future__ import annotations

import numpy as np

ROLLS = [(d1, d2, (1 if d1 == d2 else 2) / 36.0) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
_FLIP = [3, 4, 5, 0, 1, 2]  # outcome classes seen from the other side


def board_from(mine: dict, theirs: dict) -> np.ndarray:
    """Board from ``{point: count}`` of the player on roll and of the opponent,
    each in its own numbering (25 = bar)."""
    b = np.zeros((2, 25), dtype=np.int8)
    for row, d in ((0, mine), (1, theirs)):
        for p, n in d.items():
            b[row, p - 1] = n
    return b


def exact_outcomes(board: np.ndarray, engine, policy_name: str, stop=None) -> np.ndarray:
    """Probabilities of the six outcome classes for the player on roll.

    Only for race positions (no contact): the recursion needs the game to make
    progress every turn. ``stop(board)``, if given, returns the class probabilities of a
    position where the game is stopped and scored (or None to play on): the value of a
    truncated rollout.
    """
    policy = engine.make_policy(policy_name)
    outcome = engine.board.outcome
    memo: dict[bytes, np.ndarray] = {}
    assert engine.board.is_race(board), "exact_outcomes needs a race position"

    def value(b: np.ndarray) -> np.ndarray:
        key = b.tobytes()
        got = memo.get(key)
        if got is not None:
            return got
        if stop is not None:
            got = stop(b)
            if got is not None:
                memo[key] = got
                return got
        v = np.zeros(6)
        for d1, d2, w in ROLLS:
            plays = engine.legal_plays(b, d1, d2)
            n = len(plays)
            if n == 0:
                choices = [(b, 1.0)]
            elif n == 1 or policy_name != "random":
                if n == 1:
                    idx = 0
                else:
                    bitgen = np.random.PCG64DXSM(0)
                    state = bitgen.state
                    idx = policy.choose(b, plays, bitgen)
                    assert bitgen.state == state, "a deterministic policy drew a random number"
                choices = [(plays[idx], 1.0)]
            else:
                choices = [(p, 1.0 / n) for p in plays]
            for after, pw in choices:
                res = outcome(after)
                if res:
                    v[res - 1] += w * pw
                else:
                    v += w * pw * value(np.ascontiguousarray(after[::-1]))[_FLIP]
        memo[key] = v
        return v

    return value(np.ascontiguousarray(board, dtype=np.int8))


def probabilities(classes: np.ndarray) -> dict:
    """The five DESIGN-section-5 probabilities and the equity from class probabilities."""
    c = classes
    return {
        "win": c[0] + c[1] + c[2],
        "win_gammon": c[1] + c[2],
        "win_backgammon": c[2],
        "lose_gammon": c[4] + c[5],
        "lose_backgammon": c[5],
        "equity": float(np.dot(c, [1, 2, 3, -1, -2, -3])),
    }
