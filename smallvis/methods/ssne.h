/*
 * Symmetric SNE (van der Maaten & Hinton 2008), the C unit: the Gaussian
 * weight of asne.h, normalised over all pairs (docs/theory.md; NumPy unit:
 * methods/ssne.py).  A new point's row is asne's row KL.
 */
#ifndef SMALLVIS_METHODS_SSNE_H
#define SMALLVIS_METHODS_SSNE_H

#include "asne.h"

typedef smallvis_asne_params smallvis_ssne_params;

/* The normalised engine's hooks: asne's, normalised over all pairs. */
static const char smallvis_ssne_fields[] = "";
static inline void smallvis_ssne_load(const double *f, double n_others,
                                      smallvis_ssne_params *k)
{
    smallvis_asne_load(f, n_others, k);
}

static inline double smallvis_ssne_shift(double d2_min, const smallvis_ssne_params *k)
{
    return smallvis_asne_shift(d2_min, k);
}

static inline double smallvis_ssne_weight(double d2, double shift,
                                          const smallvis_ssne_params *k)
{
    return smallvis_asne_weight(d2, shift, k);
}

static inline double smallvis_ssne_log_weight(double d2, double shift,
                                              const smallvis_ssne_params *k)
{
    return smallvis_asne_log_weight(d2, shift, k);
}

static inline double smallvis_ssne_slope(double d2, const smallvis_ssne_params *k)
{
    return smallvis_asne_slope(d2, k);
}

SMALLVIS_KL_HOOKS(ssne)

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
