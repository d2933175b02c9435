"""The second evaluator's features and inputs: the pure-Python reference.

Pure-Python mirror of ``fastbg._core.features``. Everything here is defined in
``docs/evaluator.md`` (the specification both engines implement independently);
this module follows its text literally, one clear loop per feature, and leaves
speed to the Cython twin. The ideas are Berliner's and GNU Backgammon's
(``/work/shared/EVALUATOR.md``); the definitions are fastbg's own.

Frames. A board is the engine contract's ``(2, 25)`` array (DESIGN section 2).
The features of a side ``s`` are computed in ``s``'s own frame: ``n[i]`` is
``board[s][i]`` (index 24 its bar) and the other side ``o`` is read through
``s``'s eyes, its index ``j`` being ``s``'s index ``23 - j`` and its bar ``s``'s
index ``-1``. ``s`` moves towards index 0, ``o`` (in ``s``'s frame) towards 23.
Side 1's features are therefore side 0's features of the swapped board.

Numbers. Every feature is an integer numerator ``N`` over the fixed denominator
``D`` of :data:`FEATURE_DENOMINATORS`; a network reads ``N / D`` (one IEEE
division, correctly rounded, so both engines agree bit for bit).
"""
from __future__ import annotations

import numpy as np

from ..spec.features import (  # noqa: F401  (the spec's names, also the reference's)
    BLOT_FEATURE_DENOMINATORS, BLOT_FEATURE_NAMES, CONTACT_INPUTS, CRASHED_MAX, ESCAPE_BITS,
    EXTRA_FEATURE_DENOMINATORS, EXTRA_FEATURE_NAMES, FEATURE_DENOMINATORS, FEATURE_NAMES,
    LEGACY_CONTACT_INPUTS, N_BLOT_FEATURES, N_EXTRA_FEATURES, N_FEATURES, POSITION_CLASSES,
    RACE_INPUTS)
from .board import is_race, validate_board
from .movegen import legal_plays
from .nn import encode

__all__ = [
    "N_FEATURES",
    "FEATURE_NAMES",
    "FEATURE_DENOMINATORS",
    "N_EXTRA_FEATURES",
    "EXTRA_FEATURE_NAMES",
    "EXTRA_FEATURE_DENOMINATORS",
    "CONTACT_INPUTS",
    "LEGACY_CONTACT_INPUTS",
    "RACE_INPUTS",
    "POSITION_CLASSES",
    "ESCAPE_BITS",
    "ESCAPE_TABLE",
    "escapes",
    "contact_features",
    "extra_features",
    "shots",
    "blots_hit",
    "contact_inputs",
    "contact_inputs_many",
    "extra_features_many",
    "race_inputs",
    "race_inputs_many",
    "position_class",
    "CRASHED_MAX",
    "is_crashed",
    "N_BLOT_FEATURES",
    "BLOT_FEATURE_NAMES",
    "BLOT_FEATURE_DENOMINATORS",
    "blot_features",
]

_RACE_SIDE = RACE_INPUTS // 2
_BAR = 24
_ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, 7))


# ----------------------------------------------------------------- escape table


def _escape_count(mask: int) -> int:
    """``E(mask)`` by enumerating the 36 ordered rolls (the specification's rules)."""
    # "Past" means more pips ahead than the farthest set bit; bit k is k + 1 pips
    # ahead, so the farthest blocked distance is the mask's bit length.
    farthest = mask.bit_length()

    def blocked(dist: int) -> bool:
        return dist <= ESCAPE_BITS and (mask >> (dist - 1)) & 1 == 1

    count = 0
    for d1, d2 in _ROLLS:
        if d1 == d2:
            # Up to four steps of the die, each landing open, stopping once past.
            dist, escaped = 0, False
            for _ in range(4):
                dist += d1
                if dist > farthest:
                    escaped = True
                    break
                if blocked(dist):
                    break
        else:
            # One die alone, or both in either order through an open first landing
            # (the final landing is past the farthest block, hence open).
            escaped = (
                d1 > farthest
                or d2 > farthest
                or (d1 + d2 > farthest and (not blocked(d1) or not blocked(d2)))
            )
        count += escaped
    return count


#: ``E(mask)`` for every 12-bit mask (int8, shape (4096,), read-only), built at import
#: by :func:`_escape_count` (about 0.03 s).
ESCAPE_TABLE = np.array([_escape_count(m) for m in range(1 << ESCAPE_BITS)], dtype=np.int8)
ESCAPE_TABLE.setflags(write=False)


