/*
 * t-distributed asymmetric SNE, the C unit: the Cauchy weight
 * w = 1 / (1 + d2), normalised over each row, and the KL divergence
 * (NumPy unit: methods/tasne/unit.py, whose docstrings hold the maths).
 * Its hooks of the normalised engine (backends/_pairloops.h, "engine:
 * normalised units"):
 *     shift    0 (the Cauchy weight cannot underflow on a layout the
 *              wrappers accept);
 *     weight   1 / (1 + d2);
 *     slope    -d log w / d d2 = 1 / (1 + d2) = w;
 *     log_norm log z;
 *     cost     p (log p - log q) = p (log p + log1p(d2) + log z);
 *     offset_term, offset, force: the KL divergence's (common.h).
 */
/* smallvis unit: normalised tasne FAST */
#ifndef SMALLVIS_METHODS_TASNE_H
#define SMALLVIS_METHODS_TASNE_H

#include "../common.h"

/* no parameters */
typedef struct {
    char unused;
} smallvis_tasne_params;

static const char smallvis_tasne_fields[] = "";
static inline void smallvis_tasne_load_fields(const double *f, double n_others,
                                              smallvis_tasne_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

static inline double smallvis_tasne_shift(double d2_min, const smallvis_tasne_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_tasne_weight(double d2, double shift,
                                           const smallvis_tasne_params *k)
{
    (void)shift;
    (void)k;
    return smallvis_cauchy(d2, 1.0);
}

/* the Cauchy weight is its own slope, 1 / (1 + d2) */
static inline double smallvis_tasne_slope(double d2, double w, const smallvis_tasne_params *k)
{
    (void)d2;
    (void)k;
    return w;
}

static inline double smallvis_tasne_log_norm(double z, double shift,
                                             const smallvis_tasne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_tasne_cost(double p, double d2, double shift, double z,
                                         double lz, const smallvis_tasne_params *k)
{
    (void)shift;
    (void)z;
    (void)k;
    return p > 0.0 ? p * (log(p) + log1p(d2) + lz) : 0.0;
}

SMALLVIS_KL_HOOKS(tasne, smallvis_tasne_slope)

#endif /* SMALLVIS_METHODS_TASNE_H */
