"""Legal plays as distinct resulting positions: the pure-Python reference generator.

Pure-Python mirror of ``fastbg._core.movegen``. The algorithm is deliberately
simple so that agreement with the fast Cython generator means something
(DESIGN section 6):

1. Play the dice in every order: ``(d1, d2)`` and ``(d2, d1)`` for two different
   dice, four times the same die for a double.
2. At each step try every single legal checker move with the next die (DESIGN
   section 3): bar entry first, blocked points (two or more opposing checkers)
   closed, a lone opposing checker hit and sent to its bar, bear-off only with all
   the mover's remaining checkers in its home board (an exact die bears off from
   its point; a larger die only from the highest occupied point).
3. A sequence ends when the next die cannot be played or the dice are used up.
   Record the final position and the number of dice actually played. This holds
   when the last checker goes off too: if it can go off with one die, or with
   both by another route (hitting on the way), only the route that plays both
   dice is legal (GNU Backgammon agrees; engine contract).
4. Keep the positions reached with the most dice; if only one of two different
   dice can be played, keep those reached with the larger die if there are any.
5. De-duplicate by resulting position and sort in canonical order.

The positions reachable after ``k`` dice of one order are collected in a set
before the next die is tried. This merges orders of the same moves early (a
double would otherwise try up to 15**4 sequences) and changes nothing in the
result: the moves available next depend on the position only.

Positions are handled internally as tuples of 50 ints: the mover's row (index
``i`` = its point ``i + 1``, 24 = bar) followed by the opponent's row. Tuple order
is the canonical order, because all counts are in ``0..15``.
"""
from __future__ import annotations

import numpy as np

from .board import validate_board

__all__ = ["hash_keys", "legal_plays", "legal_plays_with_moves", "perft", "play_keys",
           "validate_dice"]

_OPP = 25  # offset of the opponent's row in a flat position
_BAR = 24  # index of a side's bar in its row
_OPP_BAR = _OPP + _BAR


_MASK64 = (1 << 64) - 1


def _splitmix64_keys(count: int) -> tuple[int, ...]:
    keys, x = [], 0x9E3779B97F4A7C15
    for _ in range(count):
        x = (x + 0x9E3779B97F4A7C15) & _MASK64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        keys.append(z ^ (z >> 31))
    return tuple(keys)


_KEYS = _splitmix64_keys(50)
_KEY_ARRAY = np.array(_KEYS, dtype=np.uint64)


def hash_keys() -> tuple[int, ...]:
    """The 50 64-bit keys of the play key, one per count of a flat board.

    Returns
    -------
    tuple of int
        ``KEY[k]`` for ``k`` = 25 * row + index: the first 50 outputs of
        splitmix64 (S. Vigna) seeded with ``0x9E3779B97F4A7C15``.
    """
    return _KEYS


def play_keys(board_before, plays) -> np.ndarray:
    """The play keys of plays of one position: the random policy's order.

    Parameters
    ----------
    board_before : array_like of int, shape (2, 25)
        The position before the roll, mover in row 0 (validated).
    plays : array_like of int, shape (n, 2, 25)
        Positions reached from it, mover's frame.

    Returns
    -------
    numpy.ndarray of uint64, shape (n,)
        ``sum((play - before) * KEY) mod 2**64`` over the 50 counts (engine
        contract: the Cython generator computes the same keys incrementally).
    """
    before = np.asarray(validate_board(board_before), dtype=np.int64).reshape(50)
    diff = np.asarray(plays, dtype=np.int64).reshape(-1, 50) - before
    # uint64 arithmetic wraps modulo 2**64; a negative difference becomes its
    # two's complement, which is the same residue.
    return (diff.astype(np.uint64) * _KEY_ARRAY).sum(axis=1, dtype=np.uint64)


def validate_dice(d1, d2) -> tuple[int, int]:
    """Check two dice.

    Parameters
    ----------
    d1, d2 : int
        Dice values.

    Returns
    -------
    (int, int)
        The dice as Python ints.

    Raises
    ------
    ValueError
        If a die is not an integer (``bool`` is refused too) or not in ``1..6``.
    """
    out = []
    for name, d in (("d1", d1), ("d2", d2)):
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise ValueError(f"die {name} must be an int in 1..6, got {d!r}")
        if not 1 <= d <= 6:
            raise ValueError(f"die {name} must be in 1..6, got {int(d)}")
        out.append(int(d))
    return out[0], out[1]


