# cython: language_level=3
"""Cubeful games (money and match play): the game loop with cube decisions, mirroring
:mod:`fastbg.reference.cubeful`.

Before each roll, the player on roll may double when the cube is centred or its own
and doubling stays within the cube limit. The position is then evaluated by the
cube evaluator's 0-ply network (:class:`fastbg._core.nn.NNPolicy`, the same forward
pass and consistency rules as its ``probabilities``), and Janowski's money values
No double / Double-take / Double-pass are computed with the formulas of
:mod:`fastbg.cube` (``_wl``, ``_live``, ``_equity``), ported below with the same
IEEE operations in the same order (the build has ``-ffp-contract=off``), so both
engines take the same decisions bit for bit. The action follows
:func:`fastbg.cube.cube_action`: the opponent takes iff ``dt < dp``; the player
doubles iff ``nd <= min(dt, dp)`` (ties go to the double).

Counts: ``counts[c, j]`` games of result class ``c`` (:data:`RESULT_CLASSES`, from
the starting side's view) with a final cube of ``2**j`` (for a pass, the cube
before the refused double, which is what the doubler wins).

The whole block runs in ``with nogil:``; the GIL is never taken inside it.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t

from fastbg._core._types cimport board_t, linear_eval_t, NCHECKERS, NSLOTS, MAX_PLAYS
from fastbg._core.board cimport (load_board, check_start_c, swap_into, row_sum, loser_class,
                                 is_race_c, pip_count_row)
from fastbg._core.dice cimport get_bitgen, next_roll
from fastbg._core.movegen cimport movegen_t, movegen_new, movegen_free, generate
from fastbg._core.turn cimport play_turn_c
from fastbg._core.eval cimport Policy, Evaluator
from fastbg._core.policies cimport as_policy
from fastbg._core.nn cimport NN_OUTPUTS
from fastbg._core.evaluator cimport EvalPolicy
from fastbg._core.luck cimport roll_slot, roll_mean
from fastbg._core.opening cimport opening_turn_c
from fastbg._core.rollout cimport check_qrolls, check_prefilter, check_stop, out_array, stop_requested
from numpy.random cimport bitgen_t

cnp.import_array()

from fastbg.spec.board import RESULT_CLASSES

cdef enum:
    N_CLASSES = 8
    MAX_LOG2 = 12       # cube values 1 .. 2**12
    N_CUBES = 13
    OWN_CENTRED = 0     # owner codes of the Janowski formulas (view of the player on roll)
    OWN_PLAYER = 1
    OWN_OPPONENT = 2

N_CUBE_VALUES = N_CUBES
MAX_CUBE_LOG2 = MAX_LOG2


# ---------------------------------------------------------------------------------------
# Cube efficiency and Janowski's money formulas (fastbg.cube)
# ---------------------------------------------------------------------------------------

cdef bint last_roll_c(const board_t* b) noexcept nogil:
    """fastbg.cube.is_last_roll: a race in which the opponent (row 1) bears off all its
    checkers with every roll. Exact rule: one checker left on its point 1, 2 or 3 (a 2-1
    moves it 3 pips), or two left, on its points (1, 1) or (1, 2) (a 2-1 must bear off one
    with each die)."""
    cdef const unsigned char* o = b.p[1]
    cdef int n = row_sum(o)
    if n == 0 or n > 2 or not is_race_c(b) or row_sum(b.p[0]) == 0:
        return False
    if n == 1:
        return o[0] + o[1] + o[2] == 1
    return o[0] == 2 or (o[0] == 1 and o[1] == 1)


cdef int finishing_rolls_c(const board_t* b) noexcept nogil:
    """Of the 36 rolls, how many bear off all of row 0's checkers at once, in a race.

    With two different dice each checker takes one die, so at most two checkers, the
    higher needing at most the larger die (one checker: the sum); with a double d, the
    checkers, moved highest first, need ceil(p / d) moves each, four in all. No point is
    ever blocked in a race.
    """
    cdef const unsigned char* me = b.p[0]
    cdef int pts[4]
    cdef int n = 0, i, k, a, c, moves, count = 0
    for i in range(NSLOTS - 1, -1, -1):
        for k in range(me[i]):
            if n == 4:
                return 0
            pts[n] = i + 1
            n += 1
    if n == 0:
        return 36
    for a in range(1, 7):
        for c in range(1, 7):
            if a == c:
                moves = 0
                for k in range(n):
                    moves += (pts[k] + a - 1) // a
                count += moves <= 4
            elif n == 1:
                count += pts[0] <= a + c
            elif n == 2:
                count += pts[0] <= (a if a > c else c) and pts[1] <= (c if a > c else a)
    return count


cdef void last_roll_probabilities_c(const board_t* b, double* p) noexcept nogil:
    """Exact probabilities on the last roll (see last_roll_c): the player wins now or
    never; the opponent, with at least 13 checkers off, can lose no gammon."""
    cdef double lose
    cdef int i
    p[0] = finishing_rolls_c(b) / 36.0
    p[1] = 0.0
    p[2] = 0.0
    lose = 1.0 - p[0]
    p[3] = lose if row_sum(b.p[0]) == NCHECKERS else 0.0
    p[4] = 0.0
    if p[3] > 0.0:
        for i in range(18, NSLOTS):
            if b.p[0][i]:
                p[4] = p[3]
                break


cdef void probabilities_c(Evaluator ev, const board_t* b, double* p) noexcept nogil:
    """The five probabilities of b (row 0 on roll, before its roll): the evaluator's
    (bear-off database or network), but exact on the last roll, where they are cheap and
    where a network, which rarely sees such positions, can be far off."""
    if last_roll_c(b):
        last_roll_probabilities_c(b, p)
        return
    ev.probabilities_c(b, p)


cdef double default_x_c(const board_t* b) noexcept nogil:
    """fastbg.cube.default_cube_efficiency, same operations."""
    cdef int i, s
    cdef double t
    if not is_race_c(b):
        return 0.68
    if last_roll_c(b):
        return 0.0
    s = 0
    for i in range(6, NSLOTS):
        s += b.p[0][i] + b.p[1][i]
    if s == 0:
        return 0.6
    t = (<double>(pip_count_row(b.p[0]) - 40)) / 80.0
    if t < 0.0:
        t = 0.0
    if t > 1.0:
        t = 1.0
    return 0.6 + t * (0.7 - 0.6)


cdef double equity_c(const double* q, double x, int owner, bint jacoby) noexcept nogil:
    """fastbg.cube._equity on floats: x E_live + (1 - x) E_dead, same operations."""
    cdef double w = q[0], wg = q[1], wbg = q[2], lg = q[3], lbg = q[4]
    cdef double won, lost, W, L, s, tp, cp, live, dead, p
    if jacoby and owner == OWN_CENTRED:
        wg = 0.0
        wbg = 0.0
        lg = 0.0
        lbg = 0.0
    won = w + wg + wbg
    lost = (1.0 - w) + lg + lbg
    W = won / w if w > 0.0 else 1.0
    L = lost / (1.0 - w) if w < 1.0 else 1.0
    p = w
    # _live
    s = W + L + 0.5
    tp = (L - 0.5) / s
    cp = (L + 1.0) / s
    if owner != OWN_OPPONENT and p > cp:
        live = 1.0 + (W - 1.0) * (p - cp) / (1.0 - cp)
    elif owner != OWN_PLAYER and p < tp:
        live = -L + (L - 1.0) * p / tp
    elif owner == OWN_PLAYER:
        live = p * s - L
    elif owner == OWN_OPPONENT:
        live = p * s - L - 0.5
    else:
        live = -1.0 + 2.0 * (p - tp) / (cp - tp)
    dead = p * W - (1.0 - p) * L
    return x * live + (1.0 - x) * dead


cdef int cube_decision_c(const double* q, double x, bint owned, bint jacoby) noexcept nogil:
    """0 no double (or too good), 1 double/take, 2 double/pass; fastbg.cube.cube_action
    of money_cube_decision's (nd, dt, dp)."""
    cdef double nd = equity_c(q, x, OWN_PLAYER if owned else OWN_CENTRED, jacoby)
    cdef double dt = 2.0 * equity_c(q, x, OWN_OPPONENT, False)
    cdef double dp = 1.0
    cdef bint takes = dt < dp
    cdef double d = dt if takes else dp
    if nd > d:
        return 0
    return 1 if takes else 2


