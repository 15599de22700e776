/*
 * t-SNE with per-row output bandwidths (R smallvis's btsne), the C
 * unit: btasne's hooks (btasne/unit.h: the Cauchy weight in u = beta_i d2, the
 * engine applying beta_i), normalised over all pairs in a fit (the
 * normalisation comes from the NumPy unit, methods/btsne/unit.py).
 */
/* smallvis unit: normalised btsne FAST */
#ifndef SMALLVIS_METHODS_BTSNE_H
#define SMALLVIS_METHODS_BTSNE_H

#include "../btasne/unit.h"

typedef smallvis_btasne_params smallvis_btsne_params;

static const char smallvis_btsne_fields[] = "bandwidth";
static inline void smallvis_btsne_load_fields(const double *f, double n_others,
                                              smallvis_btsne_params *k)
{
    smallvis_btasne_load_fields(f, n_others, k);
}

static inline double smallvis_btsne_shift(double u_min, const smallvis_btsne_params *k)
{
    return smallvis_btasne_shift(u_min, k);
}

static inline double smallvis_btsne_weight(double u, double shift,
                                           const smallvis_btsne_params *k)
{
    return smallvis_btasne_weight(u, shift, k);
}

static inline double smallvis_btsne_log_norm(double z, double shift,
                                             const smallvis_btsne_params *k)
{
    return smallvis_btasne_log_norm(z, shift, k);
}

static inline double smallvis_btsne_cost(double p, double u, double shift, double z,
                                         double lz, const smallvis_btsne_params *k)
{
    return smallvis_btasne_cost(p, u, shift, z, lz, k);
}

static inline double smallvis_btsne_offset_term(double p, double q,
                                                const smallvis_btsne_params *k)
{
    return smallvis_btasne_offset_term(p, q, k);
}

static inline double smallvis_btsne_offset(double mass, double dual,
                                           const smallvis_btsne_params *k)
{
    return smallvis_btasne_offset(mass, dual, k);
}

static inline double smallvis_btsne_force(double p, double w, double z, double u, double S,
                                          const smallvis_btsne_params *k)
{
    return smallvis_btasne_force(p, w, z, u, S, k);
}

#endif /* SMALLVIS_METHODS_BTSNE_H */
