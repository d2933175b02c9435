# cython: language_level=3
"""The second evaluator's inputs (docs/evaluator.md), mirroring fastbg.reference.features.

Position classes, the 20 contact features of each side and the 8 extra ones
(integer numerators N over fixed denominators D: the network reads N / D), the
escape table E and the dense inputs of the contact net (252: a 236-input net reads
the first 236) and the race net (226). Every number is defined in
docs/evaluator.md; the pure-Python engine implements the same text independently
and the two are tested equal, exactly.

Frames. For side s (0 = on roll, 1 = opponent) n = board[s] in s's own numbering
(index i = its point i + 1, 24 = its bar); the other side o is read in s's frame,
its index j being s's index 23 - j and its bar s's index -1. The features of side 1
of a board are those of side 0 of the swapped board.

Masks (uint32, bit i for index i): a side's own-frame occupancy (bits 0..24, the
bar is bit 24) and made points (n[i] >= 2, bits 0..23). The kernels get every other
mask from these by shifts and a bit reversal, so a feature is a few bit operations
and table look-ups; the only loops are over a row's 25 counts (pip sums) and the
21 rolls of the shots.

Thread safety: the tables below are written once, at import, and only read after.
"""
from libc.stdint cimport int8_t, int32_t, uint64_t
from fastbg._core._types cimport board_t

cpdef enum:
    N_FEATURES = 20         # contact features per side (also a Python int of the module)
    N_BLOT_FEATURES = 5     # blot features per side (also a Python int)
    N_EXTRA_FEATURES = 8    # extra contact features per side (also a Python int)
    CRASHED_MAX = 7         # crashed: a side with at most this many checkers in play

cdef enum:
    N_LEGACY_CONTACT_INPUTS = 236   # 196 Tesauro units + 2 x 20 features
    N_CONTACT_INPUTS = 252  # the legacy 236 + 2 x 8 extra features
    N_ALL_FEATURES = 56     # contact_features_ext_c's numerators: 2 x 20, then 2 x 8
    N_RACE_INPUTS = 226     # 2 x (96 point units + 15 one-hot off + crossovers + pips)
    N_RACE_SIDE = 113       # race inputs per side
    N_RACE_NUM = 3          # race numerators per side: off, crossovers, pips
    ESCAPE_SIZE = 4096      # entries of E: every 12-bit mask

# Feature numbers (column of contact_features_c's output; docs/evaluator.md's table).
cdef enum:
    F_BACK_CHECKER = 0      # back + 1 (25: on the bar, 0: no checker)        D 25
    F_BACK_ANCHOR = 1       # 1 + highest made index, 0 if none                D 24
    F_FORWARD_ANCHOR = 2    # 24 - lowest made index in 18..23, 0 if none      D 6
    F_ANCHORS_BACK = 3      # made indices in 18..23                           D 2
    F_PRIME = 4             # longest run of consecutive made indices          D 6
    F_HOME_POINTS = 5       # made indices in 0..5                             D 6
    F_BLOTS = 6             # indices 0..23 with exactly one checker           D 6
    F_PIPS = 7              # pip count, bar = 25                              D 167
    F_BREAK_CONTACT = 8     # pips to bring every checker past o's rearmost c  D 167
    F_FREE_PIPS = 9         # pips of the checkers below c (bar excluded)      D 100
    F_TIMING = 10           # pips outside the home board not holding a point  D 100
    F_ESCAPE_BACK = 11      # E of the rearmost checker, 36 if nothing to pass D 36
    F_CONTAINMENT = 12      # 36 - min escapes of an o checker on o's 15..24   D 36
    F_CONTAINMENT_SQ = 13   # containment squared                              D 1296
    F_ENTER_FAIL = 14       # on the bar: h * h (h = o's closed home points)   D 36
    F_ENTER_FAIL2 = 15      # two on the bar: 36 - (6 - h) ** 2                D 36
    F_SHOTS = 16            # o's ordered rolls hitting >= 1 blot              D 36
    F_DOUBLE_SHOTS = 17     # o's ordered rolls hitting >= 2 different blots   D 36
    F_PIP_LOSS = 18         # sum over rolls of the largest 24 - y hit         D 3600
    F_BACK_COUNT = 19       # checkers on indices 12..24                       D 15

# Extra feature numbers (column of extra_features' output; docs/evaluator.md's second
# table, features 20..27). T: the side's checkers on board and bar, P: its pips.
cdef enum:
    X_MOBILITY = 0          # (point, die) pairs that can move (docs: Mobility) D 60
    X_MOMENT2 = 1           # floor(S / T^2), S over checkers behind the mean  D 400
    X_BACKBONE = 2          # pairs of made points 1..6 pips apart             D 10
    X_BACKGAME = 3          # max(0, P - P_o) with exactly 1 anchor in 18..23  D 100
    X_BACKGAME2 = 4         # max(0, P - P_o) with 2+ anchors in 18..23        D 100
    X_OFF1 = 5              # min(off, 3)                                      D 3
    X_OFF2 = 6              # min(max(off - 3, 0), 3)                          D 3
    X_OFF3 = 7              # max(off - 6, 0)                                  D 9

# Position classes (docs/evaluator.md, "Position classes"), in the order of its table.
cdef enum:
    PC_OVER = 0             # a side has no checker left
    PC_BEAROFF = 1          # every checker of both sides on indices 0..5 or off
    PC_RACE = 2             # not bearoff, no contact (board.is_race_c)
    PC_CONTACT = 3          # everything else


