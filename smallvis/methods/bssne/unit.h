/*
 * Symmetric SNE with per-row output bandwidths (R smallvis's bssne), the C
 * unit: basne's hooks (basne/unit.h: the Gaussian in u = beta_i d2, the
 * engine applying beta_i), normalised over all pairs in a fit (the
 * normalisation comes from the NumPy unit, methods/bssne/unit.py).
 */
/* smallvis unit: normalised bssne FAST */
#ifndef SMALLVIS_METHODS_BSSNE_H
#define SMALLVIS_METHODS_BSSNE_H

#include "../basne/unit.h"

typedef smallvis_basne_params smallvis_bssne_params;

static const char smallvis_bssne_fields[] = "bandwidth";
static inline void smallvis_bssne_load_fields(const double *f, double n_others,
                                              smallvis_bssne_params *k)
{
    smallvis_basne_load_fields(f, n_others, k);
}

static inline double smallvis_bssne_shift(double u_min, const smallvis_bssne_params *k)
{
    return smallvis_basne_shift(u_min, k);
}

static inline double smallvis_bssne_weight(double u, double shift,
                                           const smallvis_bssne_params *k)
{
    return smallvis_basne_weight(u, shift, k);
}

static inline double smallvis_bssne_log_norm(double z, double shift,
                                             const smallvis_bssne_params *k)
{
    return smallvis_basne_log_norm(z, shift, k);
}

static inline double smallvis_bssne_cost(double p, double u, double shift, double z,
                                         double lz, const smallvis_bssne_params *k)
{
    return smallvis_basne_cost(p, u, shift, z, lz, k);
}

static inline double smallvis_bssne_offset_term(double p, double q,
                                                const smallvis_bssne_params *k)
{
    return smallvis_basne_offset_term(p, q, k);
}

static inline double smallvis_bssne_offset(double mass, double dual,
                                           const smallvis_bssne_params *k)
{
    return smallvis_basne_offset(mass, dual, k);
}

static inline double smallvis_bssne_force(double p, double w, double z, double u, double S,
                                          const smallvis_bssne_params *k)
{
    return smallvis_basne_force(p, w, z, u, S, k);
}

#endif /* SMALLVIS_METHODS_BSSNE_H */
