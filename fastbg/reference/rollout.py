"""The game loop and rollout blocks of the pure-Python engine.

Pure-Python mirror of ``fastbg._core.rollout``, following the engine contract's
game loop (:mod:`fastbg.reference`). The only random draws are the dice, the
opening roll, and the random policy's choice when there are two or more plays;
pubeval never draws.

Reproducibility
---------------
For the same board, options, policy and bit generator state, both engines play
the same games and return the same outcome classes and counts.
"""
from __future__ import annotations

import numpy as np

from . import bearoffdb as _bearoffdb
from ..spec import luck as _luck
from .board import OUTCOME_CLASSES, check_start, outcome, swap, validate_board
from ..spec.dice import opening_roll, roll_index
from .policies import as_policy
from .movegen import validate_dice
from .turn import opening_turn, play_turn
from .evaluator import MEMO_MAX
from ..spec.nply import check_ply, move_filter as nply_move_filter

__all__ = ["play_game", "rollout_block", "rollout_block_vr", "roll_indices", "match_game",
           "OUTCOME_CLASSES"]

def _check_bitgen(bitgen) -> None:
    if not isinstance(bitgen, np.random.BitGenerator):
        raise TypeError(
            "bitgen must be a numpy.random.BitGenerator (e.g. numpy.random.PCG64DXSM), "
            f"got {type(bitgen).__name__}"
        )


def _check_games(games) -> None:
    if isinstance(games, (bool, np.bool_)) or not isinstance(games, (int, np.integer)):
        raise ValueError(f"games must be a non-negative int, got {games!r}")
    if games < 0:
        raise ValueError(f"games must be a non-negative int, got {games}")


def _first_roll(dice, opening):
    """The first roll: fixed dice, "opening", or None (rolled in the loop)."""
    if dice is None:
        return "opening" if opening else None
    try:
        d1, d2 = dice
    except (TypeError, ValueError):
        raise ValueError(f"dice must be None or a pair of ints in 1..6, got {dice!r}") from None
    return validate_dice(d1, d2)


class _Rolls:
    """A game's random rolls: its stratified ones first (quasi-random dice; -1 = drawn),
    then draws (the core's next_roll and next_opening)."""

    def __init__(self, bitgen, q=None):
        self.bitgen, self.q, self.i = bitgen, q, 0

    def _given(self):
        if self.q is not None and self.i < 2:
            r = int(self.q[self.i])
            self.i += 1
            return r if r >= 0 else None
        return None

    def roll(self) -> int:
        r = self._given()
        return roll_index(self.bitgen) if r is None else r

    def opening(self):
        r = self._given()
        if r is None:
            return opening_roll(self.bitgen)
        return r // 6 + 1, r % 6 + 1


def _play(board: np.ndarray, bitgen, policy, first, q=None) -> int:
    """One game from a validated board; ``first`` is the first roll or None."""
    # `mover_is_root` tells whether row 0 is the side that was in row 0 of the input.
    mover_is_root = True
    rolls = _Rolls(bitgen, q)
    if first == "opening":
        board, mover_is_root, d1, d2 = opening_turn(board, bitgen, rolls.opening())
        first = (d1, d2)
    while True:
        if first is not None:
            d1, d2 = first
            first = None
        else:
            r = rolls.roll()
            d1, d2 = r // 6 + 1, r % 6 + 1
        after = play_turn(board, d1, d2, policy, bitgen)
        if not after[0].any():
            won = outcome(after)  # 1, 2 or 3 points for the mover
            return won - 1 if mover_is_root else won + 2
        board = swap(after)
        mover_is_root = not mover_is_root


def play_game(board, bitgen, policy, dice=None, opening=False) -> int:
    """Play one game to the end.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        The start, with the side in row 0 about to roll.
    bitgen : numpy.random.BitGenerator
        Source of every random draw.
    policy : RandomPolicy, PubevalPolicy or str
        From :func:`fastbg.reference.eval.make_policy`, or its name.
    dice : (int, int), optional
        Fixed first roll of the side in row 0 (no draw for it).
    opening : bool, default False
        Start with an opening roll (DESIGN section 3.8): the side with the higher
        die plays both dice, which may be the opponent. Ignored when ``dice`` is
        given.

    Returns
    -------
    int
        Outcome class from the point of view of row 0 of ``board``: 0 win single,
        1 win gammon, 2 win backgammon, 3 lose single, 4 lose gammon, 5 lose
        backgammon.

    Raises
    ------
    ValueError
        If the board is not valid, the game is already over (a side has no
        checker left), a die is not an int in 1..6, or the policy name is unknown.
    TypeError
        If ``bitgen`` is not a numpy bit generator or ``policy`` is neither a
        policy object nor a name.
    """
    b = validate_board(board)
    check_start(b)
    _check_bitgen(bitgen)
    policy = as_policy(policy)
    return _play(b, bitgen, policy, _first_roll(dice, opening))


