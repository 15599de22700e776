/*
 * Normalised t-UMAP, the C unit: cetsne's Cauchy weight and cross-entropy
 * hooks (cetsne/unit.h), normalised over all pairs (NumPy unit:
 * methods/ntumap/unit.py).
 */
/* smallvis unit: normalised ntumap STRICT */
#ifndef SMALLVIS_METHODS_NTUMAP_H
#define SMALLVIS_METHODS_NTUMAP_H

#include "../cetsne/unit.h"

typedef smallvis_cetsne_params smallvis_ntumap_params;

static const char smallvis_ntumap_fields[] = "";
static inline void smallvis_ntumap_load_fields(const double *f, double n_others,
                                               smallvis_ntumap_params *k)
{
    smallvis_cetsne_load_fields(f, n_others, k);
}

static inline double smallvis_ntumap_shift(double d2_min, const smallvis_ntumap_params *k)
{
    return smallvis_cetsne_shift(d2_min, k);
}

static inline double smallvis_ntumap_weight(double d2, double shift,
                                            const smallvis_ntumap_params *k)
{
    return smallvis_cetsne_weight(d2, shift, k);
}

static inline double smallvis_ntumap_log_norm(double z, double shift,
                                              const smallvis_ntumap_params *k)
{
    return smallvis_cetsne_log_norm(z, shift, k);
}

static inline double smallvis_ntumap_cost(double p, double d2, double shift, double z,
                                          double lz, const smallvis_ntumap_params *k)
{
    return smallvis_cetsne_cost(p, d2, shift, z, lz, k);
}

static inline double smallvis_ntumap_offset_term(double p, double q,
                                                 const smallvis_ntumap_params *k)
{
    return smallvis_cetsne_offset_term(p, q, k);
}

static inline double smallvis_ntumap_offset(double mass, double dual,
                                            const smallvis_ntumap_params *k)
{
    return smallvis_cetsne_offset(mass, dual, k);
}

static inline double smallvis_ntumap_force(double p, double w, double z, double d2, double S,
                                           const smallvis_ntumap_params *k)
{
    return smallvis_cetsne_force(p, w, z, d2, S, k);
}

#endif /* SMALLVIS_METHODS_NTUMAP_H */
