# cython: language_level=3
"""Board primitives of the Cython core: side swap, pip counts, race test, outcome.

All kernels are ``inline ... noexcept nogil`` so that movegen, eval and rollout
compile them into their own loops. ``board.pyx`` adds validation (``load_board``)
and the ``def`` wrappers with the names and semantics of ``fastbg.reference.board``.
"""
from libc.string cimport memcpy
from fastbg._core._types cimport board_t, BAR, NSLOTS, NCHECKERS


cdef inline void swap_into(const board_t* src, board_t* dst) noexcept nogil:
    """Write ``src`` with its rows exchanged into ``dst`` (``dst != src``)."""
    memcpy(dst.p[0], src.p[1], NSLOTS)
    memcpy(dst.p[1], src.p[0], NSLOTS)


cdef inline int row_sum(const unsigned char* row) noexcept nogil:
    """Checkers of one side on its points and bar."""
    cdef int i, s = 0
    for i in range(NSLOTS):
        s += row[i]
    return s


cdef inline int checkers_c(const unsigned char* row) noexcept nogil:
    """row_sum of a valid row (counts 0..15, at most 15 in all), eight slots at a time:
    every byte of the summed words, and every partial sum of the multiply that adds
    them up, is at most 15, so no carry crosses a byte."""
    cdef unsigned long long a, b, c
    memcpy(&a, row, 8)
    memcpy(&b, row + 8, 8)
    memcpy(&c, row + 16, 8)
    return <int>(((a + b + c) * 0x0101010101010101ULL) >> 56) + row[24]


cdef inline int pip_count_row(const unsigned char* row) noexcept nogil:
    """Pips one side needs to bear off: sum of (index + 1) x count, bar = 25."""
    cdef int i, s = 0
    for i in range(NSLOTS):
        s += (i + 1) * row[i]
    return s


cdef extern from *:
    """
    static inline int fastbg_clz64(unsigned long long x) { return __builtin_clzll(x); }
    """
    int fastbg_clz64(unsigned long long x) noexcept nogil


cdef inline int back_point_c(const unsigned char* row) noexcept nogil:
    """A side's highest occupied point (1..24, bar = 25), 0 if it has none left.

    ``row`` is one of a board's 25-slot rows; read eight slots at a time.
    """
    cdef unsigned long long w
    memcpy(&w, row + 17, 8)                 # slots 17..24
    if w:
        return 18 + ((63 - fastbg_clz64(w)) >> 3)
    memcpy(&w, row + 9, 8)                  # slots 9..16
    if w:
        return 10 + ((63 - fastbg_clz64(w)) >> 3)
    memcpy(&w, row + 1, 8)                  # slots 1..8
    if w:
        return 2 + ((63 - fastbg_clz64(w)) >> 3)
    return 1 if row[0] else 0


cdef inline bint is_race_c(const board_t* b) noexcept nogil:
    """No contact left: ``my_back + opp_back < 25`` (engine contract)."""
    return back_point_c(b.p[0]) + back_point_c(b.p[1]) < 25


cdef inline int loser_class(const unsigned char* loser) noexcept nogil:
    """0 single, 1 gammon, 2 backgammon for the side that did not bear off.

    Single if the loser has a checker off; with none off, backgammon if it has a
    checker on its bar or in the winner's home board (its own indices 18..23),
    else gammon.
    """
    cdef int i
    if row_sum(loser) < NCHECKERS:
        return 0
    for i in range(18, NSLOTS):
        if loser[i]:
            return 2
    return 1


cdef inline int outcome_c(const board_t* b) noexcept nogil:
    """Outcome class 0..5 from row 0's point of view, or -1 if the game is not over.

    Row 0 wins when it has no checker left (classes 0..2), loses when row 1 has
    none (classes 3..5).
    """
    if row_sum(b.p[0]) == 0:
        return loser_class(b.p[1])
    if row_sum(b.p[1]) == 0:
        return 3 + loser_class(b.p[0])
    return -1


cdef inline bint closed_home_c(const unsigned char* row) noexcept nogil:
    """Six points of two or more checkers in the side's home board (indices 0..5)."""
    cdef int i
    for i in range(6):
        if row[i] < 2:
            return False
    return True


cdef inline bint no_side_can_move_c(const board_t* b) noexcept nogil:
    """Neither side can ever move: both have checkers on the bar against a closed home
    board, so every roll of either side passes and a game from here never ends (no play
    leads here: only a start given by a caller can be like this)."""
    return (b.p[0][BAR] != 0 and b.p[1][BAR] != 0
            and closed_home_c(b.p[0]) and closed_home_c(b.p[1]))


cdef int load_board(object board, board_t* out) except -1
cdef int check_start_c(const board_t* b) except -1
    # Refuse (ValueError) a start no game can be played from: the game is over (a side
    # has no checker left), or no_side_can_move_c. Every block loop of the core
    # (cubeless, cubeful, match games) calls it before its first game; mirror of
    # fastbg.reference.board.check_start, with its messages.
cdef object board_to_array(const board_t* b)
