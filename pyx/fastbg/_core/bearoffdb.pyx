# cython: language_level=3
"""One-sided bear-off database (see bearoffdb.pxd), mirroring :mod:`fastbg.reference.bearoffdb`.

The reference computes entries lazily in Python; this module builds the whole
database in one nogil dynamic program over the positions in increasing pip order
(every play lowers a side's pip count, so the positions a play reaches are done
before the position itself), with the same IEEE double operations in the same
order, so the numbers are bitwise identical (the build uses ``-ffp-contract=off``).

Plays come from a dedicated generator of a lone side's bear-off plays: depth-first
over the dice orders on position indices, one checker move being a look-up in a
table of single moves (``SUCC``: index, die, source point -> index); for a double it
only extends a sequence from source points no higher than the previous one (every
multiset of moves once; a legal sequence sorted that way stays legal in a bear-off),
and the results are de-duplicated by index with a stamp table. The dice rules are
the engine's (most dice played; the larger die when only one of two can be; a
sequence is short only when no checker can move). The tests check it against
:func:`fastbg._core.movegen` ``generate`` on every position and roll.
"""
import hashlib
import os
import time

import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset

from fastbg._core._types cimport board_t, NSLOTS
from fastbg._core.board cimport load_board, back_point_c
from fastbg._core.movegen cimport movegen_t, movegen_new, movegen_free, generate
from fastbg._core.movegen import validate_dice
from fastbg.spec.board import check_counts

cnp.import_array()

N_POINTS = BO_POINTS
N_POSITIONS = BO_NPOS
N_FIRST_POSITIONS = BO_NFIRST
K_OFF = BO_K_OFF
K_FIRST = BO_K_FIRST

cdef enum:
    MAX_FIN = 512           # finals of one roll: <= 2 x 6 x 6 (non-double), C(9, 4) = 126 (double)
    NROLLS = 21
    MAX_PIPS = 90           # 15 checkers on the 6-point

# ----------------------------------------------------------------- index tables
# RANK[i][r][c] = sum_{v < c} C(r - v + 5 - i, 5 - i): the index's term of point i
# holding c checkers when r are still to be placed on points i..5 (see pxd).
cdef int RANK[6][16][16]
cdef unsigned char COUNTS[BO_NPOS][6]    # the counts of each index
cdef unsigned char NCHK[BO_NPOS]         # checkers on the board of each index
cdef int FIRST_SLOT[BO_NPOS]             # dense slot of a 15-checker index, else -1
cdef int PIPS[BO_NPOS]                   # pip count of each index (scratch of the build)
# The 21 rolls in the fixed order d1 = 1..6, d2 = 1..d1, and their weights (of 36).
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
    cdef int i, r, c, v, idx, slot = 0, a, b, e, f, g, h, n
    for i in range(6):
        for r in range(16):
            for c in range(16):
                RANK[i][r][c] = 0
                if c <= r:
                    for v in range(c):
                        RANK[i][r][c] += <int>_binom(r - v + 5 - i, 5 - i)
    # Nested loops in lexicographic order enumerate the indices 0, 1, 2, ...
    idx = 0
    for a in range(16):
        for b in range(16 - a):
            for e in range(16 - a - b):
                for f in range(16 - a - b - e):
                    for g in range(16 - a - b - e - f):
                        for h in range(16 - a - b - e - f - g):
                            COUNTS[idx][0] = a
                            COUNTS[idx][1] = b
                            COUNTS[idx][2] = e
                            COUNTS[idx][3] = f
                            COUNTS[idx][4] = g
                            COUNTS[idx][5] = h
                            n = a + b + e + f + g + h
                            NCHK[idx] = n
                            if n == 15:
                                FIRST_SLOT[idx] = slot
                                slot += 1
                            else:
                                FIRST_SLOT[idx] = -1
                            idx += 1
    n = 0
    for a in range(1, 7):
        for b in range(1, a + 1):
            ROLL_D1[n] = a
            ROLL_D2[n] = b
            ROLL_W[n] = 1.0 if a == b else 2.0
            n += 1

_init_tables()


cdef inline int rank6(const unsigned char* c) noexcept nogil:
    cdef int i, r = 15, idx = 0
    for i in range(6):
        idx += RANK[i][r][c[i]]
        r -= c[i]
    return idx


cdef int position_index_c(const unsigned char* row) noexcept nogil:
    return rank6(row)


# ----------------------------------------------------------------------- plays
cdef struct playgen_t:
    unsigned int stamp                  # seen[i] == stamp: index i already listed
    int nfin                            # finals recorded (< 0: overflow)
    int fin_idx[MAX_FIN]                # index of each final position
    unsigned char fin_used[MAX_FIN]     # dice played to reach it
    unsigned char fin_first[MAX_FIN]    # the die played first
    unsigned int seen[BO_NPOS]


cdef enum:
    NO_MOVE = 0xFFFF        # SUCC entry of an illegal move

# SUCC[(idx * 6 + d - 1) * 6 + s]: index after one checker of position idx moves die d
# from its point s + 1 (to s + 1 - d, or off), NO_MOVE if that move is illegal. Built on
# first need (54,264 x 36 x 2 bytes, 3.9 MB; freed after the database build, rebuilt if
# bearoff_plays needs it again); the plays are sequences of these.
cdef unsigned short* SUCC = NULL


cdef int _ensure_succ() except -1:
    global SUCC
    cdef unsigned short* t
    cdef unsigned char c[6]
    cdef int idx, d, s, hi, j, dst
    if SUCC != NULL:
        return 0
    t = <unsigned short*>malloc(<size_t>BO_NPOS * 36 * sizeof(unsigned short))
    if t == NULL:
        raise MemoryError("bear-off move table")
    with nogil:
        for idx in range(BO_NPOS):
            for j in range(6):
                c[j] = COUNTS[idx][j]
            hi = 5
            while hi >= 0 and c[hi] == 0:
                hi -= 1
            for d in range(1, 7):
                for s in range(6):
                    dst = NO_MOVE
                    # from point s + 1: to s + 1 - d, off with the exact die, or off
                    # from the highest point with a larger die
                    if c[s] and (s >= d - 1 or s == hi):
                        c[s] -= 1
                        if s >= d:
                            c[s - d] += 1
                        dst = rank6(c)
                        if s >= d:
                            c[s - d] -= 1
                        c[s] += 1
                    t[(idx * 6 + d - 1) * 6 + s] = <unsigned short>dst
    SUCC = t
    return 0


