/*
 * Innermost pair loops of smallvis.backends._kernels that dominate exact-gradient
 * run time.  They are plain C so that the compiler can build one clone per
 * instruction set (AVX-512, AVX2, baseline x86-64) and pick the best one
 * when the module is loaded (GCC/Clang `target_clones`, dispatched through
 * an ifunc).  The default build stays portable: no -march flags.
 */
#ifndef SMALLVIS_PAIRLOOPS_H
#define SMALLVIS_PAIRLOOPS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>


/*
 * The maths of each method lives in its unit, smallvis/methods/<method>.h
 * (with the vector-maths declarations and shared pieces in
 * smallvis/methods/common.h).  This file holds the engines that run them:
 * row loops written once and instantiated per unit by the macros below,
 * the unit tables the Cython callers pick from, and the specialised fast
 * paths (each between "fast path" marks), which call the units' inline
 * functions rather than spell out a formula.
 */

#if defined(__x86_64__) && defined(__linux__) && \
    ((defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8) || \
     (defined(__clang__) && __clang_major__ >= 14))
#define SMALLVIS_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SMALLVIS_CLONES
#endif

#if defined(__GNUC__)
#define SMALLVIS_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define SMALLVIS_ALWAYS_INLINE inline
#endif

/* The units and their one list (SMALLVIS_PAIR_UNITS, SMALLVIS_NORMALISED_UNITS):
 * smallvis/methods/units.h.  Every row loop below is instantiated from it. */
#include "methods/units.h"
#include "_sq_dists_simd.h"

/* ---- fast path: t-SNE's four rows ------------------------------------- */
/*
 * t-SNE, two output dimensions, rows i .. i + 3 against columns j >= i + 4.
 * For each pair: w = scale / (1 + d^2) (smallvis_tsne_w); a = p w
 * (attraction), r = w^2 (repulsion).  Row sums go to ax/ay/rx/ry[i + r];
 * the opposite contributions are subtracted at j.  z[r] accumulates
 * sum_j w.  Sharing each column between four rows quarters the loads and
 * stores at j.  The body is inlined into two entry points below, so that
 * the common case (scale 1) keeps a register free in this register-hungry
 * loop.
 */
static SMALLVIS_ALWAYS_INLINE void smallvis_tsne_rows4_2d_body(
    const double *__restrict__ x, const double *__restrict__ y, ptrdiff_t n,
    ptrdiff_t i, const double *__restrict__ p0, const double *__restrict__ p1,
    const double *__restrict__ p2, const double *__restrict__ p3,
    double scale, double *__restrict__ ax, double *__restrict__ ay,
    double *__restrict__ rx, double *__restrict__ ry, double *z)
{
    const double x0 = x[i], y0 = y[i], x1 = x[i + 1], y1 = y[i + 1];
    const double x2 = x[i + 2], y2 = y[i + 2], x3 = x[i + 3], y3 = y[i + 3];
    double z0 = 0.0, z1 = 0.0, z2 = 0.0, z3 = 0.0;
    double sa0x = 0, sa0y = 0, sr0x = 0, sr0y = 0, sa1x = 0, sa1y = 0, sr1x = 0, sr1y = 0;
    double sa2x = 0, sa2y = 0, sr2x = 0, sr2y = 0, sa3x = 0, sa3y = 0, sr3x = 0, sr3y = 0;
    for (ptrdiff_t j = i + 4; j < n; j++) {
        const double xj = x[j], yj = y[j];
        const double dx0 = x0 - xj, dy0 = y0 - yj, dx1 = x1 - xj, dy1 = y1 - yj;
        const double dx2 = x2 - xj, dy2 = y2 - yj, dx3 = x3 - xj, dy3 = y3 - yj;
        const double w0 = smallvis_tsne_w(dx0 * dx0 + dy0 * dy0, scale);
        const double w1 = smallvis_tsne_w(dx1 * dx1 + dy1 * dy1, scale);
        const double w2 = smallvis_tsne_w(dx2 * dx2 + dy2 * dy2, scale);
        const double w3 = smallvis_tsne_w(dx3 * dx3 + dy3 * dy3, scale);
        const double a0 = p0[j] * w0, a1 = p1[j] * w1, a2 = p2[j] * w2, a3 = p3[j] * w3;
        const double r0 = w0 * w0, r1 = w1 * w1, r2 = w2 * w2, r3 = w3 * w3;
        z0 += w0; z1 += w1; z2 += w2; z3 += w3;
        sa0x += a0 * dx0; sa0y += a0 * dy0; sr0x += r0 * dx0; sr0y += r0 * dy0;
        sa1x += a1 * dx1; sa1y += a1 * dy1; sr1x += r1 * dx1; sr1y += r1 * dy1;
        sa2x += a2 * dx2; sa2y += a2 * dy2; sr2x += r2 * dx2; sr2y += r2 * dy2;
        sa3x += a3 * dx3; sa3y += a3 * dy3; sr3x += r3 * dx3; sr3y += r3 * dy3;
        ax[j] -= a0 * dx0 + a1 * dx1 + a2 * dx2 + a3 * dx3;
        ay[j] -= a0 * dy0 + a1 * dy1 + a2 * dy2 + a3 * dy3;
        rx[j] -= r0 * dx0 + r1 * dx1 + r2 * dx2 + r3 * dx3;
        ry[j] -= r0 * dy0 + r1 * dy1 + r2 * dy2 + r3 * dy3;
    }
    ax[i] += sa0x; ay[i] += sa0y; rx[i] += sr0x; ry[i] += sr0y;
    ax[i + 1] += sa1x; ay[i + 1] += sa1y; rx[i + 1] += sr1x; ry[i + 1] += sr1y;
    ax[i + 2] += sa2x; ay[i + 2] += sa2y; rx[i + 2] += sr2x; ry[i + 2] += sr2y;
    ax[i + 3] += sa3x; ay[i + 3] += sa3y; rx[i + 3] += sr3x; ry[i + 3] += sr3y;
    z[0] += z0; z[1] += z1; z[2] += z2; z[3] += z3;
}

/* w = 1 / (1 + d^2): layouts whose squared distances stay below 2^511. */
SMALLVIS_CLONES
static void smallvis_tsne_rows4_2d(
    const double *__restrict__ x, const double *__restrict__ y, ptrdiff_t n,
    ptrdiff_t i, const double *__restrict__ p0, const double *__restrict__ p1,
    const double *__restrict__ p2, const double *__restrict__ p3,
    double *__restrict__ ax, double *__restrict__ ay,
    double *__restrict__ rx, double *__restrict__ ry, double *z)
{
    smallvis_tsne_rows4_2d_body(x, y, n, i, p0, p1, p2, p3, 1.0, ax, ay, rx,
                                ry, z);
}

/* w = scale / (1 + d^2), scale a power of two: huge layouts. */
SMALLVIS_CLONES
static void smallvis_tsne_rows4_2d_scaled(
    const double *__restrict__ x, const double *__restrict__ y, ptrdiff_t n,
    ptrdiff_t i, const double *__restrict__ p0, const double *__restrict__ p1,
    const double *__restrict__ p2, const double *__restrict__ p3,
    double scale, double *__restrict__ ax, double *__restrict__ ay,
    double *__restrict__ rx, double *__restrict__ ry, double *z)
{
    smallvis_tsne_rows4_2d_body(x, y, n, i, p0, p1, p2, p3, scale, ax, ay, rx,
                                ry, z);
}

