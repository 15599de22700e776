/*
 * u-SNE, the C unit: t-SNE's KL divergence with UMAP's output curve
 * w = 1 / (1 + t), t = a d2^b, normalised over all pairs (NumPy unit:
 * methods/usne/unit.py, whose docstrings hold the maths).  Its hooks of
 * the normalised engine (backends/_pairloops.h, "engine: normalised
 * units"): shift 0 (the weight falls as a power of d2 and cannot
 * underflow on a layout the wrappers accept), weight w, log_norm log z,
 * cost p (log p + log1p(t) + log z), and the KL divergence's offset and
 * force (common.h) with the slope
 *     s = b / ((1 + 1/t) (d2 + eps)) = b (1 - w) / (d2 + eps),
 * R smallvis's, exact for eps = 0, and 0 at d2 = 0 (no direction) and
 * d2 = inf (the diagonal).
 */
/* smallvis unit: normalised usne FAST */
#ifndef SMALLVIS_METHODS_USNE_H
#define SMALLVIS_METHODS_USNE_H

#include "../common.h"

/* a, b: the curve; eps: the slope's softening (0: exact) */
typedef struct {
    double a;
    double b;
    double eps;
} smallvis_usne_params;

static const char smallvis_usne_fields[] = "a b eps";
static inline void smallvis_usne_load_fields(const double *f, double n_others,
                                             smallvis_usne_params *k)
{
    (void)n_others;
    k->a = f[0];
    k->b = f[1];
    k->eps = f[2];
}

static inline double smallvis_usne_shift(double d2_min, const smallvis_usne_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_usne_weight(double d2, double shift,
                                          const smallvis_usne_params *k)
{
    (void)shift;
    return 1.0 / (1.0 + k->a * pow(d2, k->b));
}

static inline double smallvis_usne_slope(double d2, double w, const smallvis_usne_params *k)
{
    (void)w;
    const double t = k->a * pow(d2, k->b);
    return d2 > 0.0 ? k->b / ((1.0 + 1.0 / t) * (d2 + k->eps)) : 0.0;
}

static inline double smallvis_usne_log_norm(double z, double shift,
                                            const smallvis_usne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

/* p (log p - log q), -log w = log1p(a d2^b) */
static inline double smallvis_usne_cost(double p, double d2, double shift, double z,
                                        double lz, const smallvis_usne_params *k)
{
    (void)shift;
    (void)z;
    return p > 0.0 ? p * (log(p) + log1p(k->a * pow(d2, k->b)) + lz) : 0.0;
}

SMALLVIS_KL_HOOKS(usne, smallvis_usne_slope)

#endif /* SMALLVIS_METHODS_USNE_H */