cdef void _free_succ() noexcept:
    global SUCC
    free(SUCC)
    SUCC = NULL


cdef inline void _record(playgen_t* g, int idx, int used, int first) noexcept nogil:
    if g.nfin < 0:
        return
    if g.nfin >= MAX_FIN:
        g.nfin = -1
        return
    g.fin_idx[g.nfin] = idx
    g.fin_used[g.nfin] = <unsigned char>used
    g.fin_first[g.nfin] = <unsigned char>first
    g.nfin += 1


cdef void _seq2(playgen_t* g, int idx, int a, int b) noexcept nogil:
    """Every legal sequence of die a then die b from position idx (needs SUCC)."""
    cdef int s1, s2, t1, t2
    cdef bint any1 = 0, any2
    cdef const unsigned short* row1 = SUCC + (idx * 6 + a - 1) * 6
    cdef const unsigned short* row2
    for s1 in range(6):
        t1 = row1[s1]
        if t1 == NO_MOVE:
            continue
        any1 = 1
        any2 = 0
        row2 = SUCC + (t1 * 6 + b - 1) * 6
        for s2 in range(6):
            t2 = row2[s2]
            if t2 != NO_MOVE:
                any2 = 1
                _record(g, t2, 2, a)
        if not any2:
            _record(g, t1, 1, a)
    if not any1:
        _record(g, idx, 0, a)


cdef void _seq4(playgen_t* g, int idx, int d) noexcept nogil:
    """Every legal sequence of four moves of die d from position idx, source points
    non-increasing (each multiset of moves once; needs SUCC). A sequence is short
    only when no move at all is legal (a move from a higher source exists otherwise,
    and the sorted sequence that contains it is listed)."""
    cdef int s1, s2, s3, s4, t1, t2, t3, t4, off = (d - 1) * 6
    cdef bint any1 = 0, any2, any3, any4
    cdef const unsigned short* row1 = SUCC + idx * 36 + off
    cdef const unsigned short* row2
    cdef const unsigned short* row3
    cdef const unsigned short* row4
    for s1 in range(5, -1, -1):
        t1 = row1[s1]
        if t1 == NO_MOVE:
            continue
        any1 = 1
        any2 = 0
        row2 = SUCC + t1 * 36 + off
        for s2 in range(5, -1, -1):
            t2 = row2[s2]
            if t2 == NO_MOVE:
                continue
            any2 = 1
            if s2 > s1:
                continue
            any3 = 0
            row3 = SUCC + t2 * 36 + off
            for s3 in range(5, -1, -1):
                t3 = row3[s3]
                if t3 == NO_MOVE:
                    continue
                any3 = 1
                if s3 > s2:
                    continue
                any4 = 0
                row4 = SUCC + t3 * 36 + off
                for s4 in range(s3, -1, -1):
                    t4 = row4[s4]
                    if t4 != NO_MOVE:
                        any4 = 1
                        _record(g, t4, 4, d)
                if not any4:
                    for s4 in range(5, s3, -1):
                        if row4[s4] != NO_MOVE:
                            any4 = 1
                if not any4:
                    _record(g, t3, 3, d)
            if not any3:
                _record(g, t2, 2, d)
        if not any2:
            _record(g, t1, 1, d)
    if not any1:
        _record(g, idx, 0, d)


cdef int plays_c(playgen_t* g, int idx, int d1, int d2, int* out, bint distinct) noexcept nogil:
    """Plays (indices, unsorted) of dice d1, d2 from position idx into out (room for
    MAX_FIN); their number, or -1 on overflow. With ``distinct`` each play once, else
    once per recorded sequence (the dynamic program only takes a minimum). Needs
    SUCC (_ensure_succ)."""
    cdef int i, n = 0, most = 0, hi_die = d1, lo_die = d2
    cdef bint larger_found = 0
    g.nfin = 0
    if d1 == d2:
        _seq4(g, idx, d1)
    else:
        hi_die = d1 if d1 > d2 else d2
        lo_die = d1 + d2 - hi_die
        _seq2(g, idx, hi_die, lo_die)
        _seq2(g, idx, lo_die, hi_die)
    if g.nfin < 0:
        return -1
    for i in range(g.nfin):
        if g.fin_used[i] > most:
            most = g.fin_used[i]
    if most == 0:
        return 0
    if d1 != d2 and most == 1:
        for i in range(g.nfin):
            if g.fin_used[i] == 1 and g.fin_first[i] == hi_die:
                larger_found = 1
    if distinct:
        g.stamp += 1
        if g.stamp == 0:
            memset(g.seen, 0, sizeof(g.seen))
            g.stamp = 1
    for i in range(g.nfin):
        if g.fin_used[i] != most:
            continue
        if larger_found and g.fin_first[i] != hi_die:
            continue
        if distinct:
            if g.seen[g.fin_idx[i]] == g.stamp:
                continue
            g.seen[g.fin_idx[i]] = g.stamp
        out[n] = g.fin_idx[i]
        n += 1
    return n


cdef void _sort_ints(int* a, int n) noexcept nogil:
    cdef int i, j, v
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


