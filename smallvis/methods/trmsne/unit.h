/*
 * t-SNE over a P that is not symmetric (R smallvis's trmsne), the C unit:
 * tasne's hooks (tasne/unit.h: the Cauchy weight w = 1 / (1 + d2) and the
 * KL divergence), normalised over all pairs, every ordered pair summed by
 * the engine (the normalisation and symmetric_p come from the NumPy unit,
 * methods/trmsne/unit.py).
 */
/* smallvis unit: normalised trmsne FAST */
#ifndef SMALLVIS_METHODS_TRMSNE_H
#define SMALLVIS_METHODS_TRMSNE_H

#include "../tasne/unit.h"

typedef smallvis_tasne_params smallvis_trmsne_params;

static const char smallvis_trmsne_fields[] = "";
static inline void smallvis_trmsne_load_fields(const double *f, double n_others,
                                               smallvis_trmsne_params *k)
{
    smallvis_tasne_load_fields(f, n_others, k);
}

static inline double smallvis_trmsne_shift(double d2_min, const smallvis_trmsne_params *k)
{
    return smallvis_tasne_shift(d2_min, k);
}

static inline double smallvis_trmsne_weight(double d2, double shift,
                                            const smallvis_trmsne_params *k)
{
    return smallvis_tasne_weight(d2, shift, k);
}

static inline double smallvis_trmsne_log_norm(double z, double shift,
                                              const smallvis_trmsne_params *k)
{
    return smallvis_tasne_log_norm(z, shift, k);
}

static inline double smallvis_trmsne_cost(double p, double d2, double shift, double z,
                                          double lz, const smallvis_trmsne_params *k)
{
    return smallvis_tasne_cost(p, d2, shift, z, lz, k);
}

static inline double smallvis_trmsne_offset_term(double p, double q,
                                                 const smallvis_trmsne_params *k)
{
    return smallvis_tasne_offset_term(p, q, k);
}

static inline double smallvis_trmsne_offset(double mass, double dual,
                                            const smallvis_trmsne_params *k)
{
    return smallvis_tasne_offset(mass, dual, k);
}

static inline double smallvis_trmsne_force(double p, double w, double z, double d2, double S,
                                           const smallvis_trmsne_params *k)
{
    return smallvis_tasne_force(p, w, z, d2, S, k);
}

#endif /* SMALLVIS_METHODS_TRMSNE_H */
