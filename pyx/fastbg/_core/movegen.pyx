# cython: language_level=3
"""Legal plays as distinct resulting positions (see movegen.pxd for the algorithm).

``legal_plays`` mirrors :func:`fastbg.reference.movegen.legal_plays`.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free, qsort
from libc.string cimport memcmp, memcpy, memset

from fastbg._core._types cimport (
    board_t, BAR, NSLOTS, HOME_TOP, MAX_PLAYS, HASH_BITS, HASH_SIZE,
)
from fastbg._core.board cimport load_board

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


cdef movegen_t* movegen_new() noexcept nogil:
    return <movegen_t*>calloc(1, sizeof(movegen_t))


cdef void movegen_free(movegen_t* g) noexcept nogil:
    free(g)


cdef int compare_boards(const void* a, const void* b) noexcept nogil:
    return memcmp(a, b, 50)


cdef void sort_plays(board_t* plays, int n) noexcept nogil:
    if n > 1:
        qsort(plays, n, sizeof(board_t), compare_boards)


# ---------------------------------------------------------------------------
# single moves on g.cur

cdef inline int find_hi(const unsigned char* me, int start) noexcept nogil:
    """Highest occupied index <= start, or -1 if none."""
    while start >= 0 and me[start] == 0:
        start -= 1
    return start


cdef inline bint can_move(const unsigned char* op, int hi, int s, int d) noexcept nogil:
    """May the checker on index s (occupied; s == BAR if the bar is occupied) move d?

    ``hi`` is the mover's highest occupied index.
    """
    cdef int t = s - d
    if t >= 0:
        return op[23 - t] < 2
    # bearing off: all checkers home, exact die or from the highest point
    if hi > HOME_TOP:
        return False
    return t == -1 or s == hi


cdef inline int apply_move(movegen_t* g, int s, int t) noexcept nogil:
    """Move one checker from index s to t (t < 0: off); returns 1 if it hit."""
    cdef unsigned char* me = g.cur.p[0]
    cdef unsigned char* op = g.cur.p[1]
    me[s] -= 1
    g.h -= KEY[s]
    if t >= 0:
        me[t] += 1
        g.h += KEY[t]
        if op[23 - t] == 1:
            op[23 - t] = 0
            op[BAR] += 1
            g.h += KEY[25 + BAR] - KEY[25 + 23 - t]
            return 1
    return 0


cdef inline void undo_move(movegen_t* g, int s, int t, int hit) noexcept nogil:
    cdef unsigned char* me = g.cur.p[0]
    cdef unsigned char* op = g.cur.p[1]
    me[s] += 1
    g.h += KEY[s]
    if t >= 0:
        me[t] -= 1
        g.h -= KEY[t]
        if hit:
            op[23 - t] = 1
            op[BAR] -= 1
            g.h -= KEY[25 + BAR] - KEY[25 + 23 - t]


# ---------------------------------------------------------------------------
# recording plays

cdef inline void insert_unique(movegen_t* g) noexcept nogil:
    """Record g.cur unless an equal position is already recorded (non-doubles)."""
    cdef uint64_t h = g.h
    cdef unsigned int slot = <unsigned int>(h >> (64 - HASH_BITS))
    cdef hash_slot_t* e
    while True:
        e = &g.table[slot]
        if e.stamp != g.stamp:
            if g.n >= MAX_PLAYS:
                g.overflow = 1
                return
            e.stamp = g.stamp
            e.h = h
            e.idx = g.n
            g.plays[g.n] = g.cur
            g.n += 1
            return
        if e.h == h and memcmp(&g.plays[e.idx], &g.cur, 50) == 0:
            return
        slot = (slot + 1) & (HASH_SIZE - 1)


cdef inline void record_depth(movegen_t* g, int depth) noexcept nogil:
    """Record g.cur as a play using `depth` dice (doubles): keep only the deepest."""
    if depth > g.best:
        g.best = depth
        g.n = 0
        g.overflow = 0
    if depth == g.best:
        if g.n >= MAX_PLAYS:
            g.overflow = 1
            return
        g.plays[g.n] = g.cur
        g.n += 1


# ---------------------------------------------------------------------------
# generators

cdef void gen_doubles(movegen_t* g, int d, int depth, int maxs, int hi) noexcept nogil:
    """Extend the current sequence with moves from sources <= maxs."""
    cdef unsigned char* me = g.cur.p[0]
    cdef unsigned char* op = g.cur.p[1]
    cdef bint moved = False
    cdef int s, lo, hit, hi1
    if depth < 4:
        s = maxs if maxs < hi else hi
        lo = BAR if hi == BAR else 0
        while s >= lo:
            if me[s] and can_move(op, hi, s, d):
                moved = True
                hit = apply_move(g, s, s - d)
                hi1 = hi if me[hi] else find_hi(me, hi - 1)
                if hi1 < 0:
                    record_depth(g, 4)      # last checker off: all dice used
                else:
                    gen_doubles(g, d, depth + 1, s, hi1)
                undo_move(g, s, s - d, hit)
            s -= 1
    if not moved and depth > 0:
        record_depth(g, depth)


cdef inline bint gen_singles(movegen_t* g, int d, int hi) noexcept nogil:
    """Record every play of die d alone; True if there was one."""
    cdef unsigned char* me = g.cur.p[0]
    cdef unsigned char* op = g.cur.p[1]
    cdef int s, hit
    cdef int lo = BAR if hi == BAR else 0
    cdef bint found = False
    s = hi
    while s >= lo:
        if me[s] and can_move(op, hi, s, d):
            found = True
            hit = apply_move(g, s, s - d)
            insert_unique(g)
            undo_move(g, s, s - d, hit)
        s -= 1
    return found


cdef void gen_nondouble(movegen_t* g, int da, int db) noexcept nogil:
    """Both orders of dice (da, db), da > db; then single-die plays if needed."""
    cdef unsigned char* me = g.cur.p[0]
    cdef unsigned char* op = g.cur.p[1]
    cdef int order, x, y, s, s2, lo, lo2, hit, hit2, hi1
    cdef int hi = find_hi(me, BAR)
    if hi < 0:
        return
    lo = BAR if hi == BAR else 0
    for order in range(2):
        x = da if order == 0 else db
        y = db if order == 0 else da
        s = hi
        while s >= lo:
            if me[s] and can_move(op, hi, s, x):
                hit = apply_move(g, s, s - x)
                hi1 = hi if me[hi] else find_hi(me, hi - 1)
                if hi1 < 0:
                    insert_unique(g)        # last checker off: all dice used
                else:
                    lo2 = BAR if hi1 == BAR else 0
                    s2 = hi1
                    while s2 >= lo2:
                        if me[s2] and can_move(op, hi1, s2, y):
                            hit2 = apply_move(g, s2, s2 - y)
                            insert_unique(g)
                            undo_move(g, s2, s2 - y, hit2)
                        s2 -= 1
                undo_move(g, s, s - x, hit)
            s -= 1
    if g.n == 0:
        # No sequence uses both dice: the larger die if it can be played.
        if not gen_singles(g, da, hi):
            gen_singles(g, db, hi)


cdef int generate(movegen_t* g, const board_t* b, int d1, int d2) noexcept nogil:
    cdef int hi
    g.cur = b[0]
    g.h = 0
    g.n = 0
    g.overflow = 0
    if d1 == d2:
        g.best = 0
        hi = find_hi(g.cur.p[0], BAR)
        if hi >= 0:
            gen_doubles(g, d1, 0, BAR, hi)
    else:
        g.best = 2
        g.stamp += 1
        if g.stamp == 0:            # wrapped: forget every slot
            memset(g.table, 0, HASH_SIZE * sizeof(hash_slot_t))
            g.stamp = 1
        if d1 > d2:
            gen_nondouble(g, d1, d2)
        else:
            gen_nondouble(g, d2, d1)
    if g.overflow:
        return -1
    return g.n


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
    cdef movegen_t* g = movegen_new()
    if g == NULL:
        raise MemoryError()
    try:
        with nogil:
            n = generate(g, &b, a, c)
            if n > 0:
                sort_plays(g.plays, n)
        if n < 0:
            raise RuntimeError(f"more than {MAX_PLAYS} legal plays: buffer too small")
        out = np.empty((n, 2, NSLOTS), dtype=np.int8)
        if n:
            memcpy(cnp.PyArray_DATA(out), g.plays, n * sizeof(board_t))
        return out
    finally:
        movegen_free(g)
