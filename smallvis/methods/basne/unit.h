/*
 * Asymmetric SNE with per-row output bandwidths (R smallvis's basne), the
 * C unit: the Gaussian w = exp(-u), u = beta_i d2 (NumPy unit:
 * methods/basne/unit.py).  The per-row beta_i is the NumPy unit's
 * per-point field "bandwidth", which the engine applies itself
 * (backends/_kernels.pyx, _normalised and _transform): it scales row i's
 * squared distances by beta_i before these hooks see them and the pair
 * coefficients by beta_i after.  The hooks are then asne's in u: shift the
 * row's smallest u, weight exp(-(u - shift)), slope 1, log_norm log z,
 * and the KL divergence (common.h).
 */
/* smallvis unit: normalised basne FAST */
#ifndef SMALLVIS_METHODS_BASNE_H
#define SMALLVIS_METHODS_BASNE_H

#include "../common.h"

/* no scalar parameters: the one field, "bandwidth", is per point, and the
 * engine reads it (its place in f holds 0) */
typedef struct {
    char unused;
} smallvis_basne_params;

static const char smallvis_basne_fields[] = "bandwidth";
static inline void smallvis_basne_load_fields(const double *f, double n_others,
                                              smallvis_basne_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

static inline double smallvis_basne_shift(double u_min, const smallvis_basne_params *k)
{
    (void)k;
    return u_min;
}

static inline double smallvis_basne_weight(double u, double shift,
                                           const smallvis_basne_params *k)
{
    (void)k;
    return exp(-(u - shift));
}

static inline double smallvis_basne_slope(double u, double w, const smallvis_basne_params *k)
{
    (void)u;
    (void)w;
    (void)k;
    return 1.0;
}

static inline double smallvis_basne_log_norm(double z, double shift,
                                             const smallvis_basne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_basne_cost(double p, double u, double shift, double z,
                                         double lz, const smallvis_basne_params *k)
{
    (void)z;
    (void)k;
    return p > 0.0 ? p * (log(p) + (u - shift) + lz) : 0.0;
}

SMALLVIS_KL_HOOKS(basne, smallvis_basne_slope)

#endif /* SMALLVIS_METHODS_BASNE_H */
