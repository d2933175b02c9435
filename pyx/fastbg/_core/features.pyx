# cython: language_level=3
"""The second evaluator's inputs (docs/evaluator.md), mirroring :mod:`fastbg.reference.features`.

Position classes, the 20 contact features and the 8 extra ones per side as integer
numerators ``N`` over fixed denominators ``D``, the escape table ``E`` and the dense
inputs of the contact net (252; a 236-input net reads the first 236) and of the race
net (226), all as docs/evaluator.md defines them. The
pure-Python reference implements the same text independently; the tests check the
two are equal, exactly (the float inputs are the same IEEE divisions ``N / D``).

How (see features.pxd): a side's own-frame masks of occupied and made points give
the other side's view by a bit reversal; anchors, primes, blots and the escape
look-ups are then bit operations. The shots are computed for all hitters and blots
at once: in a frame shifted by one (so the bar, index -1, is bit 0) the hitters'
mask shifted by a die is where they land, and a mask of open points filters the
intermediate landings of combination shots, 21 rolls a side. The ``*_many``
functions validate and evaluate a C-contiguous ``(n, 2, 25)`` int8 array without
the GIL.

The escape table ``E`` (int8, 4096 entries) is built at import from its definition.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from fastbg._core._types cimport board_t, BAR, NSLOTS, NCHECKERS
from fastbg._core.board cimport load_board, back_point_c, row_sum, checkers_c, swap_into

cnp.import_array()

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* Bit helpers. Baseline x86-64 has no popcnt instruction (the builtin would be a
       library call), hence the SWAR count. */
    static inline int fbgf_popcount(uint32_t x) {
        x = x - ((x >> 1) & 0x55555555u);
        x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
        return (int)((((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
    }
    /* popcount(a0) + ... + popcount(a5): three 64-bit SWAR counts (two masks a word)
       whose byte counts (<= 8 each, <= 24 summed) are added before the one horizontal sum. */
    static inline int fbgf_popsum6(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                   uint32_t a4, uint32_t a5) {
        uint64_t w[3], x, t = 0;
        int k;
        w[0] = a0 | (uint64_t)a1 << 32; w[1] = a2 | (uint64_t)a3 << 32; w[2] = a4 | (uint64_t)a5 << 32;
        for (k = 0; k < 3; k++) {
            x = w[k] - ((w[k] >> 1) & 0x5555555555555555ULL);
            x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
            t += (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        }
        return (int)((t * 0x0101010101010101ULL) >> 56);
    }
    static inline int fbgf_ctz(uint32_t x) { return __builtin_ctz(x); }
    static inline int fbgf_top(uint32_t x) { return 31 - __builtin_clz(x); }
    static inline uint32_t fbgf_rev32(uint32_t x) {
        x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
        x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
        x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
        return __builtin_bswap32(x);
    }
    static inline uint64_t fbgf_load(const unsigned char *p) { uint64_t x; memcpy(&x, p, 8); return x; }

    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* SWAR on the 8 counts of a little-endian word, byte k = index k, each count 0..15.
       Adding 0x7F (0x7E) to a byte sets its top bit iff it is >= 1 (>= 2), with no carry;
       the multiply gathers the eight flags (byte k -> bit k) into the top byte. */
    static inline uint32_t fbgf_gather8(uint64_t x, uint64_t add) {
        x = ((x + add) >> 7) & 0x0101010101010101ULL;
        return (uint32_t)((x * 0x0102040810204080ULL) >> 56);
    }
    static inline void fbgf_masks(const unsigned char *row, uint32_t *occ, uint32_t *made) {
        const uint64_t a1 = 0x7F7F7F7F7F7F7F7FULL, a2 = 0x7E7E7E7E7E7E7E7EULL;
        uint64_t x0 = fbgf_load(row), x1 = fbgf_load(row + 8), x2 = fbgf_load(row + 16);
        *occ = fbgf_gather8(x0, a1) | fbgf_gather8(x1, a1) << 8 | fbgf_gather8(x2, a1) << 16
             | (uint32_t)(row[24] != 0) << 24;
        *made = fbgf_gather8(x0, a2) | fbgf_gather8(x1, a2) << 8 | fbgf_gather8(x2, a2) << 16;
    }
    /* s = sum of the 8 counts b_k, w = sum of b_k * (k + 1). The multiply by 0x0101...
       leaves the prefix sums S_j = b_0 + ... + b_j in byte j (<= 120: no carry); then
       sum_k b_k (k + 1) = 9 S_7 - (S_0 + ... + S_7), the last sum taken in 16-bit lanes. */
    static inline void fbgf_wsum8(uint64_t x, int *s, int *w) {
        uint64_t y = x * 0x0101010101010101ULL;
        uint64_t z = (y & 0x00FF00FF00FF00FFULL) + ((y >> 8) & 0x00FF00FF00FF00FFULL);
        int s7 = (int)(y >> 56);
        *s = s7;
        *w = 9 * s7 - (int)((z * 0x0001000100010001ULL) >> 48);
    }
    /* The row's pip count P, its checkers N, and over the indices i < c (c in -1..24):
       the checkers cb and pips fb; and over i >= 6: t6 = sum n[i] (i - 5); bc = checkers
       on indices 12..24. */
    static inline void fbgf_sums(const unsigned char *row, int c, int *P, int *N, int *cb,
                                 int *fb, int *t6, int *bc) {
        uint64_t x[3];
        int s[3], w[3], k, m, r, sp, wp, s6, w6, bar = row[24];
        x[0] = fbgf_load(row); x[1] = fbgf_load(row + 8); x[2] = fbgf_load(row + 16);
        for (k = 0; k < 3; k++) fbgf_wsum8(x[k], &s[k], &w[k]);
        *N = s[0] + s[1] + s[2] + bar;
        *P = w[0] + w[1] + 8 * s[1] + w[2] + 16 * s[2] + 25 * bar;
        fbgf_wsum8(x[0] & 0x0000FFFFFFFFFFFFULL, &s6, &w6);          /* indices 0..5 */
        *t6 = (*P - w6) - 6 * (*N - s6);
        *bc = s[2] + bar + (int)(((x[1] >> 32) * 0x0101010101010101ULL) >> 56);
        *cb = 0; *fb = 0;
        if (c > 0) {
            m = c >> 3; r = c & 7;
            for (k = 0; k < m; k++) { *cb += s[k]; *fb += w[k] + 8 * k * s[k]; }
            if (m < 3 && r) {
                fbgf_wsum8(x[m] & ((1ULL << (8 * r)) - 1), &sp, &wp);
                *cb += sp; *fb += wp + 8 * m * sp;
            }
        }
    }
    /* fbgf_sums' cb and fb alone: the checkers and pips of the indices i < c. */
    static inline void fbgf_below(const unsigned char *row, int c, int *cb, int *fb) {
        int k, m, r, s, w;
        *cb = 0; *fb = 0;
        if (c <= 0)
            return;
        m = c >> 3; r = c & 7;
        for (k = 0; k < m; k++) {
            fbgf_wsum8(fbgf_load(row + 8 * k), &s, &w);
            *cb += s; *fb += w + 8 * k * s;
        }
        if (m < 3 && r) {
            fbgf_wsum8(fbgf_load(row + 8 * m) & ((1ULL << (8 * r)) - 1), &s, &w);
            *cb += s; *fb += w + 8 * m * s;
        }
    }
    /* The row's checkers on the board and bar (a valid row: no byte carries). */
    static inline int fbgf_count(const unsigned char *row) {
        uint64_t x = fbgf_load(row) + fbgf_load(row + 8) + fbgf_load(row + 16);
        return (int)((x * 0x0101010101010101ULL) >> 56) + row[24];
    }
    /* A (2, 25) board of int8 counts is valid (board.load_board's checks). */
    static inline int fbgf_valid(const unsigned char *q) {
        uint64_t a0 = fbgf_load(q), a1 = fbgf_load(q + 8), a2 = fbgf_load(q + 16);
        uint64_t b0 = fbgf_load(q + 25), b1 = fbgf_load(q + 33), b2 = fbgf_load(q + 41);
        const uint64_t ones = 0x0101010101010101ULL, add = 0x7F7F7F7F7F7F7F7FULL;
        uint32_t o0, o1;
        /* every count in 0..15 (an int8 below 0 has its top bit set) */
        if (((a0 | a1 | a2 | b0 | b1 | b2) & 0xF0F0F0F0F0F0F0F0ULL) || ((q[24] | q[49]) & 0xF0))
            return 0;
        if ((int)((a0 * ones) >> 56) + (int)((a1 * ones) >> 56) + (int)((a2 * ones) >> 56) + q[24] > 15
            || (int)((b0 * ones) >> 56) + (int)((b1 * ones) >> 56) + (int)((b2 * ones) >> 56) + q[49] > 15)
            return 0;
        o0 = fbgf_gather8(a0, add) | fbgf_gather8(a1, add) << 8 | fbgf_gather8(a2, add) << 16;
        o1 = fbgf_gather8(b0, add) | fbgf_gather8(b1, add) << 8 | fbgf_gather8(b2, add) << 16;
        return (o0 & (fbgf_rev32(o1) >> 8)) == 0;
    }
    #else
    /* Portable versions (big-endian machines): the same results by plain loops. */
    static inline void fbgf_masks(const unsigned char *row, uint32_t *occ, uint32_t *made) {
        uint32_t o = 0, m = 0; int i;
        for (i = 0; i < 24; i++) {
            o |= (uint32_t)(row[i] >= 1) << i;
            m |= (uint32_t)(row[i] >= 2) << i;
        }
        *occ = o | (uint32_t)(row[24] != 0) << 24;
        *made = m;
    }
    static inline void fbgf_sums(const unsigned char *row, int c, int *P, int *N, int *cb,
                                 int *fb, int *t6, int *bc) {
        int i;
        *P = *N = *cb = *fb = *t6 = *bc = 0;
        for (i = 0; i < 25; i++) {
            *P += row[i] * (i + 1); *N += row[i];
            if (i < c) { *cb += row[i]; *fb += row[i] * (i + 1); }
            if (i >= 6) *t6 += row[i] * (i - 5);
            if (i >= 12) *bc += row[i];
        }
    }
    static inline void fbgf_below(const unsigned char *row, int c, int *cb, int *fb) {
        int i;
        *cb = *fb = 0;
        for (i = 0; i < c; i++) { *cb += row[i]; *fb += row[i] * (i + 1); }
    }
    static inline int fbgf_count(const unsigned char *row) {
        int i, t = 0;
        for (i = 0; i < 25; i++) t += row[i];
        return t;
    }
    static inline int fbgf_valid(const unsigned char *q) {
        int i, t0 = 0, t1 = 0;
        for (i = 0; i < 50; i++) if (q[i] > 15) return 0;      /* also negative int8 */
        for (i = 0; i < 25; i++) { t0 += q[i]; t1 += q[25 + i]; }
        if (t0 > 15 || t1 > 15) return 0;
        for (i = 0; i < 24; i++) if (q[i] && q[25 + 23 - i]) return 0;
        return 1;
    }
    #endif

    /* shots, double_shots, pip_loss (docs/evaluator.md, "Shots") in the frame where bit p
       is the blots' side's index p - 1: h the hitters (the bar checker at bit 0), bl the
       blots, opn the open points (not made by the blots' side), nbar the hitters' bar
       count. A hitter's landings with a die d are h << d; the open ones may go on. The 21
       rolls are unrolled so every shift is a constant. */
    #define FBGF_ACC(hit, wt) do { uint32_t h_ = (hit); if (h_) { n1 += (wt); \
        n2 += (wt) * ((h_ & (h_ - 1)) != 0); loss += (wt) * (25 - __builtin_ctz(h_)); } } while (0)
    #define FBGF_ND(a, b) FBGF_ACC((L##a | L##b | (O##a << b) | (O##b << a)) & bl, 2)
    #define FBGF_NDD(a, b) FBGF_ACC((L##a | L##b) & bl, 2)
    #define FBGF_DB(e) do { uint32_t r_ = L##e, c_ = O##e << e; r_ |= c_; c_ = (c_ & opn) << e; \
        r_ |= c_; c_ = (c_ & opn) << e; r_ |= c_; FBGF_ACC(r_ & bl, 1); } while (0)
    static inline void fbgf_shots(uint32_t h, uint32_t bl, uint32_t opn, int nbar, int32_t *out) {
        int n1 = 0, n2 = 0, loss = 0, e, k;
        uint32_t L1, L2, L3, L4, L5, L6, O1, O2, O3, O4, O5, O6, r, c;
        out[0] = out[1] = out[2] = 0;
        if (!h || !(bl >> (__builtin_ctz(h) + 1)))
            return;                          /* no blot above the lowest hitter */
        L1 = h << 1; L2 = h << 2; L3 = h << 3; L4 = h << 4; L5 = h << 5; L6 = h << 6;
        O1 = L1 & opn; O2 = L2 & opn; O3 = L3 & opn; O4 = L4 & opn; O5 = L5 & opn; O6 = L6 & opn;
        if (nbar <= 1) {
            FBGF_ND(1, 2); FBGF_ND(1, 3); FBGF_ND(1, 4); FBGF_ND(1, 5); FBGF_ND(1, 6);
            FBGF_ND(2, 3); FBGF_ND(2, 4); FBGF_ND(2, 5); FBGF_ND(2, 6); FBGF_ND(3, 4);
            FBGF_ND(3, 5); FBGF_ND(3, 6); FBGF_ND(4, 5); FBGF_ND(4, 6); FBGF_ND(5, 6);
            FBGF_DB(1); FBGF_DB(2); FBGF_DB(3); FBGF_DB(4); FBGF_DB(5); FBGF_DB(6);
        } else {
            /* two or more on the bar: non-doubles hit directly only; a double has
               5 - nbar steps (the direct one always) */
            FBGF_NDD(1, 2); FBGF_NDD(1, 3); FBGF_NDD(1, 4); FBGF_NDD(1, 5); FBGF_NDD(1, 6);
            FBGF_NDD(2, 3); FBGF_NDD(2, 4); FBGF_NDD(2, 5); FBGF_NDD(2, 6); FBGF_NDD(3, 4);
            FBGF_NDD(3, 5); FBGF_NDD(3, 6); FBGF_NDD(4, 5); FBGF_NDD(4, 6); FBGF_NDD(5, 6);
            for (e = 1; e <= 6; e++) {
                r = h << e; c = r & opn;
                for (k = 2; k <= 5 - nbar; k++) { c <<= e; r |= c; c &= opn; }
                FBGF_ACC(r & bl, 1);
            }
        }
        out[0] = n1; out[1] = n2; out[2] = loss;
    }

    /* The blot features of a side that bears off (features.pyx, _side_blots_c): its
       checkers all on its indices 0..5 or off, so a play is at most 4 moves among 6
       points. A position is a packed word: 4 bits a count, index i at bits 4i. The search
       keeps every position a legal sequence of moves reaches, duplicates included (only
       minima and a maximum are wanted), with the dice it used, and applies the dice rules
       to the set: as many dice as possible, the larger die when only one of two can be
       played; a die counts only if it moved a checker (a play that bears off the last
       checker with the first die used one). A double only extends a sequence with moves
       from indices no higher than the previous move's: every multiset of moves is
       visited once, in an order that is always legal. */
    #define FBGB_MAX 256    /* > the positions recorded: 2 x 6 x 6 + 12 for two dice,
                               1 + 6 + 21 + 56 + 126 = 210 (the search tree) for a double */
    typedef struct {
        uint32_t blk;       /* bit t: the other side holds the side's index t (2 or more) */
        uint32_t blt;       /* bit t: the other side has a blot on it */
        int count, deepest;
        uint64_t leaf[FBGB_MAX];    /* packed | hit << 24 | dice << 30 | larger << 33
                                       | checkers left << 34 */
    } fbgb_t;
    static inline int fbgb_top(uint32_t pk) { return (31 - __builtin_clz(pk)) >> 2; }
    /* the checkers a recorded position has borne off */
    static inline int fbgb_off(uint64_t x) { return 15 - (int)((x >> 34) & 0xF); }
    /* Move a checker from index i by d: 0 if illegal, else 1 and the new state. */
    static inline int fbgb_move(const fbgb_t *s, uint32_t pk, int hit, int left, int i, int d,
                                uint32_t *pk2, int *hit2, int *left2) {
        int t = i - d;
        if (t >= 0) {
            if ((s->blk >> t) & 1) return 0;
            *pk2 = pk - (1u << (4 * i)) + (1u << (4 * t));
            *hit2 = hit | (int)(s->blt & (1u << t));
            *left2 = left;
            return 1;
        }
        if (t < -1 && i != fbgb_top(pk)) return 0;   /* larger die: the highest only */
        *pk2 = pk - (1u << (4 * i));
        *hit2 = hit;
        *left2 = left - 1;
        return 1;
    }
    static inline void fbgb_record(fbgb_t *s, uint32_t pk, int hit, int left, int dice,
                                   int larger) {
        s->leaf[s->count++] = (uint64_t)pk | ((uint64_t)hit << 24) | ((uint64_t)dice << 30)
                              | ((uint64_t)larger << 33) | ((uint64_t)left << 34);
        if (dice > s->deepest) s->deepest = dice;
    }
    static void fbgb_double(fbgb_t *s, uint32_t pk, int hit, int left, int d, int depth,
                            int top) {
        uint32_t pk2; int hit2, left2, i, moved = 0;
        if (depth < 4)
            for (i = top; i >= 0; i--)
                if (((pk >> (4 * i)) & 0xF) && fbgb_move(s, pk, hit, left, i, d, &pk2, &hit2, &left2)) {
                    moved = 1;
                    fbgb_double(s, pk2, hit2, left2, d, depth + 1, i);
                }
        if (!moved) fbgb_record(s, pk, hit, left, depth, 0);
    }
    static void fbgb_search(fbgb_t *s, uint32_t pk, int left, int d1, int d2) {
        int hi = d1 > d2 ? d1 : d2, lo = d1 + d2 - hi, order, a, b, i, j, second;
        uint32_t p1, p2, first = 0; int h1, h2, l1, l2;
        s->count = 0;
        s->deepest = 0;
        if (hi == lo) {
            fbgb_double(s, pk, 0, left, hi, 0, 5);
            return;
        }
        /* first: bit j if the larger die moves a checker from j in the position itself.
           Smaller die first, such a move second ends where it and the smaller die's move
           end in the other order (they commute; the smaller die's move stays legal), so
           it is not recorded twice. */
        for (j = 0; j < 6; j++)
            if (((pk >> (4 * j)) & 0xF) && fbgb_move(s, pk, 0, left, j, hi, &p2, &h2, &l2))
                first |= 1u << j;
        for (order = 0; order < 2; order++) {
            a = order ? lo : hi;
            b = order ? hi : lo;
            for (i = 0; i < 6; i++) {
                if (!((pk >> (4 * i)) & 0xF) || !fbgb_move(s, pk, 0, left, i, a, &p1, &h1, &l1))
                    continue;
                second = 0;
                for (j = 0; j < 6; j++)
                    if (((p1 >> (4 * j)) & 0xF) && fbgb_move(s, p1, h1, l1, j, b, &p2, &h2, &l2)) {
                        second = 1;
                        if (!order || !((first >> j) & 1))
                            fbgb_record(s, p2, h2, l2, 2, 0);
                    }
                if (!second) fbgb_record(s, p1, h1, l1, 1, a == hi);
            }
        }
        if (s->count == 0) fbgb_record(s, pk, 0, left, 0, 0);  /* no legal move */
    }
    /* fbgf_shots's shots against the side at leaf x; the other side has nbar on the bar
       (before the play's hits) and, in the side's home board, checkers at the bits t + 1
       of `hitters` (t its indices): only those can reach the side's home board. */
    /* The shots of fbgb_shots by its whole input, + 1 (0: not yet known), filled as
       they are met and shared by every thread (relaxed atomic bytes: a value is the
       same whoever writes it). The input: without a checker on the bar, the hitters,
       blots and made points of the six points (18 bits); with 1..4 on the bar (more
       change nothing: fbgf_shots), the blots, the made points and that number. */
    static uint8_t fbgb_shot_memo[(1u << 18) + (4u << 12)];
    static inline int fbgb_shots(uint64_t x, uint32_t hitters, int nbar) {
        uint32_t bl = 0, made = 0, key; int i, c, v; int32_t sh[3];
        for (i = 0; i < 6; i++) {
            c = (int)((x >> (4 * i)) & 0xF);
            bl |= (uint32_t)(c == 1) << (i + 1);
            made |= (uint32_t)(c >= 2) << (i + 1);
        }
        if (!bl) return 0;
        nbar += fbgf_popcount((uint32_t)(x >> 24) & 0x3Fu);
        if (nbar > 4) nbar = 4;
        key = (bl >> 1) << 6 | (made >> 1);
        key = nbar ? (1u << 18) + ((uint32_t)(nbar - 1) << 12) + key : (hitters >> 1) << 12 | key;
        v = __atomic_load_n(&fbgb_shot_memo[key], __ATOMIC_RELAXED);
        if (v) return v - 1;
        fbgf_shots(nbar ? 1u : hitters, bl, ~made, nbar, sh);
        __atomic_store_n(&fbgb_shot_memo[key], (uint8_t)(sh[0] + 1), __ATOMIC_RELAXED);
        return sh[0];
    }
    /* out[0], out[1], out[3], out[4] (forced_blot, fast_blot, safe_shots, fast_shots) of
       the side n bearing off against o (both rows in n's frame). */
    static void fbgb_side(const unsigned char *n, const unsigned char *o, int32_t *out) {
        fbgb_t s;
        uint32_t pk = 0, hitters = 0;
        int left = 0, i, j, k, d1, d2, w, most, fastest, safest, larger;
        uint64_t x;
        s.blk = s.blt = 0;
        for (i = 0; i < 6; i++) {
            pk |= (uint32_t)n[i] << (4 * i);
            left += n[i];
            if (o[23 - i] >= 2) s.blk |= 1u << i;
            if (o[23 - i] == 1) s.blt |= 1u << i;
            if (o[23 - i]) hitters |= 2u << i;
        }
        for (d1 = 1; d1 <= 6; d1++)
            for (d2 = 1; d2 <= d1; d2++) {
                w = d1 == d2 ? 1 : 2;
                fbgb_search(&s, pk, left, d1, d2);
                larger = 0;
                if (d1 != d2 && s.deepest == 1)
                    for (j = 0; j < s.count; j++) larger |= (int)((s.leaf[j] >> 33) & 1);
                k = 0;
                most = 0;
                for (j = 0; j < s.count; j++) {
                    x = s.leaf[j];
                    if ((int)((x >> 30) & 7) != s.deepest
                        || (d1 != d2 && s.deepest == 1 && (int)((x >> 33) & 1) != larger))
                        continue;
                    s.leaf[k++] = x;
                    if (fbgb_off(x) > most) most = fbgb_off(x);
                }
                /* the fewest shots of the plays bearing off the most, then of all; each
                   minimum stops at 0 */
                fastest = 1 << 30;
                for (j = 0; j < k && fastest; j++)
                    if (fbgb_off(s.leaf[j]) == most) {
                        i = fbgb_shots(s.leaf[j], hitters, o[24]);
                        if (i < fastest) fastest = i;
                    }
                safest = fastest;
                for (j = 0; j < k && safest; j++)
                    if (fbgb_off(s.leaf[j]) != most) {
                        i = fbgb_shots(s.leaf[j], hitters, o[24]);
                        if (i < safest) safest = i;
                    }
                out[0] += w * (safest > 0);
                out[1] += w * (fastest > 0);
                out[3] += w * safest;
                out[4] += w * fastest;
            }
    }
    """
    int popcount "fbgf_popcount"(uint32_t x) noexcept nogil
    int popsum6 "fbgf_popsum6"(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                               uint32_t a4, uint32_t a5) noexcept nogil
    int ctz "fbgf_ctz"(uint32_t x) noexcept nogil        # x != 0
    int top "fbgf_top"(uint32_t x) noexcept nogil        # highest set bit, x != 0
    uint32_t rev32 "fbgf_rev32"(uint32_t x) noexcept nogil
    void side_masks "fbgf_masks"(const unsigned char* row, uint32_t* occ,
                                 uint32_t* made) noexcept nogil
        # occ bit i: row[i] >= 1 (i = 0..24); made bit i: row[i] >= 2 (i = 0..23)
    void row_below "fbgf_below"(const unsigned char* row, int c, int* cb, int* fb) noexcept nogil
        # the checkers cb and pips fb of the indices i < c (c in -1..24)
    int row_count "fbgf_count"(const unsigned char* row) noexcept nogil
    void row_sums "fbgf_sums"(const unsigned char* row, int c, int* P, int* N, int* cb,
                              int* fb, int* t6, int* bc) noexcept nogil
    bint valid_bytes "fbgf_valid"(const unsigned char* q) noexcept nogil
    void shots_masks "fbgf_shots"(uint32_t h, uint32_t bl, uint32_t opn, int nbar,
                                  int32_t* out) noexcept nogil
    void side_blots "fbgb_side"(const unsigned char* n, const unsigned char* o,
                                int32_t* out) noexcept nogil
        # out[0], out[1], out[3], out[4] += the blot numerators of the side n, which
        # bears off, against o (both rows in n's frame): forced_blot, fast_blot,
        # safe_shots, fast_shots


