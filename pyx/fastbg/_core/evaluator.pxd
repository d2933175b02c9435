# cython: language_level=3
"""The second evaluator of the core: a contact net and a race net by position class.

Mirror of :mod:`fastbg.reference.evaluator` (specification: docs/evaluator.md). A
position (row 0 on roll, before its roll) of class PC_BEAROFF is read from the one-sided
bear-off database, PC_RACE from the small-race database (racedb.pxd) when each side has
at most RD_MAX checkers left, else by the race net, PC_CONTACT by the contact net (by the
crashed net, when the nets have one, if crashed_c: a side with at most CRASHED_MAX checkers
in play, fastbg.reference.features.is_crashed); raw outputs go
through nn.consistent. Each net is integer up to its output sigmoid, with the tables of
fastbg.reference.evaluator.quantize_net (built by the same Python code for both engines):
per-point and per-off-count rows as the first network's (nn.qnet_t), and for the contact
net one int32 row per feature numerator, so the pre-activations are exact integer sums
and both engines agree bit for bit.
"""
from libc.stdint cimport int32_t
from fastbg._core._types cimport board_t
from fastbg._core.eval cimport Policy, Evaluator
from fastbg._core.nn cimport qnet_t, qpre_t, NN_MAX_HIDDEN
from fastbg._core.features cimport N_ALL_FEATURES, N_BLOT_FEATURES
from fastbg._core.movegen cimport movegen_t


cdef struct enet_t:
    qnet_t q                # point, off, bias, hidden table, output layer of the net
    int nfeat               # feature rows: 40 (a 236-input contact net: side 0's 20, side
                            # 1's 20), 56 (a 252-input one: then side 0's 8 extra, side
                            # 1's 8), or 0 (the race net)
    int nblot               # blot rows after them: 10 (a crashed net of 246 or 262
                            # inputs: side 0's 5 blot features, side 1's 5) or 0
    const int32_t* feat     # [nfeat + nblot][nh]: weights per unit of each numerator


cdef enum:
    N_BLOT_ROWS = 2 * N_BLOT_FEATURES               # a net's blot rows, if any
    N_MAX_ROWS = N_ALL_FEATURES + N_BLOT_ROWS       # numerators of a net at most
    BLOT_TOP = 3        # the blot rule's plays valued in full (EvalPolicy.rank_plays)
    MAX_RANKED = 64     # rank_plays' k at most


cdef void e_pre(const enet_t* e, const board_t* b, qpre_t* pre) noexcept nogil
    # Integer hidden pre-activations of b (row 0 on roll): nn.q_pre's point and off rows
    # plus, for the contact net, sum over its nfeat numerators N_f of N_f * feat[f] (the
    # extra features are computed only when nfeat = 56) and, for a crashed net that
    # reads them, over its nblot blot numerators (features.blot_features_c, with a
    # per-thread memo: thread_workspace.h).


# A decision's base for the candidates' incremental first layers
# (EvalPolicy.contact_play_equity):
# the position before the roll and, made at the first candidate that needs them, the
# pre-activations of its swap under each net. A play's pre-activations are the base's
# corrected at the slots the play changes and, for the contact net, by
# (N_f(play) - N_f(base)) * feat[f] at the features whose numerator changed (about 12 of
# 40 in contact); integer sums, so equal to e_pre of the swapped play. The crashed net
# reads the contact net's inputs, so both share the numerators; a crashed net with blot
# rows also reads the blot numerators, computed afresh for each play (they are 0 unless a
# side bears off against contact) and corrected like the others.
cdef struct ebase_t:
    board_t before          # the position before the roll (mover in row 0)
    board_t sw              # swap(before): the frame of every candidate's evaluation
    bint contact_ready      # nums and pre hold the contact net's values of sw
    bint crashed_ready      # nums and crashed hold the crashed net's values of sw
    bint race_ready         # race holds the race net's pre-activations of sw
    bint blots_ready        # nums[nfeat:nfeat + N_BLOT_ROWS] hold sw's blot numerators (side 1's
                            # taken as 0: only differences count)
    bint mover_blots_off    # the blot rule's first pass: a play's mover's (sw's row 1)
                            # blot numerators are taken as 0, not searched
    bint mover_bears_off    # set by the last play valued in the first pass whose mover
                            # bears off against contact (its value may not be exact)
    int32_t nums[N_MAX_ROWS]        # the contact nets' feature numerators of sw (nfeat),
                                    # then its blot numerators (a crashed net's nblot)
    qpre_t pre[NN_MAX_HIDDEN]       # e_pre(contact, sw)
    qpre_t crashed[NN_MAX_HIDDEN]   # e_pre(crashed, sw)
    qpre_t race[NN_MAX_HIDDEN]      # e_pre(race, sw)

