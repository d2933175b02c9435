# cython: language_level=3
"""Small-race one-sided database (see racedb.pxd), mirroring :mod:`fastbg.reference.racedb`.

The whole table is built in one dynamic program over the positions in increasing pip
order (every play lowers the pip count), with the one-sided bear-off database's roll
order, weights, tie rule and distribution code (``bearoffdb.rolls_c``,
``bearoffdb.fill_dist_c``), so the numbers are bitwise those of the reference.

Plays come from a small generator of a lone side's plays on its 24 counts: for two
different dice, every checker for the first die then every checker for the second, in
both orders; for a double, depth first over four moves with non-increasing source points
(every multiset of moves once: a legal race sequence sorted that way stays legal, as in
the bear-off database's generator). The dice rules are the engine's (most dice played,
the larger die when only one of two can be); the tests check the plays against
:func:`fastbg._core.movegen.legal_plays`.
"""
import time

import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from fastbg._core._types cimport board_t, NSLOTS
from fastbg._core.board cimport load_board, back_point_c, checkers_c
from fastbg._core.bearoffdb cimport rolls_c, fill_dist_c
from fastbg._core.movegen cimport movegen_t, movegen_new, movegen_free, generate
from fastbg._core.movegen import validate_dice
from fastbg.spec.board import check_counts as _check_side_counts

cnp.import_array()

RACE_MAX = RD_MAX
N_POINTS = RD_POINTS
N_POSITIONS = RD_NPOS
K_ROLLS = RD_K

cdef enum:
    NROLLS = 21
    MAX_FIN = 1024          # finals of one roll: <= 2 x 4 x 4 (two dice), 4 ** 4 (a double)
    MAX_PIPS = 24 * RD_MAX

# RRANK[i][r][c] = sum_{v < c} C(r - v + 23 - i, 23 - i): the index's term of point i
# holding c checkers when r may still be placed on points i..23.
cdef int RRANK[RD_POINTS][RD_MAX + 1][RD_MAX + 1]
cdef int ROLL_D1[NROLLS]
cdef int ROLL_D2[NROLLS]
cdef double ROLL_W[NROLLS]


cdef long _binom(int n, int k) noexcept:
    cdef long r = 1
    cdef int j
    if k < 0 or k > n:
        return 0
    for j in range(1, k + 1):
        r = r * (n - k + j) // j
    return r


cdef void _init_tables() noexcept:
    cdef int i, r, c, v
    for i in range(RD_POINTS):
        for r in range(RD_MAX + 1):
            for c in range(RD_MAX + 1):
                RRANK[i][r][c] = 0
                if c <= r:
                    for v in range(c):
                        RRANK[i][r][c] += <int>_binom(r - v + 23 - i, 23 - i)
    rolls_c(ROLL_D1, ROLL_D2, ROLL_W)

_init_tables()


