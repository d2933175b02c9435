# cython: language_level=3
"""One-sided bear-off database of the Cython core (mirror of fastbg.reference.bearoffdb).

For each of the 54,264 ways one side can have 0..15 checkers on its points 1..6,
the distribution of the number of rolls it needs to bear off (each roll played to
minimise the expected number of rolls, ties to the canonically first play), and
for the 15,504 positions with all 15 checkers on the board the distribution of
the rolls until its first checker is off (played to minimise that). The idea is
GNU Backgammon's one-sided bear-off database; the recursion, the index and the
race formulas are in fastbg/reference/bearoffdb.py's module doc, and the two
engines give bitwise identical numbers.

Life cycle: the small index tables are made at import; the database itself (about
14 MB) is built once per process by ensure_db(), which holds the GIL while its
nogil dynamic program runs (so no two threads build it), and is read-only after.
Call ensure_db() (e.g. in a policy's __init__) before any nogil look-up: the
look-ups below report "not built" instead of building.

Index of a side (row indices 0..5 = its points 1..6): the lexicographic rank of
(c[0], ..., c[5]) among all count tuples with total <= 15; 0 is the empty side.
"""
from fastbg._core._types cimport board_t

cdef enum:
    BO_POINTS = 6           # points covered: a side's 1..6 (row indices 0..5)
    BO_NPOS = 54264         # positions of one side, C(21, 6)
    BO_NFIRST = 15504       # positions with all 15 checkers on the board, C(20, 5)
    BO_K_OFF = 31           # entries of an `off` distribution: 0..30 rolls (30 = the real maximum)
    BO_K_FIRST = 11         # entries of a `first` distribution: 0..10 rolls (10 = the real maximum)
    BO_NOUT = 5             # outputs of bearoff_probabilities_c
    BO2_MAX = 6             # two-sided database: sides of up to 6 checkers on points 1..6
    BO2_SIDES = 924         # such sides, C(12, 6), slot 0 = no checker left


# --- The one-sided program's pieces, shared with the small-race database (racedb.pyx):
cdef void rolls_c(int* d1, int* d2, double* w) noexcept nogil
    # The 21 rolls in the database's fixed order (d1 = 1..6, d2 = 1..d1) and their
    # weights (1.0 a double, 2.0 else) into arrays of 21.

cdef int fill_dist_c(double* dst, const double* const* src, int K) noexcept nogil
    # dst[1..K-1] = (((0.0 + w_1 src_1[k]) + w_2 src_2[k]) + ...) / 36.0 over the 21
    # rolls in that order, src[r] the distribution after roll r's chosen play (NULL: dst
    # itself). dst[0] is left as it is. -1 if mass would fall on entry K, else 0.

cdef void tails_c(const double* dist, double* t, int K) noexcept nogil
    # t[k] = dist[k] + dist[k+1] + ... + dist[K-1], accumulated from the top down.


cdef int ensure_db() except -1
    # Build the database if this process has not yet (under the GIL; well under a second).
    # Raises MemoryError, or RuntimeError if a distribution would need more entries.

cdef bint db_ready() noexcept nogil
    # True once ensure_db() has succeeded.

cdef int position_index_c(const unsigned char* row) noexcept nogil
    # Index of a side from its row's indices 0..5 (counts 0..15, total <= 15; not checked).

cdef const double* off_dist_c(int index) noexcept nogil
    # The BO_K_OFF probabilities off[k] of rolls needed to bear off, or NULL if the
    # database is not built or index is out of range.

cdef double off_mean_c(int index) noexcept nogil
    # Expected rolls to bear off (-1.0 if not built or out of range).

cdef const double* first_dist_c(int index) noexcept nogil
    # The BO_K_FIRST probabilities first[k] of rolls until the first checker is off,
    # for a 15-checker position; NULL if not built or the position has < 15 checkers.

cdef bint is_bearoff_c(const board_t* b) noexcept nogil
    # Both sides have at least one checker left and every checker of both sides is
    # on its indices 0..5 (none on the bar or outside the home board). b is assumed
    # valid (as load_board leaves it).

cdef void bearoff_prefetch_c(const unsigned char* row) noexcept nogil
    # Ask the CPU to start loading the `off` distribution and its tails of a side (row indices 0..5,
    # assumed a valid bear-off side): a policy scoring many bear-off plays calls it for
    # every play first, so the table's cache misses overlap. No effect on results.

cdef int bearoff_probabilities_c(const board_t* b, double* p) noexcept nogil
    # p[0..4] = (win, win_gammon, win_backgammon, lose_gammon, lose_backgammon) of the
    # side in row 0, before its roll (formulas: fastbg.reference.bearoffdb). Returns 0,
    # or -1 (p untouched) if not is_bearoff_c(b) or the database is not built.


# --- The two-sided database: every pair of sides of 1..BO2_MAX checkers (923 x 923),
# the cubeless winning chance of the side on roll (each side maximising its own) and the
# money values of rolling with the cube centred / owned / owned by the opponent, exact up
# to rounding (the recursion and float order of fastbg.cube.bearoff.BearoffSolver).
# Built by ensure_db2() (under the GIL, well under a second, 27 MB), read-only after.

cdef int ensure_db2() except -1
    # Build the two-sided database if this process has not yet. MemoryError / RuntimeError.

cdef bint db2_ready() noexcept nogil

cdef int bearoff2_pair_c(const board_t* b) noexcept nogil
    # The pair index of b in the two-sided database (a bear-off with 1..BO2_MAX checkers
    # a side), or -1 if b is not in it. Works before the build (index only).

cdef double bearoff2_win_c(int pair) noexcept nogil
    # The cubeless winning chance of the side on roll of a pair (-1.0 if not built).
