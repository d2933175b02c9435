# cython: language_level=3
"""Legal plays as distinct resulting positions (DESIGN section 3).

The generator walks the checkers depth-first, moving in place and undoing. The
sources that may move a die are found with bit operations on two masks: the
mover's occupied indices and the points the opponent blocks (the latter does not
change during a play: a hit only removes a lone checker). For a non-double it
tries both dice orders; in the second order (smaller die first) it skips a larger-
die move that was already legal in the starting position, because that sequence
was produced in the first order; the remaining duplicates (one checker's two
moves reached by two paths) are removed with an open-addressing hash table. For a
double it only extends a sequence with moves from source points no higher than
the previous source, which visits every multiset of moves exactly once (so no
de-duplication is needed: distinct multisets of moves of one die give distinct
positions). The dice rules (play as many dice as possible; the larger die when
only one can be played; dice count as actually played, also when the last
checker goes off) are applied while generating.

The search state that changes with each move (occupancy mask, hash, score) is
kept in local variables and passed down by value; only the board bytes in
``movegen_t.cur`` are changed in place and undone.

Given a linear evaluation (``linear_eval_t``, e.g. pubeval), the generator also
scores every play incrementally, a few table look-ups per checker move.
"""
from libc.stdint cimport int64_t, uint32_t, uint64_t
from fastbg._core._types cimport board_t, linear_eval_t, MAX_PLAYS, HASH_SIZE


cdef struct hash_slot_t:
    uint64_t h              # hash of the play stored in this slot
    unsigned int stamp      # slot is live only when stamp == movegen_t.stamp
    int idx                 # index of the play in movegen_t.plays


cdef struct movegen_t:
    board_t cur             # working position (mover's frame), moved and undone in place
    uint32_t blk            # bit t set iff the opponent has >= 2 on the mover's index t (0..23)
    const linear_eval_t* ev # evaluation to score plays with, or NULL
    int best_only           # 1: keep only the best play under ev (plays[0], n = 1)
    int64_t best_score      # its score (when best_only)
    int n                   # plays written to `plays`
    int best                # dice used by the plays in `plays` (doubles; 2 for non-doubles)
    int overflow            # 1 if more than MAX_PLAYS plays were needed (result invalid)
    unsigned int stamp      # generation counter for `table` (no clearing between calls)
    hash_slot_t table[HASH_SIZE]   # de-duplication of non-double plays
    board_t plays[MAX_PLAYS]       # the distinct resulting positions, mover's frame, unsorted
    int64_t scores[MAX_PLAYS]      # ev's score of each play (when ev != NULL)
    uint64_t keys[MAX_PLAYS]       # play key of each play (see play_key), unless best_only


cdef movegen_t* movegen_new() noexcept nogil
    # A zeroed workspace from calloc (about 250 kB), or NULL if out of memory.
cdef void movegen_free(movegen_t* g) noexcept nogil

cdef int generate(movegen_t* g, const board_t* b, int d1, int d2,
                  const linear_eval_t* ev, bint best_only) noexcept nogil
    # Fill g.plays with the distinct legal plays of dice (d1, d2), both in 1..6, for
    # the side in row 0 of b (b is not modified), and g.scores with their scores
    # under ev unless ev is NULL, and g.keys with their play keys. Returns their number (0: no legal play), or -1
    # if they did not fit in MAX_PLAYS. Order is unspecified.
    # With best_only (ev not NULL), keep only the play of highest score, ties to
    # the canonically first, in g.plays[0] and return 1 (0 if there is no legal
    # play): no hash, no copy of the other plays.

cdef uint64_t play_key(const board_t* before, const board_t* play) noexcept nogil
    # sum over the 50 counts of (play - before) * KEY, wrapping: the key of a play,
    # which the generator also computes incrementally into g.keys. The random
    # policy's order is by key, ties by canonical order.

cdef int64_t linear_score(const linear_eval_t* ev, const board_t* b) noexcept nogil
    # Full evaluation of one position (mover's frame) under ev.

cdef void sort_plays(board_t* plays, int n) noexcept nogil
    # Sort plays into canonical order (lexicographic over the 50 bytes).

cdef int compare_boards(const void* a, const void* b) noexcept nogil
    # memcmp of two boards: the canonical order.