# -------------------------------------------------------------------- database
cdef double* g_off = NULL          # BO_NPOS x BO_K_OFF
cdef double* g_mean = NULL         # BO_NPOS
cdef double* g_first = NULL        # BO_NFIRST x BO_K_FIRST (by FIRST_SLOT)
cdef double* g_first_mean = NULL   # BO_NFIRST
cdef bint g_ready = 0
# Read-side copies made once after the build, for bearoff_probabilities_c: the tails
# (same top-down sums as _tails, so the same bits as summing on the fly) and the
# support [g_lo, g_hi] of each `off` distribution (terms outside it are exact zeros,
# and adding +0.0 changes no sum, so skipping them keeps the reference's bits).
cdef double* g_off_tail = NULL     # BO_NPOS x BO_K_OFF
cdef double* g_first_tail = NULL   # BO_NFIRST x BO_K_FIRST
cdef unsigned char* g_lo = NULL    # BO_NPOS
cdef unsigned char* g_hi = NULL    # BO_NPOS
cdef double g_build_seconds = 0.0
cdef double DONE_FIRST[BO_K_FIRST]  # first-off distribution of a side with a checker off


cdef int fill_dist_c(double* dst, const double* const* src, int K) noexcept nogil:
    """dst[1:] from the 21 chosen plays' distributions (NULL: the position itself).

    dst[k + 1] = (((0.0 + w_1 src_1[k]) + w_2 src_2[k]) + ...) / 36.0 over the rolls in
    the fixed order. Returns -1 if mass would fall on entry K (too few entries).
    """
    cdef int k, r
    cdef double acc
    cdef const double* s
    for k in range(K):
        acc = 0.0
        for r in range(NROLLS):
            s = src[r]
            if s == NULL:
                s = dst
            acc = acc + ROLL_W[r] * s[k]
        if k + 1 < K:
            dst[k + 1] = acc / 36.0
        elif acc != 0.0:
            return -1
    return 0


cdef int _build(playgen_t* g, int* order) noexcept nogil:
    """The dynamic program (see the reference's module doc). 0, or -1 on overflow."""
    cdef int* pips = PIPS
    cdef int start[MAX_PIPS + 2]
    cdef int plays[MAX_FIN]
    cdef const double* src[NROLLS]
    cdef int i, j, r, n, q, best, idx, slot, pass_, p
    cdef double acc_mean, stays, m, best_m
    # positions by increasing pip count, then index (a counting sort)
    memset(start, 0, sizeof(start))
    for i in range(BO_NPOS):
        p = 0
        for j in range(6):
            p += (j + 1) * COUNTS[i][j]
        pips[i] = p
        start[p + 1] += 1
    for p in range(MAX_PIPS + 1):
        start[p + 1] += start[p]
    for i in range(BO_NPOS):
        order[start[pips[i]]] = i
        start[pips[i]] += 1
    for j in range(BO_K_FIRST):
        DONE_FIRST[j] = 0.0
    DONE_FIRST[0] = 1.0
    # pass 0: the off distributions of all positions; pass 1: the first-off
    # distributions of the 15-checker positions
    for pass_ in range(2):
        for i in range(BO_NPOS):
            idx = order[i]
            if pass_ == 0 and idx == 0:
                g_off[0] = 1.0
                for j in range(1, BO_K_OFF):
                    g_off[j] = 0.0
                g_mean[0] = 0.0
                continue
            if pass_ == 1 and NCHK[idx] != 15:
                continue
            acc_mean = 0.0
            stays = 0.0
            for r in range(NROLLS):
                n = plays_c(g, idx, ROLL_D1[r], ROLL_D2[r], plays, 0)
                if n < 0:
                    return -1
                if n == 0:
                    src[r] = NULL
                    stays = stays + ROLL_W[r]
                    continue
                best = -1
                best_m = 0.0
                for j in range(n):
                    q = plays[j]
                    if pass_ == 0:
                        m = g_mean[q]
                    elif NCHK[q] < 15:
                        m = 0.0
                    else:
                        m = g_first_mean[FIRST_SLOT[q]]
                    if best < 0 or m < best_m or (m == best_m and q < best):
                        best = q
                        best_m = m
                if pass_ == 0:
                    src[r] = g_off + <Py_ssize_t>best * BO_K_OFF
                elif NCHK[best] < 15:
                    src[r] = DONE_FIRST
                else:
                    src[r] = g_first + <Py_ssize_t>FIRST_SLOT[best] * BO_K_FIRST
                acc_mean = acc_mean + ROLL_W[r] * best_m
            if stays == 36.0:
                return -1
            if pass_ == 0:
                g_off[<Py_ssize_t>idx * BO_K_OFF] = 0.0
                if fill_dist_c(g_off + <Py_ssize_t>idx * BO_K_OFF, src, BO_K_OFF) < 0:
                    return -1
                g_mean[idx] = (36.0 + acc_mean) / (36.0 - stays)
            else:
                slot = FIRST_SLOT[idx]
                g_first[<Py_ssize_t>slot * BO_K_FIRST] = 0.0
                if fill_dist_c(g_first + <Py_ssize_t>slot * BO_K_FIRST, src, BO_K_FIRST) < 0:
                    return -1
                g_first_mean[slot] = (36.0 + acc_mean) / (36.0 - stays)
    return 0


cdef playgen_t* _new_playgen() noexcept nogil:
    return <playgen_t*>calloc(1, sizeof(playgen_t))


cdef void rolls_c(int* d1, int* d2, double* w) noexcept nogil:
    cdef int r
    for r in range(NROLLS):
        d1[r] = ROLL_D1[r]
        d2[r] = ROLL_D2[r]
        w[r] = ROLL_W[r]


cdef void tails_c(const double* dist, double* t, int K) noexcept nogil:
    _tails(dist, t, K)


cdef inline void _tails(const double* dist, double* t, int K) noexcept nogil:
    """t[k] = dist[k] + dist[k+1] + ..., accumulated from the top down."""
    cdef double acc = 0.0
    cdef int k
    for k in range(K - 1, -1, -1):
        acc = acc + dist[k]
        t[k] = acc


