/*
 * t-ASNE on row-normalised symmetrised affinities, the C unit: the Cauchy
 * weight w = 1 / (1 + d2), normalised over each row, and the KL divergence
 * (NumPy unit: methods/trsrsne/unit.py).  Its hooks of the normalised
 * engine (backends/_pairloops.h, "engine: normalised units"): shift 0 (the
 * Cauchy weight cannot underflow), weight w, slope w, log_norm log z, cost
 * p (log p - log q) = p (log p + log1p(d2) + log z); offset_term, offset
 * and force: the KL divergence's (common.h).
 */
/* smallvis unit: normalised trsrsne FAST */
#ifndef SMALLVIS_METHODS_TRSRSNE_H
#define SMALLVIS_METHODS_TRSRSNE_H

#include "../common.h"

/* no parameters */
typedef struct {
    char unused;
} smallvis_trsrsne_params;

static const char smallvis_trsrsne_fields[] = "";
static inline void smallvis_trsrsne_load_fields(const double *f, double n_others,
                                                smallvis_trsrsne_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

static inline double smallvis_trsrsne_shift(double d2_min, const smallvis_trsrsne_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_trsrsne_weight(double d2, double shift,
                                             const smallvis_trsrsne_params *k)
{
    (void)shift;
    (void)k;
    return 1.0 / (1.0 + d2);
}

/* the Cauchy weight is its own slope, 1 / (1 + d2) */
static inline double smallvis_trsrsne_slope(double d2, double w,
                                            const smallvis_trsrsne_params *k)
{
    (void)d2;
    (void)k;
    return w;
}

static inline double smallvis_trsrsne_log_norm(double z, double shift,
                                               const smallvis_trsrsne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_trsrsne_cost(double p, double d2, double shift, double z,
                                           double lz, const smallvis_trsrsne_params *k)
{
    (void)shift;
    (void)z;
    (void)k;
    return p > 0.0 ? p * (log(p) + log1p(d2) + lz) : 0.0;
}

SMALLVIS_KL_HOOKS(trsrsne, smallvis_trsrsne_slope)

#endif /* SMALLVIS_METHODS_TRSRSNE_H */
