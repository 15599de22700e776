/*
 * Jensen-Shannon SNE (Im et al. 2018), the C unit: the Cauchy weight
 * w = 1 / (1 + d2), normalised over all pairs, and the elementwise cost
 *     f(p, q) = (p log(p / z) + q log(q / z)) / 2,  z = (p + q) / 2,
 * with df/dq = log(q / z) / 2 (NumPy unit: methods/jssne/unit.py, whose
 * docstrings hold the maths).  Its hooks of the normalised engine
 * (backends/_pairloops.h, "engine: normalised units"): shift 0 (the
 * Cauchy weight cannot underflow), weight w, slope w, log_norm log z;
 * cost, offset_term (q log(q / z)), offset (S, half the summed offset
 * terms) and force (q (S - log(q / z) / 2) s) below.  A term with q = 0
 * or p = 0 is 0, its limit.  STRICT: at a good fit the force is a
 * difference of nearly equal terms.
 */
/* smallvis unit: normalised jssne STRICT */
#ifndef SMALLVIS_METHODS_JSSNE_H
#define SMALLVIS_METHODS_JSSNE_H

#include "../common.h"

/* no parameters */
typedef struct {
    char unused;
} smallvis_jssne_params;

static const char smallvis_jssne_fields[] = "";
static inline void smallvis_jssne_load_fields(const double *f, double n_others,
                                              smallvis_jssne_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

static inline double smallvis_jssne_shift(double d2_min, const smallvis_jssne_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_jssne_weight(double d2, double shift,
                                           const smallvis_jssne_params *k)
{
    (void)shift;
    (void)k;
    return 1.0 / (1.0 + d2);
}

/* the Cauchy weight is its own slope, 1 / (1 + d2) */
static inline double smallvis_jssne_slope(double d2, double w, const smallvis_jssne_params *k)
{
    (void)d2;
    (void)k;
    return w;
}

static inline double smallvis_jssne_log_norm(double z, double shift,
                                             const smallvis_jssne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

/* log(q / z_mix), z_mix = (p + q) / 2; 0 at q = 0 */
static inline double smallvis_jssne_log_ratio(double p, double q)
{
    return q > 0.0 ? log(q / (0.5 * (p + q))) : 0.0;
}

static inline double smallvis_jssne_cost(double p, double d2, double shift, double z,
                                         double lz, const smallvis_jssne_params *k)
{
    const double w = smallvis_jssne_weight(d2, shift, k);
    const double q = w / z;
    const double mix = 0.5 * (p + q);
    const double p_term = p > 0.0 ? p * (log(p) - log(mix)) : 0.0;
    const double q_term = q > 0.0 ? q * (log(w) - lz - log(mix)) : 0.0;
    return 0.5 * (p_term + q_term);
}

static inline double smallvis_jssne_offset_term(double p, double q,
                                                const smallvis_jssne_params *k)
{
    (void)k;
    return q * smallvis_jssne_log_ratio(p, q);
}

static inline double smallvis_jssne_offset(double mass, double dual,
                                           const smallvis_jssne_params *k)
{
    (void)mass;
    (void)k;
    return 0.5 * dual;
}

static inline double smallvis_jssne_force(double p, double w, double z, double d2, double S,
                                          const smallvis_jssne_params *k)
{
    const double q = w / z;
    return q * (S - 0.5 * smallvis_jssne_log_ratio(p, q)) * smallvis_jssne_slope(d2, w, k);
}

#endif /* SMALLVIS_METHODS_JSSNE_H */