cdef int _read_side() noexcept:
    """Tails and supports of the built tables (see g_off_tail); 0, or -1 if out of memory."""
    global g_off_tail, g_first_tail, g_lo, g_hi
    cdef Py_ssize_t i
    cdef int k, lo, hi
    g_off_tail = <double*>malloc(<size_t>BO_NPOS * BO_K_OFF * sizeof(double))
    g_first_tail = <double*>malloc(<size_t>BO_NFIRST * BO_K_FIRST * sizeof(double))
    g_lo = <unsigned char*>malloc(BO_NPOS)
    g_hi = <unsigned char*>malloc(BO_NPOS)
    if g_off_tail == NULL or g_first_tail == NULL or g_lo == NULL or g_hi == NULL:
        free(g_off_tail)
        free(g_first_tail)
        free(g_lo)
        free(g_hi)
        g_off_tail = g_first_tail = NULL
        g_lo = g_hi = NULL
        return -1
    for i in range(BO_NPOS):
        _tails(g_off + i * BO_K_OFF, g_off_tail + i * BO_K_OFF, BO_K_OFF)
        lo = BO_K_OFF - 1
        hi = 0
        for k in range(BO_K_OFF):
            if g_off[i * BO_K_OFF + k] != 0.0:
                if k < lo:
                    lo = k
                hi = k
        g_lo[i] = lo
        g_hi[i] = hi
    for i in range(BO_NFIRST):
        _tails(g_first + i * BO_K_FIRST, g_first_tail + i * BO_K_FIRST, BO_K_FIRST)
    return 0


cdef int ensure_db() except -1:
    global g_off, g_mean, g_first, g_first_mean, g_ready, g_build_seconds
    if g_ready:
        return 0
    cdef double t0 = time.perf_counter()
    _ensure_succ()
    cdef playgen_t* g = _new_playgen()
    cdef int* order = <int*>malloc(BO_NPOS * sizeof(int))
    cdef double* off = <double*>malloc(<size_t>BO_NPOS * BO_K_OFF * sizeof(double))
    cdef double* mean = <double*>malloc(BO_NPOS * sizeof(double))
    cdef double* first = <double*>malloc(<size_t>BO_NFIRST * BO_K_FIRST * sizeof(double))
    cdef double* first_mean = <double*>malloc(BO_NFIRST * sizeof(double))
    cdef int rc = -2
    if g != NULL and order != NULL and off != NULL and mean != NULL and first != NULL \
            and first_mean != NULL:
        g_off, g_mean, g_first, g_first_mean = off, mean, first, first_mean
        # The GIL is held on purpose: no other thread can start a second build.
        rc = _build(g, order)
    free(g)
    free(order)
    if rc != 0:
        g_off = g_mean = g_first = g_first_mean = NULL
        free(off)
        free(mean)
        free(first)
        free(first_mean)
        if rc == -2:
            raise MemoryError("bear-off database")
        raise RuntimeError("bear-off database: a distribution needs more entries than "
                           "K_OFF / K_FIRST, or a play buffer overflowed")
    if _read_side() != 0:
        raise MemoryError("bear-off database")
    g_build_seconds = time.perf_counter() - t0
    g_ready = 1
    _free_succ()  # only the Python-level play functions need it again
    return 0


cdef bint db_ready() noexcept nogil:
    return g_ready


cdef const double* off_dist_c(int index) noexcept nogil:
    if not g_ready or index < 0 or index >= BO_NPOS:
        return NULL
    return g_off + <Py_ssize_t>index * BO_K_OFF


cdef double off_mean_c(int index) noexcept nogil:
    if not g_ready or index < 0 or index >= BO_NPOS:
        return -1.0
    return g_mean[index]


cdef const double* first_dist_c(int index) noexcept nogil:
    if not g_ready or index < 0 or index >= BO_NPOS or FIRST_SLOT[index] < 0:
        return NULL
    return g_first + <Py_ssize_t>FIRST_SLOT[index] * BO_K_FIRST


cdef bint is_bearoff_c(const board_t* b) noexcept nogil:
    # each side has a checker left, and none beyond its 6-point (back point 1..6)
    return 1 <= back_point_c(b.p[0]) <= 6 and 1 <= back_point_c(b.p[1]) <= 6


cdef extern from *:
    """
    #define FASTBG_PREFETCH(p) __builtin_prefetch((p), 0, 1)
    """
    void FASTBG_PREFETCH(const void* p) noexcept nogil


cdef void bearoff_prefetch_c(const unsigned char* row) noexcept nogil:
    cdef int i
    cdef const char* a
    if not g_ready:
        return
    cdef Py_ssize_t r = <Py_ssize_t>rank6(row) * BO_K_OFF
    a = <const char*>(g_off_tail + r)       # read when this side is not on roll
    for i in range(0, BO_K_OFF * 8, 64):
        FASTBG_PREFETCH(a + i)
    a = <const char*>(g_off + r)
    for i in range(0, BO_K_OFF * 8, 64):
        FASTBG_PREFETCH(a + i)


cdef int bearoff_probabilities_c(const board_t* b, double* p) noexcept nogil:
    # The reference's sums term by term (k ascending from 0.0), with the tails read
    # from g_off_tail / g_first_tail and the exact-zero terms outside a distribution's
    # support [g_lo, g_hi] left out (see g_off_tail): the same bits, fewer operations.
    cdef int im, io, k, lo, hi
    cdef const double* P
    cdef const double* Q
    cdef const double* t
    cdef double win = 0.0, wg = 0.0, lg = 0.0
    if not g_ready or not is_bearoff_c(b):
        return -1
    im = rank6(b.p[0])
    io = rank6(b.p[1])
    P = g_off + <Py_ssize_t>im * BO_K_OFF
    Q = g_off + <Py_ssize_t>io * BO_K_OFF
    lo = g_lo[im]
    hi = g_hi[im]
    t = g_off_tail + <Py_ssize_t>io * BO_K_OFF
    for k in range(lo, hi + 1):
        win = win + P[k] * t[k]
    if NCHK[io] == 15:
        t = g_first_tail + <Py_ssize_t>FIRST_SLOT[io] * BO_K_FIRST
        for k in range(lo, min(hi + 1, BO_K_FIRST)):
            wg = wg + P[k] * t[k]
    if NCHK[im] == 15:
        t = g_first_tail + <Py_ssize_t>FIRST_SLOT[im] * BO_K_FIRST
        for k in range(g_lo[io], min(g_hi[io] + 1, BO_K_FIRST - 1)):
            lg = lg + Q[k] * t[k + 1]
    # rounding can leave the sums a few ulps outside [0, 1] or a gammon above its win
    # (same clipping as the reference)
    win = min(max(win, 0.0), 1.0)
    p[0] = win
    p[1] = min(wg, win)
    p[2] = 0.0
    p[3] = min(lg, 1.0 - win)
    p[4] = 0.0
    return 0


