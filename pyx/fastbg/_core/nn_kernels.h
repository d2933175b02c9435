/* Integer kernels of the policy network (fastbg._core.nn), in C so that GCC can
 * compile each twice -- for AVX2 and for the x86-64 baseline (SSE2) -- and pick
 * the copy for the running CPU once, at load time (target_clones, an ifunc), or,
 * for the hand-written AVX2 copy of the hidden layer, at each call.
 * Both copies do the same integer arithmetic, so the results are identical on
 * every machine; the float parts of the network stay in nn.pyx.
 *
 * The formulas are those of fastbg.reference.nn.quantize / forward_q:
 *   bin(pre)  = (min(max(pre + H_OFFSET, 0), H_MAXV)) >> H_SHIFT
 *   h[j]      = htab[bin(pre[j])]     (0..16384, 1/16384; an int32 table compiles better)
 *   acc[k]    = sum_j w2[k][j] * h[j]                      (exact int32)
 */
#ifndef FASTBG_NN_KERNELS_H
#define FASTBG_NN_KERNELS_H

#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>      /* the x86-64 baseline */
#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FBG_CLONES __attribute__((target_clones("avx2", "default")))
#define FBG_HAVE_AVX2 1     /* AVX2 intrinsics in functions of target("avx2") */
#include <immintrin.h>
#else
#define FBG_CLONES
#endif

#define FBG_H_OFFSET 524288     /* 8 << 16 */
#define FBG_H_MAXV 1048575      /* (16 << 16) - 1 */
#define FBG_H_SHIFT 7
#define FBG_NN_OUTPUTS 5
#define FBG_MAX_HIDDEN 512

/* Eight 32-bit lanes (GCC vector extension): one AVX2 register in the avx2 clone, two
 * SSE2 registers in the baseline one; fbg_v8u is the same type for unaligned loads.
 * Unsigned, so that the sums wrap (defined behaviour) where a partial sum leaves the
 * int32 range: the final sums are in range, hence exact. */
typedef uint32_t fbg_v8 __attribute__((vector_size(32), may_alias));
typedef uint32_t fbg_v8u __attribute__((vector_size(32), may_alias, aligned(4)));
#define FBG_LD(p) (*(const fbg_v8u *)(p))

/* One block of 8 * NV lanes of fbg_q_delta, its sums kept in registers. */
#define FBG_DELTA_BLOCK(NV)                                                         \
    do {                                                                            \
        fbg_v8 a_[NV];                                                              \
        for (int v = 0; v < NV; v++) a_[v] = FBG_LD(src + j + 8 * v);               \
        for (int k = 0; k < na; k++) {                                              \
            const int32_t *r_ = add[k] + j;                                         \
            for (int v = 0; v < NV; v++) a_[v] += FBG_LD(r_ + 8 * v);               \
        }                                                                           \
        for (int k = 0; k < ns; k++) {                                              \
            const int32_t *r_ = sub[k] + j;                                         \
            for (int v = 0; v < NV; v++) a_[v] -= FBG_LD(r_ + 8 * v);               \
        }                                                                           \
        for (int k = 0; k < nm; k++) {                                              \
            const int32_t *r_ = mul[k] + j;                                         \
            uint32_t c_ = (uint32_t)coef[k];                                        \
            for (int v = 0; v < NV; v++) a_[v] += c_ * FBG_LD(r_ + 8 * v);          \
        }                                                                           \
        for (int v = 0; v < NV; v++) *(fbg_v8u *)(dst + j + 8 * v) = a_[v];        \
    } while (0)

/* dst[j] = src[j] + sum over k < na of add[k][j] - sum over k < ns of sub[k][j]
 *                 + sum over k < nm of coef[k] * mul[k][j],   for j < nh:
 * e.g. the hidden pre-activations of a play from those of the position before the roll,
 * in one pass over dst (blocks of 64 lanes held in registers, then 8, then single
 * lanes). Integer sums, so the order does not matter; the caller guarantees by the
 * quantizer's bound that the final sums are in the int32 range. dst may be src. */
FBG_CLONES static void fbg_q_delta(int32_t *dst, const int32_t *src,
                                   const int32_t *const *add, int na,
                                   const int32_t *const *sub, int ns,
                                   const int32_t *const *mul, const int32_t *coef, int nm,
                                   int nh)
{
    int j = 0;
    for (; j + 64 <= nh; j += 64)
        FBG_DELTA_BLOCK(8);
    for (; j + 8 <= nh; j += 8)
        FBG_DELTA_BLOCK(1);
    for (; j < nh; j++) {
        uint32_t a = (uint32_t)src[j];
        for (int k = 0; k < na; k++)
            a += (uint32_t)add[k][j];
        for (int k = 0; k < ns; k++)
            a -= (uint32_t)sub[k][j];
        for (int k = 0; k < nm; k++)
            a += (uint32_t)coef[k] * (uint32_t)mul[k][j];
        dst[j] = (int32_t)a;
    }
}

/* Bit f set iff a[f] != b[f], for f < n <= 64 (four at a time with SSE2). */
static inline uint64_t fbg_changed(const int32_t *a, const int32_t *b, int n)
{
    uint64_t m = 0;
    int f = 0;
#ifdef __SSE2__
    for (; f + 4 <= n; f += 4) {
        __m128i x = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(a + f)),
                                    _mm_loadu_si128((const __m128i *)(b + f)));
        m |= (uint64_t)(~_mm_movemask_ps(_mm_castsi128_ps(x)) & 15) << f;
    }
#endif
    for (; f < n; f++)
        m |= (uint64_t)(a[f] != b[f]) << f;
    return m;
}

static inline int fbg_ctz64(uint64_t x) { return __builtin_ctzll(x); }

