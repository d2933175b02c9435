# cython: language_level=3
"""The second evaluator: contact and race nets by position class (see evaluator.pxd).

Mirror of :mod:`fastbg.reference.evaluator`; both engines give bitwise equal
probabilities and choose the same plays.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t
from numpy.random cimport bitgen_t

from fastbg._core._types cimport board_t, board_cmp, NCHECKERS
from fastbg._core.board cimport load_board, swap_into, row_sum, loser_class
from fastbg._core.eval cimport Policy, Evaluator
from fastbg._core.nn cimport (NN_OUTPUTS, NN_MAX_HIDDEN, q_pre, q_pre_play, q_outputs,
                              consistent, equity5)
from fastbg._core.bearoffdb cimport ensure_db, bearoff_probabilities_c
from fastbg._core.features cimport (contact_features_c, position_class_c, PC_BEAROFF,
                                    PC_RACE, PC_CONTACT)

from fastbg.reference.evaluator import KINDS, default_nets, quantize_net
from fastbg.reference.nn import hidden_table, sigmoid_table

cnp.import_array()

cdef enum:
    N_FEAT_ROWS = 40


cdef extern from "nn_kernels.h":
    # dst += sum of coef[f] * rows[f] (AVX2 or baseline copy, chosen at load; same results)
    void fbg_q_addmul(int32_t* dst, const int32_t* rows, const int32_t* coef, int nrows,
                      int nh) noexcept nogil


cdef inline void e_add_features(const enet_t* e, const board_t* b, qpre_t* pre) noexcept nogil:
    cdef int32_t nums[N_FEAT_ROWS]
    if e.nfeat:
        contact_features_c(b, nums)
        fbg_q_addmul(pre, e.feat, nums, e.nfeat, e.q.nh)


cdef void e_pre(const enet_t* e, const board_t* b, qpre_t* pre) noexcept nogil:
    q_pre(&e.q, b, pre)
    e_add_features(e, b, pre)


cdef inline void e_read(const enet_t* e, const board_t* b, qpre_t* pre, double* p) noexcept nogil:
    """The probabilities from complete pre-activations of b."""
    cdef double raw[NN_OUTPUTS]
    q_outputs(&e.q, pre, raw)
    consistent(b, raw, p)


cdef void e_probabilities(const enet_t* e, const board_t* b, double* p) noexcept nogil:
    cdef qpre_t pre[NN_MAX_HIDDEN]
    e_pre(e, b, pre)
    e_read(e, b, pre, p)


def _net_tables(weights, kind):
    """The integer tables of one net, C-contiguous and read-only, with the shared
    hidden sigmoid and output sigmoid tables."""
    t = quantize_net(weights, kind)
    out = {}
    for k, dt in (("point", np.int32), ("off", np.int32), ("feat", np.int32),
                  ("bias", np.int32), ("w2", np.int16), ("b2", np.int32)):
        a = np.ascontiguousarray(t[k], dtype=dt)
        a.setflags(write=False)
        out[k] = a
    out["htab"] = np.ascontiguousarray(hidden_table(), dtype=np.int32)
    out["sig"] = np.ascontiguousarray(sigmoid_table(), dtype=np.float64)
    out["out_scale"] = t["out_scale"]
    return out


cdef void _bind(enet_t* e, dict t):
    e.q.nh = t["bias"].shape[0]
    e.q.point = <const int32_t*>cnp.PyArray_DATA(t["point"])
    e.q.off = <const int32_t*>cnp.PyArray_DATA(t["off"])
    e.q.bias = <const int32_t*>cnp.PyArray_DATA(t["bias"])
    e.q.htab = <const int32_t*>cnp.PyArray_DATA(t["htab"])
    e.q.w2 = <const int16_t*>cnp.PyArray_DATA(t["w2"])
    e.q.b2 = <const int32_t*>cnp.PyArray_DATA(t["b2"])
    e.q.out_scale = t["out_scale"]
    e.q.sig = <const double*>cnp.PyArray_DATA(t["sig"])
    e.nfeat = t["feat"].shape[0]
    e.feat = <const int32_t*>cnp.PyArray_DATA(t["feat"])


cdef class EvalPolicy(Evaluator):
    """0-ply checker play by the second evaluator (contact and race nets).

    Parameters
    ----------
    nets : dict, optional
        ``{"contact": weights, "race": weights}`` (float, as
        :func:`fastbg.reference.evaluator.load_nets` gives them); default the shipped
        nets (:func:`fastbg.reference.evaluator.default_nets`).

    Notes
    -----
    For each legal play the position with the turn passed is classified and evaluated
    (bear-off database, race net or contact net) and the play of highest mover's
    equity is chosen, ties to the canonically first. Same numbers as
    :class:`fastbg.reference.evaluator.EvalPolicy`.
    """

    def __cinit__(self, *args, **kwargs):
        self.name = "nn2"

    def __init__(self, nets=None):
        if nets is None:
            nets = default_nets()
        ensure_db()
        self.tables = {kind: _net_tables(nets[kind], kind) for kind in KINDS}
        if self.tables["contact"]["feat"].shape[0] != N_FEAT_ROWS:
            raise ValueError("the contact net must have 40 feature rows")
        if max(t["bias"].shape[0] for t in self.tables.values()) > NN_MAX_HIDDEN:
            raise ValueError(f"at most {NN_MAX_HIDDEN} hidden units")
        _bind(&self.contact, self.tables["contact"])
        _bind(&self.race, self.tables["race"])

    cdef void probabilities_c(self, const board_t* b, double* p) noexcept nogil:
        cdef int cls = position_class_c(b)
        if cls == PC_BEAROFF and bearoff_probabilities_c(b, p) == 0:
            return
        if cls == PC_RACE:
            e_probabilities(&self.race, b, p)
        else:
            e_probabilities(&self.contact, b, p)

    cdef double play_equity_c(self, const board_t* play) noexcept nogil:
        cdef board_t sw
        cdef double p[NN_OUTPUTS]
        if row_sum(play.p[0]) == 0:
            return 1.0 + loser_class(play.p[1])
        swap_into(play, &sw)
        self.probabilities_c(&sw, p)
        return -equity5(p)

    cdef double contact_play_equity(self, const board_t* before, const qpre_t* base,
                                    const board_t* play) noexcept nogil:
        """play_equity_c, with the contact net's point part corrected from `base` (the
        pre-activations of swap(before)) at the slots the play changes; same numbers."""
        cdef board_t sw
        cdef double p[NN_OUTPUTS]
        cdef qpre_t pre[NN_MAX_HIDDEN]
        cdef int cls
        if row_sum(play.p[0]) == 0:
            return 1.0 + loser_class(play.p[1])
        swap_into(play, &sw)
        cls = position_class_c(&sw)
        if cls != PC_CONTACT:
            self.probabilities_c(&sw, p)
            return -equity5(p)
        q_pre_play(&self.contact.q, before, base, play, pre)
        e_add_features(&self.contact, &sw, pre)
        e_read(&self.contact, &sw, pre, p)
        return -equity5(p)

    cdef int choose_c(self, const board_t* before, board_t* plays,
                      const int64_t* scores, const uint64_t* keys, int n,
                      bitgen_t* bg) noexcept nogil:
        cdef int j, best = 0
        cdef double e, best_e = 0.0
        cdef qpre_t base[NN_MAX_HIDDEN]
        cdef board_t sw
        swap_into(before, &sw)
        q_pre(&self.contact.q, &sw, base)      # the point part only: features per play
        for j in range(n):
            e = self.contact_play_equity(before, base, &plays[j])
            if j == 0 or e > best_e or (e == best_e and board_cmp(&plays[j], &plays[best]) < 0):
                best_e = e
                best = j
        return best

    def probabilities(self, board):
        """The five probabilities of a position (row 0 on roll, before its roll).

        Returns
        -------
        numpy.ndarray of float64, shape (5,)

        Raises
        ------
        ValueError
            For an invalid board or a finished game.
        """
        cdef board_t b
        load_board(board, &b)
        if row_sum(b.p[0]) == 0 or row_sum(b.p[1]) == 0:
            raise ValueError("a game that is over has no evaluation")
        out = np.empty(NN_OUTPUTS, dtype=np.float64)
        self.probabilities_c(&b, <double*>cnp.PyArray_DATA(out))
        return out

    def play_equities(self, before, plays):
        """The mover's cubeless equity after each play (mover in row 0, not swapped).

        Parameters
        ----------
        before : array_like of int, shape (2, 25)
            The position before the roll (the base of the incremental first layer).
        plays : array_like of int, shape (n, 2, 25)

        Returns
        -------
        numpy.ndarray of float64, shape (n,)
        """
        cdef board_t b, bf, sw
        cdef qpre_t base[NN_MAX_HIDDEN]
        load_board(before, &bf)
        swap_into(&bf, &sw)
        q_pre(&self.contact.q, &sw, base)
        arr = np.asarray(plays, dtype=np.int8).reshape(-1, 2, 25)
        out = np.empty(arr.shape[0], dtype=np.float64)
        cdef int j
        for j in range(arr.shape[0]):
            load_board(arr[j], &b)
            out[j] = self.contact_play_equity(&bf, base, &b)
        return out

    def __repr__(self):
        return (f"EvalPolicy(hidden={self.tables['contact']['bias'].shape[0]}/"
                f"{self.tables['race']['bias'].shape[0]})")
