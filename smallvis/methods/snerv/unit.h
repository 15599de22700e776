/*
 * Symmetric NeRV (R smallvis's snerv), the C unit: nerv's hooks
 * (nerv/unit.h: the Gaussian w = exp(-d2), lam KL(P||Q) + (1 - lam)
 * KL(Q||P) with P floored in the reverse log), normalised over all pairs
 * (the normalisation comes from the NumPy unit, methods/snerv/unit.py;
 * the offset S is then the sum over all pairs).  STRICT as nerv's.
 */
/* smallvis unit: normalised snerv STRICT */
#ifndef SMALLVIS_METHODS_SNERV_H
#define SMALLVIS_METHODS_SNERV_H

#include "../nerv/unit.h"

typedef smallvis_nerv_params smallvis_snerv_params;

static const char smallvis_snerv_fields[] = "lam p_floor";
static inline void smallvis_snerv_load_fields(const double *f, double n_others,
                                              smallvis_snerv_params *k)
{
    smallvis_nerv_load_fields(f, n_others, k);
}

static inline double smallvis_snerv_shift(double d2_min, const smallvis_snerv_params *k)
{
    return smallvis_nerv_shift(d2_min, k);
}

static inline double smallvis_snerv_weight(double d2, double shift,
                                           const smallvis_snerv_params *k)
{
    return smallvis_nerv_weight(d2, shift, k);
}

static inline double smallvis_snerv_log_norm(double z, double shift,
                                             const smallvis_snerv_params *k)
{
    return smallvis_nerv_log_norm(z, shift, k);
}

static inline double smallvis_snerv_cost(double p, double d2, double shift, double z,
                                         double lz, const smallvis_snerv_params *k)
{
    return smallvis_nerv_cost(p, d2, shift, z, lz, k);
}

static inline double smallvis_snerv_offset_term(double p, double q,
                                                const smallvis_snerv_params *k)
{
    return smallvis_nerv_offset_term(p, q, k);
}

static inline double smallvis_snerv_offset(double mass, double dual,
                                           const smallvis_snerv_params *k)
{
    return smallvis_nerv_offset(mass, dual, k);
}

static inline double smallvis_snerv_force(double p, double w, double z, double d2, double S,
                                          const smallvis_snerv_params *k)
{
    return smallvis_nerv_force(p, w, z, d2, S, k);
}

#endif /* SMALLVIS_METHODS_SNERV_H */