cdef enum:
    LOW24 = 0xFFFFFF
    LOW12 = 0xFFF

# POP6[x]: the set bits of a 6-bit mask (six points: a home board), built at import.
cdef int8_t POP6[64]

# ------------------------------------------------------------------ tables

cdef int8_t E[ESCAPE_SIZE]
cdef int32_t DENOM[N_FEATURES]
DENOM[:] = [25, 24, 6, 2, 6, 6, 6, 167, 167, 100, 100, 36, 36, 1296, 36, 36, 36, 36, 3600, 15]
DENOM_EXTRA[:] = [60, 400, 10, 100, 100, 3, 3, 9]


cdef inline bint _blocked(int mask, int p) noexcept nogil:
    """The point p pips ahead (p >= 1) is blocked (points beyond 12 pips are open)."""
    return p <= 12 and (mask >> (p - 1)) & 1


cdef int escape_count(int mask) noexcept nogil:
    # The definition, roll by roll: "past" is more than f pips ahead, f the farthest
    # blocked point (so a checker past it landed on an open point).
    if mask == 0:
        return 36
    cdef int f = top(<uint32_t>mask) + 1
    cdef int d1, d2, k, pos, count = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            if d1 == d2:
                pos = 0
                for k in range(4):
                    pos += d1
                    if pos > f:
                        count += 1
                        break
                    if _blocked(mask, pos):
                        break
            elif d1 > f or d2 > f:
                count += 1              # one die alone passes
            elif d1 + d2 > f and (not _blocked(mask, d1) or not _blocked(mask, d2)):
                count += 1
    return count


