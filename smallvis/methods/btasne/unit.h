/*
 * t-ASNE with per-row output bandwidths (R smallvis's btasne), the C unit:
 * the Cauchy weight w = 1 / (1 + u), u = beta_i d2, normalised over each
 * row, and the KL divergence (NumPy unit: methods/btasne/unit.py).  The
 * per-row beta_i is the NumPy unit's per-point field "bandwidth", which
 * the engine applies itself (backends/_kernels.pyx, _normalised and
 * _transform): it scales row i's squared distances by beta_i before these
 * hooks see them and the pair coefficients by beta_i after.  The hooks:
 * shift 0 (the Cauchy weight cannot underflow), weight and slope w,
 * log_norm log z, cost p (log p + log1p(u) + log z), and the KL
 * divergence's offset and force (common.h).
 */
/* smallvis unit: normalised btasne FAST */
#ifndef SMALLVIS_METHODS_BTASNE_H
#define SMALLVIS_METHODS_BTASNE_H

#include "../common.h"

/* no scalar parameters: the one field, "bandwidth", is per point, and the
 * engine reads it (its place in f holds 0) */
typedef struct {
    char unused;
} smallvis_btasne_params;

static const char smallvis_btasne_fields[] = "bandwidth";
static inline void smallvis_btasne_load_fields(const double *f, double n_others,
                                               smallvis_btasne_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

static inline double smallvis_btasne_shift(double u_min, const smallvis_btasne_params *k)
{
    (void)u_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_btasne_weight(double u, double shift,
                                            const smallvis_btasne_params *k)
{
    (void)shift;
    (void)k;
    return 1.0 / (1.0 + u);
}

/* the Cauchy weight is its own slope, 1 / (1 + u) */
static inline double smallvis_btasne_slope(double u, double w, const smallvis_btasne_params *k)
{
    (void)u;
    (void)k;
    return w;
}

static inline double smallvis_btasne_log_norm(double z, double shift,
                                              const smallvis_btasne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_btasne_cost(double p, double u, double shift, double z,
                                          double lz, const smallvis_btasne_params *k)
{
    (void)shift;
    (void)z;
    (void)k;
    return p > 0.0 ? p * (log(p) + log1p(u) + lz) : 0.0;
}

SMALLVIS_KL_HOOKS(btasne, smallvis_btasne_slope)

#endif /* SMALLVIS_METHODS_BTASNE_H */
