# cython: language_level=3
"""Neural-network evaluator of the Cython core, mirroring :mod:`fastbg.reference.nn`.

A TD-Gammon style network (G. Tesauro, "Practical issues in temporal difference
learning", Machine Learning 8, 1992; "Temporal difference learning and
TD-Gammon", Communications of the ACM 38(3), 1995): Tesauro's board encoding
(see ``nn.pxd``), one sigmoid hidden layer and five sigmoid outputs, the
probabilities of DESIGN section 5.

* ``Net``: the weights (float64 arrays) and the float forward pass of training.
* ``NNPolicy``: 0-ply checker play, nogil, for the game loop, with the first
  layer in exact integers computed incrementally (``forward``/``probabilities``
  give its evaluation of one position).
* ``td_train``: TD(0) self-play training in a nogil loop with the core's move
  generator; the weights are updated in place.

The forward pass exploits the sparsity of the encoding: hidden pre-activations
are the bias plus the weight rows of the active inputs only (about 30-50 of 196).
"""
import numpy as np
cimport numpy as cnp
from libc.string cimport memcpy
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t
from numpy.random cimport bitgen_t

from fastbg._core._types cimport board_t, BAR, NCHECKERS, MAX_PLAYS, board_cmp
from fastbg._core.board cimport (load_board, board_to_array, swap_into, row_sum, checkers_c,
                                 loser_class, back_point_c)
from fastbg._core.dice cimport roll_index, opening_roll, get_bitgen
from fastbg._core.movegen cimport movegen_t, movegen_new, movegen_free, generate
from fastbg._core.turn cimport play_turn_c
from fastbg._core.rank cimport top_plays
from fastbg._core.eval cimport Policy, Evaluator
from fastbg._core.bearoffdb cimport (ensure_db, is_bearoff_c, bearoff_probabilities_c,
                                    bearoff_prefetch_c)

from fastbg.spec.board import START_BOARD
from fastbg.spec.nn import default_weights, hidden_table, quantize, sigmoid_table

cnp.import_array()


cdef int encode(const board_t* b, int* idx, double* val) noexcept nogil:
    cdef int s, i, n, base, m = 0
    cdef const unsigned char* row
    for s in range(2):
        row = b.p[s]
        base = NN_SIDE * s
        for i in range(24):
            n = row[i]
            if n >= 1:
                idx[m] = base + 4 * i
                val[m] = 1.0
                m += 1
                if n >= 2:
                    idx[m] = base + 4 * i + 1
                    val[m] = 1.0
                    m += 1
                    if n >= 3:
                        idx[m] = base + 4 * i + 2
                        val[m] = 1.0
                        m += 1
                        if n > 3:
                            idx[m] = base + 4 * i + 3
                            val[m] = (n - 3) * 0.5
                            m += 1
        if row[BAR]:
            idx[m] = base + 96
            val[m] = row[BAR] * 0.5
            m += 1
        n = NCHECKERS - row_sum(row)
        if n > 0:
            idx[m] = base + 97
            val[m] = n / 15.0
            m += 1
    return m


cdef inline double sigmoid_t(const double* table, double x) noexcept nogil:
    # `not (x > -16)` also catches NaN.
    if not (x > -16.0):
        x = -16.0
    if not (x < 16.0):
        x = 16.0
    cdef double t = (x + 16.0) * 64.0
    cdef int k = <int>t
    if k > SIG_STEPS - 1:
        k = SIG_STEPS - 1
    cdef double f = t - k
    return table[k] + f * (table[k + 1] - table[k])


cdef inline void _forward_enc(const net_t* net, const int* idx, const double* val, int m,
                              double* h, double* raw) noexcept nogil:
    cdef int nh = net.nh
    cdef int a, j, k
    cdef const double* row
    cdef double x, acc
    for j in range(nh):
        h[j] = net.b1[j]
    for a in range(m):
        row = net.w1 + idx[a] * nh
        x = val[a]
        for j in range(nh):
            h[j] = h[j] + row[j] * x
    for j in range(nh):
        h[j] = sigmoid_t(net.sig, h[j])
    for k in range(NN_OUTPUTS):
        raw[k] = net.b2[k]
    # j outer, k inner: five independent sums, each still in increasing j.
    for j in range(nh):
        x = h[j]
        for k in range(NN_OUTPUTS):
            raw[k] = raw[k] + net.w2[k * nh + j] * x
    for k in range(NN_OUTPUTS):
        raw[k] = sigmoid_t(net.sig, raw[k])


cdef void forward(const net_t* net, const board_t* b, double* h, double* raw) noexcept nogil:
    cdef int idx[NN_MAX_ACTIVE]
    cdef double val[NN_MAX_ACTIVE]
    cdef int m = encode(b, idx, val)
    _forward_enc(net, idx, val, m, h, raw)


cdef void consistent(const board_t* b, const double* raw, double* p) noexcept nogil:
    clip5(raw, p, live_outputs(back_point_c(b.p[0]), back_point_c(b.p[1]), row_sum(b.p[0]),
                               row_sum(b.p[1])))