def escapes(mask: int) -> int:
    """The escape table: rolls with which a lone checker passes the blocked points.

    Parameters
    ----------
    mask : int
        A 12-bit bitmap of blocked points in front of the checker: bit ``k``
        (0..11) is the point ``k + 1`` pips ahead. Points farther than 12 pips
        are open.

    Returns
    -------
    int
        ``E(mask)``, in 0..36: the ordered rolls of 36 with which the checker
        ends more pips ahead than the farthest set bit, landing only on open
        points (two different dice in either order, or one alone if it passes;
        a double in up to four steps). ``E(0) == 36``.

    Raises
    ------
    ValueError
        If ``mask`` is not an integer in ``0..4095``.
    """
    if isinstance(mask, bool) or not isinstance(mask, (int, np.integer)):
        raise ValueError(f"an escape mask is an int, got {type(mask).__name__}")
    m = int(mask)
    if not 0 <= m < 1 << ESCAPE_BITS:
        raise ValueError(f"an escape mask has 12 bits (0..4095), got {m}")
    return int(ESCAPE_TABLE[m])


# ----------------------------------------------------------- one side's frame


def _rows(board, side: int) -> tuple[list[int], list[int]]:
    """``(n, opp)``: side ``side``'s row and the other side's row, as lists of 25 ints."""
    if side not in (0, 1):
        raise ValueError(f"side is 0 (on roll) or 1 (opponent), got {side!r}")
    b = validate_board(board)
    return [int(v) for v in b[side]], [int(v) for v in b[1 - side]]


def _made(n: list[int], i: int) -> bool:
    """``made(i)``: the side holds its index ``i`` (0..23) with two or more checkers."""
    return 0 <= i <= 23 and n[i] >= 2


def _omade(opp: list[int], i: int) -> bool:
    """``omade(i)``: the other side holds the side's index ``i`` (its own ``23 - i``)."""
    return 0 <= i <= 23 and opp[23 - i] >= 2


def _back(n: list[int]) -> int:
    """``back``: the side's rearmost index in 0..24 (24 the bar), -1 if it has no checker."""
    return max((i for i in range(25) if n[i] > 0), default=-1)


def _opp_rear(opp: list[int]) -> int:
    """``c``: the other side's rearmost checker in the side's frame.

    ``23 - k`` for the largest ``k`` with ``opp[k] > 0``: -1 for a checker on its
    bar, 24 when it has none (``k = -1``).
    """
    k = max((j for j in range(25) if opp[j] > 0), default=-1)
    return 23 - k


def _entry_closed(opp: list[int]) -> int:
    """``h``: the other side's closed home points, the side's indices 18..23."""
    return sum(_omade(opp, i) for i in range(18, 24))


def _longest_prime(n: list[int]) -> int:
    best = run = 0
    for i in range(24):
        run = run + 1 if _made(n, i) else 0
        best = max(best, run)
    return best


# ---------------------------------------------------------------------- shots


def _hitters(opp: list[int]) -> tuple[list[int], int]:
    """The other side's hitters in the side's frame, and ``B``, its checkers on its bar.

    With ``B >= 1`` only the bar checker (at -1) hits: the others must wait for
    it to enter.
    """
    bar = opp[_BAR]
    if bar >= 1:
        return [-1], bar
    return [23 - j for j in range(24) if opp[j] > 0], 0


def _hits(n: list[int], x: int, y: int, d1: int, d2: int, bar: int) -> bool:
    """Whether the hitter at ``x`` hits the blot at ``y`` with the roll ``(d1, d2)``.

    ``bar`` is ``B`` when ``x`` is the bar checker (-1), else 0.
    """
    d = y - x
    if d <= 0:
        return False
    if d == d1 or d == d2:
        return True  # a direct shot: landing on a blot is always allowed
    if d1 != d2:
        if x == -1 and bar >= 2:
            return False  # both dice are needed to enter two checkers
        return d == d1 + d2 and (not _made(n, x + d1) or not _made(n, x + d2))
    e = d1
    # The bar checker spends a step entering, and B - 1 more steps enter the others.
    steps = 5 - bar if x == -1 else 4
    for k in range(1, steps + 1):
        if d == k * e:
            return all(not _made(n, x + t * e) for t in range(1, k))
    return False