# ---------------------------------------------------------------------------------------
# Match play: Janowski's model in match winning chances (fastbg.cube.match), scalar port.
# R[j][k]: the player's MWC after result k (win single/gammon/backgammon, lose
# single/gammon/backgammon) at a cube of 2**j, from fastbg.cube.met.MatchEquityTable.result_mwc.
# Same operations as fastbg.reference.cubeful (bitwise); fastbg.cube.match to rounding.
# ---------------------------------------------------------------------------------------

cdef enum:
    M_LEVELS = 16       # cube levels 2**0 .. 2**15 of the MWC tables


cdef inline double _mean3(const double* v, double g, double bg) noexcept nogil:
    return (1.0 - g) * v[0] + (g - bg) * v[1] + bg * v[2]


cdef double m_take_point(const double* R, int a_p, int a_o, int j, bint taker_is_p,
                         double pg, double pbg, double og, double obg, bint live) noexcept nogil:
    """MatchEquityTable._take_point (player p = the side whose R this is)."""
    cdef const double* r1 = R + 6 * j
    cdef const double* r2 = R + 6 * (j + 1)
    cdef int a_taker = a_p if taker_is_p else a_o
    cdef long cube2 = (<long>2) << j
    cdef bint recube_live = live and a_taker > cube2
    cdef double pass_, lose, win, tp
    if taker_is_p:
        pass_ = r1[3]
        lose = _mean3(r2 + 3, og, obg)
        win = _mean3(r2, 0.0, 0.0) if recube_live else _mean3(r2, pg, pbg)
    else:
        pass_ = 1.0 - r1[0]
        lose = 1.0 - _mean3(r2, pg, pbg)
        win = 1.0 - (_mean3(r2 + 3, 0.0, 0.0) if recube_live else _mean3(r2 + 3, og, obg))
    if win - lose <= 1e-9:
        tp = 0.0 if pass_ <= lose else 1.0
    else:
        tp = (pass_ - lose) / (win - lose)
        if 0.0 > tp:
            tp = 0.0
        if 1.0 < tp:
            tp = 1.0
    if recube_live and j + 2 < M_LEVELS:
        tp *= 1.0 - m_take_point(R, a_p, a_o, j + 1, not taker_is_p, pg, pbg, og, obg, live)
    return tp


