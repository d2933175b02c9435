# cython: language_level=3
"""Policies of the Cython core, mirroring :mod:`fastbg.reference.eval`.

``RandomPolicy`` picks uniformly with one ``bounded(n)`` draw: the play of that rank
in the order of play keys (:func:`fastbg._core.movegen.play_keys`), which the move
generator computes as it goes, so choosing costs a selection over 64-bit integers.
``PubevalPolicy`` is G. Tesauro's public evaluation function (pubeval.c, 1993)
computed exactly in integers, with the weights of :mod:`fastbg.spec.pubeval`.
Its ``choose`` scores each play *sparsely*: the score of the position before the
roll is computed once, and each play only adds the change of the few locations
where it differs (found by comparing 8-byte words).
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memset


from fastbg._core._types cimport (
    board_t, linear_eval_t, BAR, NSLOTS, NCHECKERS, MAX_PLAYS, POINT_STRIDE, load64, board_cmp,
)
from fastbg._core.board cimport load_board, is_race_c, row_sum
from fastbg._core.dice cimport bounded, get_bitgen
from fastbg._core.movegen cimport linear_score, play_key

cnp.import_array()


cdef extern from *:
    """
    /* Index (0..7, in memory order) of the lowest differing byte of a nonzero
       xor of two words loaded with fastbg_load64, and that byte's mask. */
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    static inline int fastbg_first_byte(uint64_t x) { return __builtin_clzll(x) >> 3; }
    static inline uint64_t fastbg_byte_mask(int i) { return (uint64_t)0xFF << (56 - 8 * i); }
    #else
    static inline int fastbg_first_byte(uint64_t x) { return __builtin_ctzll(x) >> 3; }
    static inline uint64_t fastbg_byte_mask(int i) { return (uint64_t)0xFF << (8 * i); }
    #endif
    """
    int first_byte "fastbg_first_byte"(uint64_t x) noexcept nogil
    uint64_t byte_mask "fastbg_byte_mask"(int i) noexcept nogil
    int ctz32 "__builtin_ctz"(unsigned int x) noexcept nogil


cdef class Policy:
    """Base class of the policies (abstract: always picks the first play)."""

    def __cinit__(self):
        self.name = "policy"

    cdef const linear_eval_t* linear(self, const board_t* before) noexcept nogil:
        return NULL

    cdef int choose_c(self, const board_t* before, board_t* plays,
                      const int64_t* scores, const uint64_t* keys, int n,
                      bitgen_t* bg) noexcept nogil:
        return 0

    def __repr__(self):
        return f"{type(self).__name__}()"

    def choose(self, board_before, plays, bitgen=None):
        """Index of the chosen play in ``plays``, for testing (see the subclasses).

        Parameters
        ----------
        board_before : array_like of int, shape (2, 25)
            The position before the roll, mover in row 0.
        plays : array_like of int, shape (n, 2, 25)
            The legal plays, in canonical order as :func:`legal_plays` returns them.
        bitgen : numpy.random.BitGenerator, optional
            Drawn from only if the policy is random and ``n >= 2`` (pubeval
            never draws and accepts None).

        Returns
        -------
        int
            An index into ``plays`` (0 without any draw when ``n == 1``).
        """
        return _choose(self, board_before, plays, bitgen)


cdef object _choose(Policy policy, board_before, plays, bitgen):
    cdef board_t before
    load_board(board_before, &before)
    arr = np.ascontiguousarray(plays, dtype=np.int8)
    if arr.ndim != 3 or arr.shape[1] != 2 or arr.shape[2] != NSLOTS:
        raise ValueError(f"plays must have shape (n, 2, 25), got {arr.shape}")
    cdef int n = arr.shape[0]
    if n == 0:
        raise ValueError("no plays to choose from")
    if n > MAX_PLAYS:
        raise ValueError(f"at most {MAX_PLAYS} plays, got {n}")
    if n == 1:
        return 0
    cdef bitgen_t* bg = NULL
    if bitgen is not None or not isinstance(policy, PubevalPolicy):
        bg = get_bitgen(bitgen)
    cdef cnp.ndarray buf = arr.copy()
    cdef board_t* p = <board_t*>cnp.PyArray_DATA(buf)
    cdef int idx
    with nogil:
        idx = policy.choose_c(&before, p, NULL, NULL, n, bg)
    # The policy may have reordered its buffer: find the chosen play in the input.
    chosen = buf[idx]
    matches = np.flatnonzero((arr == chosen).all(axis=(1, 2)))
    return int(matches[0])


cdef inline bint key_less(uint64_t ka, const board_t* a, uint64_t kb,
                          const board_t* b) noexcept nogil:
    return ka < kb or (ka == kb and board_cmp(a, b) < 0)


cdef int select_rank(const board_t* plays, const uint64_t* keys, int n, int k) noexcept nogil:
    """Index of the play of rank k (0-based) in the order (key, canonical).

    The keys are hash values, spread evenly over 64 bits, so a counting pass over
    their top 6 bits finds the bucket holding rank k, and only the few keys in
    that bucket are ranked against each other. The plays are distinct, so the
    order is total. Neither buffer is changed.
    """
    cdef int count[64]
    cdef int member[MAX_PLAYS]
    cdef int i, j, b, m = 0, below = 0, r
    memset(count, 0, sizeof(count))
    for i in range(n):
        count[keys[i] >> 58] += 1
    b = 0
    while below + count[b] <= k:
        below += count[b]
        b += 1
    for i in range(n):
        if <int>(keys[i] >> 58) == b:
            member[m] = i
            m += 1
    k -= below
    for i in range(m):
        # rank of member i within the bucket
        r = 0
        for j in range(m):
            if key_less(keys[member[j]], &plays[member[j]], keys[member[i]], &plays[member[i]]):
                r += 1
        if r == k:
            return member[i]
    return member[0]        # not reached: the ranks 0..m-1 are all taken


cdef class Evaluator(Policy):
    """Base class of the policies that play by a position evaluator (abstract)."""

    cdef void probabilities_c(self, const board_t* b, double* p) noexcept nogil:
        cdef int k
        for k in range(5):
            p[k] = 0.0


cdef class RandomPolicy(Policy):
    """Uniform random play: ``bounded(bitgen, n)`` in canonical order."""

    def __cinit__(self):
        self.name = "random"

    cdef int choose_c(self, const board_t* before, board_t* plays,
                      const int64_t* scores, const uint64_t* keys, int n,
                      bitgen_t* bg) noexcept nogil:
        # The play of rank bounded(n) in the order of play keys, without sorting.
        cdef uint64_t own[MAX_PLAYS]
        cdef int i
        if keys == NULL:
            for i in range(n):
                own[i] = play_key(before, &plays[i])
            keys = own
        return select_rank(plays, keys, n, <int>bounded(bg, <uint64_t>n))



cdef class PubevalPolicy(Policy):
    """Tesauro's pubeval (exact integers); ties go to the canonically first play."""

    def __cinit__(self):
        self.name = "pubeval"
        from fastbg.spec.pubeval import RACE_WEIGHTS, CONTACT_WEIGHTS, WIN_SCORE
        cdef int race, L, b, n, j
        cdef int64_t v
        for race, W in ((1, RACE_WEIGHTS), (0, CONTACT_WEIGHTS)):
            if len(W) != 122:
                raise ValueError("pubeval weights must have 122 entries")
            for L in range(1, 25):
                b = 24 - L
                for n in range(-15, 16):
                    v = 0
                    if n == -1:
                        v += W[5 * b] * 30
                    if n == 1:
                        v += W[5 * b + 1] * 30
                    if n >= 2:
                        v += W[5 * b + 2] * 30
                    if n == 3:
                        v += W[5 * b + 3] * 30
                    if n >= 4:
                        v += W[5 * b + 4] * 15 * (n - 3)
                    self.point_score[race][L - 1][n + 15] = v
                self.point_score[race][L - 1][31] = 0
            self.lin[race].point = &self.point_score[race][0][0]
            self.lin[race].bar = W[120] * 15
            self.lin[race].off = W[121] * 2
            self.lin[race].win = WIN_SCORE

    cdef const linear_eval_t* linear(self, const board_t* before) noexcept nogil:
        return &self.lin[1 if is_race_c(before) else 0]

    cdef int choose_c(self, const board_t* before, board_t* plays,
                      const int64_t* scores, const uint64_t* keys, int n,
                      bitgen_t* bg) noexcept nogil:
        cdef int j, best = 0
        if scores != NULL:
            # Scored by the move generator: the maximum, ties to the canonically first.
            for j in range(1, n):
                if scores[j] > scores[best] or (
                    scores[j] == scores[best] and board_cmp(&plays[j], &plays[best]) < 0
                ):
                    best = j
            return best
        # Sparse scoring: the score of `before` once, then each play adds the
        # change of the locations where it differs from `before`.
        cdef const linear_eval_t* ev = self.linear(before)
        cdef const unsigned char* bb = <const unsigned char*>before
        cdef const unsigned char* pp
        cdef const int64_t* ps = ev.point
        cdef int64_t bar_w = ev.bar
        cdef int64_t off_w = ev.off
        # Score of `before` without its bar/off terms, and its words to diff against.
        cdef int64_t base = 0
        cdef int i, k, loc
        for i in range(24):
            base += ps[POINT_STRIDE * i + <int>bb[i] - <int>bb[25 + 23 - i] + 15]
        cdef uint64_t w[6]
        cdef int offs[6]
        offs[0] = 0; offs[1] = 8; offs[2] = 16; offs[3] = 25; offs[4] = 33; offs[5] = 41
        for k in range(6):
            w[k] = load64(bb + offs[k])
        cdef int64_t sc, best_score = 0
        cdef uint64_t x, sumw
        cdef unsigned int mask
        cdef int left
        for j in range(n):
            pp = <const unsigned char*>&plays[j]
            # Checkers the mover still has (SWAR byte sum: at most 15 in total).
            sumw = load64(pp) + load64(pp + 8) + load64(pp + 16)
            left = <int>((sumw * 0x0101010101010101ULL) >> 56) + pp[BAR]
            if left == 0:
                sc = ev.win
            else:
                mask = 0
                for k in range(6):
                    x = load64(pp + offs[k]) ^ w[k]
                    while x:
                        i = first_byte(x)
                        x &= ~byte_mask(i)
                        i += offs[k]
                        # mover's index i -> location bit i; opponent's index
                        # i - 25 -> location 24 - (i - 25), bit 48 - i
                        mask |= (<unsigned int>1) << (i if i < 24 else 48 - i)
                sc = base + bar_w * pp[25 + BAR] + off_w * (NCHECKERS - left)
                while mask:
                    loc = ctz32(mask)
                    mask &= mask - 1
                    sc += (ps[POINT_STRIDE * loc + <int>pp[loc] - <int>pp[25 + 23 - loc] + 15]
                           - ps[POINT_STRIDE * loc + <int>bb[loc] - <int>bb[25 + 23 - loc] + 15])
            if j == 0 or sc > best_score or (
                sc == best_score and board_cmp(pp, &plays[best]) < 0
            ):
                best_score = sc
                best = j
        return best



