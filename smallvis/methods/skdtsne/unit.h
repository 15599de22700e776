/*
 * SKD t-SNE, the C unit: t-SNE's Cauchy weight w = 1 / (1 + d2),
 * normalised over all pairs, and the KL divergence (NumPy unit:
 * methods/skdtsne/unit.py).  Its hooks of the normalised engine
 * (backends/_pairloops.h, "engine: normalised units") are tsne's with
 * dof = 1 (tsne/unit.h): shift 0, weight w, slope w, log_norm log z, cost
 * p (log p + log1p(d2) + log z), and the KL divergence's offset and force
 * (common.h).
 */
/* smallvis unit: normalised skdtsne FAST */
#ifndef SMALLVIS_METHODS_SKDTSNE_H
#define SMALLVIS_METHODS_SKDTSNE_H

#include "../common.h"

/* no parameters */
typedef struct {
    char unused;
} smallvis_skdtsne_params;

static const char smallvis_skdtsne_fields[] = "";
static inline void smallvis_skdtsne_load_fields(const double *f, double n_others,
                                                smallvis_skdtsne_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

static inline double smallvis_skdtsne_shift(double d2_min, const smallvis_skdtsne_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_skdtsne_weight(double d2, double shift,
                                             const smallvis_skdtsne_params *k)
{
    (void)shift;
    (void)k;
    return smallvis_cauchy(d2, 1.0);
}

/* the Cauchy weight is its own slope, 1 / (1 + d2) */
static inline double smallvis_skdtsne_slope(double d2, double w,
                                            const smallvis_skdtsne_params *k)
{
    (void)d2;
    (void)k;
    return w;
}

static inline double smallvis_skdtsne_log_norm(double z, double shift,
                                               const smallvis_skdtsne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_skdtsne_cost(double p, double d2, double shift, double z,
                                           double lz, const smallvis_skdtsne_params *k)
{
    (void)shift;
    (void)z;
    (void)k;
    return p > 0.0 ? p * (log(p) + log1p(d2) + lz) : 0.0;
}

SMALLVIS_KL_HOOKS(skdtsne, smallvis_skdtsne_slope)

#endif /* SMALLVIS_METHODS_SKDTSNE_H */