cdef double play_equity(const net_t* net, const board_t* play) noexcept nogil:
    cdef board_t sw
    cdef double h[NN_MAX_HIDDEN]
    cdef double raw[NN_OUTPUTS]
    cdef double p[NN_OUTPUTS]
    if row_sum(play.p[0]) == 0:
        return 1.0 + loser_class(play.p[1])
    swap_into(play, &sw)
    forward(net, &sw, h, raw)
    consistent(&sw, raw, p)
    return -equity5(p)


cdef int best_play(const net_t* net, const board_t* plays, int n) noexcept nogil:
    cdef int j, best = 0
    cdef double e, best_e = 0.0
    for j in range(n):
        e = play_equity(net, &plays[j])
        if j == 0 or e > best_e or (e == best_e and board_cmp(&plays[j], &plays[best]) < 0):
            best_e = e
            best = j
    return best


def sigmoid_table_default():
    return sigmoid_table()


cdef class Net:
    """A network's weights as float64 arrays, usable by the nogil kernels.

    Parameters
    ----------
    w1 : array_like of float, shape (196, nh)
        Input-to-hidden weights, row ``i`` for input ``i``.
    b1 : array_like of float, shape (nh,)
    w2 : array_like of float, shape (5, nh)
        Hidden-to-output weights.
    b2 : array_like of float, shape (5,)

    Notes
    -----
    The arrays are copied (float64, C-contiguous); training updates them in place,
    and every policy built on this net sees the change.
    """

    def __init__(self, w1, b1, w2, b2):
        w1 = np.array(w1, dtype=np.float64, order="C", copy=True)
        b1 = np.array(b1, dtype=np.float64, order="C", copy=True)
        w2 = np.array(w2, dtype=np.float64, order="C", copy=True)
        b2 = np.array(b2, dtype=np.float64, order="C", copy=True)
        if w1.ndim != 2 or w1.shape[0] != NN_INPUTS:
            raise ValueError(f"w1 must have shape ({NN_INPUTS}, nh), got {w1.shape}")
        nh = w1.shape[1]
        if not 1 <= nh <= NN_MAX_HIDDEN:
            raise ValueError(f"hidden units must be in 1..{NN_MAX_HIDDEN}, got {nh}")
        if b1.shape != (nh,) or w2.shape != (NN_OUTPUTS, nh) or b2.shape != (NN_OUTPUTS,):
            raise ValueError(
                f"inconsistent shapes: w1 {w1.shape}, b1 {b1.shape}, w2 {w2.shape}, b2 {b2.shape}"
            )
        for name, a in (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)):
            if not np.isfinite(a).all():
                raise ValueError(f"{name} has non-finite values")
        sig = np.ascontiguousarray(sigmoid_table_default(), dtype=np.float64)
        if sig.shape != (SIG_STEPS + 1,):
            raise ValueError("bad sigmoid table")
        self.w1, self.b1, self.w2, self.b2, self.sig = w1, b1, w2, b2, sig
        self.c.nh = nh
        self.c.w1 = <double*>cnp.PyArray_DATA(w1)
        self.c.b1 = <double*>cnp.PyArray_DATA(b1)
        self.c.w2 = <double*>cnp.PyArray_DATA(w2)
        self.c.b2 = <double*>cnp.PyArray_DATA(b2)
        self.c.sig = <const double*>cnp.PyArray_DATA(sig)

    @property
    def hidden(self):
        """Number of hidden units."""
        return self.c.nh

    def weights(self):
        """Copies of the weights: dict with keys ``w1``, ``b1``, ``w2``, ``b2``."""
        return {"w1": self.w1.copy(), "b1": self.b1.copy(),
                "w2": self.w2.copy(), "b2": self.b2.copy()}

    def forward(self, board):
        """Raw sigmoid outputs of a position (row 0 on roll, before its roll).

        Returns
        -------
        numpy.ndarray of float64, shape (5,)
        """
        cdef board_t b
        load_board(board, &b)
        cdef double h[NN_MAX_HIDDEN]
        out = np.empty(NN_OUTPUTS, dtype=np.float64)
        cdef double* o = <double*>cnp.PyArray_DATA(out)
        forward(&self.c, &b, h, o)
        return out

    def probabilities(self, board):
        """The five consistent probabilities of a position (row 0 on roll).

        Returns
        -------
        numpy.ndarray of float64, shape (5,)
            win, win_gammon, win_backgammon, lose_gammon, lose_backgammon.
        """
        cdef board_t b
        load_board(board, &b)
        cdef double h[NN_MAX_HIDDEN]
        cdef double raw[NN_OUTPUTS]
        out = np.empty(NN_OUTPUTS, dtype=np.float64)
        cdef double* o = <double*>cnp.PyArray_DATA(out)
        forward(&self.c, &b, h, raw)
        consistent(&b, raw, o)
        return out

    def __repr__(self):
        return f"Net(hidden={self.c.nh})"


_DEFAULT_NET = None


def default_net():
    """The shipped network (loaded and checksum-verified once per process)."""
    global _DEFAULT_NET
    if _DEFAULT_NET is None:
        wt = default_weights()
        _DEFAULT_NET = Net(wt["w1"], wt["b1"], wt["w2"], wt["b2"])
    return _DEFAULT_NET