def _opp_index(point: int) -> int:
    """Flat index of the opponent's count on the mover's point ``point`` (1..24).

    The mover's point ``p`` is the opponent's point ``25 - p``, its index ``24 - p``.
    """
    return _OPP + 24 - point


def _single_moves(pos: tuple, die: int) -> list:
    """Every legal move of one checker by ``die`` pips.

    Parameters
    ----------
    pos : tuple of 50 int
        Flat position, mover first.
    die : int
        1..6.

    Returns
    -------
    list of (tuple, (int, int, bool))
        The position after the move and the move as ``(from, to, hit)`` in the
        mover's numbering (from 25 = bar, to 0 = off).
    """
    moves = []
    if pos[_BAR] > 0:
        # Checkers on the bar must enter first: only the entry move is legal.
        sources = (25,)
    else:
        sources = tuple(p for p in range(24, 0, -1) if pos[p - 1] > 0)
    # Bear-off needs every remaining checker in the home board (points 1..6).
    all_home = not any(pos[6:25])
    highest = sources[0] if sources else 0
    for src in sources:
        dst = src - die
        new = list(pos)
        new[src - 1] -= 1
        if dst >= 1:
            opp = pos[_opp_index(dst)]
            if opp >= 2:
                continue  # blocked point
            hit = opp == 1
            if hit:
                new[_opp_index(dst)] = 0
                new[_OPP_BAR] += 1
            new[dst - 1] += 1
            moves.append((tuple(new), (src, dst, hit)))
        elif all_home and (dst == 0 or src == highest):
            # Exact die from its point, or a larger die from the highest point.
            moves.append((tuple(new), (src, 0, False)))
    return moves


def _move_key(move) -> tuple[int, int]:
    # Preferred listing of a play: checkers further back first, longer steps first.
    return (-move[0], move[1])


def _dice_orders(d1: int, d2: int) -> list[tuple[int, ...]]:
    if d1 == d2:
        return [(d1,) * 4]
    return [(d1, d2), (d2, d1)]


def _search(pos: tuple, d1: int, d2: int, track: bool) -> dict:
    """Final positions of all legal plays with, if ``track``, one move sequence each.

    Returns
    -------
    dict
        ``{position: moves}`` where ``moves`` is a tuple of ``(from, to, hit)``
        (or ``None`` when ``track`` is false). Empty if no die can be played.
    """
    # Every final position of every sequence: (position, dice used, first die, moves).
    finals = []
    for order in _dice_orders(d1, d2):
        frontier = {pos: ()}  # position after k dice -> preferred moves reaching it
        for k, die in enumerate(order):
            nxt: dict = {}
            for cur, seq in frontier.items():
                # With no checker left (the last one is off) nothing can move:
                # the dice played so far are what counts.
                moves = _single_moves(cur, die)
                if not moves:
                    finals.append((cur, k, order[0], seq))
                    continue
                for new, move in moves:
                    if track:
                        cand = seq + (move,)
                        old = nxt.get(new)
                        if old is None or [_move_key(m) for m in cand] < [
                            _move_key(m) for m in old
                        ]:
                            nxt[new] = cand
                    else:
                        nxt[new] = ()
            frontier = nxt
        for cur, seq in frontier.items():
            finals.append((cur, len(order), order[0], seq))

    most = max(used for _, used, _, _ in finals)
    if most == 0:
        return {}
    kept = [f for f in finals if f[1] == most]
    if d1 != d2 and most == 1:
        larger = max(d1, d2)
        with_larger = [f for f in kept if f[2] == larger]
        if with_larger:
            kept = with_larger

    plays: dict = {}
    for cur, _, _, seq in kept:
        if not track:
            plays[cur] = None
            continue
        old = plays.get(cur)
        if old is None or [_move_key(m) for m in seq] < [_move_key(m) for m in old]:
            plays[cur] = seq
    return plays


def _prepare(board, d1, d2) -> tuple[tuple, int, int]:
    b = validate_board(board)
    d1, d2 = validate_dice(d1, d2)
    return tuple(b.ravel().tolist()), d1, d2


