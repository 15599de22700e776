/*
 * Hellinger-distance SNE (Im et al. 2018), the C unit: the Cauchy weight
 * w = 1 / (1 + d2), normalised over all pairs, and the elementwise cost
 *     f(p, q) = (sqrt(p) - sqrt(q))^2,
 * whose force needs only the derivative of its cross term, -sqrt(p / q)
 * (q sums to 1, so the linear terms cancel; NumPy unit:
 * methods/hlsne/unit.py, whose docstrings hold the maths).  Its hooks of
 * the normalised engine (backends/_pairloops.h, "engine: normalised
 * units"): shift 0 (the Cauchy weight cannot underflow), weight w, slope
 * w, log_norm log z; cost, offset_term (-sqrt(p) sqrt(q)), offset (S, the
 * summed offset terms) and force ((sqrt(p) sqrt(q) + S q) s) below, none
 * of which divides by q.  STRICT: at a good fit the force is a difference
 * of nearly equal terms.
 */
/* smallvis unit: normalised hlsne STRICT */
#ifndef SMALLVIS_METHODS_HLSNE_H
#define SMALLVIS_METHODS_HLSNE_H

#include "../common.h"

/* no parameters */
typedef struct {
    char unused;
} smallvis_hlsne_params;

static const char smallvis_hlsne_fields[] = "";
static inline void smallvis_hlsne_load_fields(const double *f, double n_others,
                                              smallvis_hlsne_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

static inline double smallvis_hlsne_shift(double d2_min, const smallvis_hlsne_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_hlsne_weight(double d2, double shift,
                                           const smallvis_hlsne_params *k)
{
    (void)shift;
    (void)k;
    return 1.0 / (1.0 + d2);
}

/* the Cauchy weight is its own slope, 1 / (1 + d2) */
static inline double smallvis_hlsne_slope(double d2, double w, const smallvis_hlsne_params *k)
{
    (void)d2;
    (void)k;
    return w;
}

static inline double smallvis_hlsne_log_norm(double z, double shift,
                                             const smallvis_hlsne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_hlsne_cost(double p, double d2, double shift, double z,
                                         double lz, const smallvis_hlsne_params *k)
{
    (void)lz;
    const double q = smallvis_hlsne_weight(d2, shift, k) / z;
    const double diff = sqrt(p) - sqrt(q);
    return diff * diff;
}

static inline double smallvis_hlsne_offset_term(double p, double q,
                                                const smallvis_hlsne_params *k)
{
    (void)k;
    return -(sqrt(p) * sqrt(q));
}

static inline double smallvis_hlsne_offset(double mass, double dual,
                                           const smallvis_hlsne_params *k)
{
    (void)mass;
    (void)k;
    return dual;
}

static inline double smallvis_hlsne_force(double p, double w, double z, double d2, double S,
                                          const smallvis_hlsne_params *k)
{
    const double q = w / z;
    return (sqrt(p) * sqrt(q) + S * q) * smallvis_hlsne_slope(d2, w, k);
}

#endif /* SMALLVIS_METHODS_HLSNE_H */
