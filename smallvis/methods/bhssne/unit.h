/*
 * Heavy-tailed SSNE with per-row output bandwidths (R smallvis's bhssne),
 * the C unit: w = (1 + alpha u)^(-1/alpha), u = beta_i d2, normalised over
 * all pairs, and the KL divergence (NumPy unit: methods/bhssne/unit.py).
 * The per-row beta_i is the NumPy unit's per-point field "bandwidth",
 * which the engine applies itself (backends/_kernels.pyx, _normalised and
 * _transform): it scales row i's squared distances by beta_i before these
 * hooks see them and the pair coefficients by beta_i after.  The hooks:
 *     shift    -log w at the smallest u (small alpha tends to the Gaussian
 *              exp(-u): weights relative to the largest do not underflow
 *              to a zero normaliser);
 *     weight   exp(shift + log w);
 *     slope    -d log w / d u = 1 / (1 + alpha u) = w^alpha;
 *     log_norm log Z = log z - shift;
 *     cost     p (log p - log w) + p log Z;
 *     offset_term, offset, force: the KL divergence's (common.h).
 */
/* smallvis unit: normalised bhssne FAST */
#ifndef SMALLVIS_METHODS_BHSSNE_H
#define SMALLVIS_METHODS_BHSSNE_H

#include "../common.h"

/* alpha > 0, the heavy tail; the second field, "bandwidth", is per point
 * and read by the engine (its place in f holds 0) */
typedef struct {
    double alpha;
} smallvis_bhssne_params;

static const char smallvis_bhssne_fields[] = "alpha bandwidth";
static inline void smallvis_bhssne_load_fields(const double *f, double n_others,
                                               smallvis_bhssne_params *k)
{
    (void)n_others;
    k->alpha = f[0];
}

/* -log w = log1p(alpha u) / alpha */
static inline double smallvis_bhssne_neg_log_w(double u, const smallvis_bhssne_params *k)
{
    return log1p(k->alpha * u) / k->alpha;
}

static inline double smallvis_bhssne_shift(double u_min, const smallvis_bhssne_params *k)
{
    return smallvis_bhssne_neg_log_w(u_min, k);
}

static inline double smallvis_bhssne_weight(double u, double shift,
                                            const smallvis_bhssne_params *k)
{
    return exp(shift - smallvis_bhssne_neg_log_w(u, k));
}

static inline double smallvis_bhssne_slope(double u, double w, const smallvis_bhssne_params *k)
{
    (void)w;
    return 1.0 / (1.0 + k->alpha * u);
}

static inline double smallvis_bhssne_log_norm(double z, double shift,
                                              const smallvis_bhssne_params *k)
{
    (void)k;
    return log(z) - shift;
}

static inline double smallvis_bhssne_cost(double p, double u, double shift, double z,
                                          double lz, const smallvis_bhssne_params *k)
{
    (void)shift;
    (void)z;
    return p > 0.0 ? p * (log(p) + smallvis_bhssne_neg_log_w(u, k)) + p * lz : 0.0;
}

SMALLVIS_KL_HOOKS(bhssne, smallvis_bhssne_slope)

#endif /* SMALLVIS_METHODS_BHSSNE_H */
