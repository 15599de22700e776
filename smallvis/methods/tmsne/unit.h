/*
 * t-SNE over the unnormalised Gaussian weights (R smallvis's tmsne), the C
 * unit: trmsne's hooks (trmsne/unit.h, tasne's Cauchy weight and the KL
 * divergence over all pairs, every ordered pair summed by the engine);
 * only P differs (NumPy unit: methods/tmsne/unit.py).
 */
/* smallvis unit: normalised tmsne FAST */
#ifndef SMALLVIS_METHODS_TMSNE_H
#define SMALLVIS_METHODS_TMSNE_H

#include "../tasne/unit.h"

typedef smallvis_tasne_params smallvis_tmsne_params;

static const char smallvis_tmsne_fields[] = "";
static inline void smallvis_tmsne_load_fields(const double *f, double n_others,
                                              smallvis_tmsne_params *k)
{
    smallvis_tasne_load_fields(f, n_others, k);
}

static inline double smallvis_tmsne_shift(double d2_min, const smallvis_tmsne_params *k)
{
    return smallvis_tasne_shift(d2_min, k);
}

static inline double smallvis_tmsne_weight(double d2, double shift,
                                           const smallvis_tmsne_params *k)
{
    return smallvis_tasne_weight(d2, shift, k);
}

static inline double smallvis_tmsne_log_norm(double z, double shift,
                                             const smallvis_tmsne_params *k)
{
    return smallvis_tasne_log_norm(z, shift, k);
}

static inline double smallvis_tmsne_cost(double p, double d2, double shift, double z,
                                         double lz, const smallvis_tmsne_params *k)
{
    return smallvis_tasne_cost(p, d2, shift, z, lz, k);
}

static inline double smallvis_tmsne_offset_term(double p, double q,
                                                const smallvis_tmsne_params *k)
{
    return smallvis_tasne_offset_term(p, q, k);
}

static inline double smallvis_tmsne_offset(double mass, double dual,
                                           const smallvis_tmsne_params *k)
{
    return smallvis_tasne_offset(mass, dual, k);
}

static inline double smallvis_tmsne_force(double p, double w, double z, double d2, double S,
                                          const smallvis_tmsne_params *k)
{
    return smallvis_tasne_force(p, w, z, d2, S, k);
}

#endif /* SMALLVIS_METHODS_TMSNE_H */