cdef void build_escape_table() noexcept nogil:
    cdef int m
    for m in range(ESCAPE_SIZE):
        E[m] = <int8_t>escape_count(m)
    for m in range(64):
        POP6[m] = <int8_t>popcount(m)


build_escape_table()


# ------------------------------------------------------------------ kernels

cdef inline uint32_t rev25(uint32_t x) noexcept nogil:
    """Bit i -> bit 24 - i (i = 0..24): a 25-slot row's mask in the other side's frame,
    shifted by one (the bar, other frame's index -1, at bit 0)."""
    return rev32(x) >> 7


cdef inline uint32_t rev24(uint32_t x) noexcept nogil:
    """Bit i -> bit 23 - i (i = 0..23): a point mask in the other side's frame."""
    return rev32(x) >> 8


cdef void shots_c(const unsigned char* n, const unsigned char* o, int32_t* out) noexcept nogil:
    cdef uint32_t occ_n, made_n, occ_o, made_o
    side_masks(n, &occ_n, &made_n)
    side_masks(o, &occ_o, &made_o)
    _shots(made_n, occ_n & ~made_n & LOW24, occ_o, o[BAR], out)


cdef inline void _shots(uint32_t made, uint32_t blots, uint32_t occ_o, int nbar,
                        int32_t* out) noexcept nogil:
    """shots, double_shots, pip_loss against a side with `made` points and `blots`
    (own-frame masks), the hitters being the other side's checkers (own-frame occupancy
    `occ_o`, `nbar` on its bar), by fbgf_shots in the frame shifted by one."""
    # only the bar checker hits while the other side has one; its index j is at bit 24 - j
    shots_masks(1 if nbar else rev25(occ_o), blots << 1, ~(made << 1), nbar, out)