cdef void base_init(ebase_t* base, const board_t* before) noexcept nogil
    # A base for the plays from `before` (its pre-activations are made lazily).


# n-ply evaluation (fastbg.spec.nply: how plies count, the move filters).
cdef enum:
    NPLY_MAX = 3            # the deepest ply (fastbg.spec.nply.MAX_PLY)
    NPLY_CACHE_BITS = 14    # slots of an evaluation's cache: 1 << NPLY_CACHE_BITS
                            # (fastbg.spec.nply.CACHE_BITS)

cdef struct ncache_t:
    # one slot of the n-ply cache (direct-mapped: a new position replaces the old)
    board_t b               # the position (row 0 on roll, before its roll)
    int ply                 # the ply of p; 0: an empty slot (0-ply values are not kept)
    double p[5]             # its probabilities at that ply

cdef struct nply_ctx_t:
    # The workspace of one n-ply evaluation call, made by the def function that runs it
    # and used by one thread only (so the cache needs no lock).
    movegen_t* g[NPLY_MAX + 1]  # g[k], k = 1..ply: the plays of a roll at a k-ply node
    ncache_t* cache             # 1 << NPLY_CACHE_BITS slots, or NULL (no cache)
    long hits                   # cache hits and misses (a diagnostic)
    long misses

cdef struct nply_set_t:
    # An n-ply setting with its workspace, for a loop that values many decisions (a
    # rollout's checker play, its luck, its truncation): one thread's, made by nset_new
    # (with the GIL) and freed by nset_free. The cache of ctx lives as long as the set:
    # its values are exact functions of (position, ply), so keeping them across decisions
    # changes no number, only the time.
    nply_ctx_t* ctx             # workspace (and cache at 2 ply and more) up to ctx_ply
    int ply                     # the ply of rank_nply-style decisions (best_nply, luck)
    int ctx_ply                 # the deepest evaluation the set serves (>= ply)
    int accept[NPLY_MAX]        # the move filter's levels (fastbg.spec.nply.filter_arrays)
    int extra[NPLY_MAX]
    double thr[NPLY_MAX]
    double* probs               # scratch of a ranking: 5 * MAX_PLAYS doubles
    int* ints                   # and 3 * MAX_PLAYS ints (plies, order, tmp)

cdef nply_set_t* nset_new(int ply, int ctx_ply, object move_filter) except NULL
    # A set ranking at `ply` (0..NPLY_MAX) through `move_filter` (anything
    # fastbg.spec.nply.move_filter reads) with a workspace up to ctx_ply (>= ply);
    # MemoryError or ValueError.
cdef void nset_free(nply_set_t* s) noexcept nogil
    # Frees a set (NULL: nothing).