# ------------------------------------------------------------------ Python API
cdef void _to_uc(tuple c, unsigned char* out):
    cdef int i
    for i in range(6):
        out[i] = <unsigned char>c[i]


def position_index(counts):
    """Index of one side's position: the lexicographic rank of its 6 counts.

    Parameters
    ----------
    counts : sequence of 6 int
        Checkers on the side's points 1..6 (its own numbering), total 0..15.

    Returns
    -------
    int
        In ``0 .. N_POSITIONS - 1`` (formula: :mod:`fastbg.reference.bearoffdb`).

    Raises
    ------
    ValueError
        If ``counts`` is not 6 non-negative ints with a total of at most 15.
    """
    cdef unsigned char c[6]
    _to_uc(check_counts(counts), c)
    return rank6(c)


def position_counts(index):
    """The 6 counts of the position with a given index (inverse of :func:`position_index`).

    Parameters
    ----------
    index : int
        In ``0 .. N_POSITIONS - 1``.

    Returns
    -------
    tuple of 6 int

    Raises
    ------
    ValueError
        If ``index`` is not an int in range.
    """
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise ValueError(f"index must be an int, got {index!r}")
    idx = int(index)
    if not 0 <= idx < BO_NPOS:
        raise ValueError(f"index must be in 0..{BO_NPOS - 1}, got {idx}")
    return tuple(int(COUNTS[idx][i]) for i in range(6))


cdef playgen_t* g_api_gen = NULL


def bearoff_plays(counts, d1, d2):
    """A side's distinct plays of a roll in a bear-off (engine rules, DESIGN section 3).

    Parameters
    ----------
    counts : sequence of 6 int
        The side's checkers on its points 1..6 (total 0..15).
    d1, d2 : int
        The dice, each in 1..6, in either order.

    Returns
    -------
    numpy.ndarray of int8, shape (n, 6)
        The resulting positions in canonical order (increasing index); ``n == 0``
        only for a side with no checker left. Equal to the plays of
        :func:`fastbg._core.movegen.legal_plays` on a board with this side in row 0
        and an empty opponent row.

    Raises
    ------
    ValueError
        For bad counts or dice.
    """
    global g_api_gen
    cdef unsigned char c[6]
    cdef int out[MAX_FIN]
    cdef int n, i, j
    _to_uc(check_counts(counts), c)
    a, b = validate_dice(d1, d2)
    if g_api_gen == NULL:
        g_api_gen = _new_playgen()
        if g_api_gen == NULL:
            raise MemoryError()
    _ensure_succ()
    n = plays_c(g_api_gen, rank6(c), a, b, out, 1)
    if n < 0:
        raise RuntimeError("bear-off play buffer overflowed")
    _sort_ints(out, n)
    res = np.empty((n, 6), dtype=np.int8)
    cdef signed char[:, ::1] v = res
    for i in range(n):
        for j in range(6):
            v[i, j] = COUNTS[out[i]][j]
    return res


def onesided(counts):
    """The database entry of one side's position.

    Parameters
    ----------
    counts : sequence of 6 int
        The side's checkers on its points 1..6 (its own numbering), total 0..15.

    Returns
    -------
    dict
        ``index`` (int, :func:`position_index`); ``off`` (float64, shape
        ``(K_OFF,)``: probability of needing exactly ``k`` rolls to bear off, each
        roll played to minimise the expected rolls); ``mean_off`` (float, expected
        rolls); ``first`` (float64, shape ``(K_FIRST,)``: probability that the first
        checker is off after exactly ``k`` rolls, for 15 checkers on the board, else
        None) and ``mean_first`` (float or None). Bitwise equal to
        :func:`fastbg.reference.bearoffdb.onesided`.

    Raises
    ------
    ValueError
        If ``counts`` is not 6 non-negative ints with a total of at most 15.

    Notes
    -----
    The first call in a process builds the whole database (15.4 MB, well under a
    second); later calls only read it. Idea: GNU Backgammon's one-sided bear-off
    database (its manual); recursion: :mod:`fastbg.reference.bearoffdb`.
    """
    cdef unsigned char c[6]
    t = check_counts(counts)
    _to_uc(t, c)
    ensure_db()
    cdef int idx = rank6(c)
    cdef int k
    off = np.empty(BO_K_OFF, dtype=np.float64)
    cdef double[::1] o = off
    for k in range(BO_K_OFF):
        o[k] = g_off[<Py_ssize_t>idx * BO_K_OFF + k]
    out = {"index": idx, "off": off, "mean_off": g_mean[idx], "first": None,
           "mean_first": None}
    cdef int slot = FIRST_SLOT[idx]
    if slot >= 0:
        first = np.empty(BO_K_FIRST, dtype=np.float64)
        o = first
        for k in range(BO_K_FIRST):
            o[k] = g_first[<Py_ssize_t>slot * BO_K_FIRST + k]
        out["first"] = first
        out["mean_first"] = g_first_mean[slot]
    return out


_SIDES = ("side on roll", "opponent")


def is_bearoff(board):
    """Whether a position is a bear-off the database evaluates.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Engine convention (row 0 on roll); validated.

    Returns
    -------
    bool
        True iff both sides have a checker left and every checker of both sides is on
        its points 1..6 (none on the bar or outside).

    Raises
    ------
    ValueError
        If the board is not valid.
    """
    cdef board_t b
    load_board(board, &b)
    return bool(is_bearoff_c(&b))


