# cython: language_level=3
"""The second evaluator: contact and race nets by position class (see evaluator.pxd).

Mirror of :mod:`fastbg.reference.evaluator`; both engines give bitwise equal
probabilities and choose the same plays.
"""
import numpy as np
cimport numpy as cnp
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdlib cimport malloc, calloc, free
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t
from numpy.random cimport bitgen_t

from fastbg._core._types cimport board_t, board_cmp, load64, linear_eval_t, NCHECKERS, NSLOTS, MAX_PLAYS
from fastbg._core.movegen cimport movegen_t, movegen_new, movegen_free, generate
from fastbg._core.rank cimport top_plays
from fastbg._core.luck cimport flip5
from fastbg._core.board cimport (load_board, swap_into, row_sum, checkers_c, loser_class,
                                 back_point_c)
from fastbg._core.eval cimport Policy, Evaluator
from fastbg._core.nn cimport (NN_OUTPUTS, NN_MAX_HIDDEN, Q_MAX_ROWS, Q_MAX_SLOTS, q_rows,
                              q_play_rows, board_diff, q_outputs, q_outputs_masked, live_outputs,
                              clip5, consistent, equity5)
from fastbg._core.bearoffdb cimport (ensure_db, bearoff_probabilities_c, bearoff_prefetch_c,
                                    is_bearoff_c)
from fastbg._core.racedb cimport ensure_racedb, racedb_probabilities_c, RD_MAX
from fastbg._core.features cimport (contact_features_c, contact_features_ext_c,
                                    contact_features_given_c, crashed_c, blot_features_c,
                                    blot_features_side0_c,
                                    blot_entry_t, BLOT_CACHE_BITS,
                                    position_class_c, N_FEATURES, N_ALL_FEATURES,
                                    PC_BEAROFF, PC_RACE, PC_CONTACT)

from fastbg.spec.nets import check_decision, check_nets, default_nets, hidden_label, quantize_net
from fastbg.spec.nn import hidden_table, sigmoid_table
from fastbg.spec.nply import check_ply, filter_arrays, move_filter as nply_move_filter
from fastbg._core.nn import point_steps

cnp.import_array()

cdef enum:
    N_FEAT_ROWS = 2 * N_FEATURES        # a 236-input contact net: the first 20 a side
    N_FEAT_ROWS_EXT = N_ALL_FEATURES    # a 252-input one: and the 8 extra a side


cdef extern from "thread_workspace.h":
    # the calling thread's zeroed block of `size` bytes, made on first use
    void* fbg_thread_workspace(size_t size) noexcept nogil
    # zero the first bytes of the idle threads' blocks and of the caller's
    void fbg_ws_clear(size_t bytes) noexcept nogil


cdef struct eval_ws_t:
    # a thread's workspace for the blot features (e_blots)
    blot_entry_t cache[1 << BLOT_CACHE_BITS]        # their memo


cdef extern from "nn_kernels.h":
    # dst = src + the add rows - the sub rows + sum of coef[k] * mul[k] (AVX2 or baseline
    # copy, chosen at load; same results)
    void fbg_q_delta(int32_t* dst, const int32_t* src, const int32_t* const* add, int na,
                     const int32_t* const* sub, int ns, const int32_t* const* mul,
                     const int32_t* coef, int nm, int nh) noexcept nogil
    # bit f set iff a[f] != b[f], f < n <= 64
    uint64_t fbg_changed(const int32_t* a, const int32_t* b, int n) noexcept nogil
    int fbg_ctz64(uint64_t x) noexcept nogil


cdef inline int e_numerators(const enet_t* e, const board_t* b, int32_t* nums) noexcept nogil:
    """The net's nfeat feature numerators of b: the 40 of contact_features_c or, for a
    net that reads them (nfeat 56), the 56 of contact_features_ext_c (the extras are
    computed only then); none for the race net. Not the blot numerators (e_blots)."""
    if e.nfeat == N_FEAT_ROWS:
        contact_features_c(b, nums)
    elif e.nfeat == N_FEAT_ROWS_EXT:
        contact_features_ext_c(b, nums)
    return e.nfeat


cdef inline int e_numerators_given(const enet_t* e, const board_t* b, const int32_t* prev,
                                   int32_t* nums) noexcept nogil:
    """e_numerators, given prev: the net's numerators of a board whose row 0 equals b's."""
    if e.nfeat:
        contact_features_given_c(b, prev, e.nfeat == N_FEAT_ROWS_EXT, nums)
    return e.nfeat


cdef inline void e_blots(const enet_t* e, const board_t* b, int32_t* nums) noexcept nogil:
    """The net's nblot blot numerators of b into nums[nfeat:], if it reads them: both
    sides' blot features, kept in the thread's own memo (the same bear-offs against
    contact recur within a decision and across the games of a rollout)."""
    cdef eval_ws_t* ws
    if e.nblot:
        ws = <eval_ws_t*>fbg_thread_workspace(sizeof(eval_ws_t))
        blot_features_c(b, ws.cache, nums + e.nfeat)


cdef void e_pre_given(const enet_t* e, const board_t* b, const int32_t* nums,
                      qpre_t* pre) noexcept nogil:
    """e_pre from the net's numerators of b (nums: nfeat feature numerators, then nblot
    blot numerators): one pass over the bias, the point and off rows of b and the rows of
    its nonzero numerators."""
    cdef const int32_t* rows[Q_MAX_ROWS]
    cdef const int32_t* mul[N_MAX_ROWS]
    cdef int32_t coef[N_MAX_ROWS]
    cdef int f, nm = 0, nh = e.q.nh
    cdef int m = q_rows(&e.q, b, rows)
    for f in range(e.nfeat + e.nblot):
        if nums[f]:
            mul[nm] = e.feat + f * nh
            coef[nm] = nums[f]
            nm += 1
    fbg_q_delta(pre, e.q.bias, rows, m, NULL, 0, mul, coef, nm, nh)


cdef void e_pre(const enet_t* e, const board_t* b, qpre_t* pre) noexcept nogil:
    cdef int32_t nums[N_MAX_ROWS]
    e_numerators(e, b, nums)
    e_blots(e, b, nums)
    e_pre_given(e, b, nums, pre)


cdef inline void e_read(const enet_t* e, const board_t* b, qpre_t* pre, double* p) noexcept nogil:
    """The probabilities from complete pre-activations of b."""
    cdef double raw[NN_OUTPUTS]
    q_outputs(&e.q, pre, raw)
    consistent(b, raw, p)