def _check_qrolls(qrolls, games: int, opening: bool):
    if qrolls is None:
        return None
    arr = np.ascontiguousarray(qrolls, dtype=np.int32)
    if arr.ndim != 2 or arr.shape[0] != games or arr.shape[1] != 2:
        raise ValueError(f"qrolls must have shape ({games}, 2), got {arr.shape}")
    if arr.size and (arr.min() < -1 or arr.max() > 35):
        raise ValueError("qrolls must hold roll indices in 0..35 (or -1 for a drawn roll)")
    if opening and arr.size and ((arr[:, 0] >= 0) & (arr[:, 0] // 6 == arr[:, 0] % 6)).any():
        raise ValueError("with the opening roll, the first stratified roll cannot be a double")
    return arr


def _check_prefilter(prefilter) -> int:
    """The yardstick's prefilter (pubeval's best plays a roll, 0 = all), checked."""
    if isinstance(prefilter, (bool, np.bool_)) or not isinstance(prefilter, (int, np.integer)) \
            or not 0 <= prefilter <= 64:
        raise ValueError(f"prefilter must be an int in 0..64, got {prefilter!r}")
    return int(prefilter)


def _check_stop(stop):
    """A block's stop flag (the core's ``check_stop``): None, or a uint8 array of shape (1,)."""
    if stop is not None and (not isinstance(stop, np.ndarray) or stop.dtype != np.uint8
                             or stop.shape != (1,)):
        raise ValueError("stop must be a uint8 array of shape (1,)")
    return stop


def _stop_requested(stop) -> bool:
    """Whether the block's stop flag is set (asked between games)."""
    return stop is not None and bool(stop[0])


def _check_out(arr, shape, dtype, name):
    if arr is None:
        return None
    if not isinstance(arr, np.ndarray) or arr.dtype != dtype or arr.shape != shape \
            or not arr.flags.c_contiguous or not arr.flags.writeable:
        raise ValueError(f"{name} must be a writeable contiguous {np.dtype(dtype).name} array of shape {shape}")
    return arr


def rollout_block(board, games, bitgen, policy, dice=None, opening=False, classes=None,
                  qrolls=None, stop=None) -> np.ndarray:
    """Play ``games`` games from one position and count the outcome classes.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        The start, side in row 0 about to roll.
    games : int
        Number of games, ``>= 0``, played one after another from ``bitgen``.
    bitgen : numpy.random.BitGenerator
    policy : RandomPolicy, PubevalPolicy or str
    dice : (int, int), optional
        Fixed first roll of every game.
    opening : bool, default False
        Start every game with an opening roll (ignored when ``dice`` is given).
    classes : numpy.ndarray of int8, shape (games,), optional
        Filled with each game's outcome class, in game order.
    qrolls : array_like of int, shape (games, 2), optional
        Quasi-random dice: each game's first two random rolls (roll indices; the opening
        roll's outcome ``6 (a - 1) + (b - 1)`` when ``opening``; -1: drawn as usual).
    stop : numpy.ndarray of uint8, shape (1,), optional
        Read between games: once set nonzero (by another thread), the block returns the
        counts of the games played so far (the core's ``stop``).

    Returns
    -------
    numpy.ndarray of int64, shape (6,)
        Counts of the outcome classes of :func:`play_game`; they sum to ``games`` (unless
        ``stop`` cut the block short).

    Raises
    ------
    ValueError
        As :func:`play_game`, or if ``games`` is negative or not an integer.
    TypeError
        As :func:`play_game`.
    KeyboardInterrupt
        Passed on, with the counts of the games finished so far as its
        ``partial_counts`` attribute.
    """
    b = validate_board(board)
    check_start(b)
    _check_games(games)
    first = _first_roll(dice, opening)
    policy = as_policy(policy)
    _check_bitgen(bitgen)
    classes = _check_out(classes, (int(games),), np.int8, "classes")
    q = _check_qrolls(qrolls, int(games), first == "opening")
    stop = _check_stop(stop)
    counts = np.zeros(6, dtype=np.int64)
    try:
        for i in range(int(games)):
            if _stop_requested(stop):
                break
            c = _play(b, bitgen, policy, first, None if q is None else q[i])
            counts[c] += 1
            if classes is not None:
                classes[i] = c
    except KeyboardInterrupt as exc:
        # Ctrl-C inside a slow pure-Python block: the caller may keep the finished games
        exc.partial_counts = counts
        raise
    return counts


def _stop(board, mover_is_root: bool, yardstick, L, half: int, truncate: int,
          bearoff2: bool, tply: int = 0):
    """The core's ``_stop_c``: ``(7 or 6, adjusted values)`` if the game stops before the
    roll of ``board`` (two-sided database; ``truncate`` half-moves, scored at ``tply``
    ply), else ``None``."""
    c = None
    if bearoff2 and _bearoffdb.two_sided_key(board) is not None:
        p, c = [_bearoffdb.two_sided_win(board), 0.0, 0.0, 0.0, 0.0], 7
    elif truncate > 0 and half >= truncate:
        p = (yardstick.probabilities(board) if tply == 0 else
             yardstick.nply_probabilities(board, tply)[0])
        p, c = [float(x) for x in p], 6
    if c is None:
        return None
    q = p if mover_is_root else _luck.flip(p)
    adj = [q[k] - L[k] for k in range(5)]
    adj.append((2.0 * adj[0] - 1.0) + (adj[1] - adj[3]) + (adj[2] - adj[4]))
    return c, adj


def _play_vr(board: np.ndarray, bitgen, policy, yardstick, first, prefilter: int = 0, q=None,
             vr: bool = True, truncate: int = 0, bearoff2: bool = False, nply=None):
    """:func:`_play`'s game with the luck of each random roll summed by ``yardstick`` (when
    ``vr``), stopped by ``truncate`` / ``bearoff2`` (:func:`_stop`): ``(outcome class 0..5,
    or 6 / 7 for a stopped game, the six adjusted values)`` (the core's ``play_game_vr_c``).
    ``nply``: ``(luck_ply, truncate_ply, move_filter, memo)`` or None (both 0 ply)."""
    lply, tply, mfilter, memo = nply if nply is not None else (0, 0, None, None)

    def roll_values(pos):       # the core's yard_values
        if lply == 0:
            return yardstick.roll_values(pos, prefilter)
        if len(memo) > MEMO_MAX:
            memo.clear()
        return yardstick.roll_values_nply(pos, lply, mfilter, memo)
    L = [0.0] * 5
    rolls = _Rolls(bitgen, q)
    mover_is_root = True
    lucky = vr
    half = 0
    if first == "opening":
        other = swap(board)
        if vr:
            v0 = roll_values(board)
            v1 = roll_values(other)
            mean = _luck.opening_mean(v0, v1)
        a, b = rolls.opening()
        if a > b:
            d1, d2 = a, b
            if vr:
                _luck.add_luck(L, v0[_luck.roll_slot(a, b)], mean, True)
        else:
            board, mover_is_root = other, False
            d1, d2 = b, a
            if vr:
                _luck.add_luck(L, _luck.flip(v1[_luck.roll_slot(a, b)]), mean, True)
        first, lucky = (d1, d2), False
    elif first is not None:
        lucky = False
    else:
        stop = _stop(board, True, yardstick, L, 0, truncate, bearoff2, tply)
        if stop is not None:
            return stop
    while True:
        if first is not None:
            d1, d2 = first
            first = None
        else:
            r = rolls.roll()
            d1, d2 = r // 6 + 1, r % 6 + 1
        if lucky:
            v = roll_values(board)
            _luck.add_luck(L, v[_luck.roll_slot(d1, d2)], _luck.roll_mean(v), mover_is_root)
        lucky = vr
        after = play_turn(board, d1, d2, policy, bitgen)
        if not after[0].any():
            won = outcome(after)
            c = won - 1 if mover_is_root else won + 2
            return c, _luck.adjusted_result(c, L)
        board = swap(after)
        mover_is_root = not mover_is_root
        half += 1
        if truncate > 0 or bearoff2:
            stop = _stop(board, mover_is_root, yardstick, L, half, truncate, bearoff2, tply)
            if stop is not None:
                return stop


def rollout_block_vr(board, games, bitgen, policy, yardstick, dice=None, opening=False,
                     prefilter=0, per_game=None, qrolls=None, vr=True, truncate=0,
                     bearoff2=False, stop=None, luck_ply=0, truncate_ply=0, move_filter=None):
    """:func:`rollout_block` with variance reduction (mirror of the core's).

    Parameters
    ----------
    board, games, bitgen, policy, dice, opening, stop
        As :func:`rollout_block`; the games and counts are the same.
    yardstick : fastbg.reference.evaluator.EvalPolicy
        Values every roll (:meth:`~fastbg.reference.evaluator.EvalPolicy.roll_values`).
    prefilter : int, default 0
        The yardstick's choice among the ``prefilter`` best plays by pubeval (0: all).
    per_game : numpy.ndarray of float64, shape (games, 6), optional
        Filled with each game's six adjusted values, in game order.
    qrolls : array_like of int, shape (games, 2), optional
        Quasi-random dice, as :func:`rollout_block`.
    vr, truncate, bearoff2
        Luck adjustment on or off; stop after ``truncate`` half-moves (0: never) and score
        by the yardstick; stop in the two-sided bear-off database and score exactly (the
        core's, which documents them).
    luck_ply, truncate_ply, move_filter
        The ply of the yardstick's luck (:meth:`~fastbg.reference.evaluator.EvalPolicy.
        roll_values_nply` through ``move_filter`` above 0) and of a truncated game's score
        (the core's, which documents them).

    Returns
    -------
    counts : numpy.ndarray of int64, shape (6,)
        Outcome classes of the games played to the end.
    sums : numpy.ndarray of float64, shape (2, 6)
        Sums over the games, in game order, of the luck-adjusted win, win_gammon,
        win_backgammon, lose_gammon, lose_backgammon and equity of row 0 (``sums[0]``) and
        of their squares (``sums[1]``); bit for bit the core's.

    Raises
    ------
    KeyboardInterrupt
        Passed on, with the counts of the finished games as ``partial_counts`` and their
        sums as ``partial_sums``.
    """
    b = validate_board(board)
    check_start(b)
    _check_games(games)
    if not hasattr(yardstick, "roll_values"):
        raise TypeError(f"the yardstick must be an EvalPolicy, got {type(yardstick).__name__}")
    _check_prefilter(prefilter)
    first = _first_roll(dice, opening)
    policy = as_policy(policy)
    _check_bitgen(bitgen)
    per_game = _check_out(per_game, (int(games), 6), np.float64, "per_game")
    q = _check_qrolls(qrolls, int(games), first == "opening")
    if isinstance(truncate, (bool, np.bool_)) or not isinstance(truncate, (int, np.integer)) \
            or truncate < 0:
        raise ValueError(f"truncate must be a non-negative int (half-moves; 0 = none), got {truncate!r}")
    stop = _check_stop(stop)
    lply, tply = check_ply(luck_ply), check_ply(truncate_ply)
    nply = None
    if lply > 0 or tply > 0:
        nply = (lply, tply, nply_move_filter(move_filter), {})
    counts = np.zeros(6, dtype=np.int64)
    s, ss = [0.0] * 6, [0.0] * 6
    try:
        for i in range(int(games)):
            if _stop_requested(stop):
                break
            c, adj = _play_vr(b, bitgen, policy, yardstick, first, int(prefilter),
                              None if q is None else q[i], bool(vr), int(truncate),
                              bool(bearoff2), nply)
            if c < 6:
                counts[c] += 1
            if per_game is not None:
                per_game[i] = adj
            for k in range(6):
                s[k] = s[k] + adj[k]
                ss[k] = ss[k] + adj[k] * adj[k]
    except KeyboardInterrupt as exc:
        exc.partial_counts = counts
        exc.partial_sums = np.array([s, ss])
        raise
    return counts, np.array([s, ss])


def roll_indices(bitgen, n) -> np.ndarray:
    """``n`` consecutive roll indices, as the game loop draws them.

    Parameters
    ----------
    bitgen : numpy.random.BitGenerator
    n : int
        Number of rolls, ``>= 0``.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Values in ``[0, 36)`` from :func:`fastbg.spec.dice.roll_index`.

    Raises
    ------
    ValueError
        If ``n`` is negative or not an integer.
    TypeError
        If ``bitgen`` is not a numpy bit generator.
    """
    _check_bitgen(bitgen)
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"n must be a non-negative int, got {n!r}")
    if n < 0:
        raise ValueError(f"n must be a non-negative int, got {n}")
    out = np.empty(int(n), dtype=np.int64)
    for i in range(int(n)):
        out[i] = roll_index(bitgen)
    return out


def match_game(board, dice_bitgen, choice_bitgen, policy_a, policy_b, opening=True) -> int:
    """One game between two policies; A plays row 0 (mirror of the core's).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
    dice_bitgen : numpy.random.BitGenerator
        The dice only (opening roll, then one roll per turn).
    choice_bitgen : numpy.random.BitGenerator
        The policies' own draws.
    policy_a, policy_b : policy objects with ``choose`` or names
    opening : bool

    Returns
    -------
    int
        Outcome class 0..5 from A's point of view.
    """
    pa, pb = as_policy(policy_a), as_policy(policy_b)
    cur = validate_board(board)
    check_start(cur)
    side = 0
    if opening:
        cur, root, d1, d2 = opening_turn(cur, dice_bitgen)
        side = 0 if root else 1
    else:
        r = roll_index(dice_bitgen)
        d1, d2 = r // 6 + 1, r % 6 + 1
    while True:
        pol = pa if side == 0 else pb
        after = play_turn(cur, d1, d2, pol, choice_bitgen)
        if not after[0].any():
            won = outcome(after)
            return won - 1 if side == 0 else won + 2
        cur = swap(after)
        side ^= 1
        r = roll_index(dice_bitgen)
        d1, d2 = r // 6 + 1, r % 6 + 1