cdef extern from *:
    """
    static inline int fastbg_racedb_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int fastbg_racedb_ctz64(unsigned long long x) noexcept nogil


cdef inline int rrank(const unsigned char* c) noexcept nogil:
    """The index of the counts c[0..23]: the terms of the occupied points only, found
    eight points at a time (a point of count 0 adds nothing)."""
    cdef int i, k, base, r = RD_MAX, idx = 0
    cdef unsigned long long w
    for base in range(0, RD_POINTS, 8):
        memcpy(&w, c + base, 8)
        while w:
            k = fastbg_racedb_ctz64(w) >> 3
            i = base + k
            idx += RRANK[i][r][c[i]]
            r -= c[i]
            w &= ~(<unsigned long long>0xFF << (8 * k))
    return idx


cdef int race_index_c(const unsigned char* row) noexcept nogil:
    return rrank(row)


# ----------------------------------------------------------------------- plays
cdef struct rgen_t:
    unsigned char c[RD_POINTS]      # the side being played (changed and restored)
    int outside                     # its checkers beyond its 6-point (index >= 6)
    int nfin                        # finals recorded (< 0: overflow)
    int fin_idx[MAX_FIN]            # index of each final position
    unsigned char fin_used[MAX_FIN] # dice played to reach it
    unsigned char fin_first[MAX_FIN]  # the die played first


cdef inline bint _can(const rgen_t* g, int s, int d) noexcept nogil:
    """Whether a checker on index s (c[s] > 0) may move die d: to s - d, or off when
    every checker is home, with the exact die or from the highest point."""
    cdef int j
    if s >= d:
        return 1
    if g.outside:
        return 0
    if s == d - 1:
        return 1
    for j in range(s + 1, 6):
        if g.c[j]:
            return 0
    return 1


cdef inline void _do(rgen_t* g, int s, int d) noexcept nogil:
    g.c[s] -= 1
    if s >= d:
        g.c[s - d] += 1
    if s >= 6 and s - d < 6:
        g.outside -= 1


cdef inline void _undo(rgen_t* g, int s, int d) noexcept nogil:
    g.c[s] += 1
    if s >= d:
        g.c[s - d] -= 1
    if s >= 6 and s - d < 6:
        g.outside += 1


cdef inline void _record(rgen_t* g, int used, int first) noexcept nogil:
    if g.nfin < 0:
        return
    if g.nfin >= MAX_FIN:
        g.nfin = -1
        return
    g.fin_idx[g.nfin] = rrank(g.c)
    g.fin_used[g.nfin] = <unsigned char>used
    g.fin_first[g.nfin] = <unsigned char>first
    g.nfin += 1


cdef void _seq2(rgen_t* g, int a, int b) noexcept nogil:
    """Every legal sequence of die a then die b."""
    cdef int s1, s2
    cdef bint any1 = 0, any2
    for s1 in range(RD_POINTS):
        if not g.c[s1] or not _can(g, s1, a):
            continue
        any1 = 1
        _do(g, s1, a)
        any2 = 0
        for s2 in range(RD_POINTS):
            if g.c[s2] and _can(g, s2, b):
                any2 = 1
                _do(g, s2, b)
                _record(g, 2, a)
                _undo(g, s2, b)
        if not any2:
            _record(g, 1, a)
        _undo(g, s1, a)
    if not any1:
        _record(g, 0, a)


cdef void _seqd(rgen_t* g, int d, int depth, int top) noexcept nogil:
    """Every legal continuation of a double d after `depth` moves, the next from a source
    index <= top; a sequence ends short only when no move at all is legal."""
    cdef int s
    cdef bint any_ = 0
    for s in range(top, -1, -1):
        if not g.c[s] or not _can(g, s, d):
            continue
        any_ = 1
        _do(g, s, d)
        if depth == 3:
            _record(g, 4, d)
        else:
            _seqd(g, d, depth + 1, s)
        _undo(g, s, d)
    if not any_:
        for s in range(top + 1, RD_POINTS):
            if g.c[s] and _can(g, s, d):
                return          # a sorted sequence from that higher source is listed
        _record(g, depth, d)


cdef int _finals(rgen_t* g, int d1, int d2, int* most_out, int* hi_only) noexcept nogil:
    """Record every sequence of dice d1, d2 from g.c; the number of finals (-1: overflow),
    the most dice used, and whether only plays starting with the larger die count."""
    cdef int i, most = 0, hi_die, lo_die
    g.nfin = 0
    hi_only[0] = -1
    if d1 == d2:
        _seqd(g, d1, 0, RD_POINTS - 1)
    else:
        hi_die = d1 if d1 > d2 else d2
        lo_die = d1 + d2 - hi_die
        _seq2(g, hi_die, lo_die)
        _seq2(g, lo_die, hi_die)
    if g.nfin < 0:
        return -1
    for i in range(g.nfin):
        if g.fin_used[i] > most:
            most = g.fin_used[i]
    if d1 != d2 and most == 1:
        for i in range(g.nfin):
            if g.fin_used[i] == 1 and g.fin_first[i] == hi_die:
                hi_only[0] = hi_die
    most_out[0] = most
    return g.nfin


cdef inline bint _kept(const rgen_t* g, int i, int most, int hi_only) noexcept nogil:
    return g.fin_used[i] == most and (hi_only < 0 or g.fin_first[i] == hi_only)


# -------------------------------------------------------------------- database
cdef double* r_off = NULL           # RD_NPOS x RD_K
cdef double* r_mean = NULL          # RD_NPOS
cdef unsigned char* r_lo = NULL     # RD_NPOS: first k with off[k] != 0
cdef unsigned char* r_hi = NULL     # RD_NPOS: last such k
cdef bint r_ready = 0
cdef double r_build_seconds = 0.0


cdef void _enum(unsigned char* c, int i, int rem, unsigned char* counts, int* n) noexcept nogil:
    """Write every tuple with c[0..i-1] fixed and at most rem checkers on points i..23,
    in lexicographic order, at counts[n * 24 ..] (n counts up)."""
    cdef int v, j
    for v in range(rem + 1):
        c[i] = v
        if i == RD_POINTS - 1:
            for j in range(RD_POINTS):
                counts[n[0] * RD_POINTS + j] = c[j]
            n[0] += 1
        else:
            _enum(c, i + 1, rem - v, counts, n)
    c[i] = 0


cdef int _build(rgen_t* g, const unsigned char* counts, unsigned char* pips,
                int* order) noexcept nogil:
    """The dynamic program (reference: fastbg.reference.racedb). 0, or -1 on overflow."""
    cdef int start[MAX_PIPS + 2]
    cdef const double* src[NROLLS]
    cdef int i, j, r, n, q, best, idx, p, most, hi_only
    cdef double acc_mean, m, best_m
    cdef double* dst
    # positions by increasing pip count, then index (a counting sort): the plays of a
    # position lead to fewer pips, so their entries are done first
    memset(start, 0, sizeof(start))
    for i in range(RD_NPOS):
        p = 0
        for j in range(RD_POINTS):
            p += (j + 1) * counts[i * RD_POINTS + j]
        pips[i] = p
        start[p + 1] += 1
    for p in range(MAX_PIPS + 1):
        start[p + 1] += start[p]
    for i in range(RD_NPOS):
        order[start[pips[i]]] = i
        start[pips[i]] += 1
    r_off[0] = 1.0
    for j in range(1, RD_K):
        r_off[j] = 0.0
    r_mean[0] = 0.0
    for i in range(RD_NPOS):
        idx = order[i]
        if idx == 0:
            continue
        g.outside = 0
        for j in range(RD_POINTS):
            g.c[j] = counts[idx * RD_POINTS + j]
            if j >= 6:
                g.outside += g.c[j]
        acc_mean = 0.0
        for r in range(NROLLS):
            n = _finals(g, ROLL_D1[r], ROLL_D2[r], &most, &hi_only)
            if n <= 0 or most == 0:     # overflow, or no play (impossible with a checker)
                return -1
            best = -1
            best_m = 0.0
            for j in range(n):
                if not _kept(g, j, most, hi_only):
                    continue
                q = g.fin_idx[j]
                m = r_mean[q]
                if best < 0 or m < best_m or (m == best_m and q < best):
                    best = q
                    best_m = m
            src[r] = r_off + <Py_ssize_t>best * RD_K
            acc_mean = acc_mean + ROLL_W[r] * best_m
        dst = r_off + <Py_ssize_t>idx * RD_K
        dst[0] = 0.0
        if fill_dist_c(dst, src, RD_K) < 0:
            return -1
        r_mean[idx] = (36.0 + acc_mean) / (36.0 - 0.0)
    return 0


cdef int _supports() noexcept nogil:
    """r_lo, r_hi of every distribution."""
    cdef Py_ssize_t i
    cdef int k, lo, hi
    for i in range(RD_NPOS):
        lo = RD_K - 1
        hi = 0
        for k in range(RD_K):
            if r_off[i * RD_K + k] != 0.0:
                if k < lo:
                    lo = k
                hi = k
        r_lo[i] = lo
        r_hi[i] = hi
    return 0


cdef int ensure_racedb() except -1:
    global r_off, r_mean, r_lo, r_hi, r_ready, r_build_seconds
    if r_ready:
        return 0
    cdef double t0 = time.perf_counter()
    cdef rgen_t* g = <rgen_t*>malloc(sizeof(rgen_t))
    cdef unsigned char* counts = <unsigned char*>malloc(<size_t>RD_NPOS * RD_POINTS)
    cdef unsigned char* pips = <unsigned char*>malloc(RD_NPOS)
    cdef int* order = <int*>malloc(RD_NPOS * sizeof(int))
    cdef double* off = <double*>malloc(<size_t>RD_NPOS * RD_K * sizeof(double))
    cdef double* mean = <double*>malloc(RD_NPOS * sizeof(double))
    cdef unsigned char* lo = <unsigned char*>malloc(RD_NPOS)
    cdef unsigned char* hi = <unsigned char*>malloc(RD_NPOS)
    cdef unsigned char c[RD_POINTS]
    cdef int n = 0, rc = -2
    if g != NULL and counts != NULL and pips != NULL and order != NULL and off != NULL \
            and mean != NULL and lo != NULL and hi != NULL:
        memset(c, 0, RD_POINTS)
        _enum(c, 0, RD_MAX, counts, &n)
        r_off, r_mean, r_lo, r_hi = off, mean, lo, hi
        rc = -3 if n != RD_NPOS or rrank(counts + (RD_NPOS - 1) * RD_POINTS) != RD_NPOS - 1 \
            else 0
        if rc == 0:
            # The GIL is held on purpose: no other thread can start a second build.
            rc = _build(g, counts, pips, order)
        if rc == 0:
            _supports()
    free(g)
    free(counts)
    free(pips)
    free(order)
    if rc != 0:
        r_off = r_mean = NULL
        r_lo = r_hi = NULL
        free(off)
        free(mean)
        free(lo)
        free(hi)
        if rc == -2:
            raise MemoryError("small-race database")
        raise RuntimeError("small-race database: a distribution needs more entries than "
                           "K_ROLLS, a play buffer overflowed, or the index is inconsistent")
    r_build_seconds = time.perf_counter() - t0
    r_ready = 1
    return 0


cdef bint racedb_ready() noexcept nogil:
    return r_ready


cdef bint is_small_race_c(const board_t* b) noexcept nogil:
    cdef int b0 = back_point_c(b.p[0]), b1 = back_point_c(b.p[1])
    return (b0 >= 1 and b1 >= 1 and b0 + b1 < 25 and (b0 > 6 or b1 > 6)
            and checkers_c(b.p[0]) <= RD_MAX and checkers_c(b.p[1]) <= RD_MAX)


cdef int racedb_probabilities_c(const board_t* b, double* p) noexcept nogil:
    # The reference's win = sum_k P[k] TQ[k] over all k, TQ from the top down: the terms
    # outside P's support, and the tails above Q's, are exact zeros (adding +0.0 changes
    # no sum), so they are skipped: the same bits.
    cdef int im, io, k, lo, hi
    cdef const double* P
    cdef const double* Q
    cdef double t[RD_K]
    cdef double acc = 0.0, win = 0.0
    if not r_ready or not is_small_race_c(b):
        return -1
    im = rrank(b.p[0])
    io = rrank(b.p[1])
    P = r_off + <Py_ssize_t>im * RD_K
    Q = r_off + <Py_ssize_t>io * RD_K
    lo = r_lo[im]
    hi = min(r_hi[im], r_hi[io])
    for k in range(r_hi[io], lo - 1, -1):
        acc = acc + Q[k]
        t[k] = acc
    for k in range(lo, hi + 1):
        win = win + P[k] * t[k]
    p[0] = min(max(win, 0.0), 1.0)
    p[1] = 0.0
    p[2] = 0.0
    p[3] = 0.0
    p[4] = 0.0
    return 0


# ------------------------------------------------------------------ Python API
def _check_counts(counts):
    """Validate one side's 24 counts (the home-board database's checks, at most
    RD_MAX checkers) and return them as a tuple of ints."""
    return _check_side_counts(counts, RD_POINTS, RD_MAX,
                              f"the small-race database holds at most {RD_MAX} checkers a side, got {{}}")


cdef void _to_uc(tuple t, unsigned char* out):
    cdef int i
    for i in range(RD_POINTS):
        out[i] = <unsigned char>t[i]


def position_index(counts):
    """Index of one side's position: the lexicographic rank of its 24 counts (as
    :func:`fastbg.reference.racedb.position_index`).

    Parameters
    ----------
    counts : sequence of 24 int
        Checkers on the side's points 1..24, total 0..RACE_MAX.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For bad counts.
    """
    cdef unsigned char c[RD_POINTS]
    _to_uc(_check_counts(counts), c)
    return rrank(c)


def race_plays(counts, d1, d2):
    """A lone side's distinct plays of a roll, from this module's generator (as
    :func:`fastbg.reference.racedb.race_plays`).

    Parameters
    ----------
    counts : sequence of 24 int
        The side's checkers on its points 1..24 (total 0..RACE_MAX).
    d1, d2 : int
        The dice, each in 1..6, in either order.

    Returns
    -------
    numpy.ndarray of int8, shape (n, 24)
        The resulting positions in canonical order.

    Raises
    ------
    ValueError
        For bad counts or dice.
    """
    t = _check_counts(counts)
    a, b = validate_dice(d1, d2)
    cdef rgen_t* g = <rgen_t*>malloc(sizeof(rgen_t))
    cdef int i, j, n, most, hi_only
    if g == NULL:
        raise MemoryError()
    try:
        _to_uc(t, g.c)
        g.outside = sum(t[6:])
        n = _finals(g, a, b, &most, &hi_only)
        if n < 0:
            raise RuntimeError("small-race play buffer overflowed")
        seen = set()
        for i in range(n):
            if most and _kept(g, i, most, hi_only):
                seen.add(g.fin_idx[i])
    finally:
        free(g)
    # the counts of each index, by unranking (lexicographic order)
    rows = [_unrank(i) for i in sorted(seen)]
    return np.array(rows, dtype=np.int8).reshape(-1, RD_POINTS)


def _unrank(int idx):
    cdef int i, c, r = RD_MAX
    out = []
    for i in range(RD_POINTS):
        c = 0
        while c < r and RRANK[i][r][c + 1] <= idx:
            c += 1
        idx -= RRANK[i][r][c]
        out.append(c)
        r -= c
    return tuple(out)


def onesided(counts):
    """The database entry of one side's position (as
    :func:`fastbg.reference.racedb.onesided`, bit for bit).

    Parameters
    ----------
    counts : sequence of 24 int
        The side's checkers on its points 1..24 (its own numbering), total 0..RACE_MAX.

    Returns
    -------
    dict
        ``index`` (int); ``off`` (float64, shape ``(K_ROLLS,)``: the probability of
        needing exactly ``k`` rolls to bear off, each roll played to minimise the expected
        rolls); ``mean_off`` (float).

    Raises
    ------
    ValueError
        For bad counts.

    Notes
    -----
    The first call in a process builds the whole database (:func:`_build_stats`).
    """
    cdef unsigned char c[RD_POINTS]
    _to_uc(_check_counts(counts), c)
    ensure_racedb()
    cdef int idx = rrank(c), k
    off = np.empty(RD_K, dtype=np.float64)
    cdef double[::1] o = off
    for k in range(RD_K):
        o[k] = r_off[<Py_ssize_t>idx * RD_K + k]
    return {"index": idx, "off": off, "mean_off": r_mean[idx]}


def is_small_race(board):
    """Whether the evaluator reads a position from this database (as
    :func:`fastbg.reference.racedb.is_small_race`).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Validated.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        For an invalid board.
    """
    cdef board_t b
    load_board(board, &b)
    return bool(is_small_race_c(&b))


def race_probabilities(board):
    """Race probabilities of a small race from the database (as
    :func:`fastbg.reference.racedb.race_probabilities`, bit for bit).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        A small race (:func:`is_small_race`), row 0 about to roll.

    Returns
    -------
    numpy.ndarray of float64, shape (5,)
        ``(win, 0, 0, 0, 0)``.

    Raises
    ------
    ValueError
        If the board is invalid or not a small race.
    """
    cdef board_t b
    load_board(board, &b)
    if not is_small_race_c(&b):
        raise ValueError("not a small race: a race (no contact), not a home-board bear-off, "
                         f"with 1 to {RD_MAX} checkers a side is needed")
    ensure_racedb()
    out = np.empty(5, dtype=np.float64)
    cdef double[::1] o = out
    racedb_probabilities_c(&b, &o[0])
    return out


def _build_stats():
    """``(seconds, bytes)`` of this process's database build (``(0.0, 0)`` before it)."""
    if not r_ready:
        return 0.0, 0
    return r_build_seconds, RD_NPOS * ((RD_K + 1) * 8 + 2)


