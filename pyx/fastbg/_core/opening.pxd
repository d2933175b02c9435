# cython: language_level=3
"""The opening roll of a game loop, with its luck for variance reduction (header-only):
shared by the cubeless loop (``rollout.pyx``) and the cubeful one (``cubeful.pyx``)."""
from numpy.random cimport bitgen_t
from fastbg._core._types cimport board_t
from fastbg._core.board cimport swap_into
from fastbg._core.dice cimport next_opening
from fastbg._core.movegen cimport movegen_t
from fastbg._core.eval cimport Policy
from fastbg._core.evaluator cimport EvalPolicy, nply_set_t, yard_values
from fastbg._core.luck cimport roll_slot, opening_mean, flip5


cdef inline int opening_turn_c(board_t* boards, bitgen_t* bg, const int* qr, int* qi,
                               int* a, int* b, bint vr, EvalPolicy ys, movegen_t* g,
                               Policy pf, int kpf, double* q, double* mean) noexcept nogil:
    # opening_turn_nply_c with the yardstick at 0 ply (no n-ply set).
    return opening_turn_nply_c(boards, bg, qr, qi, a, b, vr, ys, NULL, g, pf, kpf, q, mean)


cdef inline int opening_turn_nply_c(board_t* boards, bitgen_t* bg, const int* qr, int* qi,
                                    int* a, int* b, bint vr, EvalPolicy ys, nply_set_t* ls,
                                    movegen_t* g, Policy pf, int kpf, double* q,
                                    double* mean) noexcept nogil:
    # The opening roll of a game that starts at boards[0] (row 0 the root): sets the dice
    # a > b (next_opening: stratified or drawn) and returns the index, 0 or 1, of the board
    # of the side that moves first (boards[1] then holds the swapped start; it always does
    # with vr), or -1 on overflow. With vr: q[0..5) the yardstick's value of the roll that
    # came and mean[0..5) its mean over the 30 outcomes, both in the root's view (luck.pxd);
    # the yardstick values the rolls at ls's ply (yard_values; ls NULL: 0 ply).
    cdef double v[105]
    cdef double v1[105]
    cdef int c
    if vr:
        swap_into(&boards[0], &boards[1])
        if yard_values(ys, ls, g, &boards[0], v, pf, kpf) < 0 or \
                yard_values(ys, ls, g, &boards[1], v1, pf, kpf) < 0:
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
