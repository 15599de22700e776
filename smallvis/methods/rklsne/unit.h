/*
 * Reverse-KL SNE (Im et al. 2018), the C unit: the Cauchy weight
 * w = 1 / (1 + d2), normalised over all pairs, and the elementwise cost
 *     f(p, q) = q log(q / max(p, p_floor)),
 * with df/dq = l + 1, l = log q - log max(p, p_floor), whose constant drops
 * out of the force (q sums to 1; NumPy unit: methods/rklsne/unit.py, whose
 * docstrings hold the maths).  Its hooks of the normalised engine
 * (backends/_pairloops.h, "engine: normalised units"): shift 0 (the
 * Cauchy weight cannot underflow), weight w, slope w, log_norm log z;
 * cost, offset_term (q l), offset (S, the summed offset terms) and force
 * (q (S - l) s) below.  A term with q = 0 is 0, its limit.  The reverse
 * KL pieces (smallvis_rkl_*) serve the NeRV units too.  STRICT: the force
 * subtracts l from the summed offset, of terms of both signs.
 */
/* smallvis unit: normalised rklsne STRICT */
#ifndef SMALLVIS_METHODS_RKLSNE_H
#define SMALLVIS_METHODS_RKLSNE_H

#include "../common.h"

/* log q - log max(p, p_floor), 0 at q = 0 (a difference of logs: finite
 * for any positive floor) */
static inline double smallvis_rkl_log_ratio(double p, double q, double p_floor)
{
    return q > 0.0 ? log(q) - log(p > p_floor ? p : p_floor) : 0.0;
}

/* q (log q - log max(p, p_floor)) with log q given, 0 at q = 0 */
static inline double smallvis_rkl_cost(double p, double q, double log_q, double p_floor)
{
    return q > 0.0 ? q * (log_q - log(p > p_floor ? p : p_floor)) : 0.0;
}

typedef struct {
    double p_floor; /* the floor of P inside the log, > 0 */
} smallvis_rklsne_params;

static const char smallvis_rklsne_fields[] = "p_floor";
static inline void smallvis_rklsne_load_fields(const double *f, double n_others,
                                               smallvis_rklsne_params *k)
{
    (void)n_others;
    k->p_floor = f[0];
}

static inline double smallvis_rklsne_shift(double d2_min, const smallvis_rklsne_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_rklsne_weight(double d2, double shift,
                                            const smallvis_rklsne_params *k)
{
    (void)shift;
    (void)k;
    return 1.0 / (1.0 + d2);
}

/* the Cauchy weight is its own slope, 1 / (1 + d2) */
static inline double smallvis_rklsne_slope(double d2, double w, const smallvis_rklsne_params *k)
{
    (void)d2;
    (void)k;
    return w;
}

static inline double smallvis_rklsne_log_norm(double z, double shift,
                                              const smallvis_rklsne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_rklsne_cost(double p, double d2, double shift, double z,
                                          double lz, const smallvis_rklsne_params *k)
{
    const double w = smallvis_rklsne_weight(d2, shift, k);
    return smallvis_rkl_cost(p, w / z, log(w) - lz, k->p_floor);
}

static inline double smallvis_rklsne_offset_term(double p, double q,
                                                 const smallvis_rklsne_params *k)
{
    return q * smallvis_rkl_log_ratio(p, q, k->p_floor);
}

static inline double smallvis_rklsne_offset(double mass, double dual,
                                            const smallvis_rklsne_params *k)
{
    (void)mass;
    (void)k;
    return dual;
}

static inline double smallvis_rklsne_force(double p, double w, double z, double d2, double S,
                                           const smallvis_rklsne_params *k)
{
    const double q = w / z;
    return q * (S - smallvis_rkl_log_ratio(p, q, k->p_floor))
        * smallvis_rklsne_slope(d2, w, k);
}

#endif /* SMALLVIS_METHODS_RKLSNE_H */