/*
 * t-SNE cost, row i against dense columns start <= j < n: returns
 * sum_j p_j log(p_j (1 + d2_j)) over p_j > 0 (smallvis_tsne_edge), adds
 * sum_j w_j to *z and sum_j p_j to *psum (so that the caller need not
 * read P twice).
 */
SMALLVIS_CLONES
static double smallvis_tsne_cost_row(const double *__restrict__ d2,
                                     const double *__restrict__ p,
                                     ptrdiff_t start, ptrdiff_t n, double *z,
                                     double *psum)
{
    double s = 0.0, zi = 0.0, ps = 0.0;
    for (ptrdiff_t j = start; j < n; j++) {
        const double pj = p[j];
        s += smallvis_tsne_edge(pj, d2[j]);
        ps += pj;
        zi += smallvis_tsne_w(d2[j], 1.0);
    }
    *z += zi;
    *psum += ps;
    return s;
}

/* The same for two output dimensions, squared distances computed inline
 * from the coordinate columns x and y (row i against start <= j < n). */
SMALLVIS_CLONES
static double smallvis_tsne_cost_row_2d(const double *__restrict__ x,
                                        const double *__restrict__ y,
                                        ptrdiff_t i,
                                        const double *__restrict__ p,
                                        ptrdiff_t start, ptrdiff_t n, double *z,
                                        double *psum)
{
    const double xi = x[i], yi = y[i];
    double s = 0.0, zi = 0.0, ps = 0.0;
    for (ptrdiff_t j = start; j < n; j++) {
        const double dx = xi - x[j], dy = yi - y[j];
        const double d = dx * dx + dy * dy;
        const double pj = p[j];
        s += smallvis_tsne_edge(pj, d);
        ps += pj;
        zi += smallvis_tsne_w(d, 1.0);
    }
    *z += zi;
    *psum += ps;
    return s;
}
/* ---- fast path: end --------------------------------------------------- */

/*
 * The engines of the un-normalised units.  Each unit NAME provides
 * (methods/<method>.h): the struct smallvis_NAME_params and the inline
 *   smallvis_NAME_c(d2, p, ri, rj, k, &dq_sum)   pair coefficient c: the pair
 *       adds 4 c (y_i - y_j) to the gradient of y_i; it adds its share of
 *       a learned scalar's derivative to dq_sum (if the method has one);
 *   smallvis_NAME_repulsion(d2, ri, rj, k)       all-pairs cost term;
 *   smallvis_NAME_repulsion_scale(k)             factor of a row's sum of it;
 *   smallvis_NAME_edge(p, d2, ri, rj, k)         a stored entry's cost term;
 *   smallvis_NAME_row_value(psum, n, k)          a new point's per-point value;
 *   smallvis_NAME_transform_c(d2, p, r, k)       a new point's coefficient
 *       (its cost is the fit's: the repulsion and edge terms, with ri = rj = r);
 * ri, rj are per-point values of the pair's ends (a noise level, say; the
 * callers pass zeros for a method without them).  The engines below reach ``k``
 * through a ``const void *`` once per row, and copy it into a local
 * struct, so that each loop runs on registers; every per-pair call is
 * inlined.  Coincident points (d2 == 0) exert no force: the rows zero c.
 */

/* Row i against columns start <= j < n (any output dimension):
 * coef[j] = c(d2[j], p[j]); returns the row's terms of a learned scalar's
 * derivative (0 without one). */
#define SMALLVIS_COEF_ROW(name)                                               \
    SMALLVIS_CLONES                                                           \
    static double smallvis_##name##_coef_row(                                 \
        const double *__restrict__ d2, const double *__restrict__ p,          \
        const double *__restrict__ aux, ptrdiff_t i, ptrdiff_t start,         \
        ptrdiff_t n, const void *params, double *__restrict__ coef)           \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        const double ri = aux[i];                                             \
        double s = 0.0;                                                       \
        for (ptrdiff_t j = start; j < n; j++) {                               \
            const double d = d2[j];                                           \
            const double cj = smallvis_##name##_c(d, p[j], ri, aux[j], &k, &s); \
            coef[j] = d > 0.0 ? cj : 0.0;                                     \
        }                                                                     \
        return s;                                                             \
    }

/* Row i of the all-pairs cost term, columns start <= j < n:
 * scale * sum_j repulsion(d2[j]). */
#define SMALLVIS_REPULSION_ROW(name)                                          \
    SMALLVIS_CLONES                                                           \
    static double smallvis_##name##_repulsion_row(                            \
        const double *__restrict__ d2, const double *__restrict__ aux,        \
        ptrdiff_t i, ptrdiff_t start, ptrdiff_t n, const void *params)        \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        const double ri = aux[i];                                             \
        double s = 0.0;                                                       \
        for (ptrdiff_t j = start; j < n; j++)                                 \
            s += smallvis_##name##_repulsion(d2[j], ri, aux[j], &k);          \
        return smallvis_##name##_repulsion_scale(&k) * s;                     \
    }

/* Row i's stored entries p_ij > 0 with j > i: sum of edge(p_ij, d2[j]).
 * P is dense (data row i at data + i n) or CSR (indptr, indices, data). */
#define SMALLVIS_EDGE_ROW(name)                                               \
    static double smallvis_##name##_edge_row(                                 \
        const int64_t *indptr, const int64_t *indices, const double *data,    \
        int dense, const double *d2, const double *aux, ptrdiff_t i,          \
        ptrdiff_t n, const void *params)                                      \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        const double ri = aux[i];                                             \
        double s = 0.0;                                                       \
        if (dense) {                                                          \
            for (ptrdiff_t j = i + 1; j < n; j++) {                           \
                const double p = data[i * n + j];                             \
                if (p > 0.0)                                                  \
                    s = s + smallvis_##name##_edge(p, d2[j], ri, aux[j], &k); \
            }                                                                 \
        } else {                                                              \
            for (int64_t e = indptr[i]; e < indptr[i + 1]; e++) {             \
                const int64_t j = indices[e];                                 \
                if (j > i && data[e] > 0.0)                                   \
                    s = s + smallvis_##name##_edge(data[e], d2[j], ri, aux[j], &k); \
            }                                                                 \
        }                                                                     \
        return s;                                                             \
    }

/* Two output dimensions, fused: row i against j > i, gx/gy[i] += sum_j c dx,
 * gx/gy[j] -= c dx (the caller multiplies by 4 at the end). */
#define SMALLVIS_ROW_2D_FUSED(name)                                           \
    SMALLVIS_CLONES                                                           \
    static void smallvis_##name##_row_2d(                                     \
        const double *__restrict__ x, const double *__restrict__ y,           \
        ptrdiff_t n, ptrdiff_t i, const double *__restrict__ p,               \
        const void *params, double *__restrict__ gx, double *__restrict__ gy) \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        const double xi = x[i], yi = y[i];                                    \
        double sx = 0.0, sy = 0.0, unused = 0.0;                              \
        for (ptrdiff_t j = i + 1; j < n; j++) {                               \
            const double dx = xi - x[j], dy = yi - y[j];                      \
            const double d = dx * dx + dy * dy;                               \
            const double cj = smallvis_##name##_c(d, p[j], 0.0, 0.0, &k, &unused); \
            const double f = d > 0.0 ? cj : 0.0;                              \
            sx += f * dx;                                                     \
            sy += f * dy;                                                     \
            gx[j] -= f * dx;                                                  \
            gy[j] -= f * dy;                                                  \
        }                                                                     \
        gx[i] += sx;                                                          \
        gy[i] += sy;                                                          \
    }
