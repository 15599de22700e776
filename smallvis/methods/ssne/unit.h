/*
 * Symmetric SNE (van der Maaten & Hinton 2008), the C unit: the Gaussian
 * weight of asne.h, normalised over all pairs (docs/theory.md; NumPy unit:
 * methods/ssne.py).  A new point's row is asne's row KL.
 */
#ifndef SMALLVIS_METHODS_SSNE_H
#define SMALLVIS_METHODS_SSNE_H

#include "../asne/unit.h"

typedef smallvis_asne_params smallvis_ssne_params;

/* w = exp(-(d2 - shift)), shift the smallest d2 of all pairs */
static inline double smallvis_ssne_w(double d2, double shift)
{
    return smallvis_asne_w(d2, shift);
}

static inline double smallvis_ssne_row_shift(const double *d2, ptrdiff_t n)
{
    return smallvis_asne_row_shift(d2, n);
}

static inline double smallvis_ssne_row_w(double d2, double shift)
{
    return smallvis_asne_row_w(d2, shift);
}

static inline double smallvis_ssne_row_force(double w)
{
    return smallvis_asne_row_force(w);
}

static inline double smallvis_ssne_row_neg_log_w(double d2, double shift)
{
    return smallvis_asne_row_neg_log_w(d2, shift);
}

#endif /* SMALLVIS_METHODS_SSNE_H */