cdef class EvalPolicy(Evaluator):
    # 0-ply: the play of highest mover's equity, ties to the canonically first; a play
    # bearing off the last checker scores its exact 1, 2 or 3. Read-only after __init__,
    # so one instance may serve several threads. Never draws from the bit generator.
    cdef enet_t contact     # the contact net (nfeat = 40 or 56)
    cdef enet_t race        # the race net (nfeat = 0)
    cdef enet_t crashed     # the crashed net (the contact net's nfeat, nblot 0 or 10),
                            # if has_crashed
    cdef bint has_crashed   # crashed contact positions go to the crashed net
    cdef readonly object tables     # {"contact": {...}, "race": {...}[, "crashed": {...}]}:
                                    # the numpy arrays behind them

    cdef void probabilities_c(self, const board_t* b, double* p) noexcept nogil
        # The five probabilities of b (row 0 on roll, before its roll; game not over).

    cdef double play_equity_c(self, const board_t* play) noexcept nogil
        # The mover's cubeless equity after `play` (mover in row 0, rows not swapped).

    cdef double contact_play_equity(self, ebase_t* base, const board_t* play) noexcept nogil
        # play_equity_c(play) for a play from base.before, by the incremental first
        # layers (see ebase_t); same numbers.
    # Lookahead, for training labels (fastbg.reference.evaluator mirrors them):
    cdef void after_probs(self, const board_t* play, double* q) noexcept nogil
        # The mover's probabilities after its play (mover in row 0; exact if it won).
    cdef int rank_plays(self, ebase_t* base, const board_t* plays, int n, int k,
                        int* cand, double* value) noexcept nogil
        # cand[0..m), m = min(n, k), k <= MAX_RANKED: the first k plays of the decision's 0-ply ranking,
        # value[0..m) their mover's equities. Without a blot-reading crashed net, the
        # plays by contact_play_equity, best first, ties to the canonically first. With
        # one (the blot rule, docs/evaluator.md): every play is valued with its mover's
        # blot numerators taken as 0 (a first pass), the BLOT_TOP best of those are
        # valued in full and ranked first by that value, the others follow in the first
        # pass's order; value[i] is exact for i < BLOT_TOP. The 0-ply choice is cand[0]
        # and its value value[0], everywhere the evaluator chooses a play.
    cdef int best_play(self, ebase_t* base, board_t* plays, int n) noexcept nogil
        # The 0-ply choice (rank_plays' first play).
    cdef int roll_values(self, movegen_t* g, const board_t* pos, double* v, Policy pf,
                         int k) noexcept nogil
        # v[5 s .. 5 s + 5): for each of the 21 rolls s (d1 = 1..6, d2 = 1..d1, s =
        # d1 (d1 - 1) / 2 + d2 - 1) the mover's after_probs of its best 0-ply play (of pos
        # itself when the roll has no play). The values of the 1-ply look-ahead and of
        # variance reduction's luck. With a prefilter (pf not None, k >= 1: pubeval), the
        # best 0-ply play among the k best by pf.linear(pos)'s score (ties canonical), a
        # cheaper yardstick for luck. -1 on overflow.
    cdef int ply1_probs(self, movegen_t* g, const board_t* pos, double* out) noexcept nogil
        # 1-ply probabilities of pos: sum over the 21 rolls (weight 1 a double, 2 else, in
        # the order d1 = 1..6, d2 = 1..d1) of after_probs(best play), / 36. -1 on overflow.
    cdef int ply2_probs(self, movegen_t* g, movegen_t* g2, const board_t* pos, int cands,
                        double* out) noexcept nogil
        # 2-ply: per roll the best of the `cands` best 0-ply plays by 1-ply equity.
    # n-ply (GNU Backgammon's plies, fastbg.spec.nply; the reference's nply_probabilities
    # and rank_nply, bit for bit):
    cdef int nply_c(self, nply_ctx_t* ctx, const board_t* pos, int ply,
                    double* out) noexcept nogil
        # out[0..5): pos's probabilities at `ply` (0..NPLY_MAX; pos row 0 on roll, game not
        # over): 0: probabilities_c; n: the mean over the 21 rolls (weight 1 a double, 2
        # else, d1 = 1..6, d2 = 1..d1, then / 36) of after_nply(the 0-ply choice, n - 1),
        # of pos itself when the roll has no play. -1 on a move buffer overflow.
    cdef int after_nply(self, nply_ctx_t* ctx, const board_t* play, int ply,
                        double* q) noexcept nogil
        # The mover's probabilities after its play (mover in row 0, not swapped) at `ply`:
        # exact if it bore off its last checker, else nply_c of the swapped play, flipped.
    cdef int rank_nply_c(self, nply_ctx_t* ctx, const board_t* plays, int n, int ply,
                         const int* accept, const int* extra, const double* thr,
                         double* probs, int* plies, int* order, int* tmp) noexcept nogil
        # The plays of a roll ranked at `ply` through the move filter's levels (accept[L]
        # < 0: level L skipped): every play valued at 0 ply (unless level 0 is skipped),
        # the survivors of each level valued at the next (none once a level leaves one
        # play: the choice is made, as GNU Backgammon stops); probs[5 j..] and plies[j]: play
        # j's value and the ply it was last valued at; order[0..n): the final survivors
        # best first, then the plays dropped at each level, the last level's first, each
        # group best first by its own values (ties: the canonically first board, then
        # the first given). tmp: n ints of scratch. -1 on a move buffer overflow.
    # The rollouts' n-ply decisions (a set, nply_set_t, carries ply, filter and workspace):
    cdef int best_nply(self, nply_set_t* s, const board_t* plays, int n,
                       double* q) noexcept nogil
        # The index in plays[0..n) (n >= 1) of the best play at s.ply through s's filter
        # (rank_nply_c's first); q[0..5) (if not NULL): its probabilities at the ply it
        # reached. -1 on a move buffer overflow, -2 out of memory.
    cdef int roll_values_nply(self, nply_set_t* s, movegen_t* g, const board_t* pos,
                              double* v) noexcept nogil
        # roll_values at s.ply: v[5 s ..] for each of the 21 rolls, the mover's
        # probabilities after best_nply's play (the only play when there is one), valued
        # at s.ply even where a filter level left one play early; after_nply(pos, s.ply)
        # when the roll has no play. The yardstick of luck at n ply. Negative on failure.


