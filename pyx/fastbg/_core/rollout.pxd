# cython: language_level=3
"""The game loop and rollout blocks (GIL released)."""
from libc.stdint cimport int64_t
from numpy.random cimport bitgen_t
from fastbg._core._types cimport board_t
from fastbg._core.movegen cimport movegen_t
from fastbg._core.eval cimport Policy


cdef int play_game_c(const board_t* start, bitgen_t* bg, Policy policy, movegen_t* g,
                     int d1, int d2, bint opening, const int* q) noexcept nogil
    # Play one game from `start` (row 0 about to roll) to the end and return the
    # outcome class 0..5 from row 0's point of view, or -1 if a roll had more
    # than MAX_PLAYS plays. First roll: (d1, d2) if d1 > 0, else the opening roll
    # if `opening`, else a normal roll. `g` is the caller's workspace. Quasi-random
    # dice: q[0], q[1] are the roll indices of the game's first two random rolls (the
    # opening roll's outcome 6 (a - 1) + (b - 1)), -1 = drawn; q may be NULL (all drawn).


cdef const int* check_qrolls(object qrolls, int64_t games, bint opening, object keep) except? NULL
    # The (games, 2) int32 table of quasi-random first rolls, checked (ValueError), or NULL
    # for None; `keep` (a list) holds the array alive while the pointer is used.

cdef void* out_array(object arr, tuple shape, object dtype, str name) except? NULL
    # The data of an output array of the caller's (ValueError unless a writeable contiguous
    # array of that dtype and shape), or NULL for None.

cdef int check_prefilter(object prefilter) except -1
    # The yardstick's prefilter, pubeval's k best plays a roll (0 = all), checked: 0..64.

cdef const unsigned char* check_stop(object stop, object keep) except? NULL
    # The stop flag of a block (None: NULL): a uint8 array of one element, checked
    # (ValueError); `keep` (a list) holds it alive while the pointer is used.

cdef inline bint stop_requested(const volatile unsigned char* stop) noexcept nogil:
    # Whether another thread set the block's stop flag (read afresh each time: volatile).
    # The block loops ask it between games, so a block abandoned by its run stops within
    # one game instead of playing to its end.
    return stop != NULL and stop[0] != 0
