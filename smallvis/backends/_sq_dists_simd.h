/*
 * The kNN kernels' squared Euclidean distances with AVX2, bit for bit those
 * of the scalar loop (smallvis_sq_dists_to in _pairloops.h).
 *
 * Each distance is still sum_f (X[c, f] - xi[f])^2 added over f in order,
 * without fused multiply-adds: the vector lanes hold four *candidates*, not
 * four features.  Four features of four candidate rows are read as four
 * vectors (contiguous loads), differenced and squared there (elementwise,
 * so the order does not matter), and transposed in registers, so that the
 * four adds into a lane's running sum happen one feature after another, as
 * in the scalar loop.  Four groups of four candidates run side by side, so
 * that four chains of dependent adds overlap (faster than 8 at a time;
 * docs/experiments.md, 2026-11-25); the last 4 to 15 candidates go four at
 * a time.
 *
 * The scalar loop is limited by its adds (a subtraction and an add per
 * feature and candidate, one at a time); the vector loop does four of each
 * per instruction.  It is compiled for AVX2 only (target attribute) and
 * chosen at run time when the processor has it, so the package's build
 * flags do not change.  smallvis_sq_dists_simd switches it off (tests
 * compare the two paths bit for bit); building with -DSMALLVIS_NO_AVX2
 * leaves it out.
 */
#ifndef SMALLVIS_SQ_DISTS_SIMD_H
#define SMALLVIS_SQ_DISTS_SIMD_H

#include <stddef.h>
#include <stdint.h>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(SMALLVIS_NO_AVX2)
#define SMALLVIS_HAVE_AVX2_DISTS 1
#include <immintrin.h>

#if defined(__clang__)
#define SMALLVIS_AVX2_STRICT __attribute__((target("avx2")))
#define SMALLVIS_AVX2_STRICT_BODY _Pragma("clang fp reassociate(off)") \
    _Pragma("clang fp contract(off)")
#else
#define SMALLVIS_AVX2_STRICT \
    __attribute__((target("avx2"), optimize("no-associative-math", "fp-contract=off")))
#define SMALLVIS_AVX2_STRICT_BODY
#endif

/* Squared differences of features f..f+3 of a row against xi, transposed
 * into s: s += column 0, then 1, 2, 3 (one feature after another per lane). */
#define SMALLVIS_AVX2_GROUP(s, r0, r1, r2, r3, xv, f)                          \
    SMALLVIS_AVX2_GROUP_OF(s, r0, r1, r2, r3, xv, f, _mm256_loadu_pd)

/* Four float32 features widened to double: exact, so the float32 loop's
 * bits are those of the float64 loop on the same (representable) values. */
#define SMALLVIS_LOAD_F32_AS_PD(p) _mm256_cvtps_pd(_mm_loadu_ps(p))

/* The group with the rows read by LOAD (four doubles from a pointer). */
#define SMALLVIS_AVX2_GROUP_OF(s, r0, r1, r2, r3, xv, f, LOAD)                  \
    do {                                                                       \
        __m256d e0 = _mm256_sub_pd(LOAD((r0) + (f)), (xv));                    \
        __m256d e1 = _mm256_sub_pd(LOAD((r1) + (f)), (xv));                    \
        __m256d e2 = _mm256_sub_pd(LOAD((r2) + (f)), (xv));                    \
        __m256d e3 = _mm256_sub_pd(LOAD((r3) + (f)), (xv));                    \
        e0 = _mm256_mul_pd(e0, e0);                                            \
        e1 = _mm256_mul_pd(e1, e1);                                            \
        e2 = _mm256_mul_pd(e2, e2);                                            \
        e3 = _mm256_mul_pd(e3, e3);                                            \
        const __m256d lo01 = _mm256_unpacklo_pd(e0, e1);                       \
        const __m256d hi01 = _mm256_unpackhi_pd(e0, e1);                       \
        const __m256d lo23 = _mm256_unpacklo_pd(e2, e3);                       \
        const __m256d hi23 = _mm256_unpackhi_pd(e2, e3);                       \
        (s) = _mm256_add_pd((s), _mm256_permute2f128_pd(lo01, lo23, 0x20));    \
        (s) = _mm256_add_pd((s), _mm256_permute2f128_pd(hi01, hi23, 0x20));    \
        (s) = _mm256_add_pd((s), _mm256_permute2f128_pd(lo01, lo23, 0x31));    \
        (s) = _mm256_add_pd((s), _mm256_permute2f128_pd(hi01, hi23, 0x31));    \
    } while (0)

