# cython: language_level=3
"""Constants and types shared by the Cython core (header-only).

Board convention (DESIGN section 2): a position is two rows of 25 counts. Row 0 is
the side on roll, row 1 its opponent, each from its own point of view: index ``i``
is that side's point ``i + 1`` (0 = ace point, 5 = six point, 23 = 24-point) and
index 24 its bar. Checkers off are ``15 - row sum``. My index ``i`` (0..23) is the
opponent's index ``23 - i``.
"""
from libc.stdint cimport int64_t, uint32_t, uint64_t

cdef enum:
    NPOINTS = 24            # points on the board, per side
    NSLOTS = 25             # counts per row: 24 points + the bar
    BAR = 24                # index of the bar in a row
    NCHECKERS = 15          # checkers per side
    HOME_TOP = 5            # highest index of a side's home board (its 6-point)
    BOARD_BYTES = 50        # bytes of one board_t (2 x 25, no padding)
    # Capacity of a plays buffer. DESIGN section 6 asks for at least 3,875 distinct
    # plays per roll (the largest count known for doubles); the generator checks
    # this bound and reports an overflow instead of writing past it.
    MAX_PLAYS = 4096
    # Open-addressing table used to de-duplicate non-double plays. A non-double
    # roll yields at most 2 orders x 15 first moves x 15 second moves = 450 full
    # sequences (plus single-die plays when no full one exists, which are at most
    # 2 x 15), so 1024 slots keep the load under one half.
    HASH_BITS = 10
    HASH_SIZE = 1024
    # Row length of a linear evaluation's table (n + 15 in 0..30, padded to a
    # power of two so a row is found with a shift).
    POINT_STRIDE = 32


# One position: exactly 50 bytes, byte-compatible with a C-contiguous numpy int8
# array of shape (2, 25), so buffers of boards can be memcpy'd to and from numpy
# and compared with memcmp (all counts are 0..15, so unsigned byte order is the
# numeric order of the int8 values, which is the canonical order of plays).
cdef struct board_t:
    unsigned char p[2][25]  # p[0]: side on roll, p[1]: opponent; [side][index], index 24 = bar

# A linear evaluation of the position after a play, in the form of pubeval:
#   score = sum over locations L = 1..24 of point[(L - 1) * POINT_STRIDE + n_L + 15]
#           + bar * (opponent's checkers on its bar) + off * (mover's checkers off),
# where n_L is the mover's checkers on its point L, or minus the opponent's there
# (-15..15); a play bearing off the mover's last checker scores `win` instead.
# Because the score is a sum of independent terms, the move generator updates it
# move by move and hands every play's score to the policy (exact integers).
cdef struct linear_eval_t:
    const int64_t* point    # 24 x POINT_STRIDE table: contribution of location L holding n
    int64_t bar             # weight of one opponent checker on its bar
    int64_t off             # weight of one mover checker off
    int64_t win             # score of a play that bears off the last checker


# Outcome classes, from the point of view of the side the game was started for.
cdef enum outcome_t:
    WIN_SINGLE = 0
    WIN_GAMMON = 1
    WIN_BACKGAMMON = 2
    LOSE_SINGLE = 3
    LOSE_GAMMON = 4
    LOSE_BACKGAMMON = 5
    NOT_OVER = -1           # neither side has borne off all its checkers


# Small bit and byte helpers in C (gcc/clang builtins), shared by the modules.
cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #ifndef FASTBG_HELPERS
    #define FASTBG_HELPERS
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    #define FASTBG_BE64(x) (x)
    #else
    #define FASTBG_BE64(x) __builtin_bswap64(x)
    #endif
    static inline uint64_t fastbg_load64(const void *p) {
        uint64_t x; memcpy(&x, p, 8); return x;
    }
    /* Canonical order of two boards: memcmp of the 50 bytes, a word at a time. */
    static inline int fastbg_board_cmp(const void *a, const void *b) {
        const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
        int k;
        for (k = 0; k < 48; k += 8) {
            uint64_t x = fastbg_load64(p + k), y = fastbg_load64(q + k);
            if (x != y) {
                x = FASTBG_BE64(x); y = FASTBG_BE64(y);
                return x < y ? -1 : 1;
            }
        }
        if (p[48] != q[48]) return p[48] < q[48] ? -1 : 1;
        if (p[49] != q[49]) return p[49] < q[49] ? -1 : 1;
        return 0;
    }
    static inline int fastbg_top_bit(uint32_t x) { return 31 - __builtin_clz(x); }
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    static inline uint32_t fastbg_occupancy(const unsigned char *row) {
        uint32_t m = 0; int i;
        for (i = 0; i < 25; i++) m |= (uint32_t)(row[i] != 0) << i;
        return m;
    }
    static inline uint32_t fastbg_blocks(const unsigned char *opp) {
        uint32_t m = 0; int t;
        for (t = 0; t < 24; t++) m |= (uint32_t)(opp[23 - t] >= 2) << t;
        return m;
    }
    #else
    /* SWAR on little-endian words; counts are 0..15, so adding 0x7F (or 0x7E)
       to a byte sets its top bit iff it is >= 1 (>= 2) and never carries. The
       multiply gathers the bytes' low bits (byte i -> bit i) into the top byte. */
    #define FASTBG_GATHER(x) ((uint32_t)((((x) & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56))
    static inline uint32_t fastbg_ge_mask24(const unsigned char *row, uint64_t add) {
        return FASTBG_GATHER((fastbg_load64(row) + add) >> 7)
             | FASTBG_GATHER((fastbg_load64(row + 8) + add) >> 7) << 8
             | FASTBG_GATHER((fastbg_load64(row + 16) + add) >> 7) << 16;
    }
    static inline uint32_t fastbg_rev8(uint32_t b) {
        return (uint32_t)(((((uint64_t)b * 0x80200802ULL) & 0x0884422110ULL) * 0x0101010101ULL) >> 32) & 0xFF;
    }
    static inline uint32_t fastbg_occupancy(const unsigned char *row) {
        return fastbg_ge_mask24(row, 0x7F7F7F7F7F7F7F7FULL) | ((uint32_t)(row[24] != 0) << 24);
    }
    static inline uint32_t fastbg_blocks(const unsigned char *opp) {
        uint32_t m = fastbg_ge_mask24(opp, 0x7E7E7E7E7E7E7E7EULL);   /* bit j: opp[j] >= 2 */
        return fastbg_rev8(m & 0xFF) << 16 | fastbg_rev8((m >> 8) & 0xFF) << 8 | fastbg_rev8(m >> 16);
    }
    #endif
    #endif
    """
    uint64_t load64 "fastbg_load64"(const void* p) noexcept nogil
        # 8 bytes from any address, in native byte order
    int board_cmp "fastbg_board_cmp"(const void* a, const void* b) noexcept nogil
        # <0, 0, >0 as memcmp(a, b, 50): the canonical order of plays
    int top_bit "fastbg_top_bit"(uint32_t x) noexcept nogil
        # index of the highest set bit, x != 0
    uint32_t occupancy "fastbg_occupancy"(const unsigned char* row) noexcept nogil
        # bit i set iff row[i] > 0, i = 0..24 (one side's points and bar)
    uint32_t blocks "fastbg_blocks"(const unsigned char* opp) noexcept nogil
        # bit t set iff opp[23 - t] >= 2, t = 0..23: the opponent's blocks in the
        # mover's numbering
