# cython: language_level=3
"""A TD-Gammon style neural network: encoding, forward pass, 0-ply policy, TD(0) training.

Encoding (Tesauro 1992, "Practical issues in temporal difference learning"; 1995,
"Temporal difference learning and TD-Gammon"), in fastbg's perspective-relative
frame: for side s (0 = on roll, 1 = opponent, each in its own numbering) and
index i (0..23) the four units at ``98 s + 4 i + u`` are n >= 1, n >= 2, n >= 3
(value 1.0) and (n - 3) / 2 when n > 3; ``98 s + 96`` is bar / 2 and ``98 s + 97``
is off / 15. Tesauro's two turn units are constant here (row 0 is always on roll)
and are dropped: NN_INPUTS = 196.

Network: NN_INPUTS -> nh sigmoid hidden units -> NN_OUTPUTS sigmoid outputs, the
raw estimates of (win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)
for the side on roll before it rolls (DESIGN section 5).

Determinism with the pure-Python engine (:mod:`fastbg.reference.nn`). The
training network (``Net``, ``forward``): every floating sum is taken in one fixed
order (hidden unit j: b1[j], then the active inputs by increasing index; output k:
b2[k], then hidden units by increasing j), each step one IEEE multiply and one add
(no FMA: -ffp-contract=off), and the sigmoid is a table read with linear
interpolation by the same operations in both engines. Both sigmoid tables (output and
hidden) are data files loaded by fastbg.reference.nn (sigmoid_table, hidden_table),
not computed with the platform's exp, so they have the same bits on every CPU.
The policy's network (``NNPolicy``, ``qnet_t``) is in integers up to the output
sigmoid (fastbg.reference.nn.quantize): integer sums do not depend on their order,
so the core may update them incrementally and vectorise them (nn_kernels.h, AVX2 or
baseline, chosen at load time) and still match numpy exactly. So both engines get
bitwise equal outputs and choose the same play, ties included.
"""
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t
from fastbg._core._types cimport board_t, NCHECKERS
from fastbg._core.eval cimport Policy, Evaluator
from fastbg._core.movegen cimport movegen_t

cdef enum:
    NN_INPUTS = 196         # 2 sides x (24 points x 4 units + bar + off)
    NN_SIDE = 98            # units per side
    NN_OUTPUTS = 5          # win, win_gammon, win_backgammon, lose_gammon, lose_backgammon
    NN_MAX_HIDDEN = 512     # upper bound on nh (stack buffers)
    NN_MAX_ACTIVE = 196     # at most every input active
    SIG_STEPS = 2048        # intervals of the sigmoid table on [-SIG_LIMIT, SIG_LIMIT]

# Table sigmoid (sigmoid_t): x is clamped to [-16, 16], t = (x + 16) * 64,
# k = min(int(t), SIG_STEPS - 1), y = T[k] + (t - k) * (T[k + 1] - T[k]).


cdef struct net_t:
    int nh                  # hidden units, 1..NN_MAX_HIDDEN
    double* w1              # [NN_INPUTS][nh]: input i's weights to every hidden unit (row-major)
    double* b1              # [nh]
    double* w2              # [NN_OUTPUTS][nh]
    double* b2              # [NN_OUTPUTS]
    const double* sig       # [SIG_STEPS + 1]: the sigmoid table


cdef class Net:
    # Owns the weight arrays (float64, C-contiguous) and exposes them as a net_t.
    cdef net_t c
    cdef readonly object w1, b1, w2, b2, sig


# The policy's network in integers up to the output sigmoid (fastbg.reference.nn.quantize):
# a play's hidden pre-activations are those of the position before the roll corrected
# at the points the play changes, with the same result as a full sum; the hidden
# sigmoid is an int16 table and the output layer an exact int32 dot product.
ctypedef int32_t qpre_t

cdef enum:
    H_SIZE = 8192           # hidden sigmoid bins on [-8, 8), 512 per unit
    H_SHIFT = 7             # pre-activation units (2**-16) per bin
    H_OFFSET = 524288       # 8 << 16
    H_MAXV = 1048575        # (16 << 16) - 1
    Q_MAX_SLOTS = 51        # add or sub rows q_play_rows may return: 50 slots, the off count
    Q_MAX_ROWS = 52         # rows q_rows may return: 50 slots and two off counts

cdef struct qnet_t:
    int nh
    const int32_t* point    # [2][25][16][nh]: n checkers of side s on index i (24 = bar)
    const int32_t* dpoint   # [2][25][16][nh]: point[s][i][n + 1] - point[s][i][n] (n < 15;
                            # int32 wrapping, exact in the sums): one row per checker step
    const int32_t* off      # [2][16][nh]: n checkers of side s off
    const int32_t* bias     # [nh]
    const int32_t* htab     # [H_SIZE]: hidden sigmoid, units of 1/16384 (int32 compiles better)
    const int16_t* w2       # [NN_OUTPUTS][nh], units of 2**-w_bits
    const int32_t* b2       # [NN_OUTPUTS], units of 2**-(14 + w_bits)
    double out_scale        # 2**-(14 + w_bits)
    const double* sig       # [SIG_STEPS + 1]: the output sigmoid


cdef class NNPolicy(Evaluator):
    # 0-ply: the play maximising the mover's cubeless equity, ties to the
    # canonically first play. Holds its own snapshot of the weights (tables of
    # qnet_t), read-only, so one instance may be used from several threads.
    cdef readonly Net net
    cdef qnet_t q
    cdef readonly object tables     # the numpy arrays behind q