cdef void e_probabilities(const enet_t* e, const board_t* b, double* p) noexcept nogil:
    cdef qpre_t pre[NN_MAX_HIDDEN]
    e_pre(e, b, pre)
    e_read(e, b, pre, p)


cdef inline bint e_blots_side0(const enet_t* e, const board_t* b, int32_t* nums) noexcept nogil:
    """e_blots with side 1's numerators (the mover's, b being a play swapped) taken as 0;
    whether side 1 bears off against contact (its numerators may not be 0)."""
    return blot_features_side0_c(
        b, (<eval_ws_t*>fbg_thread_workspace(sizeof(eval_ws_t))).cache, nums + e.nfeat)


cdef void base_init(ebase_t* base, const board_t* before) noexcept nogil:
    base.before = before[0]
    swap_into(before, &base.sw)
    base.contact_ready = False
    base.crashed_ready = False
    base.race_ready = False
    base.blots_ready = False
    base.mover_blots_off = False
    base.mover_bears_off = False



def clear_blot_memo():
    """Empty the memo of blot features that evaluations with a blot-reading crashed net
    keep per thread (the workspaces of threads that have ended, kept for the next ones,
    and the calling thread's own); threads evaluating meanwhile keep theirs.

    For benchmarks that must start cold, as another program would in a fresh process;
    results never depend on the memo.
    """
    fbg_ws_clear(sizeof(eval_ws_t))


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
    out["dpoint"] = point_steps(out["point"])
    out["sig"] = np.ascontiguousarray(sigmoid_table(), dtype=np.float64)
    out["out_scale"] = t["out_scale"]
    return out


cdef void _bind(enet_t* e, dict t, int nblot):
    e.q.nh = t["bias"].shape[0]
    e.q.point = <const int32_t*>cnp.PyArray_DATA(t["point"])
    e.q.dpoint = <const int32_t*>cnp.PyArray_DATA(t["dpoint"])
    e.q.off = <const int32_t*>cnp.PyArray_DATA(t["off"])
    e.q.bias = <const int32_t*>cnp.PyArray_DATA(t["bias"])
    e.q.htab = <const int32_t*>cnp.PyArray_DATA(t["htab"])
    e.q.w2 = <const int16_t*>cnp.PyArray_DATA(t["w2"])
    e.q.b2 = <const int32_t*>cnp.PyArray_DATA(t["b2"])
    e.q.out_scale = t["out_scale"]
    e.q.sig = <const double*>cnp.PyArray_DATA(t["sig"])
    e.nfeat = t["feat"].shape[0] - nblot
    e.nblot = nblot
    e.feat = <const int32_t*>cnp.PyArray_DATA(t["feat"])


# ----------------------------------------------------------------- n-ply helpers

cdef inline size_t nply_hash(const board_t* b, int ply) noexcept nogil:
    """The cache slot of (b, ply): a multiply-xorshift hash of the 50 bytes."""
    cdef uint64_t h = <uint64_t>ply * 0x9E3779B97F4A7C15ULL
    cdef const unsigned char* p = &b.p[0][0]
    cdef int k
    for k in range(0, 48, 8):
        h = (h ^ load64(p + k)) * 0xFF51AFD7ED558CCDULL
        h = h ^ (h >> 32)
    h = (h ^ (<uint64_t>p[48] | (<uint64_t>p[49] << 8))) * 0xC4CEB9FE1A85EC53ULL
    h = h ^ (h >> 29)
    return <size_t>(h >> (64 - NPLY_CACHE_BITS))


cdef inline bint play_before(const double* value, const board_t* plays, int a,
                             int b) noexcept nogil:
    """Whether play a ranks before play b: higher value, then the canonically first
    board, then the first given."""
    cdef int c
    if value[a] != value[b]:
        return value[a] > value[b]
    c = board_cmp(&plays[a], &plays[b])
    if c != 0:
        return c < 0
    return a < b


cdef void sort_plays(const double* value, const board_t* plays, int* idx, int m,
                     int* tmp) noexcept nogil:
    """idx[0..m) sorted by play_before (a bottom-up merge sort; tmp: m ints)."""
    cdef int width = 1, lo, mid, hi, i, j, k
    while width < m:
        lo = 0
        while lo < m:
            mid = lo + width if lo + width < m else m
            hi = lo + 2 * width if lo + 2 * width < m else m
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if play_before(value, plays, idx[j], idx[i]):
                    tmp[k] = idx[j]
                    j += 1
                else:
                    tmp[k] = idx[i]
                    i += 1
                k += 1
            while i < mid:
                tmp[k] = idx[i]
                i += 1
                k += 1
            while j < hi:
                tmp[k] = idx[j]
                j += 1
                k += 1
            lo = hi
        for i in range(m):
            idx[i] = tmp[i]
        width *= 2


cdef inline int filter_count(const double* value, const int* idx, int m, int accept,
                             int extra, double thr) noexcept nogil:
    """How many of the m plays idx (best first) a filter level keeps: the first accept,
    then up to extra more within thr of the best; at least 1
    (fastbg.spec.nply.survivors)."""
    cdef int count = accept if accept < m else m
    cdef int limit = accept + extra
    while count < m and count < limit and value[idx[count]] >= value[idx[0]] - thr:
        count += 1
    return count if count > 1 else 1


cdef nply_ctx_t* ctx_new(int ply, bint cache) noexcept nogil:
    """A workspace for evaluations up to `ply` (and its cache, if asked), or NULL."""
    cdef nply_ctx_t* ctx = <nply_ctx_t*>calloc(1, sizeof(nply_ctx_t))
    cdef int k
    if ctx == NULL:
        return NULL
    for k in range(1, ply + 1):
        ctx.g[k] = movegen_new()
        if ctx.g[k] == NULL:
            ctx_free(ctx)
            return NULL
    if cache:
        ctx.cache = <ncache_t*>calloc(<size_t>1 << NPLY_CACHE_BITS, sizeof(ncache_t))
        if ctx.cache == NULL:
            ctx_free(ctx)
            return NULL
    return ctx


cdef void ctx_free(nply_ctx_t* ctx) noexcept nogil:
    cdef int k
    if ctx == NULL:
        return
    for k in range(NPLY_MAX + 1):
        if ctx.g[k] != NULL:
            movegen_free(ctx.g[k])
    free(ctx.cache)
    free(ctx)