#define SMALLVIS_ROW_2D_FN_FUSED(name) smallvis_##name##_row_2d
#define SMALLVIS_ROW_2D_NO_ROW_2D(name)
#define SMALLVIS_ROW_2D_FN_NO_ROW_2D(name) NULL

/* ---- fast path: UMAP's two-pass 2-D row ------------------------------- */
/* UMAP's fused 2-D row (as SMALLVIS_ROW_2D_FUSED with smallvis_umap_c_of_d2b),
 * in two passes over blocks of 256 columns: first d^b into a stack buffer,
 * then the forces.  A vector-maths call in the middle of the force loop
 * would spill its accumulators on every call. */
SMALLVIS_CLONES
static void smallvis_umap_row_2d_two_pass(
    const double *__restrict__ x, const double *__restrict__ y, ptrdiff_t n,
    ptrdiff_t i, const double *__restrict__ p, const void *params,
    double *__restrict__ gx, double *__restrict__ gy)
{
    const smallvis_umap_params k = *(const smallvis_umap_params *)params;
    const double xi = x[i], yi = y[i];
    double sx = 0.0, sy = 0.0;
    double u[256];
    for (ptrdiff_t j0 = i + 1; j0 < n; j0 += 256) {
        const ptrdiff_t len = n - j0 < 256 ? n - j0 : 256;
        for (ptrdiff_t t = 0; t < len; t++) {
            const double dx = xi - x[j0 + t], dy = yi - y[j0 + t];
            const double d = dx * dx + dy * dy;
            u[t] = SMALLVIS_POW_POS(d > 0.0 ? d : 1.0, k.b);
        }
        for (ptrdiff_t t = 0; t < len; t++) {
            const ptrdiff_t j = j0 + t;
            const double dx = xi - x[j], dy = yi - y[j];
            const double d = dx * dx + dy * dy;
            const double cj = smallvis_umap_c_of_d2b(d, u[t], p[j], &k);
            const double f = d > 0.0 ? cj : 0.0;
            sx += f * dx;
            sy += f * dy;
            gx[j] -= f * dx;
            gy[j] -= f * dy;
        }
    }
    gx[i] += sx;
    gy[i] += sy;
}
#define SMALLVIS_ROW_2D_UMAP_TWO_PASS(name)
#define SMALLVIS_ROW_2D_FN_UMAP_TWO_PASS(name) smallvis_umap_row_2d_two_pass
/* ---- fast path: end --------------------------------------------------- */

/*
 * Transform rows: one new point s against the n fixed training points.
 * d2: its squared distances; p: its dense row of P; psum: the row's sum.
 * The coefficient row writes c_sj, so that grad_s = sum_j c_sj (y_s - y_j);
 * the cost row returns the row's cost.
 */

/* A loop the compiler must not vectorise: its body runs for a few entries
 * of a long row, and a vector loop would evaluate it for all of them. */
#if defined(__clang__)
#define SMALLVIS_SCALAR_LOOP _Pragma("clang loop vectorize(disable)")
#define SMALLVIS_SCALAR_FN
#elif defined(__GNUC__)
#define SMALLVIS_SCALAR_LOOP
#define SMALLVIS_SCALAR_FN __attribute__((noinline, optimize("no-tree-vectorize")))
#else
#define SMALLVIS_SCALAR_LOOP
#define SMALLVIS_SCALAR_FN
#endif

/* Un-normalised units.  c_sj = transform_c(d2, p, r), r the row's value;
 * the cost is the fit's, for the pairs (s, j) with both ends' value r:
 *     scale * sum_j repulsion(d2_j) + sum_{p_sj > 0} edge(p_sj, d2_j). */
#define SMALLVIS_TRANSFORM_PAIR_ROWS(name)                                    \
    SMALLVIS_CLONES                                                           \
    static void smallvis_##name##_transform_coef_row(                         \
        const double *__restrict__ d2, const double *__restrict__ p,          \
        ptrdiff_t n, double psum, const void *params, double *__restrict__ c) \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        const double r = smallvis_##name##_row_value(psum, n, &k);            \
        for (ptrdiff_t j = 0; j < n; j++) {                                   \
            const double v = smallvis_##name##_transform_c(d2[j], p[j], r, &k); \
            c[j] = d2[j] > 0.0 ? v : 0.0;                                     \
        }                                                                     \
    }                                                                         \
    SMALLVIS_SCALAR_FN                                                        \
    static double smallvis_##name##_transform_edges(                          \
        const double *d2, const double *p, ptrdiff_t n, double r,             \
        const smallvis_##name##_params *k)                                    \
    {                                                                         \
        double s = 0.0;                                                       \
        SMALLVIS_SCALAR_LOOP                                                  \
        for (ptrdiff_t j = 0; j < n; j++)                                     \
            if (p[j] > 0.0)                                                   \
                s += smallvis_##name##_edge(p[j], d2[j], r, r, k);            \
        return s;                                                             \
    }                                                                         \
    SMALLVIS_CLONES                                                           \
    static double smallvis_##name##_transform_cost_row(                       \
        const double *__restrict__ d2, const double *__restrict__ p,          \
        ptrdiff_t n, double psum, const void *params)                         \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        const double r = smallvis_##name##_row_value(psum, n, &k);            \
        double s = 0.0;                                                       \
        for (ptrdiff_t j = 0; j < n; j++)                                     \
            s += smallvis_##name##_repulsion(d2[j], r, r, &k);                \
        return smallvis_##name##_repulsion_scale(&k) * s                      \
            + smallvis_##name##_transform_edges(d2, p, n, r, &k);             \
    }

/* The tables the Cython callers choose from, once per call. */
typedef struct {
    double (*coef_row)(const double *d2, const double *p, const double *aux,
                       ptrdiff_t i, ptrdiff_t start, ptrdiff_t n,
                       const void *params, double *coef);
    /* NULL: the engine runs coef_row in two dimensions too */
    void (*row_2d)(const double *x, const double *y, ptrdiff_t n, ptrdiff_t i,
                   const double *p, const void *params, double *gx, double *gy);
    double (*repulsion_row)(const double *d2, const double *aux, ptrdiff_t i,
                            ptrdiff_t start, ptrdiff_t n, const void *params);
    double (*edge_row)(const int64_t *indptr, const int64_t *indices,
                       const double *data, int dense, const double *d2,
                       const double *aux, ptrdiff_t i, ptrdiff_t n,
                       const void *params);
} smallvis_exact_unit;

typedef struct {
    void (*coef_row)(const double *d2, const double *p, ptrdiff_t n, double psum,
                     const void *params, double *c);
    double (*cost_row)(const double *d2, const double *p, ptrdiff_t n,
                       double psum, const void *params);
} smallvis_transform_unit;