# E[mask] (0..36): the ordered rolls of 36 with which a lone checker passes every
# blocked point of `mask` (bit k: the point k + 1 pips ahead), landing on open points
# only; E[0] = 36. Built at import by build_escape_table.
cdef int8_t E[ESCAPE_SIZE]
# The features' denominators D, in feature order.
cdef int32_t DENOM[N_FEATURES]
# The extra features' denominators D, in extra feature order.
cdef int32_t DENOM_EXTRA[N_EXTRA_FEATURES]


cdef int escape_count(int mask) noexcept nogil
    # E(mask) computed from its definition (used to build E; 0 <= mask < 4096).

cdef void side_features_c(const unsigned char* n, const unsigned char* o,
                          int32_t* out) noexcept nogil
    # The 20 numerators of the side whose row is n, against the other side's row o
    # (both 25 counts in their own frames), in feature order. Any valid board's rows.

cdef void contact_features_c(const board_t* b, int32_t* out) noexcept nogil
    # out[0..19]: side 0's 20 numerators; out[20..39]: side 1's.

cdef void contact_features_ext_c(const board_t* b, int32_t* out) noexcept nogil
    # out[0..39] as contact_features_c, then out[40..47]: side 0's 8 extra numerators,
    # out[48..55]: side 1's (N_ALL_FEATURES, the order of the contact net's feature
    # inputs 196..251). The extras reuse the masks, pip counts and anchors of the first
    # 20; contact_features_c itself is untouched (a 236-input net pays nothing).

cdef void contact_features_given_c(const board_t* b, const int32_t* prev, bint ext,
                                  int32_t* out) noexcept nogil
    # contact_features_c(b, out) (ext False: 40 numerators) or contact_features_ext_c
    # (ext True: 56), given prev: the same numerators of a board whose row 0 equals b's.
    # Side 0's numerators that read only its own row are copied from prev (a play that
    # hits nothing leaves the opponent's row as it was: most of a candidate's side 0).

cdef void shots_c(const unsigned char* n, const unsigned char* o, int32_t* out) noexcept nogil
    # out[0..2] = shots, double_shots, pip_loss against the side whose row is n:
    # what o's next roll can hit (docs/evaluator.md, "Shots").

cdef enum:
    BLOT_CACHE_BITS = 15    # a blot cache holds 2 ** BLOT_CACHE_BITS entries

cdef struct blot_entry_t:
    uint64_t key            # the side's blot key (0: empty), see blot_features_c
    uint64_t val            # forced_blot, fast_blot, safe_shots, fast_shots, 16 bits each

cdef void blot_features_c(const board_t* b, blot_entry_t* cache, int32_t* out) noexcept nogil
    # out[0..4]: side 0's blot numerators (forced_blot, fast_blot, bearing_off,
    # safe_shots, fast_shots; docs/evaluator.md, "Blot features"), out[5..9]: side 1's.
    # The plays of each of the 21 rolls of a side that bears off are found by a small
    # search of its own (features.pyx, fbgb_side). cache, unless NULL, is the caller's
    # own zeroed array of 2 ** BLOT_CACHE_BITS entries, a direct-mapped memo of a side's
    # numerators: they depend only on the side's home board and the other side's
    # checkers on its bar and in that home board (the side bears off: none of its
    # checkers is elsewhere, and only those can hit or block it), counts that make the
    # entry's exact key (features.pyx, _blot_key). Same numbers with or without.

cdef bint blot_features_side0_c(const board_t* b, blot_entry_t* cache,
                                int32_t* out) noexcept nogil
    # blot_features_c with side 1's five numerators taken as 0 (not searched); returns
    # whether side 1 bears off against contact (else its numerators are 0 anyway). The
    # first pass of the evaluator's blot rule (evaluator.pxd, EvalPolicy.rank_plays).

cdef void race_numerators_c(const board_t* b, int32_t* out) noexcept nogil
    # out[3 s + 0..2]: side s's checkers off, crossovers (sum over 0..24 of
    # n[i] * (i // 6)) and pip count, for s = 0, 1 (the race net's inputs besides the
    # point units: off one-hot, crossovers / 60, pips / 167).

cdef void contact_inputs_c(const board_t* b, double* out) noexcept nogil
    # out[0..251]: the contact net's inputs (Tesauro's 196 units as in
    # fastbg._core.nn.encode, then side 0's N / D, then side 1's, then side 0's extra
    # N / D, then side 1's).

cdef void race_inputs_c(const board_t* b, double* out) noexcept nogil
    # out[0..225]: the race net's inputs; side s at 113 s: its 96 point units, the 15
    # one-hot units off == 0..14, crossovers / 60, pips / 167.

cdef int position_class_c(const board_t* b) noexcept nogil
    # PC_OVER, PC_BEAROFF, PC_RACE or PC_CONTACT.

cdef bint crashed_c(const board_t* b) noexcept nogil
    # fastbg.reference.features.is_crashed: a side has at most CRASHED_MAX checkers in
    # play (on its points and bar, less those stacked on its 1- and 2-points beyond the
    # first of each); symmetric, so the same for a board and its swap.

cdef bint valid_board_bytes(const signed char* q) noexcept nogil
    # True iff the 50 bytes q (a (2, 25) int8 board) are a valid board: counts >= 0,
    # at most 15 a side, no point held by both sides (the checks of board.load_board).