cdef nply_set_t* nset_new(int ply, int ctx_ply, object move_filter) except NULL:
    """An n-ply set (evaluator.pxd): ranking at `ply` through `move_filter`, a workspace
    (and, from 2 ply, a cache) up to ctx_ply."""
    check_ply(ply)
    check_ply(ctx_ply)
    if ctx_ply < ply:
        ctx_ply = ply
    acc_a, ext_a, thr_a = filter_arrays(move_filter, ply)
    cdef nply_set_t* s = <nply_set_t*>calloc(1, sizeof(nply_set_t))
    cdef int L
    if s == NULL:
        raise MemoryError()
    s.ply = ply
    s.ctx_ply = ctx_ply
    for L in range(NPLY_MAX):
        s.accept[L] = acc_a[L]
        s.extra[L] = ext_a[L]
        s.thr[L] = thr_a[L]
    s.ctx = ctx_new(ctx_ply, ctx_ply >= 2)
    s.probs = <double*>malloc(5 * MAX_PLAYS * sizeof(double))
    s.ints = <int*>malloc(3 * MAX_PLAYS * sizeof(int))
    if s.ctx == NULL or s.probs == NULL or s.ints == NULL:
        nset_free(s)
        raise MemoryError()
    return s


cdef void nset_free(nply_set_t* s) noexcept nogil:
    if s == NULL:
        return
    ctx_free(s.ctx)
    free(s.probs)
    free(s.ints)
    free(s)


