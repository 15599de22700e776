/*
 * JSE on the row-normalised symmetrised P (R smallvis's rsrjse), the C
 * unit: jse's hooks (jse/unit.h: the Gaussian normalised over each row,
 * JSE's mixture cost); only P differs (NumPy unit: methods/rsrjse/unit.py).
 * STRICT as jse's.
 */
/* smallvis unit: normalised rsrjse STRICT */
#ifndef SMALLVIS_METHODS_RSRJSE_H
#define SMALLVIS_METHODS_RSRJSE_H

#include "../jse/unit.h"

typedef smallvis_jse_params smallvis_rsrjse_params;

static const char smallvis_rsrjse_fields[] = "kappa";
static inline void smallvis_rsrjse_load_fields(const double *f, double n_others,
                                               smallvis_rsrjse_params *k)
{
    smallvis_jse_load_fields(f, n_others, k);
}

static inline double smallvis_rsrjse_shift(double d2_min,
                                           const smallvis_rsrjse_params *k)
{
    return smallvis_jse_shift(d2_min, k);
}

static inline double smallvis_rsrjse_weight(double d2, double shift,
                                            const smallvis_rsrjse_params *k)
{
    return smallvis_jse_weight(d2, shift, k);
}

static inline double smallvis_rsrjse_log_norm(double z, double shift,
                                              const smallvis_rsrjse_params *k)
{
    return smallvis_jse_log_norm(z, shift, k);
}

static inline double smallvis_rsrjse_cost(double p, double d2, double shift, double z, double lz,
                                          const smallvis_rsrjse_params *k)
{
    return smallvis_jse_cost(p, d2, shift, z, lz, k);
}

static inline double smallvis_rsrjse_offset_term(double p, double q,
                                                 const smallvis_rsrjse_params *k)
{
    return smallvis_jse_offset_term(p, q, k);
}

static inline double smallvis_rsrjse_offset(double mass, double dual,
                                            const smallvis_rsrjse_params *k)
{
    return smallvis_jse_offset(mass, dual, k);
}

static inline double smallvis_rsrjse_force(double p, double w, double z, double d2, double S,
                                           const smallvis_rsrjse_params *k)
{
    return smallvis_jse_force(p, w, z, d2, S, k);
}

#endif /* SMALLVIS_METHODS_RSRJSE_H */