_TABLES_CACHE = None    # (weights copy, tables) of the last network quantized


def point_steps(point):
    """The checker-step rows of a point table (qnet_t.dpoint).

    Parameters
    ----------
    point : numpy.ndarray of int32, shape (2, 25, 16, nh)

    Returns
    -------
    numpy.ndarray of int32, same shape, C-contiguous and read-only
        ``[s, i, n] = point[s, i, n + 1] - point[s, i, n]`` for ``n < 15`` (0 for
        ``n = 15``), wrapping modulo 2**32: the integer sums that use it are exact
        modulo 2**32 and their results are in the int32 range, hence exact.
    """
    p = np.asarray(point, dtype=np.int32).view(np.uint32)
    d = np.zeros_like(p)
    d[:, :, :-1] = p[:, :, 1:] - p[:, :, :-1]
    d = np.ascontiguousarray(d.view(np.int32))
    d.setflags(write=False)
    return d


def _tables(Net net):
    """The policy's integer tables of `net` (fastbg.spec.nn.quantize), read-only.

    The last network's tables are kept, keyed by a copy of its weights, so that the
    rollout's one policy per block of games does not quantize again (about 10 ms).
    """
    global _TABLES_CACHE
    w = net.weights()
    if _TABLES_CACHE is not None and all(
            np.array_equal(w[k], _TABLES_CACHE[0][k]) for k in ("w1", "b1", "w2", "b2")):
        return _TABLES_CACHE[1]
    t = quantize(w)
    t = {k: (np.ascontiguousarray(v) if isinstance(v, np.ndarray) else v) for k, v in t.items()}
    t["sig"] = net.sig
    t["htab"] = np.ascontiguousarray(hidden_table(), dtype=np.int32)
    t["dpoint"] = point_steps(t["point"])
    for k, dt in (("point", np.int32), ("dpoint", np.int32), ("off", np.int32), ("bias", np.int32),
                  ("w2", np.int16), ("b2", np.int32), ("htab", np.int32)):
        if t[k].dtype != dt or not t[k].flags.c_contiguous:
            raise TypeError(f"quantized table {k} must be C-contiguous {dt.__name__}")
        t[k].setflags(write=False)
    _TABLES_CACHE = (w, t)          # net.weights() returned copies
    return t


cdef extern from "nn_kernels.h":
    # The integer kernels, compiled for AVX2 and for the baseline (same results).
    void fbg_q_hidden_out(const int32_t* pre, const int32_t* htab, const int16_t* w2,
                          int nh, int mask, int32_t* acc) noexcept nogil
    void fbg_q_delta(int32_t* dst, const int32_t* src, const int32_t* const* add, int na,
                     const int32_t* const* sub, int ns, const int32_t* const* mul,
                     const int32_t* coef, int nm, int nh) noexcept nogil


cdef int q_rows(const qnet_t* q, const board_t* b, const int32_t** rows) noexcept nogil:
    """The table rows whose sum, with the bias, is q_pre(b): every occupied slot's and
    each side's number of checkers off (rows for a count of 0 are zero and skipped)."""
    cdef int nh = q.nh, s, i, n, m = 0
    for s in range(2):
        for i in range(25):
            n = b.p[s][i]
            if n:
                rows[m] = q.point + ((s * 25 + i) * 16 + n) * nh
                m += 1
        n = NCHECKERS - checkers_c(b.p[s])
        if n:
            rows[m] = q.off + (s * 16 + n) * nh
            m += 1
    return m


cdef void q_pre(const qnet_t* q, const board_t* b, qpre_t* pre) noexcept nogil:
    """Integer pre-activations of b (row 0 on roll): bias + point and off tables."""
    cdef const int32_t* rows[Q_MAX_ROWS]
    cdef int m = q_rows(q, b, rows)
    fbg_q_delta(pre, q.bias, rows, m, NULL, 0, NULL, NULL, 0, q.nh)


cdef void q_outputs(const qnet_t* q, const qpre_t* pre, double* raw) noexcept nogil:
    """Raw outputs from integer pre-activations (fastbg.reference.nn.forward_q)."""
    q_outputs_masked(q, pre, 31, raw)


cdef void q_outputs_masked(const qnet_t* q, const qpre_t* pre, int mask,
                           double* raw) noexcept nogil:
    """q_outputs for the outputs in `mask` (bit k: output k); the others are set to 0."""
    cdef int32_t acc[NN_OUTPUTS]
    cdef int k
    fbg_q_hidden_out(pre, q.htab, q.w2, q.nh, mask, acc)
    for k in range(NN_OUTPUTS):
        if mask & (1 << k):
            raw[k] = sigmoid_t(q.sig, (<double>(acc[k] + q.b2[k])) * q.out_scale)
        else:
            raw[k] = 0.0