cdef class EvalPolicy(Evaluator):
    """0-ply checker play by the second evaluator (contact and race nets).

    Parameters
    ----------
    nets : dict, optional
        ``{"contact": weights, "race": weights}`` and optionally ``"crashed": weights``
        (float, as :func:`fastbg.spec.nets.load_nets` gives them); default the
        shipped nets (:func:`fastbg.spec.nets.default_nets`).

    Notes
    -----
    For each legal play the position with the turn passed is classified and evaluated
    (bear-off database, small-race database, race net, crashed net or contact net) and the play of highest mover's
    equity is chosen, ties to the canonically first. Same numbers as
    :class:`fastbg.reference.evaluator.EvalPolicy`.
    """

    def __cinit__(self, *args, **kwargs):
        self.name = "nn"

    def __init__(self, nets=None):
        if nets is None:
            nets = default_nets()
        ensure_db()
        ensure_racedb()
        self.tables = {kind: _net_tables(w, kind) for kind, w in check_nets(nets).items()}
        if self.tables["contact"]["feat"].shape[0] not in (N_FEAT_ROWS, N_FEAT_ROWS_EXT):
            raise ValueError(f"the contact net must have {N_FEAT_ROWS} or {N_FEAT_ROWS_EXT} "
                             "feature rows (236 or 252 inputs)")
        if max(t["bias"].shape[0] for t in self.tables.values()) > NN_MAX_HIDDEN:
            raise ValueError(f"at most {NN_MAX_HIDDEN} hidden units")
        _bind(&self.contact, self.tables["contact"], 0)
        _bind(&self.race, self.tables["race"], 0)
        self.has_crashed = "crashed" in self.tables
        if self.has_crashed:
            # the contact net's feature rows (check_nets: the same inputs, or those and
            # the blot inputs), whose numerators the two nets share, then any blot rows
            nblot = (self.tables["crashed"]["feat"].shape[0]
                     - self.tables["contact"]["feat"].shape[0])
            if nblot not in (0, N_BLOT_ROWS):
                raise ValueError("the crashed net must read the contact net's inputs, "
                                 f"and the {N_BLOT_ROWS} blot inputs or none besides")
            _bind(&self.crashed, self.tables["crashed"], nblot)

    cdef void probabilities_c(self, const board_t* b, double* p) noexcept nogil:
        cdef int cls = position_class_c(b)
        if cls == PC_BEAROFF and bearoff_probabilities_c(b, p) == 0:
            return
        if cls == PC_RACE:
            if racedb_probabilities_c(b, p) == 0:     # at most RD_MAX checkers a side
                return
            e_probabilities(&self.race, b, p)
        elif self.has_crashed and crashed_c(b):
            e_probabilities(&self.crashed, b, p)
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

    cdef double contact_play_equity(self, ebase_t* base, const board_t* play) noexcept nogil:
        """play_equity_c, from the decision's base: the race and contact nets' first
        layers corrected at the slots the play changes (and the contact net's at the
        features whose numerator changed); same numbers."""
        cdef board_t sw
        cdef double p[NN_OUTPUTS]
        cdef double raw[NN_OUTPUTS]
        cdef qpre_t pre[NN_MAX_HIDDEN]
        cdef const int32_t* sub[Q_MAX_SLOTS]
        cdef const int32_t* add[Q_MAX_SLOTS]
        cdef const int32_t* mul[N_MAX_ROWS]
        cdef int32_t nums[N_MAX_ROWS]
        cdef int32_t coef[N_MAX_ROWS]
        cdef const enet_t* e
        cdef const qpre_t* src
        cdef qpre_t* base_pre
        cdef bint* ready
        cdef uint64_t changed, diff
        cdef int na, ns, f, nf, nm = 0, back0, back1, live
        cdef int sum1 = checkers_c(play.p[0])   # the mover: row 1 once the turn passes
        if sum1 == 0:
            return 1.0 + loser_class(play.p[1])
        # position_class_c of swap(play) from the back points (1..25): contact when the
        # rearmost checkers have not passed each other, a bear-off when both are home
        back0 = back_point_c(play.p[1])
        back1 = back_point_c(play.p[0])
        if back0 + back1 >= 25:
            if self.has_crashed and crashed_c(play):
                e, base_pre, ready = &self.crashed, base.crashed, &base.crashed_ready
            else:
                e, base_pre, ready = &self.contact, base.pre, &base.contact_ready
            if not ready[0]:
                # the two contact nets read the same numerators (same nfeat): made once
                if not (base.contact_ready or base.crashed_ready):
                    e_numerators(e, &base.sw, base.nums)
                if e.nblot and not base.blots_ready:
                    # the base's side 1 (the mover before its roll) taken as 0: a play's
                    # sums are the base's corrected by the differences, the same for
                    # any base numerators, and the mover's search is spared
                    e_blots_side0(e, &base.sw, base.nums)
                    base.blots_ready = True
                ready[0] = True
                e_pre_given(e, &base.sw, base.nums, base_pre)
            src = base_pre
            swap_into(play, &sw)
            diff = board_diff(&base.before, play)
            if diff >> NSLOTS == 0:
                # no hit: the opponent's row, sw's row 0, is base.sw's
                nf = e_numerators_given(e, &sw, base.nums, nums)
            else:
                nf = e_numerators(e, &sw, nums)
            changed = fbg_changed(nums, base.nums, nf)
            while changed:
                f = fbg_ctz64(changed)
                changed &= changed - 1
                mul[nm] = e.feat + f * e.q.nh
                coef[nm] = nums[f] - base.nums[f]
                nm += 1
            if e.nblot:
                # the blot numerators of the play (0 unless a side bears off against
                # contact), corrected as the others; in the blot rule's first pass, the
                # mover's taken as 0
                if base.mover_blots_off:
                    if e_blots_side0(e, &sw, nums):
                        base.mover_bears_off = True
                else:
                    e_blots(e, &sw, nums)
                for f in range(nf, nf + e.nblot):
                    if nums[f] != base.nums[f]:
                        mul[nm] = e.feat + f * e.q.nh
                        coef[nm] = nums[f] - base.nums[f]
                        nm += 1
        elif back0 > 6 or back1 > 6:
            if sum1 <= RD_MAX and checkers_c(play.p[1]) <= RD_MAX:
                swap_into(play, &sw)
                if racedb_probabilities_c(&sw, p) == 0:     # the small-race database
                    return -equity5(p)
            diff = board_diff(&base.before, play)
            e = &self.race
            if not base.race_ready:
                base.race_ready = True
                e_pre(e, &base.sw, base.race)
            src = base.race
        else:
            swap_into(play, &sw)
            self.probabilities_c(&sw, p)        # the bear-off database
            return -equity5(p)
        na = q_play_rows(&e.q, &base.before, play, diff, add, sub, &ns)
        fbg_q_delta(pre, src, add, na, sub, ns, mul, coef, nm, e.q.nh)
        # consistent() of swap(play), whose outputs set to 0 are not computed
        live = live_outputs(back0, back1, checkers_c(play.p[1]), sum1)
        q_outputs_masked(&e.q, pre, live, raw)
        clip5(raw, p, live)
        return -equity5(p)

    cdef int rank_plays(self, ebase_t* base, const board_t* plays, int n, int k,
                        int* cand, double* value) noexcept nogil:
        cdef double eq[MAX_PLAYS]
        cdef unsigned char again[MAX_PLAYS]
        cdef int top[MAX_RANKED]
        cdef double full[BLOT_TOP]
        cdef board_t kept[BLOT_TOP]
        cdef int order[BLOT_TOP]
        cdef int sub[BLOT_TOP]
        cdef bint rule = self.has_crashed and self.crashed.nblot and n > BLOT_TOP
        cdef bint any_again = False
        cdef int j, i, m, t
        # the first pass (every play in full when there is no rule, or at most BLOT_TOP
        # plays: the same ranking)
        base.mover_blots_off = rule
        for j in range(n):
            base.mover_bears_off = False
            eq[j] = self.contact_play_equity(base, &plays[j])
            again[j] = base.mover_bears_off
            any_again = any_again or base.mover_bears_off
        base.mover_blots_off = False
        # without a play whose mover bears off against contact, the first pass was exact
        m = top_plays(eq, plays, n, k if (k >= BLOT_TOP or not any_again) else BLOT_TOP, top)
        if any_again:
            # the first BLOT_TOP in full, then ranked by that (top_plays: ties canonical)
            t = m if m < BLOT_TOP else BLOT_TOP
            for i in range(t):
                sub[i] = top[i]
                kept[i] = plays[top[i]]
                if again[top[i]]:
                    eq[top[i]] = self.contact_play_equity(base, &plays[top[i]])
                full[i] = eq[top[i]]
            top_plays(full, kept, t, t, order)
            for i in range(t):
                top[i] = sub[order[i]]
        if m > k:
            m = k
        for i in range(m):
            cand[i] = top[i]
            value[i] = eq[top[i]]
        return m

    cdef int choose_c(self, const board_t* before, board_t* plays,
                      const int64_t* scores, const uint64_t* keys, int n,
                      bitgen_t* bg) noexcept nogil:
        cdef int j, cand[1]
        cdef double value[1]
        cdef ebase_t base
        base_init(&base, before)
        if back_point_c(before.p[1]) <= 6:
            # the opponent is home: start the bear-off table loads of the plays that
            # leave a pure bear-off, so that their cache misses overlap (as NNPolicy)
            for j in range(n):
                if is_bearoff_c(&plays[j]):
                    bearoff_prefetch_c(plays[j].p[0])
        self.rank_plays(&base, plays, n, 1, cand, value)
        return cand[0]

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

        Raises
        ------
        ValueError, TypeError
            As :func:`fastbg.spec.nets.check_decision` (the spec's errors).
        """
        cdef board_t b, bf
        cdef ebase_t base
        before, arr, _ = check_decision(before, plays)
        load_board(before, &bf)
        base_init(&base, &bf)
        out = np.empty(arr.shape[0], dtype=np.float64)
        cdef int j
        for j in range(arr.shape[0]):
            load_board(arr[j], &b)
            out[j] = self.contact_play_equity(&base, &b)
        return out

    def ranking(self, before, plays, k=1):
        """The first k plays of the decision's 0-ply ranking and their equities: the
        ``(order, values)`` of :meth:`fastbg.reference.evaluator.EvalPolicy.ranking`, bit
        for bit (its parameters, returns and errors; k in 1..64, plays in any
        order, ties to the canonically first).
        """
        cdef board_t bf
        cdef ebase_t base
        cdef int kk, n, m, j
        cdef int cand[MAX_RANKED]
        cdef double value[MAX_RANKED]
        before, arr, kk = check_decision(before, plays, k)
        load_board(before, &bf)
        n = arr.shape[0]
        cdef board_t* b = <board_t*>PyMem_Malloc(n * sizeof(board_t))
        if b == NULL:
            raise MemoryError()
        try:
            for j in range(n):
                load_board(arr[j], &b[j])
            base_init(&base, &bf)
            m = self.rank_plays(&base, b, n, kk, cand, value)
        finally:
            PyMem_Free(b)
        return (np.array([cand[j] for j in range(m)], dtype=np.int64),
                np.array([value[j] for j in range(m)], dtype=np.float64))

    # ------------------------------------------------------------- lookahead (labels)

    cdef void after_probs(self, const board_t* play, double* q) noexcept nogil:
        """The mover's probabilities after its play (mover in row 0, rows not swapped)."""
        cdef board_t sw
        cdef double r[NN_OUTPUTS]
        cdef int c
        if row_sum(play.p[0]) == 0:
            c = loser_class(play.p[1])          # 0 single, 1 gammon, 2 backgammon
            q[0] = 1.0
            q[1] = 1.0 if c >= 1 else 0.0
            q[2] = 1.0 if c >= 2 else 0.0
            q[3] = 0.0
            q[4] = 0.0
            return
        swap_into(play, &sw)
        self.probabilities_c(&sw, r)
        flip5(r, q)

    cdef int best_play(self, ebase_t* base, board_t* plays, int n) noexcept nogil:
        """Index of the 0-ply choice (rank_plays' first play)."""
        cdef int cand[1]
        cdef double value[1]
        self.rank_plays(base, plays, n, 1, cand, value)
        return cand[0]

    cdef int roll_values(self, movegen_t* g, const board_t* pos, double* v, Policy pf,
                         int k) noexcept nogil:
        """v[21][5]: the mover's probabilities after its best 0-ply play, per roll (among
        the k best by pf's linear score when pf is given)."""
        cdef ebase_t base
        cdef const linear_eval_t* ev = NULL
        cdef double sc[MAX_PLAYS]
        cdef board_t kept[64]
        cdef int cand[64]
        cdef int d1, d2, n, j, m, s = 0
        if pf is not None and k >= 1:
            ev = pf.linear(pos)
            if k > 64:
                k = 64
        base_init(&base, pos)
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                n = generate(g, pos, d1, d2, ev, 0)
                if n < 0:
                    return -1
                if n == 0:
                    self.after_probs(pos, &v[5 * s])     # no play: the turn passes
                elif ev == NULL or n <= k:
                    self.after_probs(&g.plays[self.best_play(&base, g.plays, n)], &v[5 * s])
                else:
                    for j in range(n):
                        sc[j] = <double>g.scores[j]
                    m = top_plays(sc, g.plays, n, k, cand)    # best first, ties canonical
                    for j in range(m):
                        kept[j] = g.plays[cand[j]]
                    self.after_probs(&kept[self.best_play(&base, kept, m)], &v[5 * s])
                s += 1
        return 0

    cdef int ply1_probs(self, movegen_t* g, const board_t* pos, double* out) noexcept nogil:
        """out: the 1-ply probabilities of pos for its side on roll (-1: buffer overflow)."""
        cdef double v[21 * NN_OUTPUTS]
        cdef double acc[NN_OUTPUTS]
        cdef double w
        cdef int d1, d2, k, s = 0
        if self.roll_values(g, pos, v, None, 0) < 0:
            return -1
        for k in range(NN_OUTPUTS):
            acc[k] = 0.0
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                w = 1.0 if d1 == d2 else 2.0
                for k in range(NN_OUTPUTS):
                    acc[k] = acc[k] + w * v[5 * s + k]
                s += 1
        for k in range(NN_OUTPUTS):
            out[k] = acc[k] / 36.0
        return 0

    cdef int ply2_probs(self, movegen_t* g, movegen_t* g2, const board_t* pos, int cands,
                        double* out) noexcept nogil:
        """out: the 2-ply probabilities of pos: per roll, the best of the `cands` best
        0-ply plays by their 1-ply equity (ties canonical), averaged over the 21 rolls."""
        cdef board_t sw
        cdef board_t cb[64]
        cdef ebase_t base
        cdef double eq0[64]
        cdef int cand[64]
        cdef double q[NN_OUTPUTS]
        cdef double r[NN_OUTPUTS]
        cdef double best_q[NN_OUTPUTS]
        cdef double acc[NN_OUTPUTS]
        cdef double w, e, best_e
        cdef int d1, d2, n, k, j, m, best
        for k in range(NN_OUTPUTS):
            acc[k] = 0.0
        swap_into(pos, &sw)
        base_init(&base, pos)
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                n = generate(g, pos, d1, d2, NULL, 0)
                if n < 0:
                    return -1
                if n == 0:
                    # no play: the opponent is on roll at swap(pos); its 1-ply, flipped
                    if self.ply1_probs(g2, &sw, r) < 0:
                        return -1
                    flip5(r, best_q)
                else:
                    m = self.rank_plays(&base, g.plays, n, cands, cand, eq0)
                    for k in range(m):
                        cb[k] = g.plays[cand[k]]
                    best = -1
                    best_e = 0.0
                    for k in range(m):
                        if row_sum(cb[k].p[0]) == 0:
                            self.after_probs(&cb[k], q)
                        else:
                            swap_into(&cb[k], &sw)
                            if self.ply1_probs(g2, &sw, r) < 0:
                                return -1
                            flip5(r, q)
                        e = equity5(q)
                        if best < 0 or e > best_e or (e == best_e and board_cmp(&cb[k], &cb[best]) < 0):
                            best = k
                            best_e = e
                            for j in range(NN_OUTPUTS):
                                best_q[j] = q[j]
                    swap_into(pos, &sw)      # restore (sw was reused)
                w = 1.0 if d1 == d2 else 2.0
                for k in range(NN_OUTPUTS):
                    acc[k] = acc[k] + w * best_q[k]
        for k in range(NN_OUTPUTS):
            out[k] = acc[k] / 36.0
        return 0

    # ------------------------------------------------------------- n-ply (GNU's plies)

    cdef int nply_c(self, nply_ctx_t* ctx, const board_t* pos, int ply,
                    double* out) noexcept nogil:
        """out: pos's probabilities at `ply` (see evaluator.pxd); -1 on overflow."""
        cdef ebase_t base
        cdef movegen_t* g
        cdef ncache_t* slot = NULL
        cdef const board_t* src
        cdef double q[NN_OUTPUTS]
        cdef double acc[NN_OUTPUTS]
        cdef double w
        cdef int d1, d2, n, k
        if ply == 0:
            self.probabilities_c(pos, out)
            return 0
        if ctx.cache != NULL:
            slot = &ctx.cache[nply_hash(pos, ply)]
            if slot.ply == ply and board_cmp(&slot.b, pos) == 0:
                ctx.hits += 1
                for k in range(NN_OUTPUTS):
                    out[k] = slot.p[k]
                return 0
            ctx.misses += 1
        g = ctx.g[ply]
        base_init(&base, pos)
        for k in range(NN_OUTPUTS):
            acc[k] = 0.0
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                n = generate(g, pos, d1, d2, NULL, 0)
                if n < 0:
                    return -1
                if n == 0:
                    src = pos                   # no play: the turn passes
                else:
                    src = &g.plays[self.best_play(&base, g.plays, n)]
                # (g is not generated again below this level: deeper nodes use their own)
                if self.after_nply(ctx, src, ply - 1, q) < 0:
                    return -1
                w = 1.0 if d1 == d2 else 2.0
                for k in range(NN_OUTPUTS):
                    acc[k] = acc[k] + w * q[k]
        for k in range(NN_OUTPUTS):
            out[k] = acc[k] / 36.0
        if slot != NULL:
            slot.b = pos[0]
            slot.ply = ply
            for k in range(NN_OUTPUTS):
                slot.p[k] = out[k]
        return 0

    cdef int after_nply(self, nply_ctx_t* ctx, const board_t* play, int ply,
                        double* q) noexcept nogil:
        """q: the mover's probabilities after its play at `ply` (see evaluator.pxd)."""
        cdef board_t sw
        cdef double r[NN_OUTPUTS]
        if ply == 0 or row_sum(play.p[0]) == 0:
            self.after_probs(play, q)
            return 0
        swap_into(play, &sw)
        if self.nply_c(ctx, &sw, ply, r) < 0:
            return -1
        flip5(r, q)
        return 0

    cdef int rank_nply_c(self, nply_ctx_t* ctx, const board_t* plays, int n, int ply,
                         const int* accept, const int* extra, const double* thr,
                         double* probs, int* plies, int* order, int* tmp) noexcept nogil:
        """The plays ranked at `ply` through the filter's levels (see evaluator.pxd)."""
        cdef double* value = <double*>malloc(n * sizeof(double))
        cdef int alive = n, level, j, i
        if value == NULL:
            return -2
        for j in range(n):
            order[j] = j
        for level in range(ply + 1):
            if level < ply and accept[level] < 0:
                continue                        # a skipped level: no values, no pruning
            for i in range(alive):
                j = order[i]
                if self.after_nply(ctx, &plays[j], level, &probs[5 * j]) < 0:
                    free(value)
                    return -1
                value[j] = equity5(&probs[5 * j])
                plies[j] = level
            sort_plays(value, plays, order, alive, tmp)
            if level == ply:
                break
            # the survivors are order[0..c); the dropped ones stay where they are, after
            # them and before the plays dropped at the earlier levels
            alive = filter_count(value, order, alive, accept[level], extra[level], thr[level])
            if alive == 1:
                break                           # one play left: the choice is made (as GNU)
        free(value)
        return 0

    cdef int best_nply(self, nply_set_t* s, const board_t* plays, int n,
                       double* q) noexcept nogil:
        """The best of plays[0..n) at s.ply through s's filter (see evaluator.pxd)."""
        cdef int rc, j, k
        if n == 1 and q == NULL:
            return 0
        rc = self.rank_nply_c(s.ctx, plays, n, s.ply, s.accept, s.extra, s.thr, s.probs,
                              s.ints, s.ints + n, s.ints + 2 * n)
        if rc < 0:
            return rc
        j = s.ints[n]
        if q != NULL:
            for k in range(NN_OUTPUTS):
                q[k] = s.probs[5 * j + k]
        return j

    cdef int roll_values_nply(self, nply_set_t* s, movegen_t* g, const board_t* pos,
                              double* v) noexcept nogil:
        """v[21][5]: per roll, the mover's probabilities after its best play at s.ply."""
        cdef int d1, d2, n, j, rc, slot = 0
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                n = generate(g, pos, d1, d2, NULL, 0)
                if n < 0:
                    return -1
                if n == 0:                          # no play: the turn passes
                    rc = self.after_nply(s.ctx, pos, s.ply, &v[5 * slot])
                elif n == 1:
                    rc = self.after_nply(s.ctx, &g.plays[0], s.ply, &v[5 * slot])
                else:
                    j = self.best_nply(s, g.plays, n, &v[5 * slot])
                    if j < 0:
                        return j
                    # a filter level that left one play stopped the ranking short of
                    # s.ply: that play is valued at s.ply too, so all 21 values share it
                    rc = 0 if s.ints[j] == s.ply else self.after_nply(
                        s.ctx, &g.plays[j], s.ply, &v[5 * slot])
                if rc < 0:
                    return rc
                slot += 1
        return 0

    def nply_probabilities(self, boards, ply=1):
        """The probabilities of positions at n ply (GNU Backgammon's plies,
        :mod:`fastbg.spec.nply`).

        Parameters
        ----------
        boards : array_like of int, shape (2, 25) or (n, 2, 25)
            Row 0 on roll, before its roll; games not over.
        ply : int, default 1
            0..3: 0 is :meth:`probabilities`; n is the mean over the 21 rolls of the
            (n-1)-ply value after the roll's 0-ply choice.

        Returns
        -------
        numpy.ndarray of float64, shape (n, 5)
            The side on roll's five probabilities; the same numbers as
            :meth:`fastbg.reference.evaluator.EvalPolicy.nply_probabilities`, bit for
            bit. At 1 ply also :meth:`lookahead`'s.

        Raises
        ------
        ValueError
            For a bad board, a finished game or a ply outside 0..3.

        Notes
        -----
        Runs without the GIL. At 2 ply and more one call keeps a cache of the positions it
        valued at 1 ply or more (:data:`fastbg.spec.nply.CACHE_BITS`), its own: calls in
        several threads share nothing but the read-only nets.
        """
        cdef int pl = check_ply(ply)
        arr = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 2, 25)
        cdef int n = arr.shape[0], i, rc = 0
        out = np.zeros((n, NN_OUTPUTS), dtype=np.float64)
        if n == 0:
            return out
        cdef double[:, ::1] o = out
        cdef board_t* b = <board_t*>PyMem_Malloc(n * sizeof(board_t))
        cdef nply_ctx_t* ctx = NULL
        if b == NULL:
            raise MemoryError()
        try:
            for i in range(n):
                load_board(arr[i], &b[i])
                if row_sum(b[i].p[0]) == 0 or row_sum(b[i].p[1]) == 0:
                    raise ValueError(f"board {i}: the game is over")
            with nogil:
                ctx = ctx_new(pl, pl >= 2)
                if ctx == NULL:
                    rc = -2
                else:
                    for i in range(n):
                        rc = self.nply_c(ctx, &b[i], pl, &o[i, 0])
                        if rc < 0:
                            break
                    ctx_free(ctx)
        finally:
            PyMem_Free(b)
        if rc == -2:
            raise MemoryError()
        if rc < 0:
            raise RuntimeError(f"a roll had more than {MAX_PLAYS} legal plays")
        return out

    def rank_nply(self, before, plays, ply=1, move_filter=None):
        """The plays of a roll ranked at n ply through a move filter.

        Parameters
        ----------
        before : array_like of int, shape (2, 25)
            The position before the roll (mover in row 0), as :meth:`ranking`'s.
        plays : array_like of int, shape (n, 2, 25)
            Its legal plays for one roll (mover in row 0, not swapped), 1 <= n <= 4096.
        ply : int, default 1
            0..3.
        move_filter : fastbg.spec.nply.MoveFilter, str or sequence, optional
            Which plays go deeper, level by level (:func:`fastbg.spec.nply.move_filter`;
            default :data:`fastbg.spec.nply.DEFAULT_FILTER`, GNU Backgammon's Normal).

        Returns
        -------
        order : numpy.ndarray of int64, shape (n,)
            Indices into ``plays``: the plays valued at ``ply`` best first, then those
            dropped by each filter level (the deepest level's first), each group best
            first by its own values; ties to the canonically first board.
        probabilities : numpy.ndarray of float64, shape (n, 5)
            Row j: the mover's probabilities after play j (exact if it bears off the
            last checker), at the ply ``plies[j]``.
        plies : numpy.ndarray of int64, shape (n,)
            The ply each play was last valued at.

        Raises
        ------
        ValueError, TypeError
            As :func:`fastbg.spec.nets.check_decision`; a ply outside 0..3 or a malformed
            filter.

        Notes
        -----
        The same numbers and order as
        :meth:`fastbg.reference.evaluator.EvalPolicy.rank_nply`, bit for bit. Runs without
        the GIL, with a cache of its own (:meth:`nply_probabilities`).
        """
        cdef int pl = check_ply(ply)
        before, arr, _ = check_decision(before, plays)
        acc_a, ext_a, thr_a = filter_arrays(move_filter, pl)
        cdef int accept[NPLY_MAX]
        cdef int extra[NPLY_MAX]
        cdef double thr[NPLY_MAX]
        cdef int L, j, rc = 0
        for L in range(NPLY_MAX):
            accept[L] = acc_a[L]
            extra[L] = ext_a[L]
            thr[L] = thr_a[L]
        cdef int n = arr.shape[0]
        probs = np.zeros((n, NN_OUTPUTS), dtype=np.float64)
        cdef double[:, ::1] pr = probs
        plies_out = np.zeros(n, dtype=np.int64)
        order_out = np.zeros(n, dtype=np.int64)
        cdef board_t* b = <board_t*>PyMem_Malloc(n * sizeof(board_t))
        cdef int* ints = <int*>PyMem_Malloc(3 * n * sizeof(int))
        cdef nply_ctx_t* ctx = NULL
        if b == NULL or ints == NULL:
            PyMem_Free(b)
            PyMem_Free(ints)
            raise MemoryError()
        try:
            for j in range(n):
                load_board(arr[j], &b[j])
            with nogil:
                ctx = ctx_new(pl, pl >= 2)
                if ctx == NULL:
                    rc = -2
                else:
                    rc = self.rank_nply_c(ctx, b, n, pl, accept, extra, thr, &pr[0, 0],
                                          ints, ints + n, ints + 2 * n)
                    ctx_free(ctx)
            for j in range(n):
                plies_out[j] = ints[j]
                order_out[j] = ints[n + j]
        finally:
            PyMem_Free(b)
            PyMem_Free(ints)
        if rc == -2:
            raise MemoryError()
        if rc < 0:
            raise RuntimeError(f"a roll had more than {MAX_PLAYS} legal plays")
        return order_out, probs, plies_out

    def lookahead(self, boards, plies=1, candidates=4):
        """The 1-ply or 2-ply probabilities of positions (row 0 on roll, before its roll).

        Parameters
        ----------
        boards : array_like of int, shape (n, 2, 25)
            Games not over.
        plies : {0, 1, 2}
            0: the evaluator itself; 1: the average over the 21 rolls of the probabilities
            after the 0-ply best play; 2: the same with each roll's play chosen among its
            ``candidates`` best 0-ply plays by their 1-ply equity, and valued at 1 ply.
        candidates : int
            1..64 (2 plies only).

        Returns
        -------
        numpy.ndarray of float64, shape (n, 5)
            Same numbers as :meth:`fastbg.reference.evaluator.EvalPolicy.lookahead`.
        """
        arr = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 2, 25)
        if plies not in (0, 1, 2):
            raise ValueError(f"plies must be 0, 1 or 2, got {plies!r}")
        if not 1 <= candidates <= 64:
            raise ValueError(f"candidates must be in 1..64, got {candidates!r}")
        cdef int n = arr.shape[0], i, rc = 0, pl = plies, ca = candidates
        out = np.zeros((n, NN_OUTPUTS), dtype=np.float64)
        cdef double[:, ::1] o = out
        cdef board_t b
        cdef movegen_t* g = movegen_new()
        cdef movegen_t* g2 = movegen_new()
        if g == NULL or g2 == NULL:
            movegen_free(g)
            movegen_free(g2)
            raise MemoryError()
        try:
            for i in range(n):
                load_board(arr[i], &b)
                if row_sum(b.p[0]) == 0 or row_sum(b.p[1]) == 0:
                    raise ValueError(f"board {i}: the game is over")
                with nogil:
                    if pl == 0:
                        self.probabilities_c(&b, &o[i, 0])
                    elif pl == 1:
                        rc = self.ply1_probs(g, &b, &o[i, 0])
                    else:
                        rc = self.ply2_probs(g, g2, &b, ca, &o[i, 0])
                if rc < 0:
                    raise RuntimeError(f"a roll had more than {MAX_PLAYS} legal plays")
        finally:
            movegen_free(g)
            movegen_free(g2)
        return out

    def __repr__(self):
        return f"EvalPolicy({hidden_label(self.tables)})"


