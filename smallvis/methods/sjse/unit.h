/*
 * Symmetric Jensen-Shannon embedding, the C unit: jse's weight and hooks
 * (jse/unit.h), normalised over all pairs in a fit (the list's
 * normalisation comes from the NumPy unit, methods/sjse/unit.py).
 */
/* smallvis unit: normalised sjse STRICT */
#ifndef SMALLVIS_METHODS_SJSE_H
#define SMALLVIS_METHODS_SJSE_H

#include "../jse/unit.h"

typedef smallvis_jse_params smallvis_sjse_params;

static const char smallvis_sjse_fields[] = "kappa";
static inline void smallvis_sjse_load_fields(const double *f, double n_others,
                                             smallvis_sjse_params *k)
{
    smallvis_jse_load_fields(f, n_others, k);
}

static inline double smallvis_sjse_shift(double d2_min, const smallvis_sjse_params *k)
{
    return smallvis_jse_shift(d2_min, k);
}

static inline double smallvis_sjse_weight(double d2, double shift,
                                          const smallvis_sjse_params *k)
{
    return smallvis_jse_weight(d2, shift, k);
}

static inline double smallvis_sjse_log_norm(double z, double shift,
                                            const smallvis_sjse_params *k)
{
    return smallvis_jse_log_norm(z, shift, k);
}

static inline double smallvis_sjse_cost(double p, double d2, double shift, double z,
                                        double lz, const smallvis_sjse_params *k)
{
    return smallvis_jse_cost(p, d2, shift, z, lz, k);
}

static inline double smallvis_sjse_offset_term(double p, double q, const smallvis_sjse_params *k)
{
    return smallvis_jse_offset_term(p, q, k);
}

static inline double smallvis_sjse_offset(double mass, double dual,
                                          const smallvis_sjse_params *k)
{
    return smallvis_jse_offset(mass, dual, k);
}

static inline double smallvis_sjse_force(double p, double w, double z, double d2, double S,
                                         const smallvis_sjse_params *k)
{
    return smallvis_jse_force(p, w, z, d2, S, k);
}

#endif /* SMALLVIS_METHODS_SJSE_H */