cdef inline int _mobility(const unsigned char* n, uint32_t occ, uint32_t made_o) noexcept nogil:
    """The mobility numerator of a side (own occupancy occ, o's made points made_o)."""
    cdef uint32_t opn
    cdef int m
    if n[BAR]:
        return 6 - POP6[made_o & 0x3F]  # only the bar checker moves: the dice that enter
    opn = ~rev24(made_o) & LOW24        # points o does not hold, in our frame
    # the points a die d = 1..6 moves from, at their landing bits
    m = popsum6((occ >> 1) & opn, (occ >> 2) & opn, (occ >> 3) & opn,
                (occ >> 4) & opn, (occ >> 5) & opn, (occ >> 6) & opn)
    if occ and not (occ >> 6):
        # all home: each point bears off with its exact die, the rearmost also with
        # the 5 - back dice larger than back + 1
        m += popcount(occ) + 5 - top(occ)
    return m


cdef inline void _extra(const unsigned char* n, uint32_t occ, uint32_t made,
                        uint32_t made_o, int pips, int32_t* ext) noexcept nogil:
    """The extra numerators of a side from its masks and its pip count, but the backgame
    pair, which needs o's pips too."""
    cdef uint32_t x
    cdef int i, k, dv, s
    cdef int total = row_count(n)
    ext[X_MOBILITY] = _mobility(n, occ, made_o)
    s = 0
    if total:
        # (i + 1) T > P  <=>  i >= P // T: the slots from index P // T (<= 25) up
        k = pips // total
        x = occ & ~((<uint32_t>1 << k) - 1)
        while x:
            i = ctz(x)
            dv = (i + 1) * total - pips
            s += n[i] * dv * dv         # <= 15 * 375 ** 2: no overflow
            x &= x - 1
        s = s // (total * total)
    ext[X_MOMENT2] = s
    ext[X_BACKBONE] = popsum6(made & (made >> 1), made & (made >> 2), made & (made >> 3),
                              made & (made >> 4), made & (made >> 5), made & (made >> 6))
    k = NCHECKERS - total               # checkers off
    ext[X_OFF1] = k if k < 3 else 3
    ext[X_OFF2] = 0 if k < 3 else (k - 3 if k < 6 else 3)
    ext[X_OFF3] = k - 6 if k > 6 else 0