cdef double m_interp(double w, const double* xs, const double* ys, int n) noexcept nogil:
    """numpy.interp for increasing xs (duplicates allowed)."""
    cdef int j
    if w <= xs[0]:
        return ys[0]
    if w >= xs[n - 1]:
        return ys[n - 1]
    j = n - 2
    while xs[j] > w:
        j -= 1
    return (ys[j + 1] - ys[j]) / (xs[j + 1] - xs[j]) * (w - xs[j]) + ys[j]


cdef double m_live(const double* R, const double* q, int a, int b, int j,
                   int owner) noexcept nogil:
    """fastbg.cube.match._live (not the Crawford game)."""
    cdef const double* r = R + 6 * j
    cdef double w = q[0], wg = q[1], wbg = q[2], lg = q[3], lbg = q[4]
    cdef double lose = 1.0 - w, W, L, m, wo, lo
    cdef double xs[4]
    cdef double ys[4]
    cdef double xs2[2]
    cdef double ys2[2]
    cdef int n = 1
    cdef long c = (<long>1) << j
    cdef double pg, pbg, og, obg
    W = ((w - wg) * r[0] + (wg - wbg) * r[1] + wbg * r[2]) / w if w > 0.0 else r[0]
    L = ((lose - lg) * r[3] + (lg - lbg) * r[4] + lbg * r[5]) / lose if lose > 0.0 else r[3]
    xs[0] = 0.0
    ys[0] = L
    if owner != OWN_PLAYER and b > c:
        # take_point(a, b, c, live, probs=swap(q)): shares from the opponent's view
        wo = 1.0 - w
        lo = 1.0 - wo
        og = lg / wo if wo > 0.0 else 0.0
        obg = lbg / wo if wo > 0.0 else 0.0
        pg = wg / lo if lo > 0.0 else 0.0
        pbg = wbg / lo if lo > 0.0 else 0.0
        xs[n] = m_take_point(R, a, b, j, True, pg, pbg, og, obg, True)
        ys[n] = r[3]
        n += 1
    if owner != OWN_OPPONENT and a > c:
        # cash_point(a, b, c, live, probs=q)
        pg = wg / w if w > 0.0 else 0.0
        pbg = wbg / w if w > 0.0 else 0.0
        og = lg / lose if lose > 0.0 else 0.0
        obg = lbg / lose if lose > 0.0 else 0.0
        xs[n] = 1.0 - m_take_point(R, a, b, j, False, pg, pbg, og, obg, True)
        ys[n] = r[0]
        n += 1
    xs[n] = 1.0
    ys[n] = W
    n += 1
    if n == 4 and xs[1] > xs[2]:
        m = 0.5 * (xs[1] + xs[2])
        if w < m:
            xs2[0] = 0.0
            xs2[1] = m
            ys2[0] = L
            ys2[1] = r[3]
        else:
            xs2[0] = m
            xs2[1] = 1.0
            ys2[0] = r[0]
            ys2[1] = W
        return m_interp(w, xs2, ys2, 2)
    return m_interp(w, xs, ys, n)