cdef extern from *:
    """
    static inline int fastbg_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int fastbg_ctz64(unsigned long long x) noexcept nogil


cdef void q_probabilities(const qnet_t* q, const board_t* b, double* p) noexcept nogil:
    """The policy's probabilities of b (row 0 on roll, before its roll): the bear-off
    database in a pure bear-off, else the integer network read by consistent()."""
    cdef qpre_t pre[NN_MAX_HIDDEN]
    cdef double raw[NN_OUTPUTS]
    if bearoff_probabilities_c(b, p) == 0:
        return
    q_pre(q, b, pre)
    q_outputs(q, pre, raw)
    consistent(b, raw, p)


cdef int q_play_rows(const qnet_t* q, const board_t* before, const board_t* play,
                     uint64_t diff, const int32_t** add, const int32_t** sub,
                     int* ns) noexcept nogil:
    """The rows that turn the pre-activations of swap(before) into those of swap(play):
    the slots where `play` differs from `before` (the bits of diff), and the mover's off
    count (hits keep the opponent's checkers on the board)."""
    cdef int nh = q.nh, j, slot, a, b, na = 0, nb = 0, ob, op
    cdef const unsigned char* bb = <const unsigned char*>before
    cdef const unsigned char* pp = <const unsigned char*>play
    cdef uint64_t x = diff
    while x:
        j = fastbg_ctz64(x)
        x &= x - 1
        # row r of the play is side 1 - r once the turn passes: the table slot of
        # (side, index) is 25 (1 - r) + j - 25 r, that is j + 25 or j - 25
        slot = 16 * (j + 25 if j < 25 else j - 25)
        a = bb[j]
        b = pp[j]
        if b == a + 1:
            add[na] = q.dpoint + (slot + a) * nh
            na += 1
        elif a == b + 1:
            sub[nb] = q.dpoint + (slot + b) * nh
            nb += 1
        else:
            # table rows for n = 0 are zero, so no special case
            sub[nb] = q.point + (slot + a) * nh
            add[na] = q.point + (slot + b) * nh
            nb += 1
            na += 1
    ob = checkers_c(before.p[0])
    op = checkers_c(play.p[0])
    if ob != op:
        sub[nb] = q.off + (16 + NCHECKERS - ob) * nh
        add[na] = q.off + (16 + NCHECKERS - op) * nh
        nb += 1
        na += 1
    ns[0] = nb
    return na


cdef void q_pre_play(const qnet_t* q, const board_t* before, const qpre_t* base,
                     const board_t* play, qpre_t* pre) noexcept nogil:
    """Integer pre-activations of swap(play) from `base`, those of swap(before): only
    the rows q_play_rows finds are applied, in one pass. Equal to q_pre of the swapped
    play."""
    cdef const int32_t* sub[Q_MAX_SLOTS]
    cdef const int32_t* add[Q_MAX_SLOTS]
    cdef int ns
    cdef int na = q_play_rows(q, before, play, board_diff(before, play), add, sub, &ns)
    fbg_q_delta(pre, base, add, na, sub, ns, NULL, NULL, 0, q.nh)


cdef double q_play_equity(const qnet_t* q, const board_t* before, const qpre_t* base,
                          const board_t* play) noexcept nogil:
    """Mover's equity after `play`; `base` = integer pre-activations of swap(before)."""
    cdef qpre_t pre[NN_MAX_HIDDEN]
    cdef double raw[NN_OUTPUTS]
    cdef double p[NN_OUTPUTS]
    cdef board_t sw
    cdef int live, op
    op = row_sum(play.p[0])
    if op == 0:
        return 1.0 + loser_class(play.p[1])
    if is_bearoff_c(play):
        # a pure bear-off: the one-sided database, as the opponent sees it
        swap_into(play, &sw)
        if bearoff_probabilities_c(&sw, p) == 0:
            return -equity5(p)
    q_pre_play(q, before, base, play, pre)
    # the position with the turn passed: row 0 = the opponent, row 1 = the mover.
    # Outputs that consistent() sets to 0 whatever their value are not computed.
    live = live_outputs(back_point_c(play.p[1]), back_point_c(play.p[0]), row_sum(play.p[1]), op)
    q_outputs_masked(q, pre, live, raw)
    clip5(raw, p, live)
    return -equity5(p)


cdef class NNPolicy(Evaluator):
    """0-ply neural-network checker play.

    Parameters
    ----------
    net : Net, optional
        The network; default the shipped one (:func:`default_net`). The policy
        takes a snapshot of its weights (later training does not affect it).

    Notes
    -----
    For each legal play, the position with the turn passed is evaluated and the
    play of highest mover's equity (minus the opponent's) is chosen, ties to the
    canonically first play. A play bearing off the last checker scores its exact
    value 1, 2 or 3. Never draws from the bit generator.

    The first layer is in exact integers (:func:`fastbg.spec.nn.quantize`,
    built by the same Python code for both engines): the pre-activations of the
    position before the roll are computed once per decision, and each play only
    corrects the few points it changes. The hidden sigmoid and the output layer
    are the float operations of :class:`Net`, so both engines agree bit for bit.
    """

    def __cinit__(self, *args, **kwargs):
        self.name = "nn1"

    def __init__(self, net=None):
        if net is None:
            net = default_net()
        if not isinstance(net, Net):
            raise TypeError(f"net must be a fastbg._core.nn.Net, got {type(net).__name__}")
        self.net = net
        ensure_db()             # the bear-off database, built once per process
        t = _tables(net)
        self.tables = t
        self.q.nh = self.net.c.nh
        self.q.point = <const int32_t*>cnp.PyArray_DATA(t["point"])
        self.q.dpoint = <const int32_t*>cnp.PyArray_DATA(t["dpoint"])
        self.q.off = <const int32_t*>cnp.PyArray_DATA(t["off"])
        self.q.bias = <const int32_t*>cnp.PyArray_DATA(t["bias"])
        self.q.htab = <const int32_t*>cnp.PyArray_DATA(t["htab"])
        self.q.w2 = <const int16_t*>cnp.PyArray_DATA(t["w2"])
        self.q.b2 = <const int32_t*>cnp.PyArray_DATA(t["b2"])
        self.q.out_scale = t["out_scale"]
        self.q.sig = <const double*>cnp.PyArray_DATA(t["sig"])

    cdef int choose_c(self, const board_t* before, board_t* plays,
                      const int64_t* scores, const uint64_t* keys, int n,
                      bitgen_t* bg) noexcept nogil:
        cdef qpre_t base[NN_MAX_HIDDEN]
        cdef board_t sw
        cdef int j, best = 0
        cdef double e, best_e = 0.0
        swap_into(before, &sw)
        for j in range(n):
            # start the bear-off table loads of the plays q_play_equity will look up
            if is_bearoff_c(&plays[j]):
                bearoff_prefetch_c(plays[j].p[0])
        q_pre(&self.q, &sw, base)
        for j in range(n):
            e = q_play_equity(&self.q, before, base, &plays[j])
            if j == 0 or e > best_e or (e == best_e and board_cmp(&plays[j], &plays[best]) < 0):
                best_e = e
                best = j
        return best

    cdef void probabilities_c(self, const board_t* b, double* p) noexcept nogil:
        q_probabilities(&self.q, b, p)

    def forward(self, board):
        """Raw outputs of a position (row 0 on roll) by the policy's forward pass.

        Returns
        -------
        numpy.ndarray of float64, shape (5,)
        """
        cdef board_t b
        load_board(board, &b)
        cdef qpre_t pre[NN_MAX_HIDDEN]
        out = np.empty(NN_OUTPUTS, dtype=np.float64)
        cdef double* o = <double*>cnp.PyArray_DATA(out)
        q_pre(&self.q, &b, pre)
        q_outputs(&self.q, pre, o)
        return out

    def probabilities(self, board):
        """The policy's five probabilities of a position (row 0 on roll, before its roll):
        the one-sided bear-off database in a pure bear-off, else the network.

        Returns
        -------
        numpy.ndarray of float64, shape (5,)
            win, win_gammon, win_backgammon, lose_gammon, lose_backgammon.
        """
        cdef board_t b
        load_board(board, &b)
        out = np.empty(NN_OUTPUTS, dtype=np.float64)
        cdef double* o = <double*>cnp.PyArray_DATA(out)
        q_probabilities(&self.q, &b, o)
        return out

    def play_equities(self, before, plays):
        """The mover's cubeless equity after each play, as ``choose`` computes it.

        Parameters
        ----------
        before : array_like of int, shape (2, 25)
            The position before the roll (the incremental base).
        plays : array_like of int, shape (n, 2, 25)

        Returns
        -------
        numpy.ndarray of float64, shape (n,)
        """
        cdef board_t bf, sw, b
        load_board(before, &bf)
        arr = np.ascontiguousarray(plays, dtype=np.int8)
        if arr.ndim != 3 or arr.shape[1] != 2 or arr.shape[2] != 25:
            raise ValueError(f"plays must have shape (n, 2, 25), got {arr.shape}")
        cdef qpre_t base[NN_MAX_HIDDEN]
        swap_into(&bf, &sw)
        q_pre(&self.q, &sw, base)
        cdef int n = arr.shape[0], j
        out = np.empty(n, dtype=np.float64)
        cdef double[::1] o = out
        for j in range(n):
            load_board(arr[j], &b)
            o[j] = q_play_equity(&self.q, &bf, base, &b)
        return out

    def __repr__(self):
        return f"NNPolicy(hidden={self.net.c.nh})"


cdef enum:
    MAX_CANDIDATES = 64


cdef double q_reply_value(const qnet_t* q, movegen_t* g, const board_t* after) noexcept nogil:
    """Mover's 1-ply equity of the position after its play (rows not swapped).

    Average over the opponent's 21 rolls (d1 = 1..6, d2 = 1..d1; weight 1 for a
    double, 2 otherwise, summed in that order, then / 36) of minus the
    opponent's best 0-ply reply equity. A roll without a legal reply leaves the
    position as it is (the turn passes back).
    """
    cdef board_t opp, sw
    cdef qpre_t base[NN_MAX_HIDDEN]
    cdef int d1, d2, n, j
    cdef double acc = 0.0, best, e
    if row_sum(after.p[0]) == 0:
        return 1.0 + loser_class(after.p[1])
    swap_into(after, &opp)                  # opponent on roll
    swap_into(&opp, &sw)                    # = after; base of the replies
    q_pre(q, &sw, base)
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            n = generate(g, &opp, d1, d2, NULL, 0)
            if n <= 0:
                best = q_play_equity(q, &opp, base, &opp)
            else:
                best = q_play_equity(q, &opp, base, &g.plays[0])
                for j in range(1, n):
                    e = q_play_equity(q, &opp, base, &g.plays[j])
                    if e > best:
                        best = e
            acc = acc + (1.0 if d1 == d2 else 2.0) * best
    return -(acc / 36.0)


cdef class NN1PlyPolicy(NNPolicy):
    """1-ply neural-network checker play (slow: for analysis and small rollouts).

    Parameters
    ----------
    net : Net, optional
        Default the shipped network.
    candidates : int, default 8
        Plays kept from the 0-ply ranking (best first, ties canonical) for the
        1-ply look-ahead, 1..64.

    Notes
    -----
    Each candidate's value is the average over the opponent's 21 rolls of minus
    the opponent's best 0-ply reply (see ``q_reply_value``); the highest wins,
    ties to the canonically first play. Never draws. Holds a move generator
    workspace: use one instance per thread.
    """

    def __cinit__(self, *args, **kwargs):
        self.name = "nn1-1ply"
        self.g2 = movegen_new()
        if self.g2 == NULL:
            raise MemoryError()

    def __dealloc__(self):
        if self.g2 != NULL:
            movegen_free(self.g2)

    def __init__(self, net=None, candidates=8):
        NNPolicy.__init__(self, net)
        if not 1 <= candidates <= MAX_CANDIDATES:
            raise ValueError(f"candidates must be in 1..{MAX_CANDIDATES}, got {candidates}")
        self.candidates = candidates

    cdef int choose_c(self, const board_t* before, board_t* plays,
                      const int64_t* scores, const uint64_t* keys, int n,
                      bitgen_t* bg) noexcept nogil:
        cdef qpre_t base[NN_MAX_HIDDEN]
        cdef double eq0[MAX_PLAYS]
        cdef int cand[MAX_CANDIDATES]
        cdef board_t sw
        cdef int j, k, m, best = 0
        cdef double e, best_e = 0.0
        swap_into(before, &sw)
        q_pre(&self.q, &sw, base)
        for j in range(n):
            eq0[j] = q_play_equity(&self.q, before, base, &plays[j])
        m = top_plays(eq0, plays, n, self.candidates, cand)   # best first, ties canonical
        for k in range(m):
            j = cand[k]
            e = q_reply_value(&self.q, self.g2, &plays[j])
            if k == 0 or e > best_e or (e == best_e and board_cmp(&plays[j], &plays[best]) < 0):
                best_e = e
                best = j
        return best

    def play_values(self, plays):
        """1-ply values of plays (mover's equity; no candidate filter).

        Parameters
        ----------
        plays : array_like of int, shape (n, 2, 25)

        Returns
        -------
        numpy.ndarray of float64, shape (n,)
        """
        arr = np.ascontiguousarray(plays, dtype=np.int8)
        cdef int n = arr.shape[0], j
        cdef board_t b
        out = np.empty(n, dtype=np.float64)
        for j in range(n):
            load_board(arr[j], &b)
            out[j] = q_reply_value(&self.q, self.g2, &b)
        return out

    def __repr__(self):
        return f"NN1PlyPolicy(hidden={self.net.c.nh}, candidates={self.candidates})"


# ---------------------------------------------------------------------------
# TD(0) self-play training


cdef inline void add_units(const net_t* net, int s, int i, int n, double sign,
                           double* h) noexcept nogil:
    """h += sign * (contribution of n checkers at side s, index i (24 = bar, 25 = off))."""
    cdef int nh = net.nh, j
    cdef const double* row
    cdef double x
    if n <= 0:
        return
    if i == 25:
        row = net.w1 + (NN_SIDE * s + 97) * nh
        x = sign * (n / 15.0)
        for j in range(nh):
            h[j] += row[j] * x
        return
    if i == BAR:
        row = net.w1 + (NN_SIDE * s + 96) * nh
        x = sign * (n * 0.5)
        for j in range(nh):
            h[j] += row[j] * x
        return
    row = net.w1 + (NN_SIDE * s + 4 * i) * nh
    for j in range(nh):
        h[j] += sign * row[j]
    if n >= 2:
        row = row + nh
        for j in range(nh):
            h[j] += sign * row[j]
        if n >= 3:
            row = row + nh
            for j in range(nh):
                h[j] += sign * row[j]
            if n > 3:
                row = row + nh
                x = sign * ((n - 3) * 0.5)
                for j in range(nh):
                    h[j] += row[j] * x


cdef void pre_activation(const net_t* net, const board_t* b, double* pre) noexcept nogil:
    """Hidden pre-activations of b (row 0 on roll), in the fixed order."""
    cdef int idx[NN_MAX_ACTIVE]
    cdef double val[NN_MAX_ACTIVE]
    cdef int m = encode(b, idx, val)
    cdef int nh = net.nh, a, j
    cdef const double* row
    cdef double x
    for j in range(nh):
        pre[j] = net.b1[j]
    for a in range(m):
        row = net.w1 + idx[a] * nh
        x = val[a]
        for j in range(nh):
            pre[j] = pre[j] + row[j] * x


cdef double play_equity_inc(const net_t* net, const board_t* before, const double* base,
                            const board_t* play) noexcept nogil:
    """play_equity by an incremental first layer (training only: not bitwise equal).

    ``base`` holds the pre-activations of the swapped ``before``; only the
    locations where ``play`` differs from ``before`` are updated.
    """
    cdef double h[NN_MAX_HIDDEN]
    cdef double raw[NN_OUTPUTS]
    cdef double p[NN_OUTPUTS]
    cdef board_t sw
    cdef int nh = net.nh, j, k, i, r, s, ob, op
    cdef const unsigned char* bb = <const unsigned char*>before
    cdef const unsigned char* pp = <const unsigned char*>play
    cdef double x
    if row_sum(play.p[0]) == 0:
        return 1.0 + loser_class(play.p[1])
    for j in range(nh):
        h[j] = base[j]
    for r in range(2):
        # row r of the play is side 1 - r of the swapped position
        s = 1 - r
        ob = 0
        op = 0
        for i in range(25):
            ob += bb[25 * r + i]
            op += pp[25 * r + i]
            if bb[25 * r + i] != pp[25 * r + i]:
                add_units(net, s, i, bb[25 * r + i], -1.0, h)
                add_units(net, s, i, pp[25 * r + i], 1.0, h)
        if ob != op:
            add_units(net, s, 25, NCHECKERS - ob, -1.0, h)
            add_units(net, s, 25, NCHECKERS - op, 1.0, h)
    for j in range(nh):
        h[j] = sigmoid_t(net.sig, h[j])
    for k in range(NN_OUTPUTS):
        raw[k] = net.b2[k]
    for j in range(nh):
        x = h[j]
        for k in range(NN_OUTPUTS):
            raw[k] = raw[k] + net.w2[k * nh + j] * x
    for k in range(NN_OUTPUTS):
        raw[k] = sigmoid_t(net.sig, raw[k])
    swap_into(play, &sw)
    consistent(&sw, raw, p)
    return -equity5(p)


cdef int best_play_inc(const net_t* net, const board_t* before, const board_t* plays,
                       int n) noexcept nogil:
    cdef double base[NN_MAX_HIDDEN]
    cdef board_t sw
    cdef int j, best = 0
    cdef double e, best_e = 0.0
    swap_into(before, &sw)
    pre_activation(net, &sw, base)
    for j in range(n):
        e = play_equity_inc(net, before, base, &plays[j])
        if j == 0 or e > best_e or (e == best_e and board_cmp(&plays[j], &plays[best]) < 0):
            best_e = e
            best = j
    return best


cdef double td_update(net_t* net, const board_t* s, const double* target,
                      double alpha) noexcept nogil:
    """One gradient step of the raw outputs of s towards target; returns sum of squared errors."""
    cdef int idx[NN_MAX_ACTIVE]
    cdef double val[NN_MAX_ACTIVE]
    cdef double h[NN_MAX_HIDDEN]
    cdef double dh[NN_MAX_HIDDEN]
    cdef double raw[NN_OUTPUTS]
    cdef double do[NN_OUTPUTS]
    cdef int m = encode(s, idx, val)
    cdef int nh = net.nh
    cdef int a, j, k
    cdef double err, sq = 0.0, acc, x
    cdef double* row
    _forward_enc(net, idx, val, m, h, raw)
    for k in range(NN_OUTPUTS):
        err = target[k] - raw[k]
        sq += err * err
        do[k] = err * raw[k] * (1.0 - raw[k])
    for j in range(nh):
        acc = 0.0
        for k in range(NN_OUTPUTS):
            acc += net.w2[k * nh + j] * do[k]
        dh[j] = acc * h[j] * (1.0 - h[j]) * alpha
    for k in range(NN_OUTPUTS):
        x = alpha * do[k]
        net.b2[k] += x
        for j in range(nh):
            net.w2[k * nh + j] += x * h[j]
    for j in range(nh):
        net.b1[j] += dh[j]
    for a in range(m):
        row = net.w1 + idx[a] * nh
        x = val[a]
        for j in range(nh):
            row[j] += dh[j] * x
    return sq


cdef void flip_into(const double* p, double* t) noexcept nogil:
    # Probabilities of the side on roll in the next position -> the mover's.
    t[0] = 1.0 - p[0]
    t[1] = p[3]
    t[2] = p[4]
    t[3] = p[1]
    t[4] = p[2]


cdef int td_game(net_t* net, bitgen_t* bg, movegen_t* g, const board_t* start, bint opening,
                 double alpha, bint fast, double* sqerr, int64_t* moves) noexcept nogil:
    """One self-play game with TD(0) updates after every move; outcome for start's row 0."""
    cdef board_t cur, nxt
    cdef int a, b, r, n, best, c, side = 0
    cdef double h[NN_MAX_HIDDEN]
    cdef double raw[NN_OUTPUTS]
    cdef double p[NN_OUTPUTS]
    cdef double target[NN_OUTPUTS]
    cur = start[0]
    if opening:
        if not opening_roll(bg, &a, &b):
            swap_into(start, &cur)
            side = 1
    else:
        r = roll_index(bg)
        a = r // 6 + 1
        b = r % 6 + 1
    while True:
        n = generate(g, &cur, a, b, NULL, 0)
        if n < 0:
            return -1
        if n == 0:
            swap_into(&cur, &nxt)
        else:
            if n == 1:
                best = 0
            elif fast:
                best = best_play_inc(net, &cur, g.plays, n)
            else:
                best = best_play(net, g.plays, n)
            if row_sum(g.plays[best].p[0]) == 0:
                c = loser_class(g.plays[best].p[1])
                target[0] = 1.0
                target[1] = 1.0 if c >= 1 else 0.0
                target[2] = 1.0 if c >= 2 else 0.0
                target[3] = 0.0
                target[4] = 0.0
                sqerr[0] += td_update(net, &cur, target, alpha)
                moves[0] += 1
                return c if side == 0 else 3 + c
            swap_into(&g.plays[best], &nxt)
        forward(net, &nxt, h, raw)
        consistent(&nxt, raw, p)
        flip_into(p, target)
        sqerr[0] += td_update(net, &cur, target, alpha)
        moves[0] += 1
        cur = nxt
        side ^= 1
        r = roll_index(bg)
        a = r // 6 + 1
        b = r % 6 + 1


def td_train(Net net, games, bitgen, double alpha, board=None, opening=True, fast=True):
    """Train ``net`` in place by TD(0) self-play for ``games`` games.

    Parameters
    ----------
    net : Net
        Updated in place (both sides of every game play with it, greedily at 0-ply).
    games : int
        Number of games, >= 0.
    bitgen : numpy.random.BitGenerator
        Source of the dice (advanced in place).
    alpha : float
        Learning rate (step on the raw outputs' squared error gradient).
    board : array_like of int, shape (2, 25), optional
        Start of every game (default the standard start).
    opening : bool
        Start each game with an opening roll.
    fast : bool
        Choose the plays with an incremental first layer (the pre-activations of
        the position before the roll, corrected at the few points a play
        changes). The equities then differ from :class:`NNPolicy`'s by rounding
        only (about 1e-15), so a near-tie may rarely go the other way; set False
        to train with exactly the policy's choices.

    Returns
    -------
    dict
        ``games``, ``moves`` (updates made), ``mse`` (mean over updates and the
        five outputs of the squared TD error before each update) and ``counts``
        (outcome classes from row 0's view, int64 array of shape (6,)).

    Notes
    -----
    TD(0) (Sutton 1988; Tesauro 1992 used TD(lambda)): after each move the raw
    outputs of the position before the roll, V(s_t), move towards the target: the
    consistent probabilities of the next position (opponent on roll) seen from
    the mover, or the actual result (1 win, gammon, backgammon units) when the
    move ends the game. Gradient: delta_k = (T_k - y_k) y_k (1 - y_k) at each
    sigmoid output, back-propagated through the hidden layer; the first layer
    only touches the rows of active inputs.

    **Reproducibility**: the same weights, bit generator state and arguments give
    the same updated weights.
    """
    cdef board_t b
    if board is None:
        board = START_BOARD
    load_board(board, &b)
    if row_sum(b.p[0]) == 0 or row_sum(b.p[1]) == 0:
        raise ValueError("the game is already over: a side has no checker left")
    if games < 0:
        raise ValueError(f"games must be >= 0, got {games}")
    cdef bitgen_t* bg = get_bitgen(bitgen)
    cdef int64_t i, ng = games
    cdef int64_t moves = 0
    cdef double sq = 0.0
    cdef bint op = bool(opening)
    cdef bint fst = bool(fast)
    cdef int c = 0
    counts = np.zeros(6, dtype=np.int64)
    cdef int64_t[::1] cv = counts
    cdef movegen_t* g = movegen_new()
    if g == NULL:
        raise MemoryError()
    try:
        with nogil:
            for i in range(ng):
                c = td_game(&net.c, bg, g, &b, op, alpha, fst, &sq, &moves)
                if c < 0:
                    break
                cv[c] += 1
    finally:
        movegen_free(g)
    if c < 0:
        raise RuntimeError(f"a roll had more than {MAX_PLAYS} legal plays")
    return {"games": int(games), "moves": int(moves),
            "mse": sq / (NN_OUTPUTS * moves) if moves else 0.0, "counts": counts}


def encode_board(board):
    """The 196 network inputs of a position (row 0 on roll), dense float64 array."""
    cdef board_t b
    load_board(board, &b)
    cdef int idx[NN_MAX_ACTIVE]
    cdef double val[NN_MAX_ACTIVE]
    cdef int m = encode(&b, idx, val), a
    out = np.zeros(NN_INPUTS, dtype=np.float64)
    for a in range(m):
        out[idx[a]] = val[a]
    return out
