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

#include <stddef.h>

#if defined(__x86_64__) && defined(__linux__) && \
    ((defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8) || \
     (defined(__clang__) && __clang_major__ >= 14))
#define SMALLVIS_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SMALLVIS_CLONES
#endif

/*
 * t-SNE, two output dimensions, rows i and i + 1 against columns j >= i + 2.
 * For each pair: w = 1 / (1 + d^2); a = p w (attraction), r = w^2
 * (repulsion).  Row sums go to ax/ay/rx/ry[i], [i + 1]; the opposite
 * contribution is subtracted at j.  z[0], z[1] accumulate sum_j w.
 */
SMALLVIS_CLONES
static void smallvis_tsne_rows2_2d(
    const double *__restrict__ x, const double *__restrict__ y, ptrdiff_t n,
    ptrdiff_t i, const double *__restrict__ p0, const double *__restrict__ p1,
    double *__restrict__ ax, double *__restrict__ ay,
    double *__restrict__ rx, double *__restrict__ ry, double *z)
{
    const double x0 = x[i], y0 = y[i], x1 = x[i + 1], y1 = y[i + 1];
    double z0 = 0.0, z1 = 0.0;
    double sax0 = 0.0, say0 = 0.0, srx0 = 0.0, sry0 = 0.0;
    double sax1 = 0.0, say1 = 0.0, srx1 = 0.0, sry1 = 0.0;
    for (ptrdiff_t j = i + 2; j < n; j++) {
        const double dx0 = x0 - x[j], dy0 = y0 - y[j];
        const double dx1 = x1 - x[j], dy1 = y1 - y[j];
        const double w0 = 1.0 / (1.0 + dx0 * dx0 + dy0 * dy0);
        const double w1 = 1.0 / (1.0 + dx1 * dx1 + dy1 * dy1);
        const double a0 = p0[j] * w0, a1 = p1[j] * w1;
        const double r0 = w0 * w0, r1 = w1 * w1;
        z0 += w0;
        z1 += w1;
        sax0 += a0 * dx0;
        say0 += a0 * dy0;
        srx0 += r0 * dx0;
        sry0 += r0 * dy0;
        sax1 += a1 * dx1;
        say1 += a1 * dy1;
        srx1 += r1 * dx1;
        sry1 += r1 * dy1;
        ax[j] -= a0 * dx0 + a1 * dx1;
        ay[j] -= a0 * dy0 + a1 * dy1;
        rx[j] -= r0 * dx0 + r1 * dx1;
        ry[j] -= r0 * dy0 + r1 * dy1;
    }
    ax[i] += sax0;
    ay[i] += say0;
    rx[i] += srx0;
    ry[i] += sry0;
    ax[i + 1] += sax1;
    ay[i + 1] += say1;
    rx[i + 1] += srx1;
    ry[i + 1] += sry1;
    z[0] += z0;
    z[1] += z1;
}

#endif /* SMALLVIS_PAIRLOOPS_H */