def _blots_hit(n: list[int], opp: list[int], d1: int, d2: int) -> frozenset[int]:
    blots = [y for y in range(24) if n[y] == 1]
    hitters, bar = _hitters(opp)
    return frozenset(
        y for y in blots if any(_hits(n, x, y, d1, d2, bar if x == -1 else 0) for x in hitters)
    )


def _shots(n: list[int], opp: list[int]) -> tuple[int, int, int]:
    single = double = loss = 0
    for d1, d2 in _ROLLS:
        hit = _blots_hit(n, opp, d1, d2)
        single += len(hit) >= 1
        double += len(hit) >= 2
        # A blot on index y has y + 1 pips and goes back to the bar (25).
        loss += max((24 - y for y in hit), default=0)
    return single, double, loss


def blots_hit(board, side: int, d1: int, d2: int) -> frozenset[int]:
    """The blots of ``side`` that the other side hits with one roll (the "Shots" rules).

    Reference only (the twin need not have it): the per-roll detail of
    :func:`shots`, which sums it over the 36 ordered rolls.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
    side : int
        0 (on roll) or 1; the blots and the frame are this side's.
    d1, d2 : int
        The other side's dice, 1..6 each.

    Returns
    -------
    frozenset of int
        The indices ``y`` (0..23, in ``side``'s frame) of the blots hit.

    Raises
    ------
    ValueError
        For an invalid board, side or die.
    """
    n, opp = _rows(board, side)
    for die in (d1, d2):
        if isinstance(die, bool) or not isinstance(die, (int, np.integer)) or not 1 <= die <= 6:
            raise ValueError(f"a die is an int in 1..6, got {die!r}")
    return _blots_hit(n, opp, int(d1), int(d2))


def shots(board, side: int) -> tuple[int, int, int]:
    """Exposure of a side's blots to the other side's next roll (features 16-18).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
    side : int
        0 (on roll) or 1; its blots, in its own frame.

    Returns
    -------
    (int, int, int)
        The numerators of ``shots`` (ordered rolls of 36 hitting at least one
        blot), ``double_shots`` (at least two different blots) and ``pip_loss``
        (over the 36 rolls, the most pips ``24 - y`` lost by a blot ``y`` hit).

    Raises
    ------
    ValueError
        For an invalid board (:func:`fastbg.reference.board.validate_board`) or side.
    """
    n, opp = _rows(board, side)
    return _shots(n, opp)


# ------------------------------------------------------------------- features


def _side_features(n: list[int], opp: list[int]) -> list[int]:
    """The 20 numerators of the side whose row is ``n``, ``opp`` the other row."""
    back = _back(n)
    c = _opp_rear(opp)
    made = [i for i in range(24) if _made(n, i)]
    home_anchors = [i for i in range(18, 24) if _made(n, i)]

    if back < 0 or back <= c:
        escape_back = 36  # nothing left to pass
    else:
        mask = sum(1 << k for k in range(ESCAPE_BITS) if _omade(opp, back - 1 - k))
        escape_back = escapes(mask)

    def holding_mask(j: int) -> int:
        # The other side's checker on its index j is on this side's 23 - j; k + 1
        # pips ahead of it is this side's index 24 - j + k.
        return sum(1 << k for k in range(ESCAPE_BITS) if _made(n, 24 - j + k))

    containment = 36 - min(escapes(holding_mask(j)) for j in range(15, 25))
    h = _entry_closed(opp)
    shot, double_shot, pip_loss = _shots(n, opp)
    outside = sum(n[i] * (i - 5) for i in range(6, 25))
    held = sum(2 * (i - 5) for i in range(6, 24) if n[i] >= 2)

    return [
        back + 1,
        1 + max(made) if made else 0,
        24 - min(home_anchors) if home_anchors else 0,
        len(home_anchors),
        _longest_prime(n),
        sum(_made(n, i) for i in range(6)),
        sum(n[i] == 1 for i in range(24)),
        sum(n[i] * (i + 1) for i in range(25)),
        sum(n[i] * (i - c) for i in range(max(c + 1, 0), 25)),
        sum(n[i] * (i + 1) for i in range(min(c - 1, 24) + 1)),
        max(0, outside - held),
        escape_back,
        containment,
        containment * containment,
        h * h if n[_BAR] >= 1 else 0,
        36 - (6 - h) ** 2 if n[_BAR] >= 2 else 0,
        shot,
        double_shot,
        pip_loss,
        sum(n[i] for i in range(12, 25)),
    ]


