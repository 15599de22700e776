/*
 * Global t-SNE (R smallvis's gsne), the C unit of its second part: the KL
 * divergence of the global affinities P-hat from q-hat = w-hat / sum w-hat,
 * with the weight w-hat = 1 + d2, normalised over all pairs (NumPy unit:
 * methods/gsne/unit.py, whose docstrings hold the maths).  Its first part is
 * t-SNE's own unit (methods/tsne/unit.h); the engine of two-input units
 * (backends/_second_input.pxi) adds lambda times this one.
 *     shift    0 (w-hat >= 1 cannot underflow);
 *     weight   1 + d2, 0 on the diagonal (d2 = inf);
 *     slope    -d log w-hat / d d2 = -1 / (1 + d2);
 *     log_norm log z;
 *     cost     p (log p - log q) = p (log p - log1p(d2) + log z);
 *     offset_term, offset, force: the KL divergence's (common.h).
 */
/* smallvis unit: normalised gsne_global FAST */
#ifndef SMALLVIS_METHODS_GSNE_H
#define SMALLVIS_METHODS_GSNE_H

#include "../common.h"

/* no parameters: lambda multiplies this part in the engine */
typedef struct {
    char unused;
} smallvis_gsne_params;

typedef smallvis_gsne_params smallvis_gsne_global_params;

static const char smallvis_gsne_global_fields[] = "";
static inline void smallvis_gsne_global_load_fields(const double *f, double n_others,
                                                    smallvis_gsne_global_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

static inline double smallvis_gsne_global_shift(double d2_min,
                                                const smallvis_gsne_global_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_gsne_global_weight(double d2, double shift,
                                                 const smallvis_gsne_global_params *k)
{
    (void)shift;
    (void)k;
    return isinf(d2) ? 0.0 : 1.0 + d2;
}

static inline double smallvis_gsne_global_slope(double d2, double w,
                                                const smallvis_gsne_global_params *k)
{
    (void)w;
    (void)k;
    return -1.0 / (1.0 + d2);
}

static inline double smallvis_gsne_global_log_norm(double z, double shift,
                                                   const smallvis_gsne_global_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_gsne_global_cost(double p, double d2, double shift, double z,
                                               double lz, const smallvis_gsne_global_params *k)
{
    (void)shift;
    (void)z;
    (void)k;
    return p > 0.0 ? p * (log(p) - log1p(d2) + lz) : 0.0;
}

SMALLVIS_KL_HOOKS(gsne_global, smallvis_gsne_global_slope)

#endif /* SMALLVIS_METHODS_GSNE_H */
