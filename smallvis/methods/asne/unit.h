/*
 * Asymmetric SNE (Hinton & Roweis 2002), the C unit: the Gaussian output
 * weight w = exp(-d2), normalised over each row, and the KL divergence
 * (docs/theory.md; NumPy unit: methods/asne/unit.py).  Its hooks of the
 * normalised engine (backends/_pairloops.h, "engine: normalised units"):
 *     shift    the set's smallest d2, so that the largest weight is 1 and
 *              none underflows to a zero normaliser;
 *     weight   exp(-(d2 - shift));
 *     slope    -d log w / d d2 = 1;
 *     log_norm log z;
 *     cost     p (log p - log q) = p (log p + (d2 - shift) + log z);
 *     offset_term, offset, force: the KL divergence's (common.h).
 */
/* smallvis unit: normalised asne FAST */
#ifndef SMALLVIS_METHODS_ASNE_H
#define SMALLVIS_METHODS_ASNE_H

#include "../common.h"

/* no parameters */
typedef struct {
    char unused;
} smallvis_asne_params;

static const char smallvis_asne_fields[] = "";
static inline void smallvis_asne_load_fields(const double *f, double n_others,
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

static inline double smallvis_asne_slope(double d2, double w, const smallvis_asne_params *k)
{
    (void)d2;
    (void)w;
    (void)k;
    return 1.0;
}

/* log z, z the sum of the relative weights */
static inline double smallvis_asne_log_norm(double z, double shift,
                                            const smallvis_asne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_asne_cost(double p, double d2, double shift, double z,
                                        double lz, const smallvis_asne_params *k)
{
    (void)z;
    (void)k;
    return p > 0.0 ? p * (log(p) + (d2 - shift) + lz) : 0.0;
}

SMALLVIS_KL_HOOKS(asne, smallvis_asne_slope)

#endif /* SMALLVIS_METHODS_ASNE_H */