def _both_sides(board, side_fn) -> np.ndarray:
    """``side_fn(n, opp)`` of side 0 then side 1 of a validated board, int64 (2, k)."""
    b = validate_board(board)
    rows = [[int(v) for v in b[s]] for s in (0, 1)]
    return np.array([side_fn(rows[0], rows[1]), side_fn(rows[1], rows[0])], dtype=np.int64)


def contact_features(board) -> np.ndarray:
    """The 20 contact-feature numerators of both sides, each in its own frame.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 on roll (engine convention).

    Returns
    -------
    numpy.ndarray of int64, shape (2, 20)
        Row ``s`` holds side ``s``'s numerators ``N`` in :data:`FEATURE_NAMES`
        order (``docs/evaluator.md``); the inputs are ``N / FEATURE_DENOMINATORS``.
        ``contact_features(swap(board))`` is this array with its rows exchanged.

    Raises
    ------
    ValueError
        For an invalid board (:func:`fastbg.reference.board.validate_board`).
    """
    return _both_sides(board, _side_features)


# ------------------------------------------------------------- extra features


def _mobility(n: list[int], opp: list[int]) -> int:
    """``mobility``: the (checker point, die) pairs of the side that can move.

    On the bar only the bar checker moves: the dice that enter. Otherwise each point
    ``i`` with a checker and each die ``d``: to ``i - d`` if the other side does not
    hold it; past the ace point only when every checker is home, exactly (``i - d ==
    -1``) or from the rearmost point.
    """
    if n[_BAR] >= 1:
        return sum(not _omade(opp, 24 - d) for d in range(1, 7))
    home = all(n[i] == 0 for i in range(6, 25))
    back = _back(n)
    count = 0
    for i in range(24):
        if n[i] == 0:
            continue
        for d in range(1, 7):
            t = i - d
            if t >= 0:
                count += not _omade(opp, t)
            else:
                count += home and (t == -1 or i == back)
    return count


def _moment2(n: list[int]) -> int:
    """``moment2``: the squared distances behind the mean of the checkers behind it.

    With ``T`` checkers (bar included) and pip count ``P`` (mean ``P / T``):
    ``floor(sum over p T > P of n_p (p T - P) ** 2 / T ** 2)`` over the pips ``p``
    (``i + 1``, the bar 25), exact in integers; 0 with no checker.
    """
    total = sum(n)
    if total == 0:
        return 0
    pips = sum(n[i] * (i + 1) for i in range(25))
    s = sum(n[i] * ((i + 1) * total - pips) ** 2 for i in range(25) if (i + 1) * total > pips)
    return s // (total * total)


def _backbone(n: list[int]) -> int:
    """``backbone``: pairs of made points at most 6 pips apart."""
    made = [i for i in range(24) if _made(n, i)]
    return sum(1 for a in made for b in made if 1 <= a - b <= 6)


def _side_extra(n: list[int], opp: list[int]) -> list[int]:
    """The extra numerators (:data:`EXTRA_FEATURE_NAMES`) of the side whose row is ``n``."""
    anchors = sum(_made(n, i) for i in range(18, 24))
    deficit = max(0, sum(n[i] * (i + 1) for i in range(25)) - sum(opp[i] * (i + 1) for i in range(25)))
    off = 15 - sum(n)
    return [
        _mobility(n, opp),
        _moment2(n),
        _backbone(n),
        deficit if anchors == 1 else 0,
        deficit if anchors >= 2 else 0,
        min(off, 3),
        min(max(off - 3, 0), 3),
        max(off - 6, 0),
    ]


def extra_features(board) -> np.ndarray:
    """The 8 extra contact-feature numerators of both sides, each in its own frame.

    As :func:`contact_features`, for ``docs/evaluator.md``'s "Extra contact features":
    int64 array of shape (2, 8), row ``s`` side ``s``'s numerators in
    :data:`EXTRA_FEATURE_NAMES` order (the inputs are ``N / EXTRA_FEATURE_DENOMINATORS``);
    ``ValueError`` for an invalid board.
    """
    return _both_sides(board, _side_extra)


# --------------------------------------------------------------------- inputs


