/*
 * asne on the row-normalised symmetrised P (R smallvis's arsrsne), the C
 * unit: asne's hooks (asne/unit.h: the Gaussian normalised over each row,
 * the KL divergence); only P differs (NumPy unit: methods/arsrsne/unit.py).
 */
/* smallvis unit: normalised arsrsne FAST */
#ifndef SMALLVIS_METHODS_ARSRSNE_H
#define SMALLVIS_METHODS_ARSRSNE_H

#include "../asne/unit.h"

typedef smallvis_asne_params smallvis_arsrsne_params;

static const char smallvis_arsrsne_fields[] = "";
static inline void smallvis_arsrsne_load_fields(const double *f, double n_others,
                                                smallvis_arsrsne_params *k)
{
    smallvis_asne_load_fields(f, n_others, k);
}

static inline double smallvis_arsrsne_shift(double d2_min,
                                            const smallvis_arsrsne_params *k)
{
    return smallvis_asne_shift(d2_min, k);
}

static inline double smallvis_arsrsne_weight(double d2, double shift,
                                             const smallvis_arsrsne_params *k)
{
    return smallvis_asne_weight(d2, shift, k);
}

static inline double smallvis_arsrsne_log_norm(double z, double shift,
                                               const smallvis_arsrsne_params *k)
{
    return smallvis_asne_log_norm(z, shift, k);
}

static inline double smallvis_arsrsne_cost(double p, double d2, double shift, double z, double lz,
                                           const smallvis_arsrsne_params *k)
{
    return smallvis_asne_cost(p, d2, shift, z, lz, k);
}

static inline double smallvis_arsrsne_offset_term(double p, double q,
                                                  const smallvis_arsrsne_params *k)
{
    return smallvis_asne_offset_term(p, q, k);
}

static inline double smallvis_arsrsne_offset(double mass, double dual,
                                             const smallvis_arsrsne_params *k)
{
    return smallvis_asne_offset(mass, dual, k);
}

static inline double smallvis_arsrsne_force(double p, double w, double z, double d2, double S,
                                            const smallvis_arsrsne_params *k)
{
    return smallvis_asne_force(p, w, z, d2, S, k);
}

#endif /* SMALLVIS_METHODS_ARSRSNE_H */
