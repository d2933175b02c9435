# cython: language_level=3
"""Legal plays as distinct resulting positions (see movegen.pxd for the algorithm).

``legal_plays`` and ``perft`` mirror :func:`fastbg.reference.movegen.legal_plays`
and :func:`fastbg.reference.movegen.perft`.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, qsort
from libc.string cimport memcpy, memset

from fastbg._core._types cimport (
    board_t, linear_eval_t, BAR, NSLOTS, NCHECKERS, MAX_PLAYS, HASH_BITS, HASH_SIZE,
    POINT_STRIDE, board_cmp, top_bit, occupancy, blocks,
)
from fastbg._core.board cimport load_board, swap_into, outcome_c

cnp.import_array()

# Random 64-bit keys for the linear hash h = sum(count[k] * KEY[k]) over the 50
# bytes of a board (wrapping arithmetic); moves update it incrementally.
cdef uint64_t KEY[50]


cdef void _init_keys() noexcept:
    cdef uint64_t z, x = 0x9E3779B97F4A7C15ULL
    cdef int k
    for k in range(50):
        # splitmix64
        x += 0x9E3779B97F4A7C15ULL
        z = x
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
        KEY[k] = z ^ (z >> 31)

_init_keys()


cdef uint64_t play_key(const board_t* before, const board_t* play) noexcept nogil:
    cdef const unsigned char* a = &before.p[0][0]
    cdef const unsigned char* b = &play.p[0][0]
    cdef uint64_t h = 0
    cdef int k
    for k in range(2 * NSLOTS):
        h += (<uint64_t>b[k] - <uint64_t>a[k]) * KEY[k]
    return h


def hash_keys():
    """The 50 64-bit keys of the play key (see :func:`fastbg.reference.movegen.hash_keys`)."""
    return tuple(int(KEY[k]) for k in range(2 * NSLOTS))


def play_keys(board_before, plays):
    """The play keys of some plays of one position (the random policy's order).

    Parameters
    ----------
    board_before : array_like of int, shape (2, 25)
        The position before the roll, mover in row 0 (validated).
    plays : array_like of int, shape (n, 2, 25)
        Positions reached from it (mover's frame), not validated.

    Returns
    -------
    numpy.ndarray of uint64, shape (n,)
        ``sum((play - before) * KEY) mod 2**64`` over the 50 counts, with the keys
        of :func:`fastbg.reference.movegen.hash_keys`; equal to the key the move
        generator computes incrementally.
    """
    cdef board_t before
    load_board(board_before, &before)
    arr = np.ascontiguousarray(plays, dtype=np.int8)
    if arr.ndim != 3 or arr.shape[1] != 2 or arr.shape[2] != NSLOTS:
        raise ValueError(f"plays must have shape (n, 2, 25), got {arr.shape}")
    out = np.empty(arr.shape[0], dtype=np.uint64)
    cdef const board_t* p = <const board_t*>cnp.PyArray_DATA(arr)
    cdef uint64_t[::1] o = out
    cdef Py_ssize_t i
    for i in range(arr.shape[0]):
        o[i] = play_key(&before, &p[i])
    return out


cdef movegen_t* movegen_new() noexcept nogil:
    return <movegen_t*>calloc(1, sizeof(movegen_t))


cdef void movegen_free(movegen_t* g) noexcept nogil:
    free(g)


cdef int compare_boards(const void* a, const void* b) noexcept nogil:
    return board_cmp(a, b)


cdef void sort_plays(board_t* plays, int n) noexcept nogil:
    if n > 1:
        qsort(plays, n, sizeof(board_t), compare_boards)


# ---------------------------------------------------------------------------
# single moves on g.cur

cdef enum:
    BAR_BIT = 1 << 24           # the bar in an occupancy mask
    OUTSIDE_HOME = 0x1FFFFC0    # indices 6..24: checkers that forbid bearing off


cdef inline uint32_t legal_sources(uint32_t occ, uint32_t blk, int d) noexcept nogil:
    """Indices from which a checker may move d pips (bit set = legal).

    ``occ`` is the mover's occupancy, ``blk`` the opponent's blocks (mover's
    indices). A checker on the bar must enter first; landing needs an open
    point; bearing off needs every checker home and either the exact die or the
    highest occupied point.
    """
    # s >= d landing on s - d, not blocked (blk << d maps a blocked t to s = t + d)
    cdef uint32_t m = occ & ~(blk << d) & ~((<uint32_t>1 << d) - 1)
    if occ & BAR_BIT:
        return m & BAR_BIT
    if (occ & OUTSIDE_HOME) == 0 and occ != 0:
        m |= occ & (<uint32_t>1 << (d - 1))           # exact: from index d - 1
        if occ < (<uint32_t>1 << (d - 1)):
            m |= <uint32_t>1 << top_bit(occ)          # larger die: the highest checker
    return m


cdef int64_t linear_score(const linear_eval_t* ev, const board_t* b) noexcept nogil:
    cdef const unsigned char* me = b.p[0]
    cdef const unsigned char* op = b.p[1]
    cdef int i, left = 0
    for i in range(NSLOTS):
        left += me[i]
    if left == 0:
        return ev.win
    cdef int64_t s = ev.bar * op[BAR] + ev.off * (NCHECKERS - left)
    for i in range(24):
        # location L = i + 1: the mover's index i faces the opponent's index 23 - i
        s += ev.point[POINT_STRIDE * i + <int>me[i] - <int>op[23 - i] + 15]
    return s


# The search state that changes with every move -- occupancy, hash and score --
# lives in local variables (registers) of the generators and is passed down by
# value; only the board bytes are changed in place and undone. (Board bytes are
# `unsigned char`, which may alias anything, so state kept behind the `g`
# pointer would be reloaded after every byte store.)

cdef inline int move_checker(unsigned char* me, unsigned char* op, const linear_eval_t* ev,
                             int s, int t, uint32_t* occ, uint64_t* h,
                             int64_t* score) noexcept nogil:
    """Move one checker from index s to t (t < 0: off) on the board bytes.

    ``occ``, ``h`` and (if ``ev`` is not NULL) ``score`` are updated for the
    new position; the caller keeps the old values to undo. Returns 1 on a hit.
    """
    cdef const int64_t* row
    cdef int ms = me[s], mt
    cdef int hit = 0
    if ev != NULL and s < BAR:
        row = ev.point + (s * POINT_STRIDE + 15)
        score[0] += row[ms - 1] - row[ms]
    me[s] = <unsigned char>(ms - 1)
    if ms == 1:
        occ[0] &= ~(<uint32_t>1 << s)
    h[0] -= KEY[s]
    if t >= 0:
        mt = me[t]
        hit = op[23 - t] == 1
        if ev != NULL:
            row = ev.point + (t * POINT_STRIDE + 15)
            if hit:
                score[0] += row[1] - row[-1 + mt] + ev.bar   # n from -1 to 1 (mt == 0)
            else:
                score[0] += row[mt + 1] - row[mt]
        me[t] = <unsigned char>(mt + 1)
        occ[0] |= <uint32_t>1 << t
        h[0] += KEY[t]
        if hit:
            op[23 - t] = 0
            op[BAR] += 1
            h[0] += KEY[25 + BAR] - KEY[25 + 23 - t]
    elif ev != NULL:
        score[0] += ev.off
    return hit


cdef inline void unmove_checker(unsigned char* me, unsigned char* op,
                                int s, int t, int hit) noexcept nogil:
    """Undo move_checker on the board bytes."""
    me[s] += 1
    if t >= 0:
        me[t] -= 1
        if hit:
            op[23 - t] = 1
            op[BAR] -= 1


# ---------------------------------------------------------------------------
# recording plays

cdef inline void keep_best(movegen_t* g, int64_t score) noexcept nogil:
    """best_only: keep g.cur in plays[0] if it beats the play there (ties: canonical order)."""
    if g.n == 0 or score > g.best_score or (
        score == g.best_score and board_cmp(&g.cur, &g.plays[0]) < 0
    ):
        memcpy(&g.plays[0], &g.cur, sizeof(board_t))
        g.scores[0] = score
        g.best_score = score
        g.n = 1


cdef inline void insert_unique(movegen_t* g, uint64_t h, int64_t score) noexcept nogil:
    """Record g.cur (play key h) unless an equal position is already recorded (non-doubles)."""
    cdef unsigned int slot = <unsigned int>(h >> (64 - HASH_BITS))
    cdef hash_slot_t* e
    cdef unsigned int stamp = g.stamp
    if g.best_only:
        keep_best(g, score)        # a duplicate has the same score and board
        return
    while True:
        e = &g.table[slot]
        if e.stamp != stamp:
            if g.n >= MAX_PLAYS:
                g.overflow = 1
                return
            e.stamp = stamp
            e.h = h
            e.idx = g.n
            memcpy(&g.plays[g.n], &g.cur, sizeof(board_t))
            g.scores[g.n] = score
            g.keys[g.n] = h
            g.n += 1
            return
        if e.h == h and board_cmp(&g.plays[e.idx], &g.cur) == 0:
            return
        slot = (slot + 1) & (HASH_SIZE - 1)


cdef inline void record_depth(movegen_t* g, int depth, uint64_t h, int64_t score) noexcept nogil:
    """Record g.cur (play key h) as a play using `depth` dice (doubles): keep only the deepest."""
    if depth > g.best:
        g.best = depth
        g.n = 0
        g.overflow = 0
    if depth == g.best:
        if g.best_only:
            keep_best(g, score)
            return
        if g.n >= MAX_PLAYS:
            g.overflow = 1
            return
        memcpy(&g.plays[g.n], &g.cur, sizeof(board_t))
        g.scores[g.n] = score
        g.keys[g.n] = h
        g.n += 1


# ---------------------------------------------------------------------------
# generators

# gen_doubles comes in two compiled versions: with play keys (uint64_t) and, for
# best_only searches that record no keys, with a dummy key that is always 0, so
# the key updates are dead code the compiler removes.
ctypedef unsigned char no_key_t

ctypedef fused key_or_none:
    uint64_t
    no_key_t


cdef void gen_doubles(movegen_t* g, int d, int depth, int maxs, uint32_t occ,
                      key_or_none h, int64_t score) noexcept nogil:
    """Extend the current sequence (depth moves so far) with moves from sources <= maxs.

    ``occ``, ``h`` (play key, or 0 in the keyless version) and ``score`` describe
    g.cur. Distinct move multisets give distinct
    positions, so doubles need no hash.
    """
    cdef unsigned char* me = g.cur.p[0]
    cdef unsigned char* op = g.cur.p[1]
    cdef const linear_eval_t* ev = g.ev
    cdef uint32_t m = legal_sources(occ, g.blk, d) & ((<uint32_t>2 << maxs) - 1)
    cdef uint32_t occ1
    cdef uint64_t h1
    cdef int64_t sc1
    cdef int s, hit
    if m == 0:
        if depth > 0:
            record_depth(g, depth, h, score)
        return
    while m:
        s = top_bit(m)
        m ^= <uint32_t>1 << s
        occ1 = occ
        h1 = h
        sc1 = score
        hit = move_checker(me, op, ev, s, s - d, &occ1, &h1, &sc1)
        if key_or_none is no_key_t:
            h1 = 0
        if occ1 == 0:
            # Last checker off: the dice played so far are what counts.
            record_depth(g, depth + 1, h1, ev.win if ev != NULL else 0)
        elif depth == 3:
            record_depth(g, 4, h1, sc1)
        else:
            gen_doubles(g, d, depth + 1, s, occ1, <key_or_none>h1, sc1)
        unmove_checker(me, op, s, s - d, hit)


cdef inline bint gen_singles(movegen_t* g, int d, uint32_t occ, int64_t score) noexcept nogil:
    """Record every play of die d alone; True if there was one."""
    cdef unsigned char* me = g.cur.p[0]
    cdef unsigned char* op = g.cur.p[1]
    cdef const linear_eval_t* ev = g.ev
    cdef uint32_t m = legal_sources(occ, g.blk, d)
    cdef uint32_t occ1
    cdef uint64_t h1
    cdef int64_t sc1
    cdef int s, hit
    if m == 0:
        return False
    while m:
        s = top_bit(m)
        m ^= <uint32_t>1 << s
        occ1 = occ
        h1 = 0
        sc1 = score
        hit = move_checker(me, op, ev, s, s - d, &occ1, &h1, &sc1)
        if occ1 == 0 and ev != NULL:
            sc1 = ev.win
        insert_unique(g, h1, sc1)
        unmove_checker(me, op, s, s - d, hit)
    return True


cdef void gen_nondouble(movegen_t* g, int da, int db, uint32_t occ, int64_t score) noexcept nogil:
    """Both orders of dice (da, db), da > db; then single-die plays if needed."""
    cdef unsigned char* me = g.cur.p[0]
    cdef unsigned char* op = g.cur.p[1]
    cdef const linear_eval_t* ev = g.ev
    cdef uint32_t blk = g.blk
    cdef int order, x, y, s, s2, hit, hit2
    cdef uint32_t mx, my, occ1, occ2
    cdef uint64_t h1, h2
    cdef int64_t sc1, sc2
    # Larger-die moves legal from the start. In the second order, such a move
    # played second gives a play the first order already produced (the smaller
    # die stays legal after it: blocks never change, and a move only goes down),
    # so it is skipped.
    cdef uint32_t first_da = legal_sources(occ, blk, da)
    for order in range(2):
        x = da if order == 0 else db
        y = db if order == 0 else da
        mx = first_da if order == 0 else legal_sources(occ, blk, x)
        while mx:
            s = top_bit(mx)
            mx ^= <uint32_t>1 << s
            occ1 = occ
            h1 = 0
            sc1 = score
            hit = move_checker(me, op, ev, s, s - x, &occ1, &h1, &sc1)
            # With the last checker off after one die nothing more can move:
            # a one-die play, found below only if no play uses both dice.
            if occ1 != 0:
                my = legal_sources(occ1, blk, y)
                if order == 1:
                    my &= ~first_da
                while my:
                    s2 = top_bit(my)
                    my ^= <uint32_t>1 << s2
                    occ2 = occ1
                    h2 = h1
                    sc2 = sc1
                    hit2 = move_checker(me, op, ev, s2, s2 - y, &occ2, &h2, &sc2)
                    if occ2 == 0 and ev != NULL:
                        sc2 = ev.win
                    insert_unique(g, h2, sc2)
                    unmove_checker(me, op, s2, s2 - y, hit2)
            unmove_checker(me, op, s, s - x, hit)
    if g.n == 0:
        # No sequence uses both dice: the larger die if it can be played.
        if not gen_singles(g, da, occ, score):
            gen_singles(g, db, occ, score)


cdef int generate(movegen_t* g, const board_t* b, int d1, int d2,
                  const linear_eval_t* ev, bint best_only) noexcept nogil:
    cdef uint32_t occ = occupancy(b.p[0])
    cdef int64_t score = 0
    memcpy(&g.cur, b, sizeof(board_t))
    g.blk = blocks(b.p[1])
    g.ev = ev
    g.best_only = best_only and ev != NULL
    if ev != NULL:
        score = linear_score(ev, b)
    g.n = 0
    g.overflow = 0
    if occ == 0:
        return 0
    if d1 == d2:
        g.best = 0
        if g.best_only:
            gen_doubles(g, d1, 0, BAR, occ, <no_key_t>0, score)
        else:
            gen_doubles(g, d1, 0, BAR, occ, <uint64_t>0, score)
    else:
        g.best = 2
        g.stamp += 1
        if g.stamp == 0:            # wrapped: forget every slot
            memset(g.table, 0, HASH_SIZE * sizeof(hash_slot_t))
            g.stamp = 1
        if d1 > d2:
            gen_nondouble(g, d1, d2, occ, score)
        else:
            gen_nondouble(g, d2, d1, occ, score)
    if g.overflow:
        return -1
    return g.n


# One spare generator workspace for legal_plays: a fresh calloc of ~250 kB per
# call cost more than generating the plays. It is taken and given back while
# holding the GIL, so two threads never share it (a second concurrent caller
# gets a fresh workspace); generate() needs no clearing between calls.
cdef movegen_t* _spare = NULL


cdef movegen_t* take_workspace() noexcept:
    global _spare
    cdef movegen_t* g = _spare
    _spare = NULL
    if g == NULL:
        g = movegen_new()
    return g


cdef void give_workspace(movegen_t* g) noexcept:
    global _spare
    if _spare == NULL:
        _spare = g
    else:
        movegen_free(g)


cdef int check_dice(object d1, object d2) except -1:
    for name, d in (("d1", d1), ("d2", d2)):
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise ValueError(f"die {name} must be an int in 1..6, got {d!r}")
        if not 1 <= d <= 6:
            raise ValueError(f"die {name} must be in 1..6, got {int(d)}")
    return 0


def validate_dice(d1, d2):
    """Check two dice and return them as Python ints.

    Raises
    ------
    ValueError
        If a die is not an integer (``bool`` is refused too) or not in ``1..6``.
    """
    check_dice(d1, d2)
    return int(d1), int(d2)


def legal_plays(board, d1, d2):
    """Every distinct legal play of a roll, as resulting positions.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        The position, row 0 on roll (validated).
    d1, d2 : int
        The dice, each in 1..6 (order irrelevant).

    Returns
    -------
    numpy.ndarray of int8, shape (n, 2, 25)
        The resulting positions in the mover's frame (rows not swapped), distinct,
        in canonical order (lexicographic over the 50 bytes). ``n == 0`` means
        there is no legal play.

    Raises
    ------
    ValueError
        If the board is invalid or a die is not an integer in 1..6.
    """
    cdef board_t b
    load_board(board, &b)
    check_dice(d1, d2)
    cdef int a = d1, c = d2, n
    cdef movegen_t* g = take_workspace()
    if g == NULL:
        raise MemoryError()
    try:
        with nogil:
            n = generate(g, &b, a, c, NULL, False)
            if n > 0:
                sort_plays(g.plays, n)
        if n < 0:
            raise RuntimeError(f"more than {MAX_PLAYS} legal plays: buffer too small")
        out = np.empty((n, 2, NSLOTS), dtype=np.int8)
        if n:
            memcpy(cnp.PyArray_DATA(out), g.plays, n * sizeof(board_t))
        return out
    finally:
        give_workspace(g)


# ---------------------------------------------------------------------------
# perft: leaves of the game tree over all 21 rolls at each ply

cdef enum:
    MAX_PERFT_DEPTH = 16        # one generator workspace (~250 kB) per ply


cdef int64_t perft_c(movegen_t** gens, const board_t* b, int depth) noexcept nogil:
    """Leaves of the tree of depth ``depth`` below ``b`` (side in row 0 to roll), or -1.

    A finished game is one leaf; each of the 21 distinct rolls (not weighted)
    contributes, for each distinct play, the leaves below the resulting position
    with the turn passed, or, with no legal play, those below ``b`` itself with the
    turn passed. ``gens[depth - 1]`` is this ply's workspace, so the plays of a
    ply stay intact while deeper plies are searched. At depth 1 the leaves are
    counted without visiting them (bulk counting, as in chess perft). -1 reports
    a plays-buffer overflow.
    """
    cdef movegen_t* g
    cdef board_t child
    cdef int d1, d2, n, i
    cdef int64_t total = 0, sub
    if depth == 0 or outcome_c(b) >= 0:
        return 1
    g = gens[depth - 1]
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            n = generate(g, b, d1, d2, NULL, False)
            if n < 0:
                return -1
            if depth == 1:
                total += n if n > 0 else 1
            elif n == 0:
                swap_into(b, &child)
                sub = perft_c(gens, &child, depth - 1)
                if sub < 0:
                    return -1
                total += sub
            else:
                for i in range(n):
                    swap_into(&g.plays[i], &child)
                    sub = perft_c(gens, &child, depth - 1)
                    if sub < 0:
                        return -1
                    total += sub
    return total


def perft(board, depth):
    """Leaves of the game tree below a position over all 21 rolls at each ply.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        The position, row 0 about to roll (validated).
    depth : int
        Plies, ``0 <= depth <= 16``.

    Returns
    -------
    int
        ``perft(b, 0) = 1``; a finished game (either side has no checker left) is
        one leaf at any depth; otherwise ``perft(b, d)`` is the sum over the 21
        distinct rolls (not weighted by probability) of the sum over the distinct
        legal plays of ``perft(play with the turn passed, d - 1)``, where a roll
        with no legal play has one child, ``b`` with the turn passed.

    Raises
    ------
    ValueError
        If the board is invalid or ``depth`` is out of range.

    Notes
    -----
    Runs without the GIL, one move-generator workspace per ply.
    """
    cdef board_t b
    load_board(board, &b)
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, (int, np.integer)):
        raise ValueError(f"depth must be an int, got {depth!r}")
    if not 0 <= depth <= MAX_PERFT_DEPTH:
        raise ValueError(f"depth must be in 0..{MAX_PERFT_DEPTH}, got {int(depth)}")
    cdef int dep = depth, k
    cdef int64_t total
    cdef movegen_t* gens[MAX_PERFT_DEPTH]
    for k in range(MAX_PERFT_DEPTH):
        gens[k] = NULL
    try:
        for k in range(dep):
            gens[k] = movegen_new()
            if gens[k] == NULL:
                raise MemoryError()
        with nogil:
            total = perft_c(gens, &b, dep)
        if total < 0:
            raise RuntimeError(f"more than {MAX_PLAYS} legal plays: buffer too small")
        return int(total)
    finally:
        for k in range(dep):
            movegen_free(gens[k])
