/*
 * Weighted t-SNE (Yang et al. 2014; R smallvis's wtsne), the C unit: the
 * plain Cauchy weight's hooks (btasne/unit.h at bandwidth 1: shift 0,
 * weight and slope 1 / (1 + d2), log_norm log z, the KL divergence), over
 * all pairs.  The per-point field "importance" (NumPy unit:
 * methods/wtsne/unit.py) is read by the engine itself
 * (backends/_kernels.pyx, _normalised and _transform): it multiplies the
 * weight of (i, j) by m_i m_j, running the rows named _a of
 * backends/_pairloops.h, and passes the hooks the plain weight, whose
 * slope is unchanged.
 */
/* smallvis unit: normalised wtsne FAST */
#ifndef SMALLVIS_METHODS_WTSNE_H
#define SMALLVIS_METHODS_WTSNE_H

#include "../btasne/unit.h"

/* no scalar parameters: the one field, "importance", is per point, and
 * the engine reads it (its place in f holds 0) */
typedef smallvis_btasne_params smallvis_wtsne_params;

static const char smallvis_wtsne_fields[] = "importance";
static inline void smallvis_wtsne_load_fields(const double *f, double n_others,
                                              smallvis_wtsne_params *k)
{
    smallvis_btasne_load_fields(f, n_others, k);
}

static inline double smallvis_wtsne_shift(double d2_min, const smallvis_wtsne_params *k)
{
    return smallvis_btasne_shift(d2_min, k);
}

static inline double smallvis_wtsne_weight(double d2, double shift,
                                           const smallvis_wtsne_params *k)
{
    return smallvis_btasne_weight(d2, shift, k);
}

static inline double smallvis_wtsne_log_norm(double z, double shift,
                                             const smallvis_wtsne_params *k)
{
    return smallvis_btasne_log_norm(z, shift, k);
}

static inline double smallvis_wtsne_cost(double p, double d2, double shift, double z,
                                         double lz, const smallvis_wtsne_params *k)
{
    return smallvis_btasne_cost(p, d2, shift, z, lz, k);
}

static inline double smallvis_wtsne_offset_term(double p, double q,
                                                const smallvis_wtsne_params *k)
{
    return smallvis_btasne_offset_term(p, q, k);
}

static inline double smallvis_wtsne_offset(double mass, double dual,
                                           const smallvis_wtsne_params *k)
{
    return smallvis_btasne_offset(mass, dual, k);
}

static inline double smallvis_wtsne_force(double p, double w, double z, double d2, double S,
                                          const smallvis_wtsne_params *k)
{
    return smallvis_btasne_force(p, w, z, d2, S, k);
}

#endif /* SMALLVIS_METHODS_WTSNE_H */