cdef enum:
    MAX_CANDIDATES = 64


cdef class EvalPolicy1Ply(EvalPolicy):
    """1-ply checker play by the second evaluator (slow: for analysis and small rollouts).

    Parameters
    ----------
    nets : dict, optional
        As :class:`EvalPolicy`.
    candidates : int, default 8
        Plays kept from the 0-ply ranking (best first, ties canonical), 1..64.

    Notes
    -----
    As :class:`fastbg._core.nn.NN1PlyPolicy`, with the second evaluator: each candidate's
    value is the average over the opponent's 21 rolls of minus the opponent's best 0-ply
    reply; the highest wins, ties to the canonically first play. Holds a move generator
    workspace: use one instance per thread.
    """

    def __cinit__(self, *args, **kwargs):
        self.name = "nn-1ply"
        self.g2 = movegen_new()
        if self.g2 == NULL:
            raise MemoryError()

    def __dealloc__(self):
        if self.g2 != NULL:
            movegen_free(self.g2)

    def __init__(self, nets=None, candidates=8):
        EvalPolicy.__init__(self, nets)
        if not 1 <= candidates <= MAX_CANDIDATES:
            raise ValueError(f"candidates must be in 1..{MAX_CANDIDATES}, got {candidates}")
        self.candidates = candidates

    cdef double reply_value(self, const board_t* after) noexcept nogil:
        """The mover's 1-ply equity after its play (rows not swapped): the average over the
        opponent's 21 rolls (weight 1 a double, 2 else, in the order d1 = 1..6,
        d2 = 1..d1, then / 36) of minus the opponent's best 0-ply reply; no legal reply
        leaves the position as it is."""
        cdef board_t opp
        cdef ebase_t base
        cdef int d1, d2, n, cand[1]
        cdef double acc = 0.0, best
        if row_sum(after.p[0]) == 0:
            return 1.0 + loser_class(after.p[1])
        swap_into(after, &opp)                   # the opponent on roll
        base_init(&base, &opp)                   # the base of its replies
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                n = generate(self.g2, &opp, d1, d2, NULL, 0)
                if n <= 0:
                    best = self.contact_play_equity(&base, &opp)
                else:
                    self.rank_plays(&base, self.g2.plays, n, 1, cand, &best)
                acc = acc + (1.0 if d1 == d2 else 2.0) * best
        return -(acc / 36.0)

    cdef int choose_c(self, const board_t* before, board_t* plays,
                      const int64_t* scores, const uint64_t* keys, int n,
                      bitgen_t* bg) noexcept nogil:
        cdef ebase_t base
        cdef double eq0[MAX_CANDIDATES]
        cdef int cand[MAX_CANDIDATES]
        cdef int j, k, m, best = 0
        cdef double e, best_e = 0.0
        base_init(&base, before)
        m = self.rank_plays(&base, plays, n, self.candidates, cand, eq0)
        for k in range(m):
            j = cand[k]
            e = self.reply_value(&plays[j])
            if k == 0 or e > best_e or (e == best_e and board_cmp(&plays[j], &plays[best]) < 0):
                best_e = e
                best = j
        return best

    def play_values(self, plays):
        """1-ply values of plays (mover's equity, mover in row 0; no candidate filter).

        Returns
        -------
        numpy.ndarray of float64, shape (n,)
        """
        arr = np.ascontiguousarray(plays, dtype=np.int8).reshape(-1, 2, 25)
        cdef int n = arr.shape[0], j
        cdef board_t b
        out = np.empty(n, dtype=np.float64)
        for j in range(n):
            load_board(arr[j], &b)
            out[j] = self.reply_value(&b)
        return out

    def __repr__(self):
        return f"EvalPolicy1Ply({hidden_label(self.tables)}, candidates={self.candidates})"