cdef double m_cubeful(const double* R, const double* q, int a, int b, int j, int owner,
                      double x) noexcept nogil:
    """fastbg.cube.match._cubeful: x live + (1 - x) dead, dead summed in outcome order."""
    cdef const double* r = R + 6 * j
    cdef double w = q[0], lose = 1.0 - q[0]
    cdef double dead = (w - q[1]) * r[0]
    dead = dead + (q[1] - q[2]) * r[1]
    dead = dead + q[2] * r[2]
    dead = dead + (lose - q[3]) * r[3]
    dead = dead + (q[3] - q[4]) * r[4]
    dead = dead + q[4] * r[5]
    if x == 0.0:
        return dead
    return x * m_live(R, q, a, b, j, owner) + (1.0 - x) * dead


cdef int m_decision_c(const double* R, const double* q, int a, int b, int j, bint owned,
                      double x, double* out) noexcept nogil:
    """Match cube decision of the player on roll (who may double: a > 2**j): 0 no double,
    1 double/take, 2 double/pass; out = (nd, dt, dp) in MWC."""
    cdef double nd = m_cubeful(R, q, a, b, j, OWN_PLAYER if owned else OWN_CENTRED, x)
    cdef double dt = m_cubeful(R, q, a, b, j + 1, OWN_OPPONENT, x)
    cdef double dp = R[6 * j]
    cdef bint takes = dt < dp
    cdef double d = dt if takes else dp
    out[0] = nd
    out[1] = dt
    out[2] = dp
    if nd > d:
        return 0
    return 1 if takes else 2


# ---------------------------------------------------------------------------------------
# Variance reduction: the luck of a roll as a cubeful value
# ---------------------------------------------------------------------------------------

cdef inline void luck_weights(double* w, int lc, int lc0, int owner, bint jacoby,
                              const double* mR) noexcept nogil:
    """w[0..5): the starting side's dead-cube value of a game at the cube 2**lc, as a
    linear function of its five probabilities (win, wg, wbg, lg, lbg): money, the points
    per unit of the starting cube (2 w - 1 + wg - lg + wbg - lbg, times 2**(lc - lc0);
    gammons count single with a centred cube under the Jacoby rule); match, its MWC from
    its result table at 2**lc (MWC = r3 + sum w[k] p[k]). Known before the roll, so a
    luck weighted by it keeps mean zero."""
    cdef const double* r
    cdef double sc
    if mR != NULL:
        r = mR + 6 * lc
        w[0] = r[0] - r[3]
        w[1] = r[1] - r[0]
        w[2] = r[2] - r[1]
        w[3] = r[4] - r[3]
        w[4] = r[5] - r[4]
        return
    sc = (<double>((<long>1) << lc)) / (<double>((<long>1) << lc0))
    w[0] = 2.0 * sc
    if jacoby and owner == -1:
        w[1] = 0.0
        w[2] = 0.0
        w[3] = 0.0
        w[4] = 0.0
    else:
        w[1] = sc
        w[2] = sc
        w[3] = -sc
        w[4] = -sc