def pubeval_inputs(board_after):
    """pubeval's input vector times 30, as exact integers (list of 122 ints).

    Same definition as :func:`fastbg.reference.eval.pubeval_inputs` (see the engine
    contract); the policy itself never builds this vector.
    """
    cdef board_t b
    load_board(board_after, &b)
    x = [0] * 122
    cdef int L, blk, n
    for L in range(1, 25):
        blk = 5 * (24 - L)
        n = b.p[0][L - 1] if b.p[0][L - 1] > 0 else -(<int>b.p[1][24 - L])
        if n == -1:
            x[blk] = 30
        if n == 1:
            x[blk + 1] = 30
        if n >= 2:
            x[blk + 2] = 30
        if n == 3:
            x[blk + 3] = 30
        if n >= 4:
            x[blk + 4] = 15 * (n - 3)
    x[120] = 15 * b.p[1][BAR]
    x[121] = 2 * (NCHECKERS - row_sum(b.p[0]))
    return x


_PUBEVAL = None


def pubeval_score(board_after, race):
    """Exact integer pubeval score of a position after a play (mover's frame).

    Parameters
    ----------
    board_after : array_like of int, shape (2, 25)
    race : bool
        Use the race weights (the position *before* the play was a race).

    Returns
    -------
    int
        ``sum(W[i] * X[i])`` with weights x 1e5 and inputs x 30;
        ``WIN_SCORE`` (2**63 - 1) if the mover has no checker left.
    """
    global _PUBEVAL
    if _PUBEVAL is None:
        _PUBEVAL = PubevalPolicy()
    cdef board_t b
    load_board(board_after, &b)
    return int(linear_score(&(<PubevalPolicy>_PUBEVAL).lin[1 if race else 0], &b))