/* The scalar loop's last dim - d4 features of the count candidates whose
 * first d4 are summed in out[0 .. count - 1] (d4 a multiple of 4). */
SMALLVIS_AVX2_STRICT
static void smallvis_sq_dists_tails(const double *const *r, int count,
                                    const double *__restrict__ xi, ptrdiff_t d4,
                                    ptrdiff_t dim, double *__restrict__ out)
{
    SMALLVIS_AVX2_STRICT_BODY
    for (int q = 0; q < count; q++) {
        double s = out[q];
        for (ptrdiff_t f = d4; f < dim; f++) {
            const double e = r[q][f] - xi[f];
            s += e * e;
        }
        out[q] = s;
    }
}

/* out[t] for t < m in groups of 16, then 4; returns how many it did (a
 * multiple of 4), the caller finishes the rest. */
SMALLVIS_AVX2_STRICT
static ptrdiff_t smallvis_sq_dists_avx2(const double *__restrict__ X, ptrdiff_t dim,
                                        const double *__restrict__ xi,
                                        const int64_t *__restrict__ cand, ptrdiff_t m,
                                        double *__restrict__ out)
{
    SMALLVIS_AVX2_STRICT_BODY
    const ptrdiff_t d4 = dim & ~(ptrdiff_t)3;
    const double *r[16];
    ptrdiff_t t = 0, f;
    int q;
    for (; t + 16 <= m; t += 16) {
        for (q = 0; q < 16; q++)
            r[q] = X + cand[t + q] * dim;
        __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
        __m256d s2 = _mm256_setzero_pd(), s3 = _mm256_setzero_pd();
        for (f = 0; f < d4; f += 4) {
            const __m256d xv = _mm256_loadu_pd(xi + f);
            SMALLVIS_AVX2_GROUP(s0, r[0], r[1], r[2], r[3], xv, f);
            SMALLVIS_AVX2_GROUP(s1, r[4], r[5], r[6], r[7], xv, f);
            SMALLVIS_AVX2_GROUP(s2, r[8], r[9], r[10], r[11], xv, f);
            SMALLVIS_AVX2_GROUP(s3, r[12], r[13], r[14], r[15], xv, f);
        }
        _mm256_storeu_pd(out + t, s0);
        _mm256_storeu_pd(out + t + 4, s1);
        _mm256_storeu_pd(out + t + 8, s2);
        _mm256_storeu_pd(out + t + 12, s3);
        smallvis_sq_dists_tails(r, 16, xi, d4, dim, out + t);
    }
    for (; t + 4 <= m; t += 4) {
        for (q = 0; q < 4; q++)
            r[q] = X + cand[t + q] * dim;
        __m256d s0 = _mm256_setzero_pd();
        for (f = 0; f < d4; f += 4) {
            const __m256d xv = _mm256_loadu_pd(xi + f);
            SMALLVIS_AVX2_GROUP(s0, r[0], r[1], r[2], r[3], xv, f);
        }
        _mm256_storeu_pd(out + t, s0);
        smallvis_sq_dists_tails(r, 4, xi, d4, dim, out + t);
    }
    return t;
}

/* The float32 rows' twin of smallvis_sq_dists_tails. */
SMALLVIS_AVX2_STRICT
static void smallvis_sq_dists_tails_f32(const float *const *r, int count,
                                        const double *__restrict__ xi, ptrdiff_t d4,
                                        ptrdiff_t dim, double *__restrict__ out)
{
    SMALLVIS_AVX2_STRICT_BODY
    for (int q = 0; q < count; q++) {
        double s = out[q];
        for (ptrdiff_t f = d4; f < dim; f++) {
            const double e = (double)r[q][f] - xi[f];
            s += e * e;
        }
        out[q] = s;
    }
}

/* smallvis_sq_dists_avx2 with float32 rows X (xi still float64): each
 * feature is widened to double before the same subtractions, squares and
 * adds in the same order, so the bits equal those of the float64 loop on
 * X's values, at half the memory read. */
