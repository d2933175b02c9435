# cython: language_level=3
"""The game loop and rollout blocks, mirroring :mod:`fastbg.reference.rollout`.

``rollout_block`` plays its games entirely inside ``with nogil:``: the move
generator, the policy (a cdef class method) and the dice (numpy's ``bitgen_t``)
are all C calls. No lock is taken on the bit generator: a block owns its own.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t

from fastbg._core._types cimport board_t, linear_eval_t, MAX_PLAYS
from fastbg._core.board cimport load_board, check_start_c, swap_into, row_sum, loser_class
from fastbg._core.dice cimport (roll_index, opening_roll, opening_dice, get_bitgen, next_roll,
                                next_opening)
from fastbg._core.movegen cimport movegen_t, movegen_new, movegen_free, generate
from fastbg._core.eval cimport Policy
from fastbg._core.policies cimport as_policy
from fastbg._core.turn cimport play_turn_c
from fastbg._core.evaluator cimport EvalPolicy, nply_set_t, nset_new, nset_free, yard_values
from fastbg._core.bearoffdb cimport ensure_db2, bearoff2_pair_c, bearoff2_win_c
from fastbg._core.luck cimport roll_slot, roll_mean, flip5, add_luck, adjusted_result
from fastbg._core.opening cimport opening_turn_nply_c

cnp.import_array()

from fastbg.spec.board import OUTCOME_CLASSES
from fastbg.spec.nply import check_ply


cdef int play_game_c(const board_t* start, bitgen_t* bg, Policy policy, movegen_t* g,
                     int d1, int d2, bint opening, const int* q) noexcept nogil:
    cdef board_t boards[2]
    cdef int cur = 0            # boards[cur] is the position with the mover in row 0
    cdef int side = 0           # 0 while the starting side is on roll
    cdef int a, b, r, n, c
    cdef const board_t* chosen
    cdef const linear_eval_t* ev
    cdef int qi = 0
    boards[0] = start[0]
    if d1 > 0:
        a = d1
        b = d2
    elif opening:
        if not next_opening(bg, q, &qi, &a, &b):
            swap_into(&boards[0], &boards[1])
            cur = 1
            side = 1
    else:
        r = next_roll(bg, q, &qi)
        a = r // 6 + 1
        b = r % 6 + 1
    while True:
        chosen = play_turn_c(policy, g, &boards[cur], a, b, bg)
        if chosen == NULL:
            return -1
        if row_sum(chosen.p[0]) == 0:
            c = loser_class(chosen.p[1])
            return c if side == 0 else 3 + c
        swap_into(chosen, &boards[cur ^ 1])
        cur ^= 1
        side ^= 1
        r = next_roll(bg, q, &qi)
        a = r // 6 + 1
        b = r % 6 + 1


cdef int _check_dice(object dice, int* d1, int* d2) except -1:
    d1[0] = 0
    d2[0] = 0
    if dice is None:
        return 0
    try:
        a, b = dice
    except (TypeError, ValueError):
        raise ValueError(f"dice must be None or a pair of ints in 1..6, got {dice!r}") from None
    for name, d in (("d1", a), ("d2", b)):
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise ValueError(f"die {name} must be an int in 1..6, got {d!r}")
        if not 1 <= d <= 6:
            raise ValueError(f"die {name} must be in 1..6, got {int(d)}")
    d1[0] = a
    d2[0] = b
    return 0


cdef int _check_games(object games) except -1:
    if isinstance(games, (bool, np.bool_)) or not isinstance(games, (int, np.integer)):
        raise ValueError(f"games must be a non-negative int, got {games!r}")
    if games < 0:
        raise ValueError(f"games must be a non-negative int, got {games}")
    return 0


def play_game(board, bitgen, policy, dice=None, opening=False):
    """Play one game and return its outcome class.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        The start, row 0 about to roll.
    bitgen : numpy.random.BitGenerator
        Source of every die and every random choice (for example
        ``numpy.random.PCG64DXSM(seed)``); advanced in place.
    policy : Policy or str
        From :func:`fastbg._core.eval.make_policy` (or its name).
    dice : (int, int), optional
        Fixed first roll of row 0.
    opening : bool
        Decide the first roll by the opening roll (DESIGN section 3.8); the side
        with the higher die plays both, which may be the opponent. Ignored when
        ``dice`` is given.

    Returns
    -------
    int
        0 win single, 1 win gammon, 2 win backgammon, 3 lose single, 4 lose
        gammon, 5 lose backgammon, from row 0's point of view.

    Raises
    ------
    ValueError
        If the board is invalid, the game is already over (a side has no checker
        left), nobody can ever move (both sides on the bar against closed boards),
        a die is not an int in 1..6, or the policy name is unknown.
    TypeError
        If ``bitgen`` is not a numpy bit generator or ``policy`` is not a policy
        of this engine.

    Notes
    -----
    **Reproducibility**: the same board, bit generator state, policy and options
    give the same result, draw for draw as :mod:`fastbg.reference.rollout`.
    """
    counts = rollout_block(board, 1, bitgen, policy, dice, opening)
    return int(np.flatnonzero(counts)[0])


cdef const int* check_qrolls(object qrolls, int64_t games, bint opening, object keep) except? NULL:
    # The (games, 2) int32 table of stratified rolls, checked; `keep` holds the array alive.
    if qrolls is None:
        return NULL
    arr = np.ascontiguousarray(qrolls, dtype=np.int32)
    if arr.ndim != 2 or arr.shape[0] != games or arr.shape[1] != 2:
        raise ValueError(f"qrolls must have shape ({games}, 2), got {arr.shape}")
    if arr.size and (arr.min() < -1 or arr.max() > 35):
        raise ValueError("qrolls must hold roll indices in 0..35 (or -1 for a drawn roll)")
    if opening and arr.size and ((arr[:, 0] >= 0) & (arr[:, 0] // 6 == arr[:, 0] % 6)).any():
        raise ValueError("with the opening roll, the first stratified roll cannot be a double")
    keep.append(arr)
    return <const int*>cnp.PyArray_DATA(arr)


cdef const unsigned char* check_stop(object stop, object keep) except? NULL:
    if stop is None:
        return NULL
    if not isinstance(stop, np.ndarray) or stop.dtype != np.uint8 or stop.shape != (1,):
        raise ValueError("stop must be a uint8 array of shape (1,)")
    keep.append(stop)
    return <const unsigned char*>cnp.PyArray_DATA(stop)


cdef void* out_array(object arr, tuple shape, object dtype, str name) except? NULL:
    if arr is None:
        return NULL
    if not isinstance(arr, np.ndarray) or arr.dtype != dtype or arr.shape != shape \
            or not arr.flags.c_contiguous or not arr.flags.writeable:
        raise ValueError(f"{name} must be a writeable contiguous {np.dtype(dtype).name} array "
                         f"of shape {shape}")
    return cnp.PyArray_DATA(arr)


cdef int check_prefilter(object prefilter) except -1:
    if isinstance(prefilter, (bool, np.bool_)) or not isinstance(prefilter, (int, np.integer)) \
            or not 0 <= prefilter <= 64:
        raise ValueError(f"prefilter must be an int in 0..64, got {prefilter!r}")
    return prefilter


def rollout_block(board, games, bitgen, policy, dice=None, opening=False, classes=None,
                  qrolls=None, stop=None):
    """Play ``games`` games one after another from one bit generator.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        The start of every game, row 0 about to roll.
    games : int
        Number of games, >= 0.
    bitgen : numpy.random.BitGenerator
        Advanced in place; no lock is taken (a block owns its generator).
    policy : Policy or str
    dice : (int, int), optional
        Fixed first roll of row 0 in every game.
    opening : bool
        Decide each game's first roll by the opening roll (ignored when ``dice``
        is given).
    classes : numpy.ndarray of int8, shape (games,), optional
        Filled with each game's outcome class, in game order (for paired statistics).
    qrolls : array_like of int, shape (games, 2), optional
        Quasi-random dice: per game, the roll indices of its first two random rolls (the
        opening roll's outcome ``6 (a - 1) + (b - 1)`` when ``opening``), -1 for a roll drawn
        from ``bitgen`` as usual; a given roll takes no draw.
    stop : numpy.ndarray of uint8, shape (1,), optional
        A flag read between games: once another thread sets it nonzero, the block stops
        after the game being played and returns the counts of the games played so far
        (fewer than ``games``: the caller that set it discards them). The one way to stop
        a block early, since no Python code runs inside it.

    Returns
    -------
    numpy.ndarray of int64, shape (6,)
        Counts of the outcome classes (see :func:`play_game`).

    Notes
    -----
    **Reproducibility**: the counts depend only on the arguments and the bit
    generator's state, and equal those of the pure-Python engine.
    """
    cdef board_t b
    load_board(board, &b)
    check_start_c(&b)
    _check_games(games)
    cdef int d1, d2
    _check_dice(dice, &d1, &d2)
    cdef bint op = bool(opening)
    cdef Policy pol = as_policy(policy)
    cdef bitgen_t* bg = get_bitgen(bitgen)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] counts_arr = np.zeros(6, dtype=np.int64)
    cdef int64_t* counts = <int64_t*>cnp.PyArray_DATA(counts_arr)
    cdef int64_t i, ng = games
    cdef int c = 0
    cdef signed char* cls = <signed char*>out_array(classes, (ng,), np.int8, "classes")
    keep = []
    cdef const int* q = check_qrolls(qrolls, ng, op, keep)
    cdef const unsigned char* stp = check_stop(stop, keep)
    cdef movegen_t* g = movegen_new()
    if g == NULL:
        raise MemoryError()
    try:
        with nogil:
            for i in range(ng):
                if stop_requested(stp):
                    break
                c = play_game_c(&b, bg, pol, g, d1, d2, op, NULL if q == NULL else q + 2 * i)
                if c < 0:
                    break
                counts[c] += 1
                if cls != NULL:
                    cls[i] = <signed char>c
    finally:
        movegen_free(g)
    if c < 0:
        raise RuntimeError(f"a roll had more than {MAX_PLAYS} legal plays")
    return counts_arr


# ---------------------------------------------------------------------------
# Variance reduction (luck adjustment, luck.pxd)


cdef inline int _stop_c(const board_t* pos, int side, EvalPolicy ys, const double* L,
                        int half, int trunc, bint exact2, double* adj, nply_set_t* ls,
                        int tply) noexcept nogil:
    # Whether the game stops before the roll of `pos` (mover in row 0; side 1 = not the
    # root): 7 in the two-sided bear-off database (scored exactly, cubeless, no gammons),
    # 6 after `trunc` half-moves (scored by the evaluator `ys` at `tply` ply: 0, its own
    # probabilities; more, nply_c in the workspace of `ls`), else -1; -2 on a move buffer
    # overflow. adj[0..6) gets the score in the root's view minus the luck L, as
    # luck.adjusted_result does an outcome.
    cdef double p[5]
    cdef double q[5]
    cdef int c = -1, k, pair
    if exact2:
        pair = bearoff2_pair_c(pos)
        if pair >= 0:
            p[0] = bearoff2_win_c(pair)
            for k in range(1, 5):
                p[k] = 0.0
            c = 7
    if c < 0 and trunc > 0 and half >= trunc:
        if tply > 0:
            if ys.nply_c(ls.ctx, pos, tply, p) < 0:
                return -2
        else:
            ys.probabilities_c(pos, p)
        c = 6
    if c < 0:
        return -1
    if side == 1:
        flip5(p, q)
    else:
        for k in range(5):
            q[k] = p[k]
    for k in range(5):
        adj[k] = q[k] - L[k]
    adj[5] = (2.0 * adj[0] - 1.0) + (adj[1] - adj[3]) + (adj[2] - adj[4])
    return c


cdef int play_game_vr_c(const board_t* start, bitgen_t* bg, Policy policy, EvalPolicy ys,
                        Policy pf, int k, movegen_t* g, int d1, int d2, bint opening,
                        const int* qr, double* adj, bint vr, int trunc,
                        bint exact2, nply_set_t* ls, int tply) noexcept nogil:
    # play_game_c's game, draw for draw (the yardstick draws nothing), with the luck of
    # every random roll summed by the yardstick `ys` when `vr`; adj[0..6) gets the
    # luck-adjusted result (luck.adjusted_result). With `trunc` > 0 the game stops after
    # that many half-moves, with `exact2` on reaching the two-sided bear-off database,
    # before the next roll is drawn (_stop_c). `ls` (or NULL): the n-ply set of the luck
    # (its ply; yard_values) and of the truncation's score at `tply` ply. Returns the
    # outcome class 0..5, 6 or 7 for a stopped game (_stop_c), -1 on overflow.
    cdef board_t boards[2]
    cdef int cur = 0, side = 0, a, b, r, c, half = 0
    cdef const board_t* chosen
    cdef double v[105]
    cdef double mean[5]
    cdef double q[5]
    cdef double L[5]
    cdef bint lucky = vr        # the roll about to be played was random (not fixed)
    cdef int qi = 0
    for c in range(5):
        L[c] = 0.0
    boards[0] = start[0]
    if d1 > 0:
        a = d1
        b = d2
        lucky = False
    elif opening:
        cur = opening_turn_nply_c(boards, bg, qr, &qi, &a, &b, vr, ys, ls, g, pf, k, q, mean)
        if cur < 0:
            return -1
        side = cur
        if vr:
            add_luck(L, q, mean, True)
        lucky = False           # counted
    else:
        c = _stop_c(&boards[0], 0, ys, L, 0, trunc, exact2, adj, ls, tply)
        if c >= 0 or c == -2:
            return c if c >= 0 else -1
        r = next_roll(bg, qr, &qi)
        a = r // 6 + 1
        b = r % 6 + 1
    while True:
        if lucky:
            if yard_values(ys, ls, g, &boards[cur], v, pf, k) < 0:
                return -1
            roll_mean(v, mean)
            add_luck(L, &v[5 * roll_slot(a, b)], mean, side == 0)
        lucky = vr
        chosen = play_turn_c(policy, g, &boards[cur], a, b, bg)
        if chosen == NULL:
            return -1
        if row_sum(chosen.p[0]) == 0:
            c = loser_class(chosen.p[1])
            c = c if side == 0 else 3 + c
            adjusted_result(c, L, adj)
            return c
        swap_into(chosen, &boards[cur ^ 1])
        cur ^= 1
        side ^= 1
        half += 1
        if trunc > 0 or exact2:
            c = _stop_c(&boards[cur], side, ys, L, half, trunc, exact2, adj, ls, tply)
            if c >= 0 or c == -2:
                return c if c >= 0 else -1
        r = next_roll(bg, qr, &qi)
        a = r // 6 + 1
        b = r % 6 + 1


def rollout_block_vr(board, games, bitgen, policy, yardstick, dice=None, opening=False,
                     prefilter=0, per_game=None, qrolls=None, vr=True, truncate=0,
                     bearoff2=False, stop=None, luck_ply=0, truncate_ply=0, move_filter=None):
    """:func:`rollout_block` with variance reduction: the same games, and the sums of their
    luck-adjusted results.

    Parameters
    ----------
    board, games, bitgen, policy, dice, opening, stop
        As :func:`rollout_block`; the games and their counts are exactly those of
        :func:`rollout_block` with the same arguments (the yardstick draws nothing).
    yardstick : EvalPolicy
        The evaluator that values every roll (:class:`fastbg._core.evaluator.EvalPolicy`,
        the ``nn`` at 0 ply, bear-off database in bear-offs), whatever ``policy`` plays.
    prefilter : int, default 0
        0: the yardstick values every play of a roll and takes the best. ``k >= 1``: only
        the ``k`` best plays by pubeval's score (ties canonical), a cheaper yardstick (the
        estimate stays unbiased for any yardstick).
    per_game : numpy.ndarray of float64, shape (games, 6), optional
        Filled with each game's six adjusted values, in game order (paired statistics).
    qrolls : array_like of int, shape (games, 2), optional
        Quasi-random dice, as :func:`rollout_block`.
    vr : bool, default True
        Adjust for luck. ``False``: the games' plain results (the yardstick then only scores
        truncated games), for truncation without variance reduction.
    truncate : int, default 0
        Stop each game after this many half-moves (plays, the first included) and score it
        by the yardstick's 0-ply probabilities of the position before the next roll; 0: play
        to the end.
    bearoff2 : bool, default False
        Stop a game when it reaches the two-sided bear-off database (both sides with 1..6
        checkers, all home) and score it exactly: the winning chance of the side on roll
        with each side maximising its own, no gammons (:func:`fastbg._core.bearoffdb.two_sided`).
    luck_ply : int, default 0
        The ply (0..3) at which the yardstick values the rolls for the luck: 0,
        ``roll_values`` (the best 0-ply play of each roll, with ``prefilter``); n >= 1, the
        best play by ``rank_nply`` at n ply through ``move_filter``, valued at n ply
        (``roll_values_nply``; ``prefilter`` is then unused). Any yardstick keeps the
        estimate unbiased; a deeper one removes more of the luck, at about 21 n-ply
        rankings a roll.
    truncate_ply : int, default 0
        The ply (0..3) at which a truncated game is scored (``nply_probabilities``).
    move_filter : fastbg.spec.nply.MoveFilter, str or sequence, optional
        The filter of the luck's n-ply rankings (default GNU Backgammon's Normal).

    Returns
    -------
    counts : numpy.ndarray of int64, shape (6,)
        The outcome-class counts of the games played to the end (``games - counts.sum()``
        were stopped by ``truncate`` or ``bearoff2``).
    sums : numpy.ndarray of float64, shape (2, 6)
        ``sums[0]``: the sums over the games, in game order, of the luck-adjusted win,
        win_gammon, win_backgammon, lose_gammon, lose_backgammon and cubeless equity of
        row 0; ``sums[1]``: the sums of their squares.

    Notes
    -----
    A game's adjusted result is its outcome minus the summed luck of its random rolls
    (the opening roll counts as one roll of 30 outcomes; a fixed first roll has no luck),
    each luck = the yardstick's value after the best play for the roll that came minus
    its mean over the rolls that could have come, in the root's view (:mod:`luck`).
    **Reproducibility**: bit for bit as :func:`fastbg.reference.rollout.rollout_block_vr`.
    """
    cdef board_t b
    load_board(board, &b)
    check_start_c(&b)
    _check_games(games)
    if not isinstance(yardstick, EvalPolicy):
        raise TypeError(f"the yardstick must be the core's EvalPolicy, got {type(yardstick).__name__}")
    cdef int d1, d2
    _check_dice(dice, &d1, &d2)
    cdef bint op = bool(opening)
    cdef Policy pol = as_policy(policy)
    cdef EvalPolicy ys = yardstick
    cdef int kpf = check_prefilter(prefilter)
    cdef Policy pf = as_policy("pubeval") if kpf > 0 else None
    if isinstance(truncate, (bool, np.bool_)) or not isinstance(truncate, (int, np.integer)) \
            or truncate < 0:
        raise ValueError(f"truncate must be a non-negative int (half-moves; 0 = none), got {truncate!r}")
    cdef int trunc = min(int(truncate), 1 << 30)
    cdef bint vr_ = bool(vr)
    cdef bint exact2 = bool(bearoff2)
    if exact2:
        ensure_db2()
    cdef int lply = check_ply(luck_ply)
    cdef int tply = check_ply(truncate_ply)
    cdef nply_set_t* ls = NULL
    cdef bitgen_t* bg = get_bitgen(bitgen)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] counts_arr = np.zeros(6, dtype=np.int64)
    cdef cnp.ndarray[cnp.float64_t, ndim=2] sums_arr = np.zeros((2, 6), dtype=np.float64)
    cdef int64_t* counts = <int64_t*>cnp.PyArray_DATA(counts_arr)
    cdef double* sums = <double*>cnp.PyArray_DATA(sums_arr)
    cdef double adj[6]
    cdef int64_t i, ng = games
    cdef int c = 0, k
    cdef double* pg = <double*>out_array(per_game, (ng, 6), np.float64, "per_game")
    keep = []
    cdef const int* q = check_qrolls(qrolls, ng, op, keep)
    cdef const unsigned char* stp = check_stop(stop, keep)
    if lply > 0 or tply > 0:
        ls = nset_new(lply, max(lply, tply), move_filter)
    cdef movegen_t* g = movegen_new()
    if g == NULL:
        nset_free(ls)
        raise MemoryError()
    try:
        with nogil:
            for i in range(ng):
                if stop_requested(stp):
                    break
                c = play_game_vr_c(&b, bg, pol, ys, pf, kpf, g, d1, d2, op,
                                   NULL if q == NULL else q + 2 * i, adj, vr_, trunc, exact2,
                                   ls, tply)
                if c < 0:
                    break
                if c < 6:
                    counts[c] += 1
                for k in range(6):
                    sums[k] = sums[k] + adj[k]
                    sums[6 + k] = sums[6 + k] + adj[k] * adj[k]
                if pg != NULL:
                    for k in range(6):
                        pg[6 * i + k] = adj[k]
    finally:
        movegen_free(g)
        nset_free(ls)
    if c < 0:
        raise RuntimeError(f"a roll had more than {MAX_PLAYS} legal plays")
    return counts_arr, sums_arr


def roll_indices(bitgen, n):
    """``n`` successive roll indices in ``[0, 36)`` (see the dice contract).

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
    """
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"n must be a non-negative int, got {n!r}")
    if n < 0:
        raise ValueError(f"n must be a non-negative int, got {n}")
    cdef bitgen_t* bg = get_bitgen(bitgen)
    cdef cnp.ndarray out = np.empty(n, dtype=np.int64)
    cdef int64_t* o = <int64_t*>cnp.PyArray_DATA(out)
    cdef int64_t i, m = n
    with nogil:
        for i in range(m):
            o[i] = roll_index(bg)
    return out


# ---------------------------------------------------------------------------
# Two-policy games


cdef int match_game_c(const board_t* start, bitgen_t* dice, bitgen_t* choice, Policy pa,
                      Policy pb, movegen_t* g, bint opening) noexcept nogil:
    cdef board_t cur, nxt
    cdef int a, b, r, n, c, side = 0
    cdef const board_t* chosen
    cur = start[0]
    if opening:
        if not opening_roll(dice, &a, &b):
            swap_into(start, &cur)
            side = 1
    else:
        r = roll_index(dice)
        a = r // 6 + 1
        b = r % 6 + 1
    while True:
        if side == 0:
            chosen = play_turn_c(pa, g, &cur, a, b, choice)
        else:
            chosen = play_turn_c(pb, g, &cur, a, b, choice)
        if chosen == NULL:
            return -1
        if row_sum(chosen.p[0]) == 0:
            c = loser_class(chosen.p[1])
            return c if side == 0 else 3 + c
        swap_into(chosen, &nxt)
        cur = nxt
        side ^= 1
        r = roll_index(dice)
        a = r // 6 + 1
        b = r % 6 + 1


def match_game(board, dice_bitgen, choice_bitgen, policy_a, policy_b, opening=True):
    """One game between two policies; A plays row 0 of ``board``.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
    dice_bitgen : numpy.random.BitGenerator
        Source of the dice only (the opening roll, then one roll per turn), so a
        second game from the same state with the policies exchanged sees the same
        dice (duplicate dice).
    choice_bitgen : numpy.random.BitGenerator
        Source of the policies' own draws (the random policy).
    policy_a, policy_b : Policy or str
    opening : bool
        Decide the first roll by the opening roll (default), else row 0 rolls.

    Returns
    -------
    int
        Outcome class 0..5 from A's point of view.

    Notes
    -----
    **Reproducibility**: draw for draw as :func:`fastbg.reference.rollout.match_game`.
    The loop calls ``choose`` for every decision with two or more plays (the
    pubeval shortcut of the rollout loop is not used; the choice is the same).
    """
    cdef board_t b
    load_board(board, &b)
    check_start_c(&b)
    cdef Policy pa = as_policy(policy_a)
    cdef Policy pb = as_policy(policy_b)
    cdef bitgen_t* dbg = get_bitgen(dice_bitgen)
    cdef bitgen_t* cbg = get_bitgen(choice_bitgen)
    cdef bint op = bool(opening)
    cdef int c
    cdef movegen_t* g = movegen_new()
    if g == NULL:
        raise MemoryError()
    try:
        with nogil:
            c = match_game_c(&b, dbg, cbg, pa, pb, g, op)
    finally:
        movegen_free(g)
    if c < 0:
        raise RuntimeError(f"a roll had more than {MAX_PLAYS} legal plays")
    return c