cdef inline void _backgames(const int32_t* f, const int32_t* f_o, int32_t* ext) noexcept nogil:
    """backgame and backgame2 of the side whose first 20 numerators are f (f_o: the
    other side's): the race deficit by the number of anchors in o's home board."""
    cdef int d = f[F_PIPS] - f_o[F_PIPS]
    if d < 0:
        d = 0
    ext[X_BACKGAME] = d if f[F_ANCHORS_BACK] == 1 else 0
    ext[X_BACKGAME2] = d if f[F_ANCHORS_BACK] >= 2 else 0


cdef inline void _side(const unsigned char* n, const unsigned char* o,
                       uint32_t occ, uint32_t made, uint32_t occ_o, uint32_t made_o,
                       int32_t* out) noexcept nogil:
    """side_features_c given both sides' own-frame masks."""
    cdef int v, back, c, t, run, m
    cdef int pips, brk, free, timing, bc, total, cb
    cdef uint32_t x
    back = top(occ) if occ else -1
    c = 23 - (top(occ_o) if occ_o else -1)
    out[F_BACK_CHECKER] = back + 1
    out[F_BACK_ANCHOR] = top(made) + 1 if made else 0
    x = made >> 18
    out[F_FORWARD_ANCHOR] = 6 - ctz(x) if x else 0
    out[F_ANCHORS_BACK] = POP6[x]
    run = 0
    x = made
    while x:
        x &= x >> 1
        run += 1
    out[F_PRIME] = run
    out[F_HOME_POINTS] = POP6[made & 0x3F]
    out[F_BLOTS] = popcount(occ & ~made & LOW24)

    row_sums(n, c, &pips, &total, &cb, &free, &timing, &bc)
    # n[c] = 0 when 0 <= c <= 23 (o holds that index): the checkers above c are those
    # not below it, each moving i - c = (i + 1) - (c + 1); with c = 24 only the bar is
    # left over and the sum is 25 n[24] - 25 n[24] = 0
    brk = (pips - free) - (c + 1) * (total - cb)
    x = made >> 6
    while x:
        timing -= 2 * (ctz(x) + 1)  # index i = 6 + ctz holds a point: 2 * (i - 5)
        x &= x - 1
    out[F_PIPS] = pips
    out[F_BREAK_CONTACT] = brk
    out[F_FREE_PIPS] = free
    out[F_TIMING] = timing if timing > 0 else 0
    out[F_BACK_COUNT] = bc

    # an o checker on o's index j = 24 - t against our points from index t on
    m = 36
    for t in range(10):
        v = E[(made >> t) & LOW12]
        if v < m:
            m = v
    out[F_CONTAINMENT] = 36 - m
    out[F_CONTAINMENT_SQ] = (36 - m) * (36 - m)
    _against(n, o, occ, made, occ_o, made_o, back, c, out)


cdef inline void _against(const unsigned char* n, const unsigned char* o, uint32_t occ,
                          uint32_t made, uint32_t occ_o, uint32_t made_o, int back, int c,
                          int32_t* out) noexcept nogil:
    """The numerators of _side that read o's points or checkers (but c's pip sums): the
    escape of the rearmost checker, entering against o's home board, o's shots."""
    cdef int v
    # the rearmost checker against o's points: bit k = omade(back - 1 - k), which is
    # o's own index 24 - back + k
    if back < 0 or back <= c:
        out[F_ESCAPE_BACK] = 36
    else:
        out[F_ESCAPE_BACK] = E[(made_o >> (24 - back)) & LOW12]
    v = POP6[made_o & 0x3F]             # h: o's closed home points
    out[F_ENTER_FAIL] = v * v if n[BAR] >= 1 else 0
    out[F_ENTER_FAIL2] = 36 - (6 - v) * (6 - v) if n[BAR] >= 2 else 0
    _shots(made, occ & ~made & LOW24, occ_o, o[BAR], out + F_SHOTS)


cdef inline void _side_given(const unsigned char* n, const unsigned char* o,
                             uint32_t occ, uint32_t made, uint32_t occ_o, uint32_t made_o,
                             const int32_t* prev, int32_t* out) noexcept nogil:
    """_side for a side whose own row is that of the side whose 20 numerators are
    `prev`: the features that read only its own row are copied, those that read o's
    (through c, o's points or o's checkers) computed as _side does."""
    cdef int back, c, cb, free
    memcpy(out, prev, N_FEATURES * sizeof(int32_t))
    back = top(occ) if occ else -1
    c = 23 - (top(occ_o) if occ_o else -1)
    row_below(n, c, &cb, &free)
    out[F_BREAK_CONTACT] = (prev[F_PIPS] - free) - (c + 1) * (row_count(n) - cb)
    out[F_FREE_PIPS] = free
    _against(n, o, occ, made, occ_o, made_o, back, c, out)


cdef void side_features_c(const unsigned char* n, const unsigned char* o,
                          int32_t* out) noexcept nogil:
    cdef uint32_t occ, made, occ_o, made_o
    side_masks(n, &occ, &made)
    side_masks(o, &occ_o, &made_o)
    _side(n, o, occ, made, occ_o, made_o, out)


cdef void contact_features_c(const board_t* b, int32_t* out) noexcept nogil:
    cdef uint32_t occ0, made0, occ1, made1
    side_masks(b.p[0], &occ0, &made0)
    side_masks(b.p[1], &occ1, &made1)
    _side(b.p[0], b.p[1], occ0, made0, occ1, made1, out)
    _side(b.p[1], b.p[0], occ1, made1, occ0, made0, out + N_FEATURES)


