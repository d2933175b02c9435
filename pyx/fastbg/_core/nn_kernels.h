/* Integer kernels of the policy network (fastbg._core.nn), in C so that GCC can
 * compile each twice -- for AVX2 and for the x86-64 baseline (SSE2) -- and pick
 * the copy for the running CPU once, at load time (target_clones, an ifunc).
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

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FBG_CLONES __attribute__((target_clones("avx2", "default")))
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

/* acc[k] = sum over j < nh of w2[k * nh + j] * htab[bin(pre[j])], for the outputs k < 5
 * whose bit is set in `mask` (the others are left alone: the caller knows they are
 * zeroed afterwards, e.g. a gammon once the opponent has borne off). */
FBG_CLONES static void fbg_q_hidden_out(const int32_t *pre, const int32_t *htab,
                                        const int16_t *w2, int nh, int mask, int32_t *acc)
{
    int16_t h[FBG_MAX_HIDDEN];
    for (int j = 0; j < nh; j++) {
        int32_t v = pre[j] + FBG_H_OFFSET;
        v = v < 0 ? 0 : v;
        v = v > FBG_H_MAXV ? FBG_H_MAXV : v;
        h[j] = (int16_t)htab[v >> FBG_H_SHIFT];
    }
    for (int k = 0; k < FBG_NN_OUTPUTS; k++) {
        if (!(mask & (1 << k)))
            continue;
        const int16_t *w = w2 + k * nh;
        int32_t a = 0;
        for (int j = 0; j < nh; j++)
            a += (int32_t)w[j] * (int32_t)h[j];
        acc[k] = a;
    }
}

#endif