cdef class EvalPolicyNPly(EvalPolicy):
    """Checker play by the second evaluator at n ply through a move filter: the first play
    of :meth:`EvalPolicy.rank_nply` (GNU Backgammon's plies and filters,
    :mod:`fastbg.spec.nply`).

    Parameters
    ----------
    nets : dict, optional
        As :class:`EvalPolicy`.
    ply : int, default 1
        0..3 (0 plays as :class:`EvalPolicy`, by a ranking of its own).
    move_filter : fastbg.spec.nply.MoveFilter, str or sequence, optional
        Default :data:`fastbg.spec.nply.DEFAULT_FILTER` (GNU Backgammon's Normal).

    Notes
    -----
    Chooses as ``rank_nply(before, plays, ply, move_filter)[0][0]``, the same play as
    :class:`fastbg.reference.evaluator.EvalPolicyNPly`. Holds a workspace and an
    evaluation cache that live as long as the instance (exact values: they change no
    choice): use one instance per thread. Never draws from the bit generator.
    """

    def __cinit__(self, *args, **kwargs):
        self.nset = NULL

    def __dealloc__(self):
        nset_free(self.nset)

    def __init__(self, nets=None, ply=1, move_filter=None):
        EvalPolicy.__init__(self, nets)
        self.ply = check_ply(ply)
        self.move_filter = nply_move_filter(move_filter)
        self.name = "nn"
        nset_free(self.nset)
        self.nset = NULL
        self.nset = nset_new(self.ply, self.ply, self.move_filter)

    cdef int choose_c(self, const board_t* before, board_t* plays,
                      const int64_t* scores, const uint64_t* keys, int n,
                      bitgen_t* bg) noexcept nogil:
        cdef int j = self.best_nply(self.nset, plays, n, NULL)
        # (< 0 only on a move buffer overflow deeper down, which MAX_PLAYS >= 3,875
        # rules out for a legal position, or out of memory: the 0-ply choice then)
        return j if j >= 0 else self.best_play_of(before, plays, n)

    cdef int best_play_of(self, const board_t* before, board_t* plays, int n) noexcept nogil:
        cdef ebase_t base
        base_init(&base, before)
        return self.best_play(&base, plays, n)

    def __repr__(self):
        return (f"EvalPolicyNPly({hidden_label(self.tables)}, ply={self.ply}, "
                f"move_filter={self.move_filter.describe(self.ply)!r})")