SMALLVIS_AVX2_STRICT
static ptrdiff_t smallvis_sq_dists_avx2_f32(const float *__restrict__ X, ptrdiff_t dim,
                                            const double *__restrict__ xi,
                                            const int64_t *__restrict__ cand, ptrdiff_t m,
                                            double *__restrict__ out)
{
    SMALLVIS_AVX2_STRICT_BODY
    const ptrdiff_t d4 = dim & ~(ptrdiff_t)3;
    const float *r[16];
    ptrdiff_t t = 0, f;
    int q;
    for (; t + 16 <= m; t += 16) {
        for (q = 0; q < 16; q++)
            r[q] = X + cand[t + q] * dim;
        __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
        __m256d s2 = _mm256_setzero_pd(), s3 = _mm256_setzero_pd();
        for (f = 0; f < d4; f += 4) {
            const __m256d xv = _mm256_loadu_pd(xi + f);
            SMALLVIS_AVX2_GROUP_OF(s0, r[0], r[1], r[2], r[3], xv, f, SMALLVIS_LOAD_F32_AS_PD);
            SMALLVIS_AVX2_GROUP_OF(s1, r[4], r[5], r[6], r[7], xv, f, SMALLVIS_LOAD_F32_AS_PD);
            SMALLVIS_AVX2_GROUP_OF(s2, r[8], r[9], r[10], r[11], xv, f, SMALLVIS_LOAD_F32_AS_PD);
            SMALLVIS_AVX2_GROUP_OF(s3, r[12], r[13], r[14], r[15], xv, f,
                                   SMALLVIS_LOAD_F32_AS_PD);
        }
        _mm256_storeu_pd(out + t, s0);
        _mm256_storeu_pd(out + t + 4, s1);
        _mm256_storeu_pd(out + t + 8, s2);
        _mm256_storeu_pd(out + t + 12, s3);
        smallvis_sq_dists_tails_f32(r, 16, xi, d4, dim, out + t);
    }
    for (; t + 4 <= m; t += 4) {
        for (q = 0; q < 4; q++)
            r[q] = X + cand[t + q] * dim;
        __m256d s0 = _mm256_setzero_pd();
        for (f = 0; f < d4; f += 4) {
            const __m256d xv = _mm256_loadu_pd(xi + f);
            SMALLVIS_AVX2_GROUP_OF(s0, r[0], r[1], r[2], r[3], xv, f, SMALLVIS_LOAD_F32_AS_PD);
        }
        _mm256_storeu_pd(out + t, s0);
        smallvis_sq_dists_tails_f32(r, 4, xi, d4, dim, out + t);
    }
    return t;
}

#undef SMALLVIS_AVX2_GROUP
#undef SMALLVIS_AVX2_GROUP_OF
#undef SMALLVIS_LOAD_F32_AS_PD

/* -1: not asked yet; 0: scalar loop; 1: AVX2 loop. */
static int smallvis_avx2_dists_state = -1;

static int smallvis_avx2_dists_on(void)
{
    if (smallvis_avx2_dists_state < 0) {
        __builtin_cpu_init();
        smallvis_avx2_dists_state = __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    return smallvis_avx2_dists_state;
}

#else
/* Other compilers and processors: the scalar loop only. */
#define SMALLVIS_HAVE_AVX2_DISTS 0
static int smallvis_avx2_dists_state = 0;
static int smallvis_avx2_dists_on(void) { return smallvis_avx2_dists_state; }
static ptrdiff_t smallvis_sq_dists_avx2(const double *X, ptrdiff_t dim, const double *xi,
                                        const int64_t *cand, ptrdiff_t m, double *out)
{
    (void)X; (void)dim; (void)xi; (void)cand; (void)m; (void)out;
    return 0;
}
static ptrdiff_t smallvis_sq_dists_avx2_f32(const float *X, ptrdiff_t dim, const double *xi,
                                            const int64_t *cand, ptrdiff_t m, double *out)
{
    (void)X; (void)dim; (void)xi; (void)cand; (void)m; (void)out;
    return 0;
}
#endif

/* Switch the vector loop on (1, if the processor has it) or off (0);
 * returns whether it is on. */
static int smallvis_sq_dists_simd(int on)
{
#if SMALLVIS_HAVE_AVX2_DISTS
    smallvis_avx2_dists_state = -1;
    if (on)
        return smallvis_avx2_dists_on();
#endif
    (void)on;
    smallvis_avx2_dists_state = 0;
    return 0;
}

#endif /* SMALLVIS_SQ_DISTS_SIMD_H */
