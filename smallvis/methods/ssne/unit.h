/*
 * Symmetric SNE (van der Maaten & Hinton 2008), the C unit: the Gaussian
 * weight and KL hooks of asne.h, normalised over all pairs in a fit (the
 * list's normalisation comes from the NumPy unit, methods/ssne/unit.py;
 * docs/theory.md).  A new point is normalised over its own row, as asne's.
 */
/* smallvis unit: normalised ssne FAST */
#ifndef SMALLVIS_METHODS_SSNE_H
#define SMALLVIS_METHODS_SSNE_H

#include "../asne/unit.h"

typedef smallvis_asne_params smallvis_ssne_params;

static const char smallvis_ssne_fields[] = "";
static inline void smallvis_ssne_load_fields(const double *f, double n_others,
                                      smallvis_ssne_params *k)
{
    smallvis_asne_load_fields(f, n_others, k);
}

/* w = exp(-(d2 - shift)), shift the smallest d2 of all pairs */
static inline double smallvis_ssne_w(double d2, double shift)
{
    return smallvis_asne_w(d2, shift);
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

static inline double smallvis_ssne_slope(double d2, double w, const smallvis_ssne_params *k)
{
    return smallvis_asne_slope(d2, w, k);
}

static inline double smallvis_ssne_log_norm(double z, double shift,
                                            const smallvis_ssne_params *k)
{
    return smallvis_asne_log_norm(z, shift, k);
}

static inline double smallvis_ssne_cost(double p, double d2, double shift, double z,
                                        double lz, const smallvis_ssne_params *k)
{
    return smallvis_asne_cost(p, d2, shift, z, lz, k);
}

SMALLVIS_KL_HOOKS(ssne, smallvis_ssne_slope)

#endif /* SMALLVIS_METHODS_SSNE_H */