cdef inline double luck_dot(const double* w, const double* actual, const double* mean,
                            bint root) noexcept nogil:
    """The weighted luck sum w . (actual - mean), the difference (mover's view) turned to
    the starting side's view when the mover is not it; summed in index order."""
    cdef double d[5]
    cdef double e[5]
    cdef double t
    cdef int k
    for k in range(5):
        d[k] = actual[k] - mean[k]
    if root:
        for k in range(5):
            e[k] = d[k]
    else:
        e[0] = -d[0]
        e[1] = d[3]
        e[2] = d[4]
        e[3] = d[1]
        e[4] = d[2]
    t = w[0] * e[0]
    for k in range(1, 5):
        t = t + w[k] * e[k]
    return t


# ---------------------------------------------------------------------------------------
# The game loop
# ---------------------------------------------------------------------------------------

cdef int play_cubeful_c(const board_t* start, bitgen_t* bg, Policy policy, Evaluator cube_ev,
                        movegen_t* g, int lc0, int owner0, int max_log2, double xfix,
                        bint jacoby, bint opening, int* lc_out,
                        const double* mR, int ma, int mb, int hwait,
                        bint root, EvalPolicy ys, Policy pf, int kpf,
                        double* luck, const int* qr) noexcept nogil:
    """One cubeful game; returns the result class 0..7 (starting side's view) and sets
    lc_out to log2 of the final cube (of the refused cube's value before doubling for a
    pass), or -1 if a roll had more than MAX_PLAYS plays. owner0: -1 centred, 0 the
    starting side (row 0), 1 the other. xfix < 0: default cube efficiency per position.
    Match play when mR != NULL: mR[s] (M_LEVELS x 6) the MWC tables of side s, ma/mb the
    points the starting side / the other need (no call in the Crawford game: the caller
    sets max_log2 = lc0). hwait: the Holland rule, no double before this many plays of the
    game (the opening's included) have been made; 0 = no such rule. root: take the cube
    decision before the first roll too (False: the player on roll rolls first, the No
    double line of a cube rollout). ys: variance reduction when not None: luck[0] gets
    the game's summed luck, each random roll's yardstick value (roll_values, prefilter
    pf/kpf) minus its mean over the rolls, weighted by luck_weights at the cube of that
    roll; the opening roll counts as one roll of 30 outcomes. qr: quasi-random dice, the
    game's first two random rolls (dice.next_roll, next_opening), or NULL."""
    cdef board_t boards[2]
    cdef int cur = 0, side = 0, a, b, r, n, c, act
    cdef int lc = lc0, owner = owner0
    cdef double p[NN_OUTPUTS]
    cdef double x
    cdef double mout[3]
    cdef int aw, bw
    cdef const board_t* chosen
    cdef const linear_eval_t* ev
    cdef bint first_opening = opening
    cdef int plays = 0
    cdef bint decide = root
    cdef bint vr = ys is not None
    cdef double v[105]
    cdef double mean[5]
    cdef double q[5]
    cdef double w[5]
    cdef double L = 0.0
    cdef int qi = 0
    boards[0] = start[0]
    while True:
        if first_opening:
            first_opening = False
            cur = opening_turn_c(boards, bg, qr, &qi, &a, &b, vr, ys, g, pf, kpf, q, mean)
            if cur < 0:
                return -1
            side = cur
            if vr:
                luck_weights(w, lc, lc0, owner, jacoby, mR)
                L = L + luck_dot(w, q, mean, True)
                luck[0] = L
        else:
            aw = ma if side == 0 else mb
            bw = mb if side == 0 else ma
            if lc < max_log2 and (owner == -1 or owner == side) and (
                    mR == NULL or aw > (1 << lc)) and plays >= hwait and decide:
                probabilities_c(cube_ev, &boards[cur], p)
                x = xfix if xfix >= 0.0 else default_x_c(&boards[cur])
                if mR == NULL:
                    act = cube_decision_c(p, x, owner == side, jacoby)
                else:
                    act = m_decision_c(mR + side * M_LEVELS * 6, p, aw, bw, lc, owner == side,
                                       x, mout)
                if act == 2:
                    lc_out[0] = lc
                    return 6 if side == 0 else 7
                if act == 1:
                    lc += 1
                    owner = side ^ 1
            r = next_roll(bg, qr, &qi)
            a = r // 6 + 1
            b = r % 6 + 1
            if vr:
                if ys.roll_values(g, &boards[cur], v, pf, kpf) < 0:
                    return -1
                roll_mean(v, mean)
                luck_weights(w, lc, lc0, owner, jacoby, mR)
                L = L + luck_dot(w, &v[5 * roll_slot(a, b)], mean, side == 0)
                luck[0] = L
        decide = True
        chosen = play_turn_c(policy, g, &boards[cur], a, b, bg)
        if chosen == NULL:
            return -1
        if row_sum(chosen.p[0]) == 0:
            c = loser_class(chosen.p[1])
            lc_out[0] = lc
            return c if side == 0 else 3 + c
        plays += 1
        swap_into(chosen, &boards[cur ^ 1])
        cur ^= 1
        side ^= 1


