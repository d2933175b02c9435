# cython: language_level=3
"""Legal plays as distinct resulting positions (DESIGN section 3).

The generator walks the checkers depth-first, moving in place and undoing:
for a non-double it tries both dice orders and de-duplicates the resulting
positions in an open-addressing hash table; for a double it only extends a
sequence with moves from source points no higher than the previous source, which
visits every multiset of moves exactly once (so no de-duplication is needed:
distinct multisets of moves of one die give distinct positions). The dice rules
(play as many dice as possible; the larger die when only one can be played; a
sequence bearing off the last checker uses all dice) are applied while generating.
"""
from libc.stdint cimport uint64_t
from fastbg._core._types cimport board_t, MAX_PLAYS, HASH_SIZE


cdef struct hash_slot_t:
    uint64_t h              # hash of the play stored in this slot
    unsigned int stamp      # slot is live only when stamp == movegen_t.stamp
    int idx                 # index of the play in movegen_t.plays


cdef struct movegen_t:
    board_t cur             # working position (mover's frame), moved and undone in place
    uint64_t h              # linear hash of cur minus the starting position
    int n                   # plays written to `plays`
    int best                # dice used by the plays in `plays` (doubles; 2 for non-doubles)
    int overflow            # 1 if more than MAX_PLAYS plays were needed (result invalid)
    unsigned int stamp      # generation counter for `table` (no clearing between calls)
    hash_slot_t table[HASH_SIZE]   # de-duplication of non-double plays
    board_t plays[MAX_PLAYS]       # the distinct resulting positions, mover's frame, unsorted


cdef movegen_t* movegen_new() noexcept nogil
    # A zeroed workspace from malloc (about 220 kB), or NULL if out of memory.
cdef void movegen_free(movegen_t* g) noexcept nogil

cdef int generate(movegen_t* g, const board_t* b, int d1, int d2) noexcept nogil
    # Fill g.plays with the distinct legal plays of dice (d1, d2), both in 1..6, for
    # the side in row 0 of b (b is not modified). Returns their number (0: no legal
    # play), or -1 if they did not fit in MAX_PLAYS. Order is unspecified.

cdef void sort_plays(board_t* plays, int n) noexcept nogil
    # Sort plays into canonical order (lexicographic over the 50 bytes).

cdef int compare_boards(const void* a, const void* b) noexcept nogil
    # memcmp of two boards: the canonical order.