def _check_against_movegen(int start=0, int stop=RD_NPOS, int step=1):
    """Compare :func:`race_plays`' generator with the move generator on the indices
    ``range(start, stop, step)``: each position (opponent's row empty) and each of the 21
    rolls, the sorted indices of the distinct plays. A test hook.

    Returns
    -------
    list of (int, int, int)
        ``(index, d1, d2)`` of the first 20 mismatches (empty when all agree).
    """
    cdef movegen_t* mg = movegen_new()
    cdef rgen_t* g = <rgen_t*>malloc(sizeof(rgen_t))
    cdef board_t bd
    cdef int idx, r, n, m, j, i, most, hi_only
    cdef unsigned char* row
    bad = []
    if mg == NULL or g == NULL:
        movegen_free(mg)
        free(g)
        raise MemoryError()
    try:
        for idx in range(max(start, 1), min(stop, RD_NPOS), step):
            t = _unrank(idx)
            memset(&bd, 0, sizeof(board_t))
            for j in range(RD_POINTS):
                bd.p[0][j] = t[j]
            for r in range(NROLLS):
                _to_uc(t, g.c)
                g.outside = sum(t[6:])
                n = _finals(g, ROLL_D1[r], ROLL_D2[r], &most, &hi_only)
                mine = sorted({g.fin_idx[i] for i in range(max(n, 0))
                               if most and _kept(g, i, most, hi_only)})
                m = generate(mg, &bd, ROLL_D1[r], ROLL_D2[r], NULL, 0)
                theirs = []
                for i in range(max(m, 0)):
                    row = mg.plays[i].p[0]
                    if mg.plays[i].p[0][24] or any(mg.plays[i].p[1][j] for j in range(NSLOTS)):
                        theirs.append(-1)
                    else:
                        theirs.append(rrank(row))
                if n < 0 or m < 0 or mine != sorted(theirs):
                    if len(bad) < 20:
                        bad.append((idx, ROLL_D1[r], ROLL_D2[r]))
    finally:
        movegen_free(mg)
        free(g)
    return bad
