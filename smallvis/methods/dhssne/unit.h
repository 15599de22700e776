/*
 * Dynamic heavy-tailed SSNE (R smallvis's dhssne), the C unit: Yang et
 * al.'s weight w = (1 + alpha d2)^(-1/alpha), normalised over all pairs,
 * and the KL divergence; the tail alpha is set by the method's search
 * (NumPy unit: methods/dhssne/unit.py).  At a given alpha it is t-SNE's
 * heavy-tailed unit at dof = 1 / alpha (methods/tsne/unit.h), whose hooks
 * it calls: the loader turns the field alpha into that dof.
 */
/* smallvis unit: normalised dhssne FAST */
#ifndef SMALLVIS_METHODS_DHSSNE_H
#define SMALLVIS_METHODS_DHSSNE_H

#include "../common.h"
#include "../tsne/unit.h"

/* dof = 1 / alpha */
typedef smallvis_tsne_dof_params smallvis_dhssne_params;

static const char smallvis_dhssne_fields[] = "alpha";
static inline void smallvis_dhssne_load_fields(const double *f, double n_others,
                                               smallvis_dhssne_params *k)
{
    (void)n_others;
    k->dof = 1.0 / f[0];
}

static inline double smallvis_dhssne_shift(double d2_min, const smallvis_dhssne_params *k)
{
    return smallvis_tsne_dof_shift(d2_min, k);
}

static inline double smallvis_dhssne_weight(double d2, double shift,
                                            const smallvis_dhssne_params *k)
{
    return smallvis_tsne_dof_weight(d2, shift, k);
}

static inline double smallvis_dhssne_slope(double d2, double w,
                                           const smallvis_dhssne_params *k)
{
    return smallvis_tsne_dof_slope_k(d2, w, k);
}

static inline double smallvis_dhssne_log_norm(double z, double shift,
                                              const smallvis_dhssne_params *k)
{
    return smallvis_tsne_dof_log_norm(z, shift, k);
}

static inline double smallvis_dhssne_cost(double p, double d2, double shift, double z,
                                          double lz, const smallvis_dhssne_params *k)
{
    return smallvis_tsne_dof_cost(p, d2, shift, z, lz, k);
}

SMALLVIS_KL_HOOKS(dhssne, smallvis_dhssne_slope)

#endif /* SMALLVIS_METHODS_DHSSNE_H */
