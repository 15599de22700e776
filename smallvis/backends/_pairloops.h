/*
 * Innermost pair loops of smallvis._kernels that dominate exact-gradient
 * run time.  They are plain C so that the compiler can build one clone per
 * instruction set (AVX-512, AVX2, baseline x86-64) and pick the best one
 * when the module is loaded (GCC/Clang `target_clones`, dispatched through
 * an ifunc).  The default build stays portable: no -march flags.
 *
 * Each function is documented at its Cython caller in _kernels.pyx; the
 * maths is that of the NumPy reference in smallvis/reference.py.
 */
#ifndef SMALLVIS_PAIRLOOPS_H
#define SMALLVIS_PAIRLOOPS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Vector maths.  When the build found glibc's libmvec (setup.py probes for
 * it and defines SMALLVIS_LIBMVEC), exp and log are declared with the simd
 * attribute so that GCC's vectoriser calls their vector versions; otherwise
 * they call the scalar libm functions.  Either way the result agrees with
 * the NumPy reference to a few units in the last place.
 */
#if defined(SMALLVIS_LIBMVEC)
double exp(double) __attribute__((simd("notinbranch")));
double log(double) __attribute__((simd("notinbranch")));
double log1p(double) __attribute__((simd("notinbranch")));
#endif

/*
 * x**y for x > 0 in vector loops.  With glibc 2.35's vector exp2 and log2
 * (setup.py defines SMALLVIS_LIBMVEC_EXP2) as exp2(y log2 x): on AVX-512
 * they take about 0.86 ns an element against 1.24 ns for exp(y log x), with
 * the same accuracy (the error of the exponent, |y log2 x| ulp, dominates
 * either way).
 */
#if defined(SMALLVIS_LIBMVEC_EXP2)
double exp2(double) __attribute__((simd("notinbranch")));
double log2(double) __attribute__((simd("notinbranch")));
#define SMALLVIS_POW_POS(x, y) exp2((y) * log2(x))
#else
#define SMALLVIS_POW_POS(x, y) exp((y) * log(x))
#endif

/* Smallest positive normal double: floors log() arguments (see reference). */
#define SMALLVIS_LOG_FLOOR 2.2250738585072014e-308

/*
 * The output weights, each written once (reference.py has the same maths).
 *
 * Cauchy, w = 1 / (1 + d2), of t-SNE, LargeVis (with alpha d2) and t-UMAP.
 * ``scale`` multiplies the weight: 1 everywhere except in the t-SNE
 * gradient, which passes a power of two (exact, see tsne_gradient in
 * _kernels.pyx) so that w^2 does not underflow when the layout is huge.
 */
static inline double smallvis_cauchy(double d2, double scale)
{
    return scale / (1.0 + d2);
}

/* UMAP (and NCVis), w = 1 / (1 + a u) with u = d2^b computed by the caller
 * (the vector loops compute d2^b in a separate pass). */
static inline double smallvis_umap_w(double u, double a)
{
    return smallvis_cauchy(a * u, 1.0);
}

#if defined(__x86_64__) && defined(__linux__) && \
    ((defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8) || \
     (defined(__clang__) && __clang_major__ >= 14))
#define SMALLVIS_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SMALLVIS_CLONES
#endif

/*
 * t-SNE, two output dimensions, rows i .. i + 3 against columns j >= i + 4.
 * For each pair: w = scale / (1 + d^2); a = p w (attraction), r = w^2
 * (repulsion).  Row sums go to ax/ay/rx/ry[i + r]; the opposite
 * contributions are subtracted at j.  z[r] accumulates sum_j w.  Sharing
 * each column between four rows quarters the loads and stores at j.
 * The body is inlined into two entry points below, so that the common case
 * (scale 1) keeps a register free in this register-hungry loop.
 */
#if defined(__GNUC__)
#define SMALLVIS_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define SMALLVIS_ALWAYS_INLINE inline
#endif
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
        const double w0 = smallvis_cauchy(dx0 * dx0 + dy0 * dy0, scale);
        const double w1 = smallvis_cauchy(dx1 * dx1 + dy1 * dy1, scale);
        const double w2 = smallvis_cauchy(dx2 * dx2 + dy2 * dy2, scale);
        const double w3 = smallvis_cauchy(dx3 * dx3 + dy3 * dy3, scale);
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
 * Per-pair gradient coefficients c(d2, p; q0, q1, q2) of the un-normalised
 * methods: the pair (i, j) contributes 4 c (y_i - y_j) to the gradient of
 * y_i.  Coincident points (d2 == 0) exert no force (the callers zero c).
 */