def _check_cube_args(cube, owner, max_cube, x):
    for name, v in (("cube", cube), ("max_cube", max_cube)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) \
                or v < 1 or v & (v - 1) or v > (1 << MAX_LOG2):
            raise ValueError(f"{name} must be a power of two in 1..{(1 << MAX_LOG2)}, got {v!r}")
    if cube > max_cube:
        raise ValueError(f"cube {cube} is above max_cube {max_cube}")
    if owner not in ("centred", "player", "opponent"):
        raise ValueError(f"unknown cube owner {owner!r}")
    if x is not None:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)) \
                or not 0.0 <= float(x) <= 1.0:
            raise ValueError(f"cube efficiency x must be a number in [0, 1] or None, got {x!r}")
    return int(cube).bit_length() - 1, {"centred": -1, "player": 0, "opponent": 1}[owner], \
        int(max_cube).bit_length() - 1, (-1.0 if x is None else float(x))


def cubeful_block(board, games, bitgen, policy, evaluator, *, cube=1, cube_owner="centred",
                  max_cube=(1 << MAX_LOG2), x=None, jacoby=False, opening=False,
                  match=None, holland_wait=0, root_decision=True, yardstick=None,
                  prefilter=0, cells=None, luck=None, qrolls=None, stop=None):
    """Play ``games`` cubeful money games one after another from one bit generator.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        The start of every game, row 0 about to roll (and to decide on the cube).
    games : int
        Number of games, >= 0.
    bitgen : numpy.random.BitGenerator
        Advanced in place (dice, and the checker policy's own draws).
    policy : Policy or str
        Checker play (:func:`fastbg._core.eval.make_policy` or its name).
    evaluator : fastbg._core.eval.Evaluator
        The network whose 0-ply probabilities drive the cube decisions.
    cube : int
        Starting cube value, a power of two <= ``max_cube``.
    cube_owner : {"centred", "player", "opponent"}
        Starting owner, from row 0's view.
    max_cube : int
        Cube limit, a power of two <= 4096: no double beyond it.
    x : float, optional
        Fixed cube efficiency in [0, 1]; default the per-position rule of
        :func:`fastbg.cube.default_cube_efficiency`.
    jacoby : bool
        Jacoby rule (affects No double values while the cube is centred; the scoring is
        done from the counts).
    opening : bool
        Start each game with the opening roll (no cube decision before it).
    match : tuple, optional
        Match play: ``(tables, away, away_opponent)`` with ``tables`` float64 of shape
        (2, 16, 6), ``tables[s, j]`` = ``MatchEquityTable.result_mwc`` of side ``s`` (0 the
        starting side, with ``away``; 1 the other) at a cube of ``2**j``. For the Crawford
        game pass ``max_cube=cube``. ``jacoby`` must be False.
    holland_wait : int, default 0
        The Holland rule (post-Crawford games): no cube is offered before this many plays
        (rolls of either side, the opening roll's included) of the game have been made,
        0..4; 0: no such rule (and for a game already past two rolls each).
    root_decision : bool, default True
        Take the cube decision before the first roll. False: the player on roll rolls
        without doubling first (the No double line of a cube rollout).
    yardstick : fastbg._core.evaluator.EvalPolicy, optional
        Variance reduction: the luck of every random roll is valued by this evaluator
        (``roll_values``, the best 0-ply play of each roll) as the starting side's
        dead-cube value at the cube of that roll (money: points per unit of the starting
        cube; match: MWC) and summed per game into ``luck``. The yardstick draws nothing:
        the games are those without it.
    prefilter : int, default 0
        With ``yardstick``: its best play of a roll among pubeval's ``prefilter`` best
        (0: among all), as :func:`fastbg._core.rollout.rollout_block_vr`.
    cells : numpy.ndarray of int64, shape (games,), optional
        Filled with each game's cell ``c * 13 + j`` of ``counts``, in game order.
    luck : numpy.ndarray of float64, shape (games,), optional
        Filled with each game's summed luck (required with ``yardstick``); its
        luck-adjusted value is its cell's value minus it.
    qrolls : array_like of int, shape (games, 2), optional
        Quasi-random dice: each game's first two random rolls (roll indices; the opening
        roll's outcome with ``opening``; -1 = drawn), as
        :func:`fastbg._core.rollout.rollout_block`.
    stop : numpy.ndarray of uint8, shape (1,), optional
        Stop between games once another thread sets it nonzero, returning the counts of
        the games played so far, as :func:`fastbg._core.rollout.rollout_block`.

    Returns
    -------
    numpy.ndarray of int64, shape (8, 13)
        ``counts[c, j]``: games of result class ``c`` (:data:`RESULT_CLASSES`, row 0's
        view) ending with a cube of ``2**j``.

    Notes
    -----
    **Reproducibility**: the counts depend only on the arguments and the bit
    generator's state, and equal those of :func:`fastbg.reference.cubeful.cubeful_block`.
    """
    cdef board_t b
    load_board(board, &b)
    check_start_c(&b)
    if isinstance(games, (bool, np.bool_)) or not isinstance(games, (int, np.integer)) or games < 0:
        raise ValueError(f"games must be a non-negative int, got {games!r}")
    lc0_, own_, ml_, x_ = _check_cube_args(cube, cube_owner, max_cube, x)
    if not isinstance(evaluator, Evaluator):
        raise TypeError(f"evaluator must be a fastbg._core.eval.Evaluator (NNPolicy or "
                        f"EvalPolicy), got {type(evaluator).__name__}")
    cdef Evaluator ev = <Evaluator>evaluator
    cdef int lc0 = lc0_, own = own_, ml = ml_
    cdef double xfix = x_
    cdef bint jac = bool(jacoby), op = bool(opening)
    cdef Policy pol = as_policy(policy)
    cdef bitgen_t* bg = get_bitgen(bitgen)
    cdef cnp.ndarray[cnp.int64_t, ndim=2] counts_arr = np.zeros((N_CLASSES, N_CUBES), dtype=np.int64)
    cdef int64_t* counts = <int64_t*>cnp.PyArray_DATA(counts_arr)
    cdef int64_t i, ng = games
    cdef int c = 0, lc = 0
    cdef const double* mR = NULL
    cdef int ma = 0, mb = 0
    cdef cnp.ndarray tables
    if match is not None:
        t_, a_, b_ = match
        tables = np.ascontiguousarray(t_, dtype=np.float64)
        if tables.shape[0] != 2 or tables.shape[1] != M_LEVELS or tables.shape[2] != 6:
            raise ValueError(f"match tables must have shape (2, {M_LEVELS}, 6)")
        ma = int(a_)
        mb = int(b_)
        if ma < 1 or mb < 1:
            raise ValueError("away scores must be >= 1")
        if jac:
            raise ValueError("the Jacoby rule is for money play only")
        mR = <const double*>cnp.PyArray_DATA(tables)
    if isinstance(holland_wait, (bool, np.bool_)) or not isinstance(holland_wait, (int, np.integer)) \
            or not 0 <= holland_wait <= 4:
        raise ValueError(f"holland_wait must be an int in 0..4, got {holland_wait!r}")
    cdef int hw = holland_wait
    cdef bint rootd = bool(root_decision)
    cdef EvalPolicy ys = None
    cdef Policy pf = None
    cdef int kpf = 0
    if yardstick is not None:
        if not isinstance(yardstick, EvalPolicy):
            raise TypeError(f"the yardstick must be the core's EvalPolicy, got "
                            f"{type(yardstick).__name__}")
        ys = <EvalPolicy>yardstick
        if luck is None:
            raise ValueError("variance reduction needs a luck array for its per-game luck")
    kpf = check_prefilter(prefilter)
    if kpf > 0:
        pf = as_policy("pubeval")
    cdef int64_t* cl = <int64_t*>out_array(cells, (ng,), np.int64, "cells")
    cdef double* lk = <double*>out_array(luck, (ng,), np.float64, "luck")
    keep = []
    cdef const int* q = check_qrolls(qrolls, ng, op, keep)
    cdef const unsigned char* stp = check_stop(stop, keep)
    cdef double dummy = 0.0
    cdef double* lslot = &dummy
    cdef movegen_t* g = movegen_new()
    if g == NULL:
        raise MemoryError()
    try:
        with nogil:
            for i in range(ng):
                if stop_requested(stp):
                    break
                if lk != NULL:
                    lslot = lk + i
                lslot[0] = 0.0
                c = play_cubeful_c(&b, bg, pol, ev, g, lc0, own, ml, xfix, jac, op, &lc,
                                   mR, ma, mb, hw, rootd, ys, pf, kpf, lslot,
                                   NULL if q == NULL else q + 2 * i)
                if c < 0:
                    break
                counts[c * N_CUBES + lc] += 1
                if cl != NULL:
                    cl[i] = c * N_CUBES + lc
    finally:
        movegen_free(g)
    if c < 0:
        raise RuntimeError(f"a roll had more than {MAX_PLAYS} legal plays")
    return counts_arr


