"""Helpers for scenario tests: boards from small dicts and full play-set checks.

Points are given **in the mover's numbering** throughout, as the diagrams in the
tests show them: point ``p`` in 1..24 and ``"bar"``. For the opponent, a point
``p`` is the mover's point ``p`` (the opponent's own point ``25 - p``) and
``"bar"`` is the opponent's bar. Checkers not placed are borne off.
"""
from __future__ import annotations

import numpy as np

__all__ = ["board", "assert_plays", "describe"]


def board(me: dict | None = None, opp: dict | None = None) -> np.ndarray:
    """A board (row 0 the mover) from ``{point: count}`` dicts in the mover's numbering."""
    b = np.zeros((2, 25), dtype=np.int8)
    for point, n in (me or {}).items():
        b[0, 24 if point == "bar" else point - 1] += n
    for point, n in (opp or {}).items():
        # The mover's point p is the opponent's point 25 - p, its index 24 - p.
        b[1, 24 if point == "bar" else 24 - point] += n
    assert b[0].sum() <= 15 and b[1].sum() <= 15
    return b


def describe(b) -> str:
    """``me {point: n} | opp {point: n}`` in the mover's numbering, for messages."""
    b = np.asarray(b)
    me = {("bar" if i == 24 else i + 1): int(b[0, i]) for i in range(25) if b[0, i]}
    opp = {("bar" if j == 24 else 24 - j): int(b[1, j]) for j in range(25) if b[1, j]}
    return f"me {me} | opp {opp}"


def assert_plays(engine, start, d1, d2, expected) -> np.ndarray:
    """Check that ``engine.legal_plays`` gives exactly ``expected``, properly shaped.

    Checks the dtype and shape, the canonical order (strictly increasing bytes, so
    distinct), that the dice order does not matter, that the input is not
    modified, and set equality with ``expected`` (a list of boards). Returns the
    plays.
    """
    before = start.copy()
    plays = engine.legal_plays(start, d1, d2)
    assert np.array_equal(start, before), "legal_plays modified its input"
    assert isinstance(plays, np.ndarray)
    assert plays.dtype == np.int8
    assert plays.ndim == 3 and plays.shape[1:] == (2, 25)
    keys = [p.astype(np.uint8).tobytes() for p in plays]
    assert keys == sorted(keys), "plays are not in canonical order"
    assert len(set(keys)) == len(keys), "plays are not distinct"
    swapped = engine.legal_plays(start, d2, d1)
    assert np.array_equal(plays, swapped), "the order of the dice changed the plays"
    want = {np.asarray(e, dtype=np.int8).astype(np.uint8).tobytes(): e for e in expected}
    assert len(want) == len(expected), "the expected list has duplicates"
    got = dict(zip(keys, plays))
    missing = [describe(want[k]) for k in want if k not in got]
    extra = [describe(got[k]) for k in got if k not in want]
    assert not missing and not extra, (
        f"{engine.name} engine, roll {d1}-{d2} from {describe(start)}:\n"
        f"  missing plays: {missing}\n  unexpected plays: {extra}"
    )
    return plays