cdef void contact_features_ext_c(const board_t* b, int32_t* out) noexcept nogil:
    cdef uint32_t occ0, made0, occ1, made1
    cdef int32_t* ext = out + 2 * N_FEATURES
    side_masks(b.p[0], &occ0, &made0)
    side_masks(b.p[1], &occ1, &made1)
    _side(b.p[0], b.p[1], occ0, made0, occ1, made1, out)
    _side(b.p[1], b.p[0], occ1, made1, occ0, made0, out + N_FEATURES)
    # the extras reuse the masks and the first 20's pip counts and anchors
    _extra(b.p[0], occ0, made0, made1, out[F_PIPS], ext)
    _extra(b.p[1], occ1, made1, made0, out[N_FEATURES + F_PIPS], ext + N_EXTRA_FEATURES)
    _backgames(out, out + N_FEATURES, ext)
    _backgames(out + N_FEATURES, out, ext + N_EXTRA_FEATURES)


cdef void contact_features_given_c(const board_t* b, const int32_t* prev, bint ext,
                                  int32_t* out) noexcept nogil:
    cdef uint32_t occ0, made0, occ1, made1
    cdef int32_t* x = out + 2 * N_FEATURES
    cdef const int32_t* px = prev + 2 * N_FEATURES
    side_masks(b.p[0], &occ0, &made0)
    side_masks(b.p[1], &occ1, &made1)
    _side_given(b.p[0], b.p[1], occ0, made0, occ1, made1, prev, out)
    _side(b.p[1], b.p[0], occ1, made1, occ0, made0, out + N_FEATURES)
    if not ext:
        return
    # side 0's extras read its own row but for the mobility (o's points) and the
    # backgames (o's pips)
    memcpy(x, px, N_EXTRA_FEATURES * sizeof(int32_t))
    x[X_MOBILITY] = _mobility(b.p[0], occ0, made1)
    _extra(b.p[1], occ1, made1, made0, out[N_FEATURES + F_PIPS], x + N_EXTRA_FEATURES)
    _backgames(out, out + N_FEATURES, x)
    _backgames(out + N_FEATURES, out, x + N_EXTRA_FEATURES)