def default_x(board):
    """The loop's cube efficiency of a position (row 0 on roll): equals
    :func:`fastbg.cube.default_cube_efficiency`."""
    cdef board_t b
    load_board(board, &b)
    return default_x_c(&b)


def is_last_roll(board):
    """The loop's last-roll rule: equals :func:`fastbg.cube.is_last_roll`."""
    cdef board_t b
    load_board(board, &b)
    return bool(last_roll_c(&b))


def cube_decision(probabilities, x, owned=False, jacoby=False):
    """The loop's money cube decision from five probabilities.

    Returns
    -------
    (int, float, float)
        Action (0 no double or too good, 1 double/take, 2 double/pass), ``nd`` and ``dt``
        per unit of the cube before the double.
    """
    cdef double q[5]
    arr = np.ascontiguousarray(probabilities, dtype=np.float64)
    if arr.shape != (5,):
        raise ValueError(f"probabilities must have shape (5,), got {arr.shape}")
    for i in range(5):
        q[i] = arr[i]
    cdef double xx = float(x)
    cdef bint o = bool(owned), j = bool(jacoby)
    return (cube_decision_c(q, xx, o, j),
            equity_c(q, xx, OWN_PLAYER if o else OWN_CENTRED, j),
            2.0 * equity_c(q, xx, OWN_OPPONENT, False))


