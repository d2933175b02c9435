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

/* dst[j] = src[j] - sub[j] + add[j] for j < nh (dst may be src). */
FBG_CLONES static void fbg_q_adjust(int32_t *dst, const int32_t *src, const int32_t *sub,
                                    const int32_t *add, int nh)
{
    for (int j = 0; j < nh; j++)
        dst[j] = src[j] - sub[j] + add[j];
}

/* dst[j] = src[j] - s1[j] + a1[j] - s2[j] + a2[j] for j < nh (dst may be src). */
FBG_CLONES static void fbg_q_adjust2(int32_t *dst, const int32_t *src, const int32_t *s1,
                                     const int32_t *a1, const int32_t *s2, const int32_t *a2,
                                     int nh)
{
    for (int j = 0; j < nh; j++)
        dst[j] = src[j] - s1[j] + a1[j] - s2[j] + a2[j];
}

/* dst[j] += row[j] for j < nh. */
FBG_CLONES static void fbg_q_add(int32_t *dst, const int32_t *row, int nh)
{
    for (int j = 0; j < nh; j++)
        dst[j] += row[j];
}

/* dst[j] += sum over f < nrows with coef[f] != 0 of coef[f] * rows[f * nh + j], for j < nh:
 * the feature rows of the second evaluator's contact net (fastbg._core.evaluator). The
 * caller guarantees (by the quantizer's bound) that no int32 sum overflows. */
FBG_CLONES static void fbg_q_addmul(int32_t *dst, const int32_t *rows, const int32_t *coef,
                                    int nrows, int nh)
{
    for (int f = 0; f < nrows; f++) {
        int32_t c = coef[f];
        if (!c)
            continue;
        const int32_t *row = rows + f * nh;
        for (int j = 0; j < nh; j++)
            dst[j] += c * row[j];
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