def _to_array(positions) -> np.ndarray:
    out = np.array(positions, dtype=np.int8).reshape(-1, 2, 25)
    return out


def legal_plays(board, d1, d2) -> np.ndarray:
    """Every distinct position the side to move can reach with the roll ``d1-d2``.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 the side to move, row 1 the opponent (engine convention).
    d1, d2 : int
        The dice, each in ``1..6``, in either order.

    Returns
    -------
    numpy.ndarray of int8, shape (n, 2, 25)
        The resulting positions in the mover's frame (rows not swapped), distinct,
        sorted in canonical order (lexicographic over the 50 bytes of each
        flattened position). ``n == 0`` when no die can be played.

    Raises
    ------
    ValueError
        If a die is not an int in ``1..6`` or the board is not valid.
    """
    pos, d1, d2 = _prepare(board, d1, d2)
    plays = _search(pos, d1, d2, track=False)
    return _to_array(sorted(plays))


def bears_off_all(board, d1, d2) -> bool:
    """Whether some legal play of ``d1-d2`` bears off all of row 0's remaining checkers.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        The position, row 0 on roll (validated).
    d1, d2 : int
        The dice, each in 1..6.

    Returns
    -------
    bool
    """
    return any(not play[0].any() for play in legal_plays(board, d1, d2))


def legal_plays_with_moves(board, d1, d2) -> list:
    """Legal plays with one move sequence each, for notation.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 the side to move.
    d1, d2 : int
        The dice, each in ``1..6``.

    Returns
    -------
    list of (numpy.ndarray, tuple)
        For each position of :func:`legal_plays`, in the same canonical order: the
        position (``int8``, shape ``(2, 25)``, mover's frame) and one sequence of
        single-die moves reaching it, ``((from, to, hit), ...)`` in the order
        played, mover's numbering (from 25 = bar, to 0 = off; ``hit`` is true if
        the move hit a lone opposing checker). Among the sequences reaching a
        position (all play the same number of dice), the one with the smallest
        list of ``(-from, to)`` keys is chosen: checkers further back first, and
        for one checker the longer step first (``24/18 18/13`` rather than
        ``24/19 19/13``). The choice is deterministic.

    Raises
    ------
    ValueError
        If a die is not an int in ``1..6`` or the board is not valid.
    """
    pos, d1, d2 = _prepare(board, d1, d2)
    plays = _search(pos, d1, d2, track=True)
    return [
        (np.array(p, dtype=np.int8).reshape(2, 25), plays[p]) for p in sorted(plays)
    ]


_ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))  # the 21 rolls


def _swap(pos: tuple) -> tuple:
    """The flat position with the turn passed (rows exchanged)."""
    return pos[_OPP:] + pos[:_OPP]


def _perft(pos: tuple, depth: int) -> int:
    if depth == 0 or not any(pos[:_OPP]) or not any(pos[_OPP:]):
        return 1  # a finished game is one leaf
    total = 0
    for d1, d2 in _ROLLS:
        plays = _search(pos, d1, d2, track=False)
        if not plays:
            total += _perft(_swap(pos), depth - 1)
        else:
            total += sum(_perft(_swap(p), depth - 1) for p in plays)
    return total


def perft(board, depth) -> int:
    """Leaves of the game tree below a position over all 21 rolls at each ply.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        The position, row 0 about to roll.
    depth : int
        Plies, ``0 <= depth <= 16``.

    Returns
    -------
    int
        ``perft(b, 0) = 1``; a finished game (either side has no checker left) is
        one leaf at any depth; otherwise the sum over the 21 distinct rolls (not
        weighted by probability) of the sum over the distinct legal plays of
        ``perft(play with the turn passed, depth - 1)``; a roll with no legal play
        has one child, ``b`` with the turn passed.

    Raises
    ------
    ValueError
        If the board is invalid or ``depth`` is out of range.

    Notes
    -----
    A plain recursion over :func:`legal_plays`' search, with no bulk counting at
    the last ply, so that agreement with the Cython kernel means something.
    """
    b = validate_board(board)
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, (int, np.integer)):
        raise ValueError(f"depth must be an int, got {depth!r}")
    if not 0 <= depth <= 16:
        raise ValueError(f"depth must be in 0..16, got {int(depth)}")
    return _perft(tuple(b.ravel().tolist()), int(depth))
