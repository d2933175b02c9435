# cython: language_level=3
"""The opening roll of a game loop, with its luck for variance reduction (header-only):
shared by the cubeless loop (``rollout.pyx``) and the cubeful one (``cubeful.pyx``)."""
from numpy.random cimport bitgen_t
from fastbg._core._types cimport board_t
from fastbg._core.board cimport swap_into
from fastbg._core.dice cimport next_opening
from fastbg._core.movegen cimport movegen_t
from fastbg._core.eval cimport Policy
from fastbg._core.evaluator cimport EvalPolicy
from fastbg._core.luck cimport roll_slot, opening_mean, flip5


cdef inline int opening_turn_c(board_t* boards, bitgen_t* bg, const int* qr, int* qi,
                               int* a, int* b, bint vr, EvalPolicy ys, movegen_t* g,
                               Policy pf, int kpf, double* q, double* mean) noexcept nogil:
    # The opening roll of a game that starts at boards[0] (row 0 the root): sets the dice
    # a > b (next_opening: stratified or drawn) and returns the index, 0 or 1, of the board
    # of the side that moves first (boards[1] then holds the swapped start; it always does
    # with vr), or -1 on overflow. With vr: q[0..5) the yardstick's value of the roll that
    # came and mean[0..5) its mean over the 30 outcomes, both in the root's view (luck.pxd).
    cdef double v[105]
    cdef double v1[105]
    cdef int c
    if vr:
        swap_into(&boards[0], &boards[1])
        if ys.roll_values(g, &boards[0], v, pf, kpf) < 0 or \
                ys.roll_values(g, &boards[1], v1, pf, kpf) < 0:
            return -1
        opening_mean(v, v1, mean)
    if not next_opening(bg, qr, qi, a, b):
        if not vr:
            swap_into(&boards[0], &boards[1])
        if vr:
            flip5(&v1[5 * roll_slot(a[0], b[0])], q)
        return 1
    if vr:
        for c in range(5):
            q[c] = v[5 * roll_slot(a[0], b[0]) + c]
    return 0