#define SMALLVIS_INSTANTIATE_PAIR_UNIT(name, row_2d, sgd)                     \
    SMALLVIS_COEF_ROW(name)                                                   \
    SMALLVIS_REPULSION_ROW(name)                                              \
    SMALLVIS_EDGE_ROW(name)                                                   \
    SMALLVIS_ROW_2D_##row_2d(name)                                            \
    SMALLVIS_TRANSFORM_PAIR_ROWS(name)                                        \
    static const smallvis_exact_unit smallvis_exact_##name = {                \
        smallvis_##name##_coef_row, SMALLVIS_ROW_2D_FN_##row_2d(name),        \
        smallvis_##name##_repulsion_row, smallvis_##name##_edge_row};         \
    static const smallvis_transform_unit smallvis_transform_##name = {        \
        smallvis_##name##_transform_coef_row,                                 \
        smallvis_##name##_transform_cost_row};

SMALLVIS_PAIR_UNITS(SMALLVIS_INSTANTIATE_PAIR_UNIT)

/* ---- engine: normalised units ------------------------------------------ */
/*
 * The generic engine of a unit whose weights are normalised to q, over
 * each row or over all pairs (methods/units.h, SMALLVIS_NORMALISED_UNITS).
 * A unit NAME provides its parameter struct smallvis_NAME_params, its
 * fields smallvis_NAME_fields[] and their loader smallvis_NAME_load_fields
 * (as a pair unit's, methods/units.h), and these hooks (scalars; k its
 * parameters):
 *     shift(d2_min, k)             the shift of the weights, from the set's
 *                                  smallest d2 (w decreases with d2), so
 *                                  that no weight underflows to a zero
 *                                  normaliser;
 *     weight(d2, shift, k)         w relative to the shift;
 *     log_norm(z, shift, k)        the log of the normaliser in the terms
 *                                  of the unit's cost, once per set (z the
 *                                  sum of the set's relative weights);
 *     cost(p, d2, shift, z, lz, k) the elementwise cost f(p, q) of a pair,
 *                                  q = weight(d2, shift) / z, lz the
 *                                  set's log_norm;
 *     offset_term(p, q, k)         q df/dq, summed over the set into `dual`;
 *     offset(mass, dual, k)        S, the sum over the set of q df/dq, from
 *                                  `dual` or from the set's mass of P (1 in
 *                                  a fit, a new row's sum in a transform);
 *     force(p, w, z, d2, S, k)     the pair coefficient c = dC/dd2
 *                                  = q (S - df/dq) s, q = w / z, with the
 *                                  slope s = -d log w / d d2 at d2.
 * A unit gives its cost and force the arguments from which it computes
 * them in the form it wants (the KL divergence: (p + S w / z) slope).
 *
 * The rows below run the hooks over d2[start..n); the diagonal pair of a
 * fit comes in with d2 = inf (w = 0, q = 0, c = 0).  A row normalised over
 * itself (a fit's row under "rows", and a new point's row) is one call,
 * self_coef_row or self_cost_row: its weights go into the coefficient row,
 * once, and are read back for its offset and its forces.  Over all pairs
 * the Cython entry points (normalised_cost, normalised_gradient) run the
 * passes that the global sums need: the shift, z = sum w, the offset S,
 * then the coefficients or the cost.  The rows named _a take each pair's
 * importance a[j] = m_i m_j (a unit's per-point field "importance",
 * methods/_common.py pair_importances), which multiplies its weight.
 *
 * Every row separates the unit's elementwise terms from their sums: the
 * terms are written into a block (or the coefficient row) by a loop that
 * the compiler vectorises, the hooks inlined and compiled with the
 * module's flags, and the block is then summed by smallvis_nq_sum_MATHS.
 * MATHS, the unit's second field in the list: FAST sums as the module
 * (-fassociative-math: vector reductions, in an order that depends on the
 * vector width) and compiles its rows once per instruction set; STRICT
 * adds a row's terms one by one in index order (GCC; other compilers build
 * it as FAST) and leaves AVX-512 out of its clones, so that no multiply
 * and add are fused into one rounding.  A unit whose force is a difference
 * of nearly equal terms opts in: the sums it subtracts (z, the offset S)
 * are then the same numbers on every machine, whatever its vector width.
 */
#define SMALLVIS_NQ_BLOCK 256

#if defined(__x86_64__) && defined(__linux__) && \
    ((defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8) || \
     (defined(__clang__) && __clang_major__ >= 14))
#define SMALLVIS_MATHS_STRICT_ROW __attribute__((target_clones("avx2", "default")))
#else
#define SMALLVIS_MATHS_STRICT_ROW
#endif
#define SMALLVIS_MATHS_FAST_ROW SMALLVIS_CLONES

/* s plus the terms t[0..len), in any order (vectorised). */
static SMALLVIS_ALWAYS_INLINE double smallvis_nq_sum_FAST(double s, const double *t,
                                                          ptrdiff_t len)
{
    for (ptrdiff_t j = 0; j < len; j++)
        s += t[j];
    return s;
}

/* s plus the terms t[0..len), added one by one in index order. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noinline, optimize("no-associative-math", "no-reciprocal-math")))
#endif
static double smallvis_nq_sum_STRICT(double s, const double *t, ptrdiff_t len)
{
    for (ptrdiff_t j = 0; j < len; j++)
        s = s + t[j];
    return s;
}

/* s += sum over start <= j < n of `term` (an expression of j), the terms
 * computed a block at a time and summed by smallvis_nq_sum_MATHS. */
#define SMALLVIS_NQ_SUM_OF(maths, s, start, n, j, term)                       \
    do {                                                                      \
        double block_[SMALLVIS_NQ_BLOCK];                                     \
        for (ptrdiff_t j0_ = (start); j0_ < (n); j0_ += SMALLVIS_NQ_BLOCK) {  \
            const ptrdiff_t len_ = (n) - j0_ < SMALLVIS_NQ_BLOCK              \
                                       ? (n) - j0_ : SMALLVIS_NQ_BLOCK;       \
            for (ptrdiff_t t_ = 0; t_ < len_; t_++) {                         \
                const ptrdiff_t j = j0_ + t_;                                 \
                block_[t_] = (term);                                          \
            }                                                                 \
            s = smallvis_nq_sum_##maths(s, block_, len_);                     \
        }                                                                     \
    } while (0)

/* The smallest of d2[0..n). */
static inline double smallvis_nq_min(const double *d2, ptrdiff_t n)
{
    double dmin = INFINITY;
    for (ptrdiff_t j = 0; j < n; j++)
        dmin = d2[j] < dmin ? d2[j] : dmin;
    return dmin;
}

