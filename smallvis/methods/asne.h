/*
 * Asymmetric SNE (Hinton & Roweis 2002), the C unit: the Gaussian output
 * weight w = exp(-d2), shifted by the row's smallest d2 so that it cannot
 * underflow (docs/theory.md; NumPy unit: methods/asne.py).
 */
#ifndef SMALLVIS_METHODS_ASNE_H
#define SMALLVIS_METHODS_ASNE_H

#include "common.h"

/* no parameters */
typedef struct {
    char unused;
} smallvis_asne_params;

static const char smallvis_asne_fields[] = "";
static inline void smallvis_asne_load(const double *f, double n_others,
                                      smallvis_asne_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

/* w = exp(-(d2 - shift)) */
static inline double smallvis_asne_w(double d2, double shift)
{
    return exp(-(d2 - shift));
}

/*
 * The hooks of the normalised engine (backends/_pairloops.h, "normalised
 * units"): the shift from the set's smallest d2 (so the largest weight is
 * 1 and none underflows to a zero normaliser), the weight and its log
 * relative to the shift, the slope -d log w / d d2 = 1, and the KL hooks.
 */
static inline double smallvis_asne_shift(double d2_min, const smallvis_asne_params *k)
{
    (void)k;
    return d2_min;
}

static inline double smallvis_asne_weight(double d2, double shift,
                                          const smallvis_asne_params *k)
{
    (void)k;
    return smallvis_asne_w(d2, shift);
}

static inline double smallvis_asne_log_weight(double d2, double shift,
                                              const smallvis_asne_params *k)
{
    (void)k;
    return -(d2 - shift);
}

static inline double smallvis_asne_slope(double d2, const smallvis_asne_params *k)
{
    (void)d2;
    (void)k;
    return 1.0;
}

SMALLVIS_KL_HOOKS(asne)

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
