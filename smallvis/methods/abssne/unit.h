/*
 * Alpha-beta SSNE, the C unit: absne's alpha-beta divergence (absne/unit.h)
 * with the Gaussian weight of asne/unit.h, normalised over all pairs in a
 * fit (the list's normalisation comes from the NumPy unit,
 * methods/abssne/unit.py): shift the set's smallest d2, weight
 * exp(-(d2 - shift)), slope 1, log q = -(d2 - shift) - log z.  STRICT, as
 * absne.
 */
/* smallvis unit: normalised abssne STRICT */
#ifndef SMALLVIS_METHODS_ABSSNE_H
#define SMALLVIS_METHODS_ABSSNE_H

#include "../asne/unit.h"
#include "../absne/unit.h"

typedef smallvis_absne_params smallvis_abssne_params;

static const char smallvis_abssne_fields[] = "alpha beta";
static inline void smallvis_abssne_load_fields(const double *f, double n_others,
                                               smallvis_abssne_params *k)
{
    smallvis_absne_load_fields(f, n_others, k);
}

static inline double smallvis_abssne_shift(double d2_min, const smallvis_abssne_params *k)
{
    (void)k;
    return d2_min;
}

static inline double smallvis_abssne_weight(double d2, double shift,
                                            const smallvis_abssne_params *k)
{
    (void)k;
    return smallvis_asne_w(d2, shift);
}

static inline double smallvis_abssne_log_norm(double z, double shift,
                                              const smallvis_abssne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_abssne_cost(double p, double d2, double shift, double z,
                                          double lz, const smallvis_abssne_params *k)
{
    (void)z;
    return smallvis_ab_cost(p, smallvis_gauss_log_q(d2, shift, lz), k);
}

static inline double smallvis_abssne_offset_term(double p, double q,
                                                 const smallvis_abssne_params *k)
{
    return smallvis_ab_q_dfdq(p, q, k);
}

static inline double smallvis_abssne_offset(double mass, double dual,
                                            const smallvis_abssne_params *k)
{
    (void)mass;
    (void)k;
    return dual;
}

/* the Gaussian's slope is 1 */
static inline double smallvis_abssne_force(double p, double w, double z, double d2, double S,
                                           const smallvis_abssne_params *k)
{
    const double q = w / z;
    (void)d2;
    return q * S - smallvis_ab_q_dfdq(p, q, k);
}

#endif /* SMALLVIS_METHODS_ABSSNE_H */