/* LargeVis, w = 1 / (1 + alpha d2): c = alpha p w - gamma w / (d2 + eps).
 * q = (gamma, eps, alpha). */
static inline double smallvis_largevis_c(double d, double p, double gamma,
                                         double eps, double alpha)
{
    const double w = smallvis_cauchy(alpha * d, 1.0);
    return alpha * p * w - gamma * w / (d + eps);
}

/* LargeVis, w = 1 / (1 + exp(d2)): c = (1 - w) p - gamma w.  q = (gamma). */
static inline double smallvis_largevis_exp_c(double d, double p, double gamma,
                                             double unused1, double unused2)
{
    const double w = 1.0 / (1.0 + exp(d));
    (void)unused1;
    (void)unused2;
    return (1.0 - w) * p - gamma * w;
}

/* UMAP, w = 1 / (1 + a u), u = d2^b: c = b (v - w) / (d2 + eps). */
static inline double smallvis_umap_c_of_u(double d, double u, double p,
                                          double a, double b, double eps)
{
    return b * (p - smallvis_umap_w(u, a)) / (d + eps);
}

/* The same with d2^b computed here.  q = (a, b, eps). */
static inline double smallvis_umap_c(double d, double p, double a, double b,
                                     double eps)
{
    return smallvis_umap_c_of_u(d, SMALLVIS_POW_POS(d > 0.0 ? d : 1.0, b), p,
                                a, b, eps);
}

/* t-UMAP, w = 1 / (1 + d2): c = (v - w) w / (1 - w + eps), 1 - w = d2 w.
 * q = (eps). */
static inline double smallvis_tumap_c(double d, double p, double eps,
                                      double unused1, double unused2)
{
    const double w = smallvis_cauchy(d, 1.0);
    (void)unused1;
    (void)unused2;
    return (p - w) * w / (d * w + eps);
}

/* coef[j] = c(d2[j], p[j]) for start <= j < n (any output dimension).
 * The signature is shared with smallvis_ncvis_coef: ``aux`` and ``i`` are
 * unused here, and the returned row term (of a learned scalar's
 * derivative) is 0. */
#define SMALLVIS_COEF_ROW(name, c)                                            \
    SMALLVIS_CLONES                                                           \
    static double name(const double *__restrict__ d2,                         \
                       const double *__restrict__ p,                          \
                       const double *__restrict__ aux, ptrdiff_t i,           \
                       ptrdiff_t start, ptrdiff_t n,                          \
                       const double *__restrict__ q,                          \
                       double *__restrict__ coef)                             \
    {                                                                         \
        const double q0 = q[0], q1 = q[1], q2 = q[2];                         \
        (void)aux;                                                            \
        (void)i;                                                              \
        for (ptrdiff_t j = start; j < n; j++) {                               \
            const double d = d2[j];                                           \
            const double cj = c(d, p[j], q0, q1, q2);                         \
            coef[j] = d > 0.0 ? cj : 0.0;                                     \
        }                                                                     \
        return 0.0;                                                           \
    }

/* Two output dimensions, fused: row i against j > i, gx/gy[i] += sum_j c dx,
 * gx/gy[j] -= c dx (the caller multiplies by 4 at the end). */
#define SMALLVIS_FORCE_ROW_2D(name, c)                                        \
    SMALLVIS_CLONES                                                           \
    static void name(const double *__restrict__ x,                            \
                     const double *__restrict__ y, ptrdiff_t n, ptrdiff_t i,  \
                     const double *__restrict__ p,                            \
                     const double *__restrict__ q, double *__restrict__ gx,   \
                     double *__restrict__ gy)                                 \
    {                                                                         \
        const double q0 = q[0], q1 = q[1], q2 = q[2];                         \
        const double xi = x[i], yi = y[i];                                    \
        double sx = 0.0, sy = 0.0;                                            \
        for (ptrdiff_t j = i + 1; j < n; j++) {                               \
            const double dx = xi - x[j], dy = yi - y[j];                      \
            const double d = dx * dx + dy * dy;                               \
            const double cj = c(d, p[j], q0, q1, q2);                         \
            const double f = d > 0.0 ? cj : 0.0;                              \
            sx += f * dx;                                                     \
            sy += f * dy;                                                     \
            gx[j] -= f * dx;                                                  \
            gy[j] -= f * dy;                                                  \
        }                                                                     \
        gx[i] += sx;                                                          \
        gy[i] += sy;                                                          \
    }

