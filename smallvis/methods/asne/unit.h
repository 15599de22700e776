/*
 * Asymmetric SNE (Hinton & Roweis 2002), the C unit: the Gaussian output
 * weight w = exp(-d2), shifted by the row's smallest d2 so that it cannot
 * underflow (docs/theory.md; NumPy unit: methods/asne.py).
 */
#ifndef SMALLVIS_METHODS_ASNE_H
#define SMALLVIS_METHODS_ASNE_H

#include "../common.h"

/* no parameters */
typedef struct {
    char unused;
} smallvis_asne_params;

/* w = exp(-(d2 - shift)) */
static inline double smallvis_asne_w(double d2, double shift)
{
    return exp(-(d2 - shift));
}

/*
 * A new point's row KL against fixed reference rows,
 *     KL(p_s || q_s),  q_sj = w_sj / sum_k w_sk,
 * through the hooks of the normalised transform engine: the shift is the
 * row's smallest d2, the force factor 1, and -log w = d2 - shift.
 */
static inline double smallvis_asne_row_shift(const double *d2, ptrdiff_t n)
{
    double dmin = INFINITY;
    for (ptrdiff_t j = 0; j < n; j++)
        dmin = d2[j] < dmin ? d2[j] : dmin;
    return dmin;
}

static inline double smallvis_asne_row_w(double d2, double shift)
{
    return smallvis_asne_w(d2, shift);
}

/* grad_s = sum_j 2 (p_sj - psum q_sj) (y_s - y_j) */
static inline double smallvis_asne_row_force(double w)
{
    (void)w;
    return 1.0;
}

static inline double smallvis_asne_row_neg_log_w(double d2, double shift)
{
    return d2 - shift;
}

#endif /* SMALLVIS_METHODS_ASNE_H */