def probabilities(evaluator, board):
    """The loop's evaluation of a position: ``evaluator.probabilities(board)``, except on
    the last roll, where it is exact (see :func:`fastbg.reference.cubeful.probabilities`)."""
    cdef board_t b
    load_board(board, &b)
    if not isinstance(evaluator, Evaluator):
        raise TypeError("evaluator must be a fastbg._core.eval.Evaluator (NNPolicy or EvalPolicy)")
    cdef Evaluator ev = <Evaluator>evaluator
    out = np.empty(5, dtype=np.float64)
    cdef double p[5]
    probabilities_c(ev, &b, p)
    for i in range(5):
        out[i] = p[i]
    return out


def match_decision(tables, probabilities, away, away_opponent, cube=1, owned=False, x=0.68):
    """The loop's match cube decision: ``(action, nd, dt, dp)`` in MWC; ``tables`` of
    shape (16, 6) are the player's ``result_mwc`` at cubes ``2**j``."""
    cdef double q[5]
    cdef double out[3]
    t = np.ascontiguousarray(tables, dtype=np.float64)
    if t.shape != (M_LEVELS, 6):
        raise ValueError(f"tables must have shape ({M_LEVELS}, 6)")
    arr = np.ascontiguousarray(probabilities, dtype=np.float64)
    for i in range(5):
        q[i] = arr[i]
    cdef cnp.ndarray tt = t
    cdef int j = int(cube).bit_length() - 1
    act = m_decision_c(<const double*>cnp.PyArray_DATA(tt), q, int(away), int(away_opponent),
                       j, bool(owned), float(x), out)
    return act, out[0], out[1], out[2]