def bearoff_probabilities(board):
    """Race probabilities of a bear-off from the one-sided database.

    The two sides' roll counts are taken as independent; the formulas and their
    summation order are those of
    :func:`fastbg.reference.bearoffdb.bearoff_probabilities`, and the results are
    bitwise equal to it.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Engine convention; every checker of both sides on its points 1..6, both sides
        with a checker left (:func:`is_bearoff`), row 0 about to roll.

    Returns
    -------
    numpy.ndarray of float64, shape (5,)
        ``(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)`` of the side
        on roll, before its roll.

    Raises
    ------
    ValueError
        If the board is invalid or not a bear-off (the message names the problem).
    """
    cdef board_t b
    cdef int side, i, n
    load_board(board, &b)
    if not is_bearoff_c(&b):
        for side in range(2):
            if b.p[side][24]:
                raise ValueError(f"not a bear-off: the {_SIDES[side]} has a checker on the bar")
            for i in range(6, 24):
                if b.p[side][i]:
                    raise ValueError(
                        f"not a bear-off: the {_SIDES[side]} has a checker on its point "
                        f"{i + 1} (outside its home board)"
                    )
            n = 0
            for i in range(6):
                n += b.p[side][i]
            if n == 0:
                raise ValueError(
                    f"the game is over: the {_SIDES[side]} has borne off all its checkers"
                )
    ensure_db()
    out = np.empty(BO_NOUT, dtype=np.float64)
    cdef double[::1] o = out
    bearoff_probabilities_c(&b, &o[0])
    return out


def _build_stats():
    """``(seconds, bytes)`` of this process's database build (``(0.0, 0)`` before it)."""
    if not g_ready:
        return 0.0, 0
    return g_build_seconds, (BO_NPOS * (BO_K_OFF + 1) + BO_NFIRST * (BO_K_FIRST + 1)) * 8


def _check_against_movegen(int start=0, int stop=BO_NPOS):
    """Compare :func:`bearoff_plays` with the move generator on indices [start, stop).

    Every position (with the opponent's row empty) and every one of the 21 rolls:
    the sorted indices of :func:`fastbg._core.movegen` ``generate``'s plays against
    this module's generator. A test hook.

    Returns
    -------
    list of (int, int, int)
        ``(index, d1, d2)`` of the first 20 mismatches (empty when all agree).
    """
    cdef movegen_t* mg = movegen_new()
    cdef playgen_t* g = _new_playgen()
    cdef board_t bd
    cdef int mine[MAX_FIN]
    cdef int theirs[4096]
    cdef int idx, r, n, m, j, i
    cdef bint bad
    bad_list = []
    _ensure_succ()
    if mg == NULL or g == NULL:
        movegen_free(mg)
        free(g)
        raise MemoryError()
    try:
        for idx in range(max(start, 1), min(stop, BO_NPOS)):
            memset(&bd, 0, sizeof(board_t))
            for j in range(6):
                bd.p[0][j] = COUNTS[idx][j]
            for r in range(NROLLS):
                n = plays_c(g, idx, ROLL_D1[r], ROLL_D2[r], mine, 1)
                m = generate(mg, &bd, ROLL_D1[r], ROLL_D2[r], NULL, 0)
                bad = n < 0 or m < 0 or n != m
                if not bad:
                    for i in range(m):
                        for j in range(6, 2 * NSLOTS):
                            if (<unsigned char*>&mg.plays[i].p[0][0])[j]:
                                bad = 1
                        theirs[i] = rank6(mg.plays[i].p[0])
                    _sort_ints(mine, n)
                    _sort_ints(theirs, m)
                    for i in range(n):
                        if mine[i] != theirs[i]:
                            bad = 1
                if bad and len(bad_list) < 20:
                    bad_list.append((idx, ROLL_D1[r], ROLL_D2[r]))
    finally:
        movegen_free(mg)
        free(g)
    return bad_list



# ===================================================================== two-sided
# The two-sided database (see bearoffdb.pxd): every pair of sides of 1..6 checkers on
# points 1..6, the player on roll's exact cubeless winning chance and money cubeful
# values, with the recursion and the floating-point order of
# fastbg.cube.bearoff.BearoffSolver(exact=False), so the values are its bits.

cdef int SLOT6[BO_NPOS]                 # dense slot 0..BO2_SIDES-1 of a <= 6-checker side, else -1
cdef int SIDE6[BO2_SIDES]               # the one-sided index of each slot (slot 0 = no checker)
cdef double* g2_win = NULL              # BO2_SIDES**2: cubeless win of the side on roll
cdef double* g2_rc = NULL               # value of rolling, cube centred
cdef double* g2_ro = NULL               # value of rolling, cube owned by the side on roll
cdef double* g2_rx = NULL               # value of rolling, cube owned by the opponent
cdef bint g2_ready = 0
cdef double g2_build_seconds = 0.0


cdef void _init_slots() noexcept:
    cdef int idx, s = 0
    for idx in range(BO_NPOS):
        if NCHK[idx] <= BO2_MAX:
            SLOT6[idx] = s
            SIDE6[s] = idx
            s += 1
        else:
            SLOT6[idx] = -1

_init_slots()


