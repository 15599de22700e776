/*
 * NeRV on the row-normalised symmetrised P (R smallvis's rsrnerv), the C
 * unit: nerv's hooks (nerv/unit.h: the Gaussian normalised over each row,
 * lam KL(P||Q) + (1 - lam) KL(Q||P) with P floored in the reverse log);
 * only P differs (NumPy unit: methods/rsrnerv/unit.py).  STRICT as nerv's.
 */
/* smallvis unit: normalised rsrnerv STRICT */
#ifndef SMALLVIS_METHODS_RSRNERV_H
#define SMALLVIS_METHODS_RSRNERV_H

#include "../nerv/unit.h"

typedef smallvis_nerv_params smallvis_rsrnerv_params;

static const char smallvis_rsrnerv_fields[] = "lam p_floor";
static inline void smallvis_rsrnerv_load_fields(const double *f, double n_others,
                                                smallvis_rsrnerv_params *k)
{
    smallvis_nerv_load_fields(f, n_others, k);
}

static inline double smallvis_rsrnerv_shift(double d2_min, const smallvis_rsrnerv_params *k)
{
    return smallvis_nerv_shift(d2_min, k);
}

static inline double smallvis_rsrnerv_weight(double d2, double shift,
                                             const smallvis_rsrnerv_params *k)
{
    return smallvis_nerv_weight(d2, shift, k);
}

static inline double smallvis_rsrnerv_log_norm(double z, double shift,
                                               const smallvis_rsrnerv_params *k)
{
    return smallvis_nerv_log_norm(z, shift, k);
}

static inline double smallvis_rsrnerv_cost(double p, double d2, double shift, double z,
                                           double lz, const smallvis_rsrnerv_params *k)
{
    return smallvis_nerv_cost(p, d2, shift, z, lz, k);
}

static inline double smallvis_rsrnerv_offset_term(double p, double q,
                                                  const smallvis_rsrnerv_params *k)
{
    return smallvis_nerv_offset_term(p, q, k);
}

static inline double smallvis_rsrnerv_offset(double mass, double dual,
                                             const smallvis_rsrnerv_params *k)
{
    return smallvis_nerv_offset(mass, dual, k);
}

static inline double smallvis_rsrnerv_force(double p, double w, double z, double d2, double S,
                                            const smallvis_rsrnerv_params *k)
{
    return smallvis_nerv_force(p, w, z, d2, S, k);
}

#endif /* SMALLVIS_METHODS_RSRNERV_H */