def contact_inputs(board) -> np.ndarray:
    """The contact net's inputs of a position (row 0 on roll).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)

    Returns
    -------
    numpy.ndarray of float64, shape (252,)
        Tesauro's 196 units (:func:`fastbg.reference.nn.encode`), then side 0's
        20 features ``N / D``, then side 1's (the first 236, what a 236-input net
        reads), then side 0's 8 extra features ``N / D``, then side 1's.

    Raises
    ------
    ValueError
        For an invalid board.
    """
    b = validate_board(board)
    f = contact_features(b) / FEATURE_DENOMINATORS
    x = extra_features(b) / EXTRA_FEATURE_DENOMINATORS
    return np.concatenate([encode(b), f[0], f[1], x[0], x[1]])


def race_inputs(board) -> np.ndarray:
    """The race net's inputs of a position (row 0 on roll).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Any valid board; the race net sees races (no checker on a bar), but the
        inputs are defined for every board.

    Returns
    -------
    numpy.ndarray of float64, shape (226,)
        For side 0 then side 1 (113 each, own frame): Tesauro's four units per
        index 0..23 (96), the checkers off one-hot (15 units, ``off == k`` for
        ``k`` in 0..14; all zero with 15 off), the crossovers
        ``sum over i in 0..24 of n[i] * (i // 6)`` over 60, and the pip count
        over 167.

    Raises
    ------
    ValueError
        For an invalid board.
    """
    b = validate_board(board)
    units = encode(b)
    x = np.zeros(RACE_INPUTS, dtype=np.float64)
    for s in (0, 1):
        n = [int(v) for v in b[s]]
        base = _RACE_SIDE * s
        x[base:base + 96] = units[98 * s:98 * s + 96]
        off = 15 - sum(n)
        if off < 15:
            x[base + 96 + off] = 1.0
        x[base + 111] = sum(n[i] * (i // 6) for i in range(25)) / 60
        x[base + 112] = sum(n[i] * (i + 1) for i in range(25)) / 167
    return x


def _many(fn, boards, shape: tuple, dtype=np.float64) -> np.ndarray:
    """``fn`` of each board of an (n, 2, 25) array, into an (n, *shape) array."""
    b = np.asarray(boards)
    if b.ndim != 3 or b.shape[1:] != (2, 25):
        raise ValueError(f"boards have shape (n, 2, 25), got {b.shape}")
    out = np.zeros((b.shape[0], *shape), dtype=dtype)
    for k in range(b.shape[0]):
        out[k] = fn(b[k])
    return out


def contact_inputs_many(boards) -> np.ndarray:
    """:func:`contact_inputs` of each board.

    Parameters
    ----------
    boards : array_like of int, shape (n, 2, 25)

    Returns
    -------
    numpy.ndarray of float64, shape (n, 252)
        All :data:`CONTACT_INPUTS` columns; a 236-input net reads the first
        :data:`LEGACY_CONTACT_INPUTS`.
    """
    return _many(contact_inputs, boards, (CONTACT_INPUTS,))


def extra_features_many(boards) -> np.ndarray:
    """:func:`extra_features` of each board.

    Parameters
    ----------
    boards : array_like of int, shape (n, 2, 25)

    Returns
    -------
    numpy.ndarray of int64, shape (n, 2, 8)
    """
    return _many(extra_features, boards, (2, N_EXTRA_FEATURES), np.int64)


def race_inputs_many(boards) -> np.ndarray:
    """:func:`race_inputs` of each board.

    Parameters
    ----------
    boards : array_like of int, shape (n, 2, 25)

    Returns
    -------
    numpy.ndarray of float64, shape (n, 226)
    """
    return _many(race_inputs, boards, (RACE_INPUTS,))


def position_class(board) -> str:
    """Which evaluator a position goes to (``docs/evaluator.md``, "Position classes").

    Parameters
    ----------
    board : array_like of int, shape (2, 25)

    Returns
    -------
    str
        The first that applies: ``"over"`` (a side has no checker left),
        ``"bearoff"`` (every checker of both sides on its indices 0..5 or off),
        ``"race"`` (no contact, :func:`fastbg.reference.board.is_race`),
        ``"contact"``.

    Raises
    ------
    ValueError
        For an invalid board.
    """
    b = validate_board(board)
    if (b.sum(axis=1) == 0).any():
        return "over"
    if not b[:, 6:].any():
        return "bearoff"
    if is_race(b):
        return "race"
    return "contact"


def is_crashed(boards):
    """Whether contact positions are crashed (``docs/evaluator.md``, "Position classes").

    A position is crashed when a side has at most :data:`CRASHED_MAX` checkers in play:
    its checkers on its points and bar, not counting those stacked on its 1- and 2-points
    beyond the first of each (they are out of play). Symmetric in the two sides. Our rule;
    it agrees with GNU Backgammon's crashed class on 99.8% of the error-rate benchmark's
    contact and crashed decisions (``experiments/TRAINING.md``, generation 11).

    Parameters
    ----------
    boards : array_like of int, shape (2, 25) or (n, 2, 25)
        Valid boards; whether they are contact positions is the caller's check
        (:func:`position_class`).

    Returns
    -------
    bool or numpy.ndarray of bool, shape (n,)
        A bool for one board, an array for a stack of them.
    """
    a = np.asarray(boards)
    out = (checkers_in_play(a.reshape(-1, 2, 25)) <= CRASHED_MAX).any(axis=1)
    return bool(out[0]) if a.ndim == 2 else out


def checkers_in_play(boards) -> np.ndarray:
    """Each side's checkers in play (:func:`is_crashed`'s count): on its points and bar,
    less those stacked on its 1- and 2-points beyond the first of each.

    Parameters
    ----------
    boards : array_like of int, shape (n, 2, 25)
        Valid boards.

    Returns
    -------
    numpy.ndarray of int32, shape (n, 2)
    """
    b = np.asarray(boards).astype(np.int32).reshape(-1, 2, 25)
    surplus = np.maximum(b[:, :, 0] - 1, 0) + np.maximum(b[:, :, 1] - 1, 0)
    return b.sum(axis=2) - surplus


# ----------------------------------------------------------- blot features

def _bears_off_against_contact(n: list[int], opp: list[int]) -> bool:
    """Every checker of the side home or off, one at least home, and a checker of the
    other side on its bar or in the side's home board (the other side's indices 18..23)."""
    return not any(n[6:]) and any(n[:6]) and (opp[_BAR] > 0 or any(opp[18:24]))


def _side_blots(b: np.ndarray) -> list[int]:
    """The five numerators of the side in row 0 of ``b`` (its own frame)."""
    n, opp = [int(v) for v in b[0]], [int(v) for v in b[1]]
    out = [0] * N_BLOT_FEATURES
    if not _bears_off_against_contact(n, opp):
        return out
    out[2] = 1
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            w = 1 if d1 == d2 else 2
            plays = legal_plays(b, d1, d2)
            if len(plays) == 0:            # no die can be played: the board stays
                plays = b[None]
            shots = [_shots([int(v) for v in p[0]], [int(v) for v in p[1]])[0] for p in plays]
            off = [15 - int(p[0].sum()) for p in plays]
            most = max(off)
            fastest = min(s for s, o in zip(shots, off) if o == most)
            safest = min(shots)
            out[0] += w * (safest > 0)
            out[1] += w * (fastest > 0)
            out[3] += w * safest
            out[4] += w * fastest
    return out


def blot_features(board) -> np.ndarray:
    """The blot features of both sides: what a side bearing off against contact must
    leave to be hit on its next roll (``docs/evaluator.md``, "Blot features").

    For a side all of whose checkers are home or off, with a checker of the other side on
    its bar or in that home board, over the 36 rolls of its next turn (as if it were on
    roll) and every legal play of each: ``forced_blot``, the rolls whose every play leaves
    a shot (the contact feature ``shots`` of the side after the play is not 0);
    ``fast_blot``, the rolls whose every play bearing off the most checkers does;
    ``bearing_off``, 1; ``safe_shots``, the sum over the rolls of the fewest shots a play
    leaves; ``fast_shots``, the same over the plays bearing off the most. A roll with no
    legal play leaves the board as it is. All 0 for any other side.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        A valid board, row 0 on roll.

    Returns
    -------
    numpy.ndarray of int64, shape (2, 5)
        The numerators ``N`` of side 0 (row 0) and side 1, in
        :data:`BLOT_FEATURE_NAMES` order; a net reads ``N / D``
        (:data:`BLOT_FEATURE_DENOMINATORS`: 36, 36, 1, 1296, 1296).

    Raises
    ------
    ValueError
        For an invalid board (:func:`fastbg.reference.board.validate_board`).
    """
    b = validate_board(board)
    return np.array([_side_blots(b), _side_blots(np.ascontiguousarray(b[::-1]))], dtype=np.int64)