cdef int _build2(playgen_t* g, int* pstart, int* plays, int* order) noexcept nogil:
    """The two-sided dynamic program. 0, or -1 on overflow."""
    cdef int buf[MAX_FIN]
    cdef int a, b, r, n, j, q, s, i, p, np_ = 0, t, ia
    cdef int pips[BO2_SIDES]
    cdef int start[2 * 36 + 2]
    cdef Py_ssize_t pair, pq
    cdef double acc, best, v, sc, so, sx, bc, bo, bx, vc, vo, vx, dbl
    # the distinct plays of each side and roll, as slots in increasing index order
    for s in range(1, BO2_SIDES):
        for r in range(NROLLS):
            pstart[s * NROLLS + r] = np_
            n = plays_c(g, SIDE6[s], ROLL_D1[r], ROLL_D2[r], buf, 1)
            if n <= 0:
                return -1
            _sort_ints(buf, n)
            if np_ + n > BO2_SIDES * NROLLS * 8:
                return -1
            for j in range(n):
                plays[np_] = SLOT6[buf[j]]
                np_ += 1
    pstart[BO2_SIDES * NROLLS] = np_
    for s in range(BO2_SIDES):
        p = 0
        for j in range(6):
            p += (j + 1) * COUNTS[SIDE6[s]][j]
        pips[s] = p
    # the pairs (a on roll, b) of two non-empty sides by increasing total pips: a
    # position's values need those of the opponent on roll after each play of a, whose
    # total is smaller
    memset(start, 0, sizeof(start))
    for a in range(1, BO2_SIDES):
        for b in range(1, BO2_SIDES):
            start[pips[a] + pips[b] + 1] += 1
    for t in range(2 * 36 + 1):
        start[t + 1] += start[t]
    for a in range(1, BO2_SIDES):
        for b in range(1, BO2_SIDES):
            t = pips[a] + pips[b]
            order[start[t]] = a * BO2_SIDES + b
            start[t] += 1
    for i in range((BO2_SIDES - 1) * (BO2_SIDES - 1)):
        pair = order[i]
        a = <int>(pair // BO2_SIDES)
        b = <int>(pair % BO2_SIDES)
        acc = 0.0
        sc = 0.0
        so = 0.0
        sx = 0.0
        for r in range(NROLLS):
            ia = a * NROLLS + r
            best = 0.0
            bc = bo = bx = 0.0
            for j in range(pstart[ia], pstart[ia + 1]):
                q = plays[j]
                if q == 0:
                    v = 1.0
                    vc = vo = vx = 1.0
                else:
                    pq = <Py_ssize_t>b * BO2_SIDES + q
                    v = 1.0 - g2_win[pq]
                    # the opponent on roll: our centred cube is its centred cube, our
                    # cube its opponent's and its cube ours
                    dbl = min(2.0 * g2_rx[pq], 1.0)
                    vc = -max(g2_rc[pq], dbl)
                    vo = -g2_rx[pq]
                    vx = -max(g2_ro[pq], dbl)
                if j == pstart[ia] or v > best:
                    best = v
                if j == pstart[ia] or vc > bc:
                    bc = vc
                if j == pstart[ia] or vo > bo:
                    bo = vo
                if j == pstart[ia] or vx > bx:
                    bx = vx
            acc = acc + ROLL_W[r] * best
            sc = sc + ROLL_W[r] * bc
            so = so + ROLL_W[r] * bo
            sx = sx + ROLL_W[r] * bx
        g2_win[pair] = acc / 36.0
        g2_rc[pair] = sc / 36.0
        g2_ro[pair] = so / 36.0
        g2_rx[pair] = sx / 36.0
    return 0


#: Version of the two-sided database's cache file: raise it when the recursion changes.
DB2_CACHE_VERSION = 1
_g2_source = None


def db2_cache_path():
    """Where the two-sided database is cached: ``$FASTBG_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/fastbg``, else ``~/.cache/fastbg``; the file
    ``bearoff2-v<DB2_CACHE_VERSION>.npy`` and its SHA-256 beside it (``.sha256``)."""
    d = os.environ.get("FASTBG_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "fastbg")
    return os.path.join(d, f"bearoff2-v{DB2_CACHE_VERSION}.npy")


cdef object _db2_read_cache(size_t npair):
    """The cached tables as a (4, npair) float64 array, or None when there is no cache or it
    does not check out (shape, dtype, checksum): then the database is built again."""
    path = db2_cache_path()
    try:
        with open(path + ".sha256") as f:
            want = f.read().strip()
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if arr.dtype != np.float64 or arr.shape != (4, npair) or not arr.flags.c_contiguous \
            or hashlib.sha256(arr.tobytes()).hexdigest() != want:
        return None
    return arr


cdef void _db2_write_cache(size_t npair) noexcept:
    """Save the built tables (atomically: a temporary file, then a rename); a cache that
    cannot be written is skipped (the next process builds the database again)."""
    path = db2_cache_path()
    try:
        arr = np.empty((4, npair), dtype=np.float64)
        arr[0] = np.asarray(<double[:npair]>g2_win)
        arr[1] = np.asarray(<double[:npair]>g2_rc)
        arr[2] = np.asarray(<double[:npair]>g2_ro)
        arr[3] = np.asarray(<double[:npair]>g2_rx)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            np.save(f, arr, allow_pickle=False)
        with open(tmp + ".sha256", "w") as f:
            f.write(hashlib.sha256(arr.tobytes()).hexdigest() + "\n")
        os.replace(tmp + ".sha256", path + ".sha256")
        os.replace(tmp, path)
    except Exception:       # a read-only or full disk: no cache, nothing else changes
        pass


cdef int ensure_db2() except -1:
    global g2_win, g2_rc, g2_ro, g2_rx, g2_ready, g2_build_seconds, _g2_source
    if g2_ready:
        return 0
    cdef double t0 = time.perf_counter()
    cdef size_t npair = <size_t>BO2_SIDES * BO2_SIDES
    cdef double* w = <double*>calloc(npair, sizeof(double))
    cdef double* rc = <double*>calloc(npair, sizeof(double))
    cdef double* ro = <double*>calloc(npair, sizeof(double))
    cdef double* rx = <double*>calloc(npair, sizeof(double))
    if w == NULL or rc == NULL or ro == NULL or rx == NULL:
        free(w)
        free(rc)
        free(ro)
        free(rx)
        raise MemoryError("two-sided bear-off database")
    cdef double[:, ::1] c
    cdef playgen_t* g = NULL
    cdef int* pstart = NULL
    cdef int* plays = NULL
    cdef int* order = NULL
    cdef int rc_ = 0
    cached = _db2_read_cache(npair)
    if cached is not None:
        c = cached
        memcpy(w, &c[0, 0], npair * sizeof(double))
        memcpy(rc, &c[1, 0], npair * sizeof(double))
        memcpy(ro, &c[2, 0], npair * sizeof(double))
        memcpy(rx, &c[3, 0], npair * sizeof(double))
        g2_win, g2_rc, g2_ro, g2_rx = w, rc, ro, rx
    else:
        _ensure_succ()
        g = _new_playgen()
        pstart = <int*>malloc((BO2_SIDES * NROLLS + 1) * sizeof(int))
        plays = <int*>malloc(BO2_SIDES * NROLLS * 8 * sizeof(int))
        order = <int*>malloc(npair * sizeof(int))
        rc_ = -2
        if g != NULL and pstart != NULL and plays != NULL and order != NULL:
            g2_win, g2_rc, g2_ro, g2_rx = w, rc, ro, rx
            # The GIL is held on purpose: no other thread can start a second build.
            rc_ = _build2(g, pstart, plays, order)
        free(g)
        free(pstart)
        free(plays)
        free(order)
        if rc_ != 0:
            g2_win = g2_rc = g2_ro = g2_rx = NULL
            free(w)
            free(rc)
            free(ro)
            free(rx)
            if rc_ == -2:
                raise MemoryError("two-sided bear-off database")
            raise RuntimeError("two-sided bear-off database: a play buffer overflowed")
        if not g_ready:
            _free_succ()
    g2_build_seconds = time.perf_counter() - t0
    g2_ready = 1
    _g2_source = "cache" if cached is not None else "built"
    if cached is None:
        _db2_write_cache(npair)
    return 0


cdef bint db2_ready() noexcept nogil:
    return g2_ready


cdef int bearoff2_pair_c(const board_t* b) noexcept nogil:
    cdef int sa, sb
    if not is_bearoff_c(b):
        return -1
    sa = SLOT6[rank6(b.p[0])]
    sb = SLOT6[rank6(b.p[1])]
    if sa < 0 or sb < 0:
        return -1
    return sa * BO2_SIDES + sb


cdef double bearoff2_win_c(int pair) noexcept nogil:
    if not g2_ready or pair < 0:
        return -1.0
    return g2_win[pair]


def two_sided(mine, theirs):
    """Exact values of a bear-off of at most 6 checkers a side (the two-sided database).

    Parameters
    ----------
    mine, theirs : sequence of 6 int
        The checkers of the player on roll and of its opponent on their points 1..6,
        each side in its own numbering; 1..6 checkers a side.

    Returns
    -------
    dict of str to float
        ``win``: the cubeless winning chance of the player on roll, each side playing to
        maximise its own; ``nd_centred``, ``nd_owned``, ``nd_opponent``: the money value of
        rolling (no double) with the cube centred, owned by the player on roll, owned by the
        opponent; ``dt``: Double/take (``2 nd_opponent``); ``centred``, ``owned``,
        ``opponent``: the cubeful equities before the cube decision with perfect cube play
        (unlimited redoubles). Equities in points per unit of the current cube; no gammon is
        possible. Bit for bit :class:`fastbg.cube.bearoff.BearoffSolver` ``(exact=False)``.

    Raises
    ------
    ValueError
        For bad counts, a side with no checker, or one with more than 6.

    Notes
    -----
    The whole database (923 x 923 positions, 27 MB) is built on first use by one
    dynamic program (well under a second, :func:`_build2_stats`).
    """
    cdef unsigned char c[6]
    slots = []
    for name, side in (("mine", mine), ("theirs", theirs)):
        t = check_counts(side)
        if not 1 <= sum(t) <= BO2_MAX:
            raise ValueError(f"{name}: the two-sided database holds sides of 1 to {BO2_MAX} "
                             f"checkers, got {sum(t)}")
        _to_uc(t, c)
        slots.append(SLOT6[rank6(c)])
    ensure_db2()
    cdef Py_ssize_t p = <Py_ssize_t>slots[0] * BO2_SIDES + slots[1]
    dt = 2.0 * g2_rx[p]
    dbl = min(dt, 1.0)
    return {"win": g2_win[p], "nd_centred": g2_rc[p], "nd_owned": g2_ro[p],
            "nd_opponent": g2_rx[p], "dt": dt, "centred": max(g2_rc[p], dbl),
            "owned": max(g2_ro[p], dbl), "opponent": g2_rx[p]}


def is_two_sided(board):
    """Whether a position is in the two-sided database: a bear-off (every checker of both
    sides in its home board, none on the bar) with 1 to 6 checkers left on each side.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)

    Returns
    -------
    bool
    """
    cdef board_t b
    load_board(board, &b)
    return bearoff2_pair_c(&b) >= 0


def _build2_stats():
    """``(seconds, bytes, source)`` of this process's two-sided database: the time it took
    to build or to read from the cache, its size, and ``"built"`` or ``"cache"``
    (``(0.0, 0, None)`` before it)."""
    if not g2_ready:
        return 0.0, 0, None
    return g2_build_seconds, BO2_SIDES * BO2_SIDES * 4 * 8, _g2_source


TWO_SIDED_MAX = BO2_MAX


def two_sided_key(board):
    """The two home boards of a position in the two-sided database, else ``None`` (as
    :func:`fastbg.reference.bearoffdb.two_sided_key`).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)

    Returns
    -------
    (tuple of 6 int, tuple of 6 int) or None
    """
    cdef board_t b
    load_board(board, &b)
    if bearoff2_pair_c(&b) < 0:
        return None
    return (tuple(int(b.p[0][i]) for i in range(6)), tuple(int(b.p[1][i]) for i in range(6)))


def two_sided_win(board):
    """Exact cubeless winning chance of the side on roll of a two-sided database position
    (as :func:`fastbg.reference.bearoffdb.two_sided_win`).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the position is not in the two-sided database.
    """
    key = two_sided_key(board)
    if key is None:
        raise ValueError("not in the two-sided bear-off database: a bear-off with 1 to "
                         f"{BO2_MAX} checkers a side is needed")
    return two_sided(*key)["win"]
