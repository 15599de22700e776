/*
 * NeRV with per-row output bandwidths (R smallvis's bnerv), the C unit:
 * nerv's hooks (nerv/unit.h: the Gaussian exp(-u), lam KL(P||Q) + (1 -
 * lam) KL(Q||P) with P floored in the reverse log) in u = beta_i d2.  The
 * per-row beta_i is the NumPy unit's per-point field "bandwidth"
 * (methods/bnerv/unit.py), which the engine applies itself: it scales row
 * i's squared distances by beta_i before these hooks see them and the
 * pair coefficients by beta_i after.  STRICT as nerv's.
 */
/* smallvis unit: normalised bnerv STRICT */
#ifndef SMALLVIS_METHODS_BNERV_H
#define SMALLVIS_METHODS_BNERV_H

#include "../nerv/unit.h"

typedef smallvis_nerv_params smallvis_bnerv_params;

static const char smallvis_bnerv_fields[] = "lam p_floor bandwidth";
static inline void smallvis_bnerv_load_fields(const double *f, double n_others,
                                              smallvis_bnerv_params *k)
{
    /* the third field, "bandwidth", is per point: the engine reads it */
    smallvis_nerv_load_fields(f, n_others, k);
}

static inline double smallvis_bnerv_shift(double d2_min, const smallvis_bnerv_params *k)
{
    return smallvis_nerv_shift(d2_min, k);
}

static inline double smallvis_bnerv_weight(double d2, double shift,
                                           const smallvis_bnerv_params *k)
{
    return smallvis_nerv_weight(d2, shift, k);
}

static inline double smallvis_bnerv_log_norm(double z, double shift,
                                             const smallvis_bnerv_params *k)
{
    return smallvis_nerv_log_norm(z, shift, k);
}

static inline double smallvis_bnerv_cost(double p, double d2, double shift, double z,
                                         double lz, const smallvis_bnerv_params *k)
{
    return smallvis_nerv_cost(p, d2, shift, z, lz, k);
}

static inline double smallvis_bnerv_offset_term(double p, double q,
                                                const smallvis_bnerv_params *k)
{
    return smallvis_nerv_offset_term(p, q, k);
}

static inline double smallvis_bnerv_offset(double mass, double dual,
                                           const smallvis_bnerv_params *k)
{
    return smallvis_nerv_offset(mass, dual, k);
}

static inline double smallvis_bnerv_force(double p, double w, double z, double d2, double S,
                                          const smallvis_bnerv_params *k)
{
    return smallvis_nerv_force(p, w, z, d2, S, k);
}

#endif /* SMALLVIS_METHODS_BNERV_H */
