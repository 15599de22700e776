/*
 * Chi-squared SNE (Im et al. 2018), the C unit: the Cauchy weight
 * w = 1 / (1 + d2), normalised over all pairs, and the elementwise cost
 *     f(p, q) = (p - q)^2 / q,
 * whose force needs only the derivative of p^2 / q, -p^2 / q^2 (q sums to
 * 1, so the linear terms cancel; NumPy unit: methods/chsne/unit.py, whose
 * docstrings hold the maths).  Its hooks of the normalised engine
 * (backends/_pairloops.h, "engine: normalised units"): shift 0 (the
 * Cauchy weight cannot underflow), weight w, slope w, log_norm log z;
 * cost, offset_term (-p^2 / q), offset (S, the summed offset terms) and
 * force ((p^2 / q + S q) s) below.  A term with q = 0 (the diagonal) is
 * 0.  STRICT: at a good fit the force is a difference of nearly equal
 * terms.
 */
/* smallvis unit: normalised chsne STRICT */
#ifndef SMALLVIS_METHODS_CHSNE_H
#define SMALLVIS_METHODS_CHSNE_H

#include "../common.h"

/* no parameters */
typedef struct {
    char unused;
} smallvis_chsne_params;

static const char smallvis_chsne_fields[] = "";
static inline void smallvis_chsne_load_fields(const double *f, double n_others,
                                              smallvis_chsne_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

static inline double smallvis_chsne_shift(double d2_min, const smallvis_chsne_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_chsne_weight(double d2, double shift,
                                           const smallvis_chsne_params *k)
{
    (void)shift;
    (void)k;
    return 1.0 / (1.0 + d2);
}

/* the Cauchy weight is its own slope, 1 / (1 + d2) */
static inline double smallvis_chsne_slope(double d2, double w, const smallvis_chsne_params *k)
{
    (void)d2;
    (void)k;
    return w;
}

static inline double smallvis_chsne_log_norm(double z, double shift,
                                             const smallvis_chsne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

/* p^2 / q, 0 at q = 0 (the diagonal, where p = 0 too) */
static inline double smallvis_chsne_p2_over_q(double p, double q)
{
    return q > 0.0 ? p * p / q : 0.0;
}

static inline double smallvis_chsne_cost(double p, double d2, double shift, double z,
                                         double lz, const smallvis_chsne_params *k)
{
    (void)lz;
    const double q = smallvis_chsne_weight(d2, shift, k) / z;
    const double diff = p - q;
    return q > 0.0 ? diff * diff / q : 0.0;
}

static inline double smallvis_chsne_offset_term(double p, double q,
                                                const smallvis_chsne_params *k)
{
    (void)k;
    return -smallvis_chsne_p2_over_q(p, q);
}

static inline double smallvis_chsne_offset(double mass, double dual,
                                           const smallvis_chsne_params *k)
{
    (void)mass;
    (void)k;
    return dual;
}

static inline double smallvis_chsne_force(double p, double w, double z, double d2, double S,
                                          const smallvis_chsne_params *k)
{
    const double q = w / z;
    return (smallvis_chsne_p2_over_q(p, q) + S * q) * smallvis_chsne_slope(d2, w, k);
}

#endif /* SMALLVIS_METHODS_CHSNE_H */