/* Bit i set iff a[i] != b[i], for the 50 bytes of two boards (16 at a time with SSE2;
 * the last load overlaps the one before, so no byte past the 50 is read). */
static inline uint64_t fbg_diff50(const void *pa, const void *pb)
{
    const unsigned char *a = (const unsigned char *)pa, *b = (const unsigned char *)pb;
#ifdef __SSE2__
    uint64_t m = 0;
    static const int at[4] = {0, 16, 32, 34};
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(a + at[k])),
                                   _mm_loadu_si128((const __m128i *)(b + at[k])));
        m |= (uint64_t)(~_mm_movemask_epi8(x) & 0xFFFF) << at[k];
    }
    return m;
#else
    uint64_t m = 0;
    for (int i = 0; i < 50; i++)
        m |= (uint64_t)(a[i] != b[i]) << i;
    return m;
#endif
}

/* bin(pre) without overflow: clip(pre + H_OFFSET, 0, H_MAXV) computed as
 * clip(pre, -H_OFFSET, H_MAXV - H_OFFSET) + H_OFFSET (pre may be near the int32 limits). */
static inline int32_t fbg_bin(int32_t v)
{
    v = v < -FBG_H_OFFSET ? -FBG_H_OFFSET : v;
    v = v > FBG_H_MAXV - FBG_H_OFFSET ? FBG_H_MAXV - FBG_H_OFFSET : v;
    return (v + FBG_H_OFFSET) >> FBG_H_SHIFT;
}

/* fbg_q_hidden_out for hidden units j0 <= j < nh, one at a time (the whole layer on a
 * CPU without AVX2; the units after the last block of 16 with it). */
static inline void fbg_q_hidden_out_tail(const int32_t *pre, const int32_t *htab, const int16_t *w2,
                                  int j0, int nh, int mask, int32_t *acc)
{
    int16_t h[FBG_MAX_HIDDEN];
    for (int j = j0; j < nh; j++)
        h[j] = (int16_t)htab[fbg_bin(pre[j])];
    for (int k = 0; k < FBG_NN_OUTPUTS; k++) {
        if (!(mask & (1 << k)))
            continue;
        const int16_t *w = w2 + k * nh;
        uint32_t a = (uint32_t)acc[k];
        for (int j = j0; j < nh; j++)
            a += (uint32_t)((int32_t)w[j] * (int32_t)h[j]);
        acc[k] = (int32_t)a;
    }
}

#ifdef FBG_HAVE_AVX2
/* The AVX2 copy: 16 hidden units a step, each half read from the table by one gather
 * (vpgatherdd), packed to int16 (h <= 16384) in unit order, and multiplied into the
 * outputs by vpmaddwd (pairs of int16 products summed in int32: exact, each pair is
 * below 2**31), then the scalar tail. The same integers as the baseline. */
__attribute__((target("avx2"))) static inline void
fbg_q_hidden_out_avx2(const int32_t *pre, const int32_t *htab, const int16_t *w2, int nh,
                      int mask, int32_t *acc)
{
    int16_t h[FBG_MAX_HIDDEN] __attribute__((aligned(32)));
    const __m256i lo = _mm256_set1_epi32(-FBG_H_OFFSET);
    const __m256i hi = _mm256_set1_epi32(FBG_H_MAXV - FBG_H_OFFSET);
    const __m256i off = _mm256_set1_epi32(FBG_H_OFFSET);
    int n16 = nh & ~15, j, k;
    for (j = 0; j < n16; j += 16) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(pre + j));
        __m256i b = _mm256_loadu_si256((const __m256i *)(pre + j + 8));
        a = _mm256_srli_epi32(_mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(a, lo), hi), off),
                              FBG_H_SHIFT);
        b = _mm256_srli_epi32(_mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(b, lo), hi), off),
                              FBG_H_SHIFT);
        a = _mm256_i32gather_epi32((const int *)htab, a, 4);
        b = _mm256_i32gather_epi32((const int *)htab, b, 4);
        /* packs interleaves 128-bit halves (a0-3 b0-3 a4-7 b4-7); the permute restores
           the unit order */
        _mm256_store_si256((__m256i *)(h + j),
                           _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8));
    }
    for (k = 0; k < FBG_NN_OUTPUTS; k++) {
        if (!(mask & (1 << k)))
            continue;
        const int16_t *w = w2 + k * nh;
        __m256i s = _mm256_setzero_si256();
        for (j = 0; j < n16; j += 16)
            s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(w + j)),
                                                       _mm256_load_si256((const __m256i *)(h + j))));
        __m128i t = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4E));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1));
        acc[k] = _mm_cvtsi128_si32(t);
    }
    if (n16 < nh)
        fbg_q_hidden_out_tail(pre, htab, w2, n16, nh, mask, acc);
}
#endif

/* acc[k] = sum over j < nh of w2[k * nh + j] * htab[bin(pre[j])], for the outputs k < 5
 * whose bit is set in `mask` (the others are left alone: the caller knows they are
 * zeroed afterwards, e.g. a gammon once the opponent has borne off). The AVX2 copy
 * when the CPU has it (GCC's cpu model, read at each call: one load), else one unit
 * at a time. */
static inline void fbg_q_hidden_out(const int32_t *pre, const int32_t *htab, const int16_t *w2,
                             int nh, int mask, int32_t *acc)
{
#ifdef FBG_HAVE_AVX2
    if (__builtin_cpu_supports("avx2")) {
        fbg_q_hidden_out_avx2(pre, htab, w2, nh, mask, acc);
        return;
    }
#endif
    for (int k = 0; k < FBG_NN_OUTPUTS; k++)
        acc[k] = 0;
    fbg_q_hidden_out_tail(pre, htab, w2, 0, nh, mask, acc);
}

#endif