#define SMALLVIS_NORMALISED_ENGINE_ROWS(name, maths)                          \
    static double smallvis_##name##_nq_shift(double d2_min, const void *params) \
    {                                                                         \
        return smallvis_##name##_shift(                                       \
            d2_min, (const smallvis_##name##_params *)params);                \
    }                                                                         \
    static double smallvis_##name##_nq_offset(double mass, double dual,       \
                                              const void *params)             \
    {                                                                         \
        return smallvis_##name##_offset(                                      \
            mass, dual, (const smallvis_##name##_params *)params);            \
    }                                                                         \
    SMALLVIS_MATHS_##maths##_ROW                                              \
    static double smallvis_##name##_nq_z_row(                                 \
        const double *__restrict__ d2, ptrdiff_t start, ptrdiff_t n,          \
        double shift, const void *params)                                     \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        double z = 0.0;                                                       \
        SMALLVIS_NQ_SUM_OF(maths, z, start, n, j,                             \
                           smallvis_##name##_weight(d2[j], shift, &k));       \
        return z;                                                             \
    }                                                                         \
    SMALLVIS_MATHS_##maths##_ROW                                              \
    static double smallvis_##name##_nq_dual_row(                              \
        const double *__restrict__ d2, const double *__restrict__ p,          \
        ptrdiff_t start, ptrdiff_t n, double shift, double z,                 \
        const void *params)                                                   \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        double s = 0.0;                                                       \
        SMALLVIS_NQ_SUM_OF(maths, s, start, n, j,                             \
            smallvis_##name##_offset_term(                                    \
                p[j], smallvis_##name##_weight(d2[j], shift, &k) / z, &k));   \
        return s;                                                             \
    }                                                                         \
    /* c_j = scale * force; a pair with w = 0 and p = 0 (the diagonal, or   \
     * an underflowed weight) has none, whatever the unit's df/dq at q = 0 */ \
    SMALLVIS_MATHS_##maths##_ROW                                              \
    static void smallvis_##name##_nq_coef_row(                                \
        const double *__restrict__ d2, const double *__restrict__ p,          \
        ptrdiff_t start, ptrdiff_t n, double shift, double z, double S,       \
        double scale, const void *params, double *__restrict__ c)             \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        for (ptrdiff_t j = start; j < n; j++) {                               \
            const double w = smallvis_##name##_weight(d2[j], shift, &k);      \
            const double v = scale * smallvis_##name##_force(                 \
                p[j], w, z, d2[j], S, &k);                                    \
            c[j] = w > 0.0 || p[j] != 0.0 ? v : 0.0;                          \
        }                                                                     \
    }                                                                         \
    SMALLVIS_MATHS_##maths##_ROW                                              \
    static double smallvis_##name##_nq_cost_row(                              \
        const double *__restrict__ d2, const double *__restrict__ p,          \
        ptrdiff_t start, ptrdiff_t n, double shift, double z,                 \
        const void *params)                                                   \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        const double lz = smallvis_##name##_log_norm(z, shift, &k);           \
        double s = 0.0;                                                       \
        SMALLVIS_NQ_SUM_OF(maths, s, start, n, j,                             \
            smallvis_##name##_cost(p[j], d2[j], shift, z, lz, &k));           \
        return s;                                                             \
    }                                                                         \
    /* A row normalised over itself, d2 and p over all n columns, its mass  \
     * of P `mass` (1 in a fit, a new row's sum): the weights are stored in \
     * c, summed, read for the offset, and become the coefficients 2 force. \
     */                                                                       \
    SMALLVIS_MATHS_##maths##_ROW                                              \
    static void smallvis_##name##_nq_self_coef_row(                           \
        const double *__restrict__ d2, const double *__restrict__ p,          \
        ptrdiff_t n, double mass, const void *params, double *__restrict__ c) \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        const double shift = smallvis_##name##_shift(smallvis_nq_min(d2, n), &k); \
        double z, dual = 0.0, S;                                              \
        for (ptrdiff_t j = 0; j < n; j++)                                     \
            c[j] = smallvis_##name##_weight(d2[j], shift, &k);                \
        z = smallvis_nq_sum_##maths(0.0, c, n);                               \
        SMALLVIS_NQ_SUM_OF(maths, dual, 0, n, j,                              \
                           smallvis_##name##_offset_term(p[j], c[j] / z, &k)); \
        S = smallvis_##name##_offset(mass, dual, &k);                         \
        for (ptrdiff_t j = 0; j < n; j++) {                                   \
            const double v = 2.0 * smallvis_##name##_force(                   \
                p[j], c[j], z, d2[j], S, &k);                                 \
            c[j] = c[j] > 0.0 || p[j] != 0.0 ? v : 0.0;                       \
        }                                                                     \
    }                                                                         \
    /* The cost of a row normalised over itself (mass unused). */           \
    static double smallvis_##name##_nq_self_cost_row(                         \
        const double *d2, const double *p, ptrdiff_t n, double mass,          \
        const void *params)                                                   \
    {                                                                         \
        const double shift = smallvis_##name##_nq_shift(smallvis_nq_min(d2, n), \
                                                        params);              \
        const double z = smallvis_##name##_nq_z_row(d2, 0, n, shift, params); \
        (void)mass;                                                           \
        return smallvis_##name##_nq_cost_row(d2, p, 0, n, shift, z, params);  \
    }                                                                         \
    /* The same rows with each pair's importance a[j] (m_i m_j of row i's   \
     * pairs; la[j] its log): the weight of (i, j) is a[j] w, so the hooks   \
     * see the plain w with the normaliser z / a[j] (log_norm lz - la[j]),   \
     * q = a w / z, and the slope of w is the plain kernel's. */             \
    SMALLVIS_MATHS_##maths##_ROW                                              \
    static double smallvis_##name##_nq_z_row_a(                               \
        const double *__restrict__ d2, const double *__restrict__ a,          \
        ptrdiff_t start, ptrdiff_t n, double shift, const void *params)       \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        double z = 0.0;                                                       \
        SMALLVIS_NQ_SUM_OF(maths, z, start, n, j,                             \
                           a[j] * smallvis_##name##_weight(d2[j], shift, &k)); \
        return z;                                                             \
    }                                                                         \
    SMALLVIS_MATHS_##maths##_ROW                                              \
    static double smallvis_##name##_nq_dual_row_a(                            \
        const double *__restrict__ d2, const double *__restrict__ p,          \
        const double *__restrict__ a, ptrdiff_t start, ptrdiff_t n,           \
        double shift, double z, const void *params)                           \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        double s = 0.0;                                                       \
        SMALLVIS_NQ_SUM_OF(maths, s, start, n, j,                             \
            smallvis_##name##_offset_term(                                    \
                p[j], a[j] * smallvis_##name##_weight(d2[j], shift, &k) / z, &k)); \
        return s;                                                             \
    }                                                                         \
    SMALLVIS_MATHS_##maths##_ROW                                              \
    static void smallvis_##name##_nq_coef_row_a(                              \
        const double *__restrict__ d2, const double *__restrict__ p,          \
        const double *__restrict__ a, ptrdiff_t start, ptrdiff_t n,           \
        double shift, double z, double S, double scale, const void *params,   \
        double *__restrict__ c)                                               \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        for (ptrdiff_t j = start; j < n; j++) {                               \
            const double w = smallvis_##name##_weight(d2[j], shift, &k);      \
            const double v = scale * smallvis_##name##_force(                 \
                p[j], w, z / a[j], d2[j], S, &k);                             \
            c[j] = w > 0.0 || p[j] != 0.0 ? v : 0.0;                          \
        }                                                                     \
    }                                                                         \
    SMALLVIS_MATHS_##maths##_ROW                                              \
    static double smallvis_##name##_nq_cost_row_a(                            \
        const double *__restrict__ d2, const double *__restrict__ p,          \
        const double *__restrict__ a, const double *__restrict__ la,          \
        ptrdiff_t start, ptrdiff_t n, double shift, double z,                 \
        const void *params)                                                   \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        const double lz = smallvis_##name##_log_norm(z, shift, &k);           \
        double s = 0.0;                                                       \
        SMALLVIS_NQ_SUM_OF(maths, s, start, n, j,                             \
            smallvis_##name##_cost(p[j], d2[j], shift, z / a[j], lz - la[j], &k)); \
        return s;                                                             \
    }                                                                         \
    /* A row normalised over itself with its pairs' importances: the plain  \
     * weights are stored in c, and a[j] c[j] summed. */                     \
    SMALLVIS_MATHS_##maths##_ROW                                              \
    static void smallvis_##name##_nq_self_coef_row_a(                         \
        const double *__restrict__ d2, const double *__restrict__ p,          \
        const double *__restrict__ a, ptrdiff_t n, double mass,               \
        const void *params, double *__restrict__ c)                           \
    {                                                                         \
        const smallvis_##name##_params k =                                    \
            *(const smallvis_##name##_params *)params;                        \
        const double shift = smallvis_##name##_shift(smallvis_nq_min(d2, n), &k); \
        double z = 0.0, dual = 0.0, S;                                        \
        for (ptrdiff_t j = 0; j < n; j++)                                     \
            c[j] = smallvis_##name##_weight(d2[j], shift, &k);                \
        SMALLVIS_NQ_SUM_OF(maths, z, 0, n, j, a[j] * c[j]);                   \
        SMALLVIS_NQ_SUM_OF(maths, dual, 0, n, j,                              \
                           smallvis_##name##_offset_term(p[j], a[j] * c[j] / z, &k)); \
        S = smallvis_##name##_offset(mass, dual, &k);                         \
        for (ptrdiff_t j = 0; j < n; j++) {                                   \
            const double v = 2.0 * smallvis_##name##_force(                   \
                p[j], c[j], z / a[j], d2[j], S, &k);                          \
            c[j] = c[j] > 0.0 || p[j] != 0.0 ? v : 0.0;                       \
        }                                                                     \
    }                                                                         \
    static double smallvis_##name##_nq_self_cost_row_a(                       \
        const double *d2, const double *p, const double *a, const double *la, \
        ptrdiff_t n, double mass, const void *params)                         \
    {                                                                         \
        const double shift = smallvis_##name##_nq_shift(smallvis_nq_min(d2, n), \
                                                        params);              \
        const double z = smallvis_##name##_nq_z_row_a(d2, a, 0, n, shift, params); \
        (void)mass;                                                           \
        return smallvis_##name##_nq_cost_row_a(d2, p, a, la, 0, n, shift, z, params); \
    }                                                                         \
    static const smallvis_normalised_unit smallvis_normalised_##name = {      \
        smallvis_##name##_nq_shift, smallvis_##name##_nq_offset,              \
        smallvis_##name##_nq_z_row, smallvis_##name##_nq_dual_row,            \
        smallvis_##name##_nq_coef_row, smallvis_##name##_nq_cost_row,         \
        smallvis_##name##_nq_self_coef_row,                                   \
        smallvis_##name##_nq_self_cost_row,                                   \
        {smallvis_##name##_nq_self_coef_row,                                  \
         smallvis_##name##_nq_self_cost_row},                                 \
        smallvis_##name##_nq_z_row_a, smallvis_##name##_nq_dual_row_a,        \
        smallvis_##name##_nq_coef_row_a, smallvis_##name##_nq_cost_row_a,     \
        smallvis_##name##_nq_self_coef_row_a,                                 \
        smallvis_##name##_nq_self_cost_row_a};

/* A normalised unit's table: the rows the Cython entry points run. */
typedef struct {
    double (*shift)(double d2_min, const void *params);
    double (*offset)(double mass, double dual, const void *params);
    double (*z_row)(const double *d2, ptrdiff_t start, ptrdiff_t n, double shift,
                    const void *params);
    double (*dual_row)(const double *d2, const double *p, ptrdiff_t start, ptrdiff_t n,
                       double shift, double z, const void *params);
    void (*coef_row)(const double *d2, const double *p, ptrdiff_t start, ptrdiff_t n,
                     double shift, double z, double S, double scale, const void *params,
                     double *c);
    double (*cost_row)(const double *d2, const double *p, ptrdiff_t start, ptrdiff_t n,
                       double shift, double z, const void *params);
    /* a row normalised over itself: a fit's row under "rows" (mass 1) */
    void (*self_coef_row)(const double *d2, const double *p, ptrdiff_t n, double mass,
                          const void *params, double *c);
    double (*self_cost_row)(const double *d2, const double *p, ptrdiff_t n, double mass,
                            const void *params);
    /* the same rows, for a new point (mass: its row's sum) */
    smallvis_transform_unit transform;
    /* the rows with each pair's importance a[j] (and its log la[j]) */
    double (*z_row_a)(const double *d2, const double *a, ptrdiff_t start, ptrdiff_t n,
                      double shift, const void *params);
    double (*dual_row_a)(const double *d2, const double *p, const double *a, ptrdiff_t start,
                         ptrdiff_t n, double shift, double z, const void *params);
    void (*coef_row_a)(const double *d2, const double *p, const double *a, ptrdiff_t start,
                       ptrdiff_t n, double shift, double z, double S, double scale,
                       const void *params, double *c);
    double (*cost_row_a)(const double *d2, const double *p, const double *a, const double *la,
                         ptrdiff_t start, ptrdiff_t n, double shift, double z,
                         const void *params);
    void (*self_coef_row_a)(const double *d2, const double *p, const double *a, ptrdiff_t n,
                            double mass, const void *params, double *c);
    double (*self_cost_row_a)(const double *d2, const double *p, const double *a,
                              const double *la, ptrdiff_t n, double mass, const void *params);
} smallvis_normalised_unit;

SMALLVIS_NORMALISED_UNITS(SMALLVIS_NORMALISED_ENGINE_ROWS)

/* Room for any normalised unit's parameters, and the list's tables. */
typedef union {
#define SMALLVIS_NQ_UNION_MEMBER(name, maths) smallvis_##name##_params name;
    SMALLVIS_NORMALISED_UNITS(SMALLVIS_NQ_UNION_MEMBER)
#undef SMALLVIS_NQ_UNION_MEMBER
} smallvis_normalised_params;

#define SMALLVIS_NQ_LOADER(name, maths)                                              \
    static void smallvis_##name##_nq_load(const double *f, double n_others,   \
                                          void *k)                            \
    {                                                                         \
        smallvis_##name##_load_fields(f, n_others,                            \
                                      (smallvis_##name##_params *)k);         \
    }
SMALLVIS_NORMALISED_UNITS(SMALLVIS_NQ_LOADER)
#undef SMALLVIS_NQ_LOADER

#define SMALLVIS_NQ_ENTRY(name, maths) &smallvis_normalised_##name,
static const smallvis_normalised_unit *const smallvis_normalised_units[] = {
    SMALLVIS_NORMALISED_UNITS(SMALLVIS_NQ_ENTRY)};
#undef SMALLVIS_NQ_ENTRY
#define SMALLVIS_NQ_NAME(name, maths) #name,
static const char *const smallvis_normalised_names[] = {
    SMALLVIS_NORMALISED_UNITS(SMALLVIS_NQ_NAME)};
#undef SMALLVIS_NQ_NAME
#define SMALLVIS_NQ_FIELDS(name, maths) smallvis_##name##_fields,
static const char *const smallvis_normalised_fields[] = {
    SMALLVIS_NORMALISED_UNITS(SMALLVIS_NQ_FIELDS)};
#undef SMALLVIS_NQ_FIELDS
#define SMALLVIS_NQ_LOADER_ENTRY(name, maths) smallvis_##name##_nq_load,
static const smallvis_unit_loader smallvis_normalised_loaders[] = {
    SMALLVIS_NORMALISED_UNITS(SMALLVIS_NQ_LOADER_ENTRY)};
#undef SMALLVIS_NQ_LOADER_ENTRY
#define SMALLVIS_N_NORMALISED_UNITS                                           \
    ((ptrdiff_t)(sizeof(smallvis_normalised_names) / sizeof(smallvis_normalised_names[0])))
/* ---- engine: end ------------------------------------------------------- */

/* The pair units' tables in the order of the list (methods/units.h): the
 * Cython entry points pick a unit by its index. */
#define SMALLVIS_EXACT_ENTRY(name, row_2d, sgd) &smallvis_exact_##name,
static const smallvis_exact_unit *const smallvis_exact_units[] = {
    SMALLVIS_PAIR_UNITS(SMALLVIS_EXACT_ENTRY)};
#undef SMALLVIS_EXACT_ENTRY
#define SMALLVIS_TRANSFORM_ENTRY(name, row_2d, sgd) &smallvis_transform_##name,
static const smallvis_transform_unit *const smallvis_transform_units[] = {
    SMALLVIS_PAIR_UNITS(SMALLVIS_TRANSFORM_ENTRY)};
#undef SMALLVIS_TRANSFORM_ENTRY
/* ---- fast path: t-SNE with heavy tails (dof != 1; methods/tsne/unit.h) ----- */
/*
 * The exact gradient's row i against columns start <= j < n: attraction
 * coefficients ca[j] = p_j s_j and repulsion coefficients cr[j] = w'_j s_j,
 * s = w^(1/dof) the slope, w' the weight relative to exp(-log_w_max);
 * returns sum_j w'_j.
 */
SMALLVIS_CLONES
static double smallvis_tsne_dof_coef_row(const double *__restrict__ d2,
                                         const double *__restrict__ p,
                                         ptrdiff_t start, ptrdiff_t n, double dof,
                                         double log_w_max, double *__restrict__ ca,
                                         double *__restrict__ cr)
{
    double z = 0.0;
    for (ptrdiff_t j = start; j < n; j++) {
        const double s = smallvis_tsne_dof_slope(d2[j], dof);
        const double w = smallvis_tsne_dof_w(d2[j], dof, log_w_max);
        z += w;
        ca[j] = p[j] * s;
        cr[j] = w * s;
    }
    return z;
}

/* The same row in two output dimensions, fused: the squared distances from
 * the coordinate columns x and y, the forces accumulated at once (ax, ay:
 * attraction; rx, ry: repulsion; row i's sums added at i, subtracted at
 * j), in two passes over blocks of 256 columns as UMAP's row (the weights
 * first, through the vector exp and log1p).  Returns sum_j w'_j. */
SMALLVIS_CLONES
static double smallvis_tsne_dof_row_2d(
    const double *__restrict__ x, const double *__restrict__ y, ptrdiff_t n,
    ptrdiff_t i, const double *__restrict__ p, double dof, double log_w_max,
    double *__restrict__ ax, double *__restrict__ ay, double *__restrict__ rx,
    double *__restrict__ ry)
{
    const double xi = x[i], yi = y[i];
    double sax = 0.0, say = 0.0, srx = 0.0, sry = 0.0, z = 0.0;
    double u[256];
    for (ptrdiff_t j0 = i + 1; j0 < n; j0 += 256) {
        const ptrdiff_t len = n - j0 < 256 ? n - j0 : 256;
        for (ptrdiff_t t = 0; t < len; t++) {
            const double dx = xi - x[j0 + t], dy = yi - y[j0 + t];
            u[t] = smallvis_tsne_dof_w(dx * dx + dy * dy, dof, log_w_max);
        }
        for (ptrdiff_t t = 0; t < len; t++) {
            const ptrdiff_t j = j0 + t;
            const double dx = xi - x[j], dy = yi - y[j];
            const double s = smallvis_tsne_dof_slope(dx * dx + dy * dy, dof);
            const double a = p[j] * s, r = u[t] * s;
            z += u[t];
            sax += a * dx;
            say += a * dy;
            srx += r * dx;
            sry += r * dy;
            ax[j] -= a * dx;
            ay[j] -= a * dy;
            rx[j] -= r * dx;
            ry[j] -= r * dy;
        }
    }
    ax[i] += sax;
    ay[i] += say;
    rx[i] += srx;
    ry[i] += sry;
    return z;
}

/* The cost's row over dense columns start <= j < n: returns the stored
 * entries' terms sum_{p_j > 0} p_j (log p_j - log w_j), adds sum_j w'_j to
 * *z and sum_j p_j to *psum (as smallvis_tsne_cost_row). */
SMALLVIS_CLONES
static double smallvis_tsne_dof_cost_row(const double *__restrict__ d2,
                                         const double *__restrict__ p, ptrdiff_t start,
                                         ptrdiff_t n, double dof, double log_w_max,
                                         double *z, double *psum)
{
    double s = 0.0, zi = 0.0, ps = 0.0;
    for (ptrdiff_t j = start; j < n; j++) {
        const double pj = p[j];
        const double e = smallvis_tsne_dof_edge(pj > 0.0 ? pj : 1.0, d2[j], dof);
        s += pj > 0.0 ? e : 0.0;
        ps += pj;
        zi += smallvis_tsne_dof_w(d2[j], dof, log_w_max);
    }
    *z += zi;
    *psum += ps;
    return s;
}

/* The cost's row: sum_j w'_j over start <= j < n. */
SMALLVIS_CLONES
static double smallvis_tsne_dof_z_row(const double *__restrict__ d2, ptrdiff_t start,
                                      ptrdiff_t n, double dof, double log_w_max)
{
    double z = 0.0;
    for (ptrdiff_t j = start; j < n; j++)
        z += smallvis_tsne_dof_w(d2[j], dof, log_w_max);
    return z;
}

/* ---- fast path: end --------------------------------------------------- */

/* A new point's squared distances to the training rows Rt ((dim, n)). */
SMALLVIS_CLONES
static void smallvis_tr_sq_dists(const double *Rt, ptrdiff_t n, ptrdiff_t dim,
                                 const double *y, double *d2)
{
    for (ptrdiff_t j = 0; j < n; j++) d2[j] = 0.0;
    for (ptrdiff_t d = 0; d < dim; d++) {
        const double *r = Rt + d * n;
        const double yd = y[d];
        for (ptrdiff_t j = 0; j < n; j++) {
            const double diff = yd - r[j];
            d2[j] += diff * diff;
        }
    }
}

/* One coordinate of a new point's gradient: sum_j c_j (y_d - Rt_d[j]). */
SMALLVIS_CLONES
static double smallvis_tr_force(const double *Rt, ptrdiff_t n, const double *c,
                                double yd)
{
    double s = 0.0;
    for (ptrdiff_t j = 0; j < n; j++) s += c[j] * (yd - Rt[j]);
    return s;
}

/*
 * Perplexity calibration, one row and one trial precision beta: writes the
 * unnormalised weights p_j = exp(-beta (d2_j - dmin)), where dmin is the
 * row's smallest d2, and returns the entropy (nats) of their normalisation;
 * *z receives their sum.  One pass: the bisection calls this about 18 times
 * a row, so the row is read once per call and the caller normalises p only
 * after the last call.
 */
SMALLVIS_CLONES
static double smallvis_row_entropy(const double *__restrict__ d2, ptrdiff_t m,
                                   double dmin, double beta,
                                   double *__restrict__ p, double *z_out)
{
    double z = 0.0, s = 0.0;
    for (ptrdiff_t j = 0; j < m; j++) {
        const double shifted = d2[j] - dmin;
        const double w = exp(-beta * shifted);
        p[j] = w;
        z += w;
        s += shifted * w;
    }
    *z_out = z;
    return log(z) + beta * s / z;
}

/*
 * The entropy of p_j ~ exp(-beta (d2_j - dmin)) and its derivative with
 * respect to log(beta), dH/dlog(beta) = -beta^2 Var_p(d2), in one pass and
 * without writing p.  The calibration uses it only to locate the root and
 * to certify which bisection steps it may skip (their entropy is known to
 * lie beyond the tolerance band), never for a result.
 */
SMALLVIS_CLONES
static double smallvis_row_entropy_slope(const double *__restrict__ d2, ptrdiff_t m,
                                         double dmin, double beta, double *slope)
{
    double z = 0.0, s1 = 0.0, s2 = 0.0;
    for (ptrdiff_t j = 0; j < m; j++) {
        const double shifted = d2[j] - dmin;
        const double w = exp(-beta * shifted);
        z += w;
        s1 += shifted * w;
        s2 += shifted * shifted * w;
    }
    const double mean = s1 / z;
    double var = s2 / z - mean * mean;
    if (!(var > 0.0))
        var = 0.0;
    *slope = -beta * beta * var;
    return log(z) + beta * mean;
}

/*
 * Nearest-neighbour refinement.  These two must round exactly as the NumPy
 * reference does, so re-association and fused multiply-adds are switched
 * off for them (SMALLVIS_STRICT_FP, methods/common.h: the module is
 * compiled with -fassociative-math).
 */

/* The squared distance snapped to a 40-bit mantissa (reference: _tie_key,
 * frexp, round half to even of m * 2^40, ldexp).  For a positive normal
 * double that rounding is the same as rounding its 52-bit fraction field to
 * its top 39 bits, half to even, in the integer bits: a carry out of the
 * fraction raises the exponent field, which is the value 2^e that ldexp
 * gives, and from the largest exponent it gives inf, as ldexp does.  The
 * kNN rows snap every candidate, and the library calls cost more than the
 * distances of a 64-D projection; zeros, subnormals, infinities, NaNs and
 * negative values keep the library's path. */
SMALLVIS_STRICT_FP
static double smallvis_tie_key(double d2)
{
    SMALLVIS_STRICT_FP_BODY
    uint64_t u;
    memcpy(&u, &d2, sizeof u);
    const uint64_t biased = u >> 52;  /* sign and exponent fields */
    if (biased - 1 < 0x7FE) {         /* sign 0, exponent field 1 .. 0x7FE */
        u += 0xFFF + ((u >> 13) & 1);
        u &= ~(uint64_t)0x1FFF;
        double key;
        memcpy(&key, &u, sizeof key);
        return key;
    }
    int e;
    const double m = frexp(d2, &e);
    return ldexp(rint(m * 1099511627776.0), e - 40);
}

/*
 * out[t] = sum_f (X[cand[t], f] - xi[f])^2 for t < m, X row-major with dim
 * columns, summed over f in order without fused multiply-adds (as the
 * reference's column loop).  Four candidates at a time, so that four
 * independent sums keep the adder busy; with AVX2, the vector loop of
 * _sq_dists_simd.h (the same bits) does the groups of four.
 */
SMALLVIS_STRICT_FP
static void smallvis_sq_dists_to(const double *__restrict__ X, ptrdiff_t dim,
                                 const double *__restrict__ xi,
                                 const int64_t *__restrict__ cand, ptrdiff_t m,
                                 double *__restrict__ out)
{
    SMALLVIS_STRICT_FP_BODY
    ptrdiff_t t = 0;
    if (dim >= 4 && m >= 4 && smallvis_avx2_dists_on())
        t = smallvis_sq_dists_avx2(X, dim, xi, cand, m, out);
    for (; t + 4 <= m; t += 4) {
        const double *a = X + cand[t] * dim, *b = X + cand[t + 1] * dim;
        const double *c = X + cand[t + 2] * dim, *d = X + cand[t + 3] * dim;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        for (ptrdiff_t f = 0; f < dim; f++) {
            const double x = xi[f];
            const double e0 = a[f] - x, e1 = b[f] - x, e2 = c[f] - x, e3 = d[f] - x;
            s0 += e0 * e0;
            s1 += e1 * e1;
            s2 += e2 * e2;
            s3 += e3 * e3;
        }
        out[t] = s0;
        out[t + 1] = s1;
        out[t + 2] = s2;
        out[t + 3] = s3;
    }
    for (; t < m; t++) {
        const double *a = X + cand[t] * dim;
        double s = 0.0;
        for (ptrdiff_t f = 0; f < dim; f++) {
            const double e = a[f] - xi[f];
            s += e * e;
        }
        out[t] = s;
    }
}

/*
 * smallvis_sq_dists_to with float32 rows X and a float64 row xi: each
 * feature is widened to double (exactly) before the same operations in the
 * same order, so out holds the float64 loop's bits for X's values, while
 * the rows read from memory are half as large (the exact distances of 784-D
 * images read their 300 candidate rows from the cache or memory each).
 */
SMALLVIS_STRICT_FP
static void smallvis_sq_dists_to_f32(const float *__restrict__ X, ptrdiff_t dim,
                                     const double *__restrict__ xi,
                                     const int64_t *__restrict__ cand, ptrdiff_t m,
                                     double *__restrict__ out)
{
    SMALLVIS_STRICT_FP_BODY
    ptrdiff_t t = 0;
    if (dim >= 4 && m >= 4 && smallvis_avx2_dists_on())
        t = smallvis_sq_dists_avx2_f32(X, dim, xi, cand, m, out);
    for (; t + 4 <= m; t += 4) {
        const float *a = X + cand[t] * dim, *b = X + cand[t + 1] * dim;
        const float *c = X + cand[t + 2] * dim, *d = X + cand[t + 3] * dim;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        for (ptrdiff_t f = 0; f < dim; f++) {
            const double x = xi[f];
            const double e0 = (double)a[f] - x, e1 = (double)b[f] - x;
            const double e2 = (double)c[f] - x, e3 = (double)d[f] - x;
            s0 += e0 * e0;
            s1 += e1 * e1;
            s2 += e2 * e2;
            s3 += e3 * e3;
        }
        out[t] = s0;
        out[t + 1] = s1;
        out[t + 2] = s2;
        out[t + 3] = s3;
    }
    for (; t < m; t++) {
        const float *a = X + cand[t] * dim;
        double s = 0.0;
        for (ptrdiff_t f = 0; f < dim; f++) {
            const double e = (double)a[f] - xi[f];
            s += e * e;
        }
        out[t] = s;
    }
}

#endif /* SMALLVIS_PAIRLOOPS_H */