cdef void race_numerators_c(const board_t* b, int32_t* out) noexcept nogil:
    cdef int s, i, total, cross, pips
    cdef const unsigned char* n
    for s in range(2):
        n = b.p[s]
        total = 0
        cross = 0
        pips = 0
        for i in range(NSLOTS):
            total += n[i]
            cross += n[i] * (i // 6)
            pips += n[i] * (i + 1)
        out[3 * s] = NCHECKERS - total
        out[3 * s + 1] = cross
        out[3 * s + 2] = pips


cdef inline void _point_units(const unsigned char* n, double* out) noexcept nogil:
    """The 96 units of indices 0..23 (n >= 1, n >= 2, n >= 3, (n - 3) / 2 when n > 3);
    `out` is zeroed by the caller."""
    cdef int i, v
    for i in range(24):
        v = n[i]
        if v >= 1:
            out[4 * i] = 1.0
            if v >= 2:
                out[4 * i + 1] = 1.0
                if v >= 3:
                    out[4 * i + 2] = 1.0
                    if v > 3:
                        out[4 * i + 3] = (v - 3) * 0.5


cdef void contact_inputs_c(const board_t* b, double* out) noexcept nogil:
    cdef int32_t f[N_ALL_FEATURES]
    cdef int s, k
    memset(out, 0, N_CONTACT_INPUTS * sizeof(double))
    for s in range(2):
        _point_units(b.p[s], out + 98 * s)
        out[98 * s + 96] = b.p[s][BAR] * 0.5
        out[98 * s + 97] = (NCHECKERS - row_sum(b.p[s])) / 15.0
    contact_features_ext_c(b, f)
    for k in range(2 * N_FEATURES):
        out[196 + k] = (<double>f[k]) / DENOM[k % N_FEATURES]
    for k in range(2 * N_EXTRA_FEATURES):
        out[N_LEGACY_CONTACT_INPUTS + k] = (<double>f[2 * N_FEATURES + k]) / DENOM_EXTRA[k % N_EXTRA_FEATURES]


cdef void race_inputs_c(const board_t* b, double* out) noexcept nogil:
    cdef int32_t r[2 * N_RACE_NUM]
    cdef int s
    cdef double* o
    memset(out, 0, N_RACE_INPUTS * sizeof(double))
    race_numerators_c(b, r)
    for s in range(2):
        o = out + N_RACE_SIDE * s
        _point_units(b.p[s], o)
        if r[3 * s] < NCHECKERS:
            o[96 + r[3 * s]] = 1.0
        o[111] = (<double>r[3 * s + 1]) / 60.0
        o[112] = (<double>r[3 * s + 2]) / 167.0


cdef int position_class_c(const board_t* b) noexcept nogil:
    # from the back points (1..25, 0: no checker left): every checker home is a back
    # point <= 6, and no contact is board.is_race_c's test
    cdef int b0 = back_point_c(b.p[0]), b1 = back_point_c(b.p[1])
    if b0 == 0 or b1 == 0:
        return PC_OVER
    if b0 <= 6 and b1 <= 6:
        return PC_BEAROFF
    if b0 + b1 < 25:
        return PC_RACE
    return PC_CONTACT


cdef inline int _in_play(const unsigned char* row) noexcept nogil:
    cdef int n = checkers_c(row)
    if row[0] > 1:
        n -= row[0] - 1
    if row[1] > 1:
        n -= row[1] - 1
    return n


cdef bint crashed_c(const board_t* b) noexcept nogil:
    return _in_play(b.p[0]) <= CRASHED_MAX or _in_play(b.p[1]) <= CRASHED_MAX


cdef inline bint _bears_off_against_contact(const unsigned char* n,
                                            const unsigned char* o) noexcept nogil:
    """Every checker of n home or off, one at least home, and a checker of o on its bar
    or in n's home board (o's indices 18..23)."""
    cdef int i
    for i in range(6, NSLOTS):
        if n[i]:
            return False
    if not (n[0] or n[1] or n[2] or n[3] or n[4] or n[5]):
        return False
    if o[BAR]:
        return True
    for i in range(18, 24):
        if o[i]:
            return True
    return False


cdef inline uint64_t _blot_key(const unsigned char* n, const unsigned char* o) noexcept nogil:
    """The side n's home board (indices 0..5, 4 bits each) and o's checkers in it (o's
    indices 18..23, 2 bits each) and on o's bar (3 bits): nonzero when n bears off. o's
    counts are capped where more make no difference: on a point at 2 (a blot n may hit,
    or a point it may not land on; a hitter either way), on the bar at 4 (shots_c: four
    or more on the bar use every move of a double to enter)."""
    cdef uint64_t key = 0
    cdef int i
    for i in range(6):
        key |= (<uint64_t>n[i]) << (4 * i)
        key |= (<uint64_t>(o[18 + i] if o[18 + i] < 2 else 2)) << (24 + 2 * i)
    return key | ((<uint64_t>(o[BAR] if o[BAR] < 4 else 4)) << 36)


cdef void _side_blots_c(const board_t* b, blot_entry_t* cache, int32_t* out) noexcept nogil:
    """The five blot numerators of the side in row 0 of b (docs/evaluator.md), from
    the cache (see blot_features_c) when it holds them; side_blots's search else."""
    cdef uint64_t key = 0
    cdef blot_entry_t* entry = NULL
    memset(out, 0, N_BLOT_FEATURES * sizeof(int32_t))
    if not _bears_off_against_contact(b.p[0], b.p[1]):
        return
    out[2] = 1
    if cache != NULL:
        key = _blot_key(b.p[0], b.p[1])
        entry = &cache[(key * <uint64_t>0x9E3779B97F4A7C15) >> (64 - BLOT_CACHE_BITS)]
        if entry.key == key:
            out[0] = <int32_t>(entry.val & 0xFFFF)
            out[1] = <int32_t>((entry.val >> 16) & 0xFFFF)
            out[3] = <int32_t>((entry.val >> 32) & 0xFFFF)
            out[4] = <int32_t>(entry.val >> 48)
            return
    side_blots(b.p[0], b.p[1], out)
    if entry != NULL:
        entry.key = key
        entry.val = ((<uint64_t>out[0]) | ((<uint64_t>out[1]) << 16)
                     | ((<uint64_t>out[3]) << 32) | ((<uint64_t>out[4]) << 48))


cdef bint blot_features_side0_c(const board_t* b, blot_entry_t* cache,
                                int32_t* out) noexcept nogil:
    _side_blots_c(b, cache, out)
    memset(out + N_BLOT_FEATURES, 0, N_BLOT_FEATURES * sizeof(int32_t))
    return _bears_off_against_contact(b.p[1], b.p[0])


cdef void blot_features_c(const board_t* b, blot_entry_t* cache, int32_t* out) noexcept nogil:
    cdef board_t sw
    _side_blots_c(b, cache, out)
    swap_into(b, &sw)
    _side_blots_c(&sw, cache, out + N_BLOT_FEATURES)


cdef bint valid_board_bytes(const signed char* q) noexcept nogil:
    return valid_bytes(<const unsigned char*>q)


# ------------------------------------------------------------------ Python API

FEATURE_NAMES = (
    "back_checker", "back_anchor", "forward_anchor", "anchors_back", "prime",
    "home_points", "blots", "pips", "break_contact", "free_pips", "timing",
    "escape_back", "containment", "containment_sq", "enter_fail", "enter_fail2",
    "shots", "double_shots", "pip_loss", "back_count",
)
FEATURE_DENOMINATORS = np.array([DENOM[k] for k in range(N_FEATURES)], dtype=np.int64)
FEATURE_DENOMINATORS.setflags(write=False)
EXTRA_FEATURE_NAMES = (
    "mobility", "moment2", "backbone", "backgame", "backgame2", "off1", "off2", "off3",
)
EXTRA_FEATURE_DENOMINATORS = np.array([DENOM_EXTRA[k] for k in range(N_EXTRA_FEATURES)],
                                      dtype=np.int64)
EXTRA_FEATURE_DENOMINATORS.setflags(write=False)
ESCAPE_BITS = 12                # a mask covers the 12 points ahead of a checker
ESCAPE_TABLE = np.array([E[k] for k in range(ESCAPE_SIZE)], dtype=np.int8)   # a copy of E
ESCAPE_TABLE.setflags(write=False)
BLOT_FEATURE_NAMES = ("forced_blot", "fast_blot", "bearing_off", "safe_shots", "fast_shots")
BLOT_FEATURE_DENOMINATORS = np.array([36, 36, 1, 1296, 1296], dtype=np.int64)
BLOT_FEATURE_DENOMINATORS.setflags(write=False)
CONTACT_INPUTS = N_CONTACT_INPUTS                   # the full width
LEGACY_CONTACT_INPUTS = N_LEGACY_CONTACT_INPUTS     # what a 236-input net reads
RACE_INPUTS = N_RACE_INPUTS
POSITION_CLASSES = ("over", "bearoff", "race", "contact")


def escapes(mask):
    """E(mask): the ordered rolls of 36 with which a lone checker passes every blocked point.

    Parameters
    ----------
    mask : int
        12-bit bitmap, bit ``k`` set if the point ``k + 1`` pips ahead is blocked.

    Returns
    -------
    int
        0..36 (36 for ``mask == 0``); docs/evaluator.md defines the count.

    Raises
    ------
    ValueError
        If ``mask`` is not an integer in 0..4095 (``bool`` is refused).
    """
    if isinstance(mask, bool) or not isinstance(mask, (int, np.integer)):
        raise ValueError(f"an escape mask is an integer in 0..4095, got {mask!r}")
    if not 0 <= mask < ESCAPE_SIZE:
        raise ValueError(f"an escape mask is an integer in 0..4095, got {mask}")
    return int(E[<int>mask])


def contact_features(board):
    """The 20 contact feature numerators of each side.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 on roll (engine convention).

    Returns
    -------
    numpy.ndarray of int64, shape (2, 20)
        Row ``s``: side ``s``'s numerators ``N`` in the order of ``FEATURE_NAMES``;
        the network reads ``N / FEATURE_DENOMINATORS``.

    Raises
    ------
    ValueError
        If the board is not valid (see ``fastbg._core.board.validate_board``).
    """
    cdef board_t b
    cdef int32_t f[2 * N_FEATURES]
    load_board(board, &b)
    contact_features_c(&b, f)
    return _sides(f, 0, N_FEATURES)


cdef object _sides(const int32_t* f, int first, int nf):
    """The (2, nf) int64 array of side 0's nf numerators at f[first], side 1's after."""
    out = np.empty((2, nf), dtype=np.int64)
    cdef int64_t[:, ::1] v = out
    cdef int k
    for k in range(nf):
        v[0, k] = f[first + k]
        v[1, k] = f[first + nf + k]
    return out


def extra_features(board):
    """The 8 extra contact feature numerators of each side (docs/evaluator.md): int64
    array of shape (2, 8) in the order of ``EXTRA_FEATURE_NAMES`` (the network reads
    ``N / EXTRA_FEATURE_DENOMINATORS``); as ``contact_features`` otherwise."""
    cdef board_t b
    cdef int32_t f[N_ALL_FEATURES]
    load_board(board, &b)
    contact_features_ext_c(&b, f)
    return _sides(f, 2 * N_FEATURES, N_EXTRA_FEATURES)


def contact_features_given(board, prev_board, extra=False):
    """The numerators of ``board`` computed from those of ``prev_board`` (the evaluator's
    path for a play that hits nothing: ``contact_features_given_c``).

    Parameters
    ----------
    board, prev_board : array_like of int, shape (2, 25)
        Valid boards with the same row 0.
    extra : bool
        Also the 8 extra numerators of each side.

    Returns
    -------
    numpy.ndarray of int64, shape (40,) or (56,)
        Equal to the concatenation of ``contact_features(board)`` and, with ``extra``,
        ``extra_features(board)`` (side 0's, then side 1's).

    Raises
    ------
    ValueError
        If a board is not valid or the rows 0 differ.
    """
    cdef board_t b, pb
    cdef int32_t prev[N_ALL_FEATURES]
    cdef int32_t f[N_ALL_FEATURES]
    cdef int k, nf = N_ALL_FEATURES if extra else 2 * N_FEATURES
    load_board(board, &b)
    load_board(prev_board, &pb)
    for k in range(NSLOTS):
        if b.p[0][k] != pb.p[0][k]:
            raise ValueError("the boards' rows 0 differ")
    contact_features_ext_c(&pb, prev)
    contact_features_given_c(&b, prev, bool(extra), f)
    return np.array([f[k] for k in range(nf)], dtype=np.int64)


def shots(board, side):
    """What the other side's next roll can hit of ``side``'s blots.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
    side : int
        0 (the side on roll) or 1.

    Returns
    -------
    tuple of (int, int, int)
        ``(shots, double_shots, pip_loss)``: features 16..18 of ``side``.
    """
    if isinstance(side, bool) or side not in (0, 1):
        raise ValueError(f"side is 0 or 1, got {side!r}")
    cdef board_t b
    cdef int32_t r[3]
    load_board(board, &b)
    cdef int s = side
    shots_c(b.p[s], b.p[1 - s], r)
    return int(r[0]), int(r[1]), int(r[2])


def blot_features(board):
    """The blot features of both sides (docs/evaluator.md, "Blot features").

    Parameters
    ----------
    board : array_like of int, shape (2, 25)

    Returns
    -------
    numpy.ndarray of int64, shape (2, 5)
        The numerators of side 0 and side 1, in :data:`BLOT_FEATURE_NAMES` order.

    Raises
    ------
    ValueError
        For an invalid board.
    """
    cdef board_t b
    cdef int32_t f[2 * N_BLOT_FEATURES]
    load_board(board, &b)
    with nogil:
        blot_features_c(&b, NULL, f)
    return np.array([f[k] for k in range(2 * N_BLOT_FEATURES)], dtype=np.int64).reshape(2, -1)


def contact_inputs(board):
    """The contact net's 252 inputs.

    Returns
    -------
    numpy.ndarray of float64, shape (252,)
        Tesauro's 196 units (as ``fastbg._core.nn.encode_board``), then side 0's 20
        features ``N / D``, then side 1's (the 236 a legacy net reads), then side 0's
        8 extra features ``N / D``, then side 1's.
    """
    cdef board_t b
    load_board(board, &b)
    out = np.empty(N_CONTACT_INPUTS, dtype=np.float64)
    cdef double[::1] v = out
    contact_inputs_c(&b, &v[0])
    return out


def race_inputs(board):
    """The race net's 226 inputs.

    Returns
    -------
    numpy.ndarray of float64, shape (226,)
        For side 0 then side 1 (113 each): 96 point units, 15 one-hot units
        ``off == 0..14``, crossovers / 60, pips / 167.
    """
    cdef board_t b
    load_board(board, &b)
    out = np.empty(N_RACE_INPUTS, dtype=np.float64)
    cdef double[::1] v = out
    race_inputs_c(&b, &v[0])
    return out


def position_class(board):
    """``"over"``, ``"bearoff"``, ``"race"`` or ``"contact"`` (docs/evaluator.md)."""
    cdef board_t b
    load_board(board, &b)
    return POSITION_CLASSES[position_class_c(&b)]


def is_crashed(boards):
    """Whether contact positions are crashed (fastbg.reference.features.is_crashed): a bool
    for one (2, 25) board, a bool array (n,) for a stack of them."""
    cdef board_t b
    arr = np.asarray(boards)
    if arr.ndim == 2:
        load_board(arr, &b)
        return bool(crashed_c(&b))
    arr = _boards_array(arr)
    cdef const signed char[:, :, ::1] v = arr
    out = np.zeros(arr.shape[0], dtype=bool)
    cdef cnp.uint8_t[::1] o = out.view(np.uint8)
    cdef Py_ssize_t i
    for i in range(arr.shape[0]):
        memcpy(&b, &v[i, 0, 0], sizeof(board_t))
        o[i] = crashed_c(&b)
    return out


cdef object _boards_array(object boards):
    """``boards`` as a C-contiguous int8 array of shape (n, 2, 25), every board valid.

    Raises ValueError naming the first invalid board (with load_board's message).
    """
    arr = np.asarray(boards)
    if arr.ndim != 3 or arr.shape[1:] != (2, NSLOTS):
        raise ValueError(f"boards have shape (n, 2, 25), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"checker counts must be integers, got dtype {arr.dtype}")
    if arr.dtype != np.int8:
        # out-of-range counts must not wrap around in the cast
        bad = ((arr < 0) | (arr > NCHECKERS)).any(axis=(1, 2))
        if bad.any():
            _raise_invalid(arr, int(np.flatnonzero(bad)[0]))
        arr = arr.astype(np.int8)
    arr = np.ascontiguousarray(arr)
    cdef const signed char[:, :, ::1] v = arr
    cdef Py_ssize_t i, n = arr.shape[0], first = -1
    with nogil:
        for i in range(n):
            if not valid_board_bytes(&v[i, 0, 0]):
                first = i
                break
    if first >= 0:
        _raise_invalid(arr, first)
    return arr


cdef int _raise_invalid(object arr, Py_ssize_t i) except -1:
    cdef board_t b
    try:
        load_board(arr[i], &b)
    except ValueError as exc:
        raise ValueError(f"board {i}: {exc}") from None
    raise AssertionError(f"board {i} was refused but is valid")


cdef object _features_many(object boards, bint extra):
    """contact_features_many (extra False) or extra_features_many (True)."""
    arr = _boards_array(boards)
    cdef const unsigned char[:, :, ::1] v = arr.view(np.uint8)
    cdef Py_ssize_t i, k, n = arr.shape[0]
    cdef int nf = N_EXTRA_FEATURES if extra else N_FEATURES
    cdef int first = 2 * N_FEATURES if extra else 0     # side 0's first numerator in f
    out = np.empty((n, 2, nf), dtype=np.int64)
    cdef int64_t[:, :, ::1] o = out
    cdef int32_t f[N_ALL_FEATURES]
    with nogil:
        for i in range(n):
            if extra:
                contact_features_ext_c(<const board_t*>&v[i, 0, 0], f)
            else:
                contact_features_c(<const board_t*>&v[i, 0, 0], f)
            for k in range(nf):
                o[i, 0, k] = f[first + k]
                o[i, 1, k] = f[first + nf + k]
    return out


def contact_features_many(boards):
    """``contact_features`` of many boards, in one nogil loop.

    Parameters
    ----------
    boards : array_like of int, shape (n, 2, 25)
        Fastest as a C-contiguous int8 array (no copy).

    Returns
    -------
    numpy.ndarray of int64, shape (n, 2, 20)

    Raises
    ------
    ValueError
        If the shape is wrong or a board is not valid (the message names the first).
    """
    return _features_many(boards, False)


def extra_features_many(boards):
    """``extra_features`` of many boards, in one nogil loop: int64 array of shape
    (n, 2, 8); as ``contact_features_many`` otherwise."""
    return _features_many(boards, True)


def contact_inputs_many(boards):
    """``contact_inputs`` of many boards: float64 array of shape (n, 252) (a 236-input
    net reads the first 236 columns)."""
    arr = _boards_array(boards)
    cdef const unsigned char[:, :, ::1] v = arr.view(np.uint8)
    cdef Py_ssize_t i, n = arr.shape[0]
    out = np.empty((n, N_CONTACT_INPUTS), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        for i in range(n):
            contact_inputs_c(<const board_t*>&v[i, 0, 0], &o[i, 0])
    return out


def race_inputs_many(boards):
    """``race_inputs`` of many boards: float64 array of shape (n, 226)."""
    arr = _boards_array(boards)
    cdef const unsigned char[:, :, ::1] v = arr.view(np.uint8)
    cdef Py_ssize_t i, n = arr.shape[0]
    out = np.empty((n, N_RACE_INPUTS), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        for i in range(n):
            race_inputs_c(<const board_t*>&v[i, 0, 0], &o[i, 0])
    return out
