/*
 * t-SNE (van der Maaten & Hinton 2008), the C unit: the Cauchy output
 * weight that the exact gradient's 4-row loop, its cost rows, the FFT
 * interpolation and a new point's row KL use (docs/theory.md; NumPy unit:
 * methods/tsne.py).
 */
#ifndef SMALLVIS_METHODS_TSNE_H
#define SMALLVIS_METHODS_TSNE_H

#include "common.h"

/* no parameters */
typedef struct {
    char unused;
} smallvis_tsne_params;

/* w = scale / (1 + d2); scale is 1, or a power of two for huge layouts so
 * that w^2 does not underflow (the gradient divides it out exactly). */
static inline double smallvis_tsne_w(double d2, double scale)
{
    return smallvis_cauchy(d2, scale);
}

/* The cost of a stored entry p beyond the normaliser: p log(p (1 + d2)). */
static inline double smallvis_tsne_edge(double p, double d2)
{
    return p * log(p > 0.0 ? p * (1.0 + d2) : 1.0);
}

/*
 * A new point's row KL against fixed reference rows,
 *     KL(p_s || q_s),  q_sj = w_sj / sum_k w_sk,  w = 1 / (1 + d2),
 * through three hooks of the normalised transform engine: the row's shift
 * of d2 (none), the weight, the factor of the force (w), and -log w.
 */
static inline double smallvis_tsne_row_shift(const double *d2, ptrdiff_t n)
{
    (void)d2;
    (void)n;
    return 0.0;
}

static inline double smallvis_tsne_row_w(double d2, double shift)
{
    (void)shift;
    return smallvis_tsne_w(d2, 1.0);
}

/* grad_s = sum_j 2 (p_sj - psum q_sj) w_sj (y_s - y_j) */
static inline double smallvis_tsne_row_force(double w)
{
    return w;
}

static inline double smallvis_tsne_row_neg_log_w(double d2, double shift)
{
    (void)shift;
    return log1p(d2);
}

#endif /* SMALLVIS_METHODS_TSNE_H */
