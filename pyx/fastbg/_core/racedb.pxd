# cython: language_level=3
"""Small-race one-sided database of the Cython core (mirror of fastbg.reference.racedb).

For each of the C(24 + RD_MAX, RD_MAX) ways one side can have 0..RD_MAX checkers on its
points 1..24 (none on the bar), the distribution of the number of rolls it needs to bear
them all off with no opponent in its way, each roll played to minimise the expected
number of rolls (ties to the canonically first play): the one-sided bear-off database's
recursion, roll order, weights and float order (bearoffdb.pxd's rolls_c, fill_dist_c,
tails_c), over the whole board. The evaluator reads races of at most RD_MAX checkers a
side outside the home-board database from it (docs/evaluator.md).

Index of a side: the lexicographic rank of (c[0], ..., c[23]) among all count tuples with
total <= RD_MAX; 0 is the empty side. Life cycle: built once per process by
ensure_racedb() (under the GIL, well under a second; 5.6 MB), read-only after.
"""
from fastbg._core._types cimport board_t

cdef enum:
    RD_MAX = 4              # most checkers a side may have left
    RD_POINTS = 24          # points covered: a side's 1..24 (row indices 0..23)
    RD_NPOS = 20475         # positions of one side, C(24 + RD_MAX, RD_MAX)
    RD_K = 33               # entries of a distribution: 0..32 rolls (24 * RD_MAX / 3 = the maximum)


cdef int ensure_racedb() except -1
    # Build the database if this process has not yet. MemoryError, or RuntimeError if a
    # distribution would need more entries or a play buffer overflowed.

cdef bint racedb_ready() noexcept nogil
    # True once ensure_racedb() has succeeded.

cdef int race_index_c(const unsigned char* row) noexcept nogil
    # Index of a side from its row's indices 0..23 (at most RD_MAX checkers; not checked).

cdef bint is_small_race_c(const board_t* b) noexcept nogil
    # A race (no contact), not a home-board bear-off (a checker of a side beyond its
    # 6-point), each side with 1..RD_MAX checkers left. b is assumed valid.

cdef int racedb_probabilities_c(const board_t* b, double* p) noexcept nogil
    # p[0..4] = (win, 0, 0, 0, 0) of the side in row 0 before its roll: win = sum_k P[k]
    # TQ[k] (bearoffdb's race sum and order) clipped to [0, 1]. Returns 0, or -1
    # (p untouched) if not is_small_race_c(b) or the database is not built.