cdef int encode(const board_t* b, int* idx, double* val) noexcept nogil
    # Active inputs of b (side on roll in row 0), by increasing index; returns their number.

cdef double sigmoid_t(const double* table, double x) noexcept nogil

cdef void forward(const net_t* net, const board_t* b, double* h, double* raw) noexcept nogil
    # Hidden activations h[nh] and raw outputs raw[5] of b (row 0 on roll).

cdef void q_pre(const qnet_t* q, const board_t* b, qpre_t* pre) noexcept nogil
    # The hidden pre-activations of b in exact integers: bias plus the table rows of
    # every (side, point, count) and (side, off count).

cdef void q_pre_play(const qnet_t* q, const board_t* before, const qpre_t* base,
                     const board_t* play, qpre_t* pre) noexcept nogil
    # The pre-activations of swap(play) (the opponent on roll after the mover's play),
    # from `base`, those of swap(before): only the slots the play changes are corrected
    # (and the mover's off count). Equal to q_pre(q, swap(play)).

cdef int q_rows(const qnet_t* q, const board_t* b, const int32_t** rows) noexcept nogil
    # The m (returned, <= Q_MAX_ROWS) table rows whose sum plus the bias is q_pre(q, b).

cdef extern from "nn_kernels.h":
    uint64_t board_diff "fbg_diff50"(const board_t* a, const board_t* b) noexcept nogil
        # bit i (0..49) set iff byte i of the two boards differs (i = 25 r + index)

cdef int q_play_rows(const qnet_t* q, const board_t* before, const board_t* play,
                     uint64_t diff, const int32_t** add, const int32_t** sub,
                     int* ns) noexcept nogil
    # The corrections that turn the pre-activations of swap(before) into those of
    # swap(play), diff = board_diff(before, play): pre += add[k] (k < the returned na)
    # - sub[k] (k < ns[0]), na and ns at
    # most Q_MAX_SLOTS. For each slot the play changes one dpoint row when the count
    # changes by one, else the point rows of the old and the new count; and the point
    # rows of the mover's old and new number of checkers off. Any qnet_t of this layout.

cdef void q_outputs(const qnet_t* q, const qpre_t* pre, double* raw) noexcept nogil
    # The five raw sigmoid outputs from the pre-activations (integer hidden table and
    # output sum, then the output table sigmoid).

cdef void q_outputs_masked(const qnet_t* q, const qpre_t* pre, int mask,
                           double* raw) noexcept nogil
    # q_outputs for the outputs whose bit is set in `mask` (bit k: output k); raw[k] = 0
    # for the others (whose value consistent() discards: see live_outputs).

cdef inline double dmin(double a, double b) noexcept nogil:
    return a if a < b else b


cdef inline int live_outputs(int back0, int back1, int sum0, int sum1) noexcept nogil:
    """The outputs (bit k: output k) that consistent() does not set to 0, from the sides'
    back points (1..25, 0 none) and checkers not off: a side's gammons are 0 once its
    opponent has borne off a checker, and in a race (no contact) its backgammons are 0
    unless the opponent has a checker in the side's home board (back point > 18)."""
    cdef bint race = back0 + back1 < 25
    cdef int mask = 31
    if sum1 < NCHECKERS:                # the opponent has borne off: no gammon for us
        mask &= ~6
    elif race and back1 <= 18:          # no contact, none in our home: no backgammon
        mask &= ~4
    if sum0 < NCHECKERS:                # we have borne off: no gammon against us
        mask &= ~24
    elif race and back0 <= 18:
        mask &= ~16
    return mask


cdef inline void clip5(const double* raw, double* p, int live) noexcept nogil:
    """consistent() given live_outputs(): the order constraints, then the zeros."""
    cdef double w = raw[0]
    cdef int k
    p[0] = w
    p[1] = dmin(raw[1], w)
    p[2] = dmin(raw[2], p[1])
    p[3] = dmin(raw[3], 1.0 - w)
    p[4] = dmin(raw[4], p[3])
    for k in range(1, NN_OUTPUTS):
        if not live & (1 << k):
            p[k] = 0.0



cdef void q_probabilities(const qnet_t* q, const board_t* b, double* p) noexcept nogil
    # The policy's five probabilities of b (row 0 on roll): the one-sided bear-off
    # database (fastbg._core.bearoffdb, built by NNPolicy.__init__) in a pure
    # bear-off, else the integer network read by consistent().

cdef void consistent(const board_t* b, const double* raw, double* p) noexcept nogil
    # The five probabilities p[5] from raw outputs: clipped to backgammon <= gammon <=
    # win and lose_backgammon <= lose_gammon <= 1 - win; gammons of a side are 0 once
    # its opponent has borne off a checker; in a race, backgammons of a side are 0
    # unless the opponent has a checker in the side's home board.

cdef inline double equity5(const double* p) noexcept nogil:
    """(2 win - 1) + (win_gammon - lose_gammon) + (win_backgammon - lose_backgammon)"""
    return (2.0 * p[0] - 1.0) + (p[1] - p[3]) + (p[2] - p[4])

cdef double play_equity(const net_t* net, const board_t* play) noexcept nogil
    # Cubeless equity for the mover of the position after its play (mover in row 0,
    # rows not yet swapped): exact 1, 2 or 3 if the play bears off the last checker,
    # else minus the equity of the swapped position.


cdef class NN1PlyPolicy(NNPolicy):
    # 1-ply: the `candidates` best plays at 0-ply (ties canonical) are scored by
    # the average over the opponent's 21 rolls of the opponent's best 0-ply reply.
    cdef movegen_t* g2              # own workspace for the replies (one per instance)
    cdef readonly int candidates