cdef class EvalPolicy1Ply(EvalPolicy):
    # 1-ply: the `candidates` best plays at 0 ply (ties canonical) are valued by the
    # average over the opponent's 21 rolls of minus its best 0-ply reply (as nn.NN1PlyPolicy).
    cdef movegen_t* g2              # own workspace for the replies (one per instance)
    cdef readonly int candidates

    cdef double reply_value(self, const board_t* after) noexcept nogil
        # The mover's 1-ply equity after its play (mover in row 0, rows not swapped).


cdef class EvalPolicyNPly(EvalPolicy):
    # Checker play at n ply through a move filter (fastbg.spec.nply): the first play of
    # rank_nply, with a workspace and cache of its own (one instance per thread).
    cdef nply_set_t* nset
    cdef readonly int ply
    cdef readonly object move_filter    # the fastbg.spec.nply.MoveFilter

    cdef int best_play_of(self, const board_t* before, board_t* plays, int n) noexcept nogil
        # The 0-ply choice (a fallback should the n-ply ranking fail).


cdef inline int yard_values(EvalPolicy ys, nply_set_t* s, movegen_t* g, const board_t* pos,
                            double* v, Policy pf, int k) noexcept nogil:
    # The yardstick's 21 roll values of pos for variance reduction: at 0 ply (s NULL or
    # s.ply 0) roll_values with pubeval's prefilter (pf, k), else roll_values_nply at s.ply
    # (the prefilter unused: the move filter prunes). Negative on failure.
    if s == NULL or s.ply == 0:
        return ys.roll_values(g, pos, v, pf, k)
    return ys.roll_values_nply(s, g, pos, v)