SMALLVIS_COEF_ROW(smallvis_largevis_coef, smallvis_largevis_c)
SMALLVIS_COEF_ROW(smallvis_largevis_exp_coef, smallvis_largevis_exp_c)
SMALLVIS_COEF_ROW(smallvis_umap_coef, smallvis_umap_c)
SMALLVIS_COEF_ROW(smallvis_tumap_coef, smallvis_tumap_c)
SMALLVIS_FORCE_ROW_2D(smallvis_largevis_row_2d, smallvis_largevis_c)
SMALLVIS_FORCE_ROW_2D(smallvis_largevis_exp_row_2d, smallvis_largevis_exp_c)

/* UMAP's fused 2-D row (smallvis_umap_c_of_u, as SMALLVIS_FORCE_ROW_2D), in two
 * passes over blocks of 256 columns: first d^b into a stack buffer, then the
 * forces.  A vector-maths call in the middle of the force loop would spill
 * its accumulators on every call. */
SMALLVIS_CLONES
static void smallvis_umap_row_2d(const double *__restrict__ x,
                                 const double *__restrict__ y, ptrdiff_t n, ptrdiff_t i,
                                 const double *__restrict__ p,
                                 const double *__restrict__ q, double *__restrict__ gx,
                                 double *__restrict__ gy)
{
    const double a = q[0], b = q[1], eps = q[2];
    const double xi = x[i], yi = y[i];
    double sx = 0.0, sy = 0.0;
    double u[256];
    for (ptrdiff_t j0 = i + 1; j0 < n; j0 += 256) {
        const ptrdiff_t len = n - j0 < 256 ? n - j0 : 256;
        for (ptrdiff_t t = 0; t < len; t++) {
            const double dx = xi - x[j0 + t], dy = yi - y[j0 + t];
            const double d = dx * dx + dy * dy;
            u[t] = SMALLVIS_POW_POS(d > 0.0 ? d : 1.0, b);
        }
        for (ptrdiff_t t = 0; t < len; t++) {
            const ptrdiff_t j = j0 + t;
            const double dx = xi - x[j], dy = yi - y[j];
            const double d = dx * dx + dy * dy;
            const double cj = smallvis_umap_c_of_u(d, u[t], p[j], a, b, eps);
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
SMALLVIS_FORCE_ROW_2D(smallvis_tumap_row_2d, smallvis_tumap_c)

/*
 * Repulsive cost terms summed over one row, columns start <= j < n:
 * sum_j -log(1 - w_ij), with 1 - w written without cancellation and its
 * log floored at SMALLVIS_LOG_FLOOR (coincident points).
 */

/* w = 1 / (1 + u), u = a d2^b (Cauchy: a = alpha, b = 1): 1 - w = u / (1 + u). */
SMALLVIS_CLONES
static double smallvis_cauchy_repulsion_row(
    const double *__restrict__ d2, ptrdiff_t start, ptrdiff_t n, double a,
    double b)
{
    double s = 0.0;
    for (ptrdiff_t j = start; j < n; j++) {
        const double d = d2[j];
        const double u = d > 0.0 ? a * SMALLVIS_POW_POS(d, b) : 0.0;
        const double floored = u > SMALLVIS_LOG_FLOOR ? u : SMALLVIS_LOG_FLOOR;
        s += log1p(u) - log(floored);
    }
    return s;
}

/* w = 1 / (1 + exp(d2)): -log(1 - w) = log1p(exp(-d2)). */
SMALLVIS_CLONES
static double smallvis_exp_repulsion_row(
    const double *__restrict__ d2, ptrdiff_t start, ptrdiff_t n)
{
    double s = 0.0;
    for (ptrdiff_t j = start; j < n; j++) {
        s += log1p(exp(-d2[j]));
    }
    return s;
}

/*
 * NCVis (docs/theory.md §3.8), row i against columns start <= j < n.  r (``aux``)
 * holds nu p_n(k) for every point; params = (e, a, b) with e = exp(-Q), and
 * q = e / (1 + a d2^b).
 * coef[j] = (G_ij + G_ji) / 2 with
 *     G_ij = r_i / (q + r_i) (p_ij - q) a b d2^(b - 1) qhat,
 * so the pair adds 4 coef (y_i - y_j) to the gradient of y_i.  Returns
 * sum_j (p_ij - q) (r_i / (q + r_i) + r_j / (q + r_j)), the two ordered
 * pairs' share of the derivative in Q.
 */
SMALLVIS_CLONES
static double smallvis_ncvis_coef(
    const double *__restrict__ d2, const double *__restrict__ p,
    const double *__restrict__ r, ptrdiff_t i, ptrdiff_t start, ptrdiff_t n,
    const double *__restrict__ params, double *__restrict__ coef)
{
    const double e = params[0], a = params[1], b = params[2];
    const double ri = r[i];
    double s = 0.0;
    for (ptrdiff_t j = start; j < n; j++) {
        const double d = d2[j];
        const double ld = log(d > 0.0 ? d : 1.0);
        const double q_hat = d > 0.0 ? smallvis_umap_w(exp(b * ld), a) : 1.0;
        const double q = e * q_hat;
        const double si = q + ri, sj = q + r[j];
        const double wi = si > 0.0 ? ri / si : 0.0;
        const double wj = sj > 0.0 ? r[j] / sj : 0.0;
        const double diff = p[j] - q;
        const double g = diff * a * b * exp((b - 1.0) * ld) * q_hat;
        const double c = 0.5 * (wi + wj) * g;
        coef[j] = d > 0.0 ? c : 0.0;
        s += diff * (wi + wj);
    }
    return s;
}

/*
 * NCVis noise term of -J for row i against columns start <= j < n:
 * sum_j r_i log1p(q / r_i) + r_j log1p(q / r_j), terms with r = 0 being 0.
 */
SMALLVIS_CLONES
static double smallvis_ncvis_noise_row(
    const double *__restrict__ d2, const double *__restrict__ r, ptrdiff_t i,
    ptrdiff_t start, ptrdiff_t n, double e, double a, double b)
{
    const double ri = r[i];
    double s = 0.0;
    for (ptrdiff_t j = start; j < n; j++) {
        const double d = d2[j];
        const double q = e * smallvis_umap_w(SMALLVIS_POW_POS(d > 0.0 ? d : 1.0, b), a);
        const double qq = d > 0.0 ? q : e;
        const double ti = ri > 0.0 ? ri * log1p(qq / (ri > 0.0 ? ri : 1.0)) : 0.0;
        const double tj = r[j] > 0.0 ? r[j] * log1p(qq / (r[j] > 0.0 ? r[j] : 1.0)) : 0.0;
        s += ti + tj;
    }
    return s;
}

/*
 * t-SNE cost, row i against dense columns start <= j < n: returns
 * sum_j p_j log(p_j (1 + d2_j)) over p_j > 0, adds sum_j 1 / (1 + d2_j)
 * to *z and sum_j p_j to *psum (so that the caller need not read P twice).
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
        const double t = pj * log(pj > 0.0 ? pj * (1.0 + d2[j]) : 1.0);
        s += t;
        ps += pj;
        zi += smallvis_cauchy(d2[j], 1.0);
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
        s += pj * log(pj > 0.0 ? pj * (1.0 + d) : 1.0);
        ps += pj;
        zi += smallvis_cauchy(d, 1.0);
    }
    *z += zi;
    *psum += ps;
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
 * off for them (the module is compiled with -fassociative-math).
 */
#if defined(__clang__)
#define SMALLVIS_STRICT_FP
#define SMALLVIS_STRICT_FP_BODY _Pragma("clang fp reassociate(off)") \
    _Pragma("clang fp contract(off)")
#elif defined(__GNUC__)
#define SMALLVIS_STRICT_FP \
    __attribute__((optimize("no-associative-math", "fp-contract=off")))
#define SMALLVIS_STRICT_FP_BODY
#else
#define SMALLVIS_STRICT_FP
#define SMALLVIS_STRICT_FP_BODY
#endif

/* The squared distance snapped to a 40-bit mantissa (reference: _tie_key). */
SMALLVIS_STRICT_FP
static double smallvis_tie_key(double d2)
{
    SMALLVIS_STRICT_FP_BODY
    int e;
    const double m = frexp(d2, &e);
    return ldexp(rint(m * 1099511627776.0), e - 40);
}

/*
 * out[t] = sum_f (X[cand[t], f] - xi[f])^2 for t < m, X row-major with dim
 * columns, summed over f in order without fused multiply-adds (as the
 * reference's column loop).  Four candidates at a time, so that four
 * independent sums keep the adder busy.
 */
SMALLVIS_STRICT_FP
static void smallvis_sq_dists_to(const double *__restrict__ X, ptrdiff_t dim,
                                 const double *__restrict__ xi,
                                 const int64_t *__restrict__ cand, ptrdiff_t m,
                                 double *__restrict__ out)
{
    SMALLVIS_STRICT_FP_BODY
    ptrdiff_t t = 0;
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

#endif /* SMALLVIS_PAIRLOOPS_H */
