/*
 * Cross-entropy t-SNE, the C unit: the Cauchy weight w = 1 / (1 + d2),
 * normalised over all pairs, and the elementwise cost
 *     f(p, q) = p log(p / q) + (1 - p) log((1 - p) / (1 - q))
 * (NumPy unit: methods/cetsne/unit.py, whose docstrings hold the maths).
 * Its hooks of the normalised engine (backends/_pairloops.h, "engine:
 * normalised units"): shift 0 (the Cauchy weight cannot underflow),
 * weight w, slope w, log_norm log z; cost, offset_term ((q - p) / (1 - q)),
 * offset (S, the summed offset terms) and force
 * ((p - q) / (1 - q) + S q) s below.  STRICT: near a good fit the force
 * is a difference of nearly equal terms.
 */
/* smallvis unit: normalised cetsne STRICT */
#ifndef SMALLVIS_METHODS_CETSNE_H
#define SMALLVIS_METHODS_CETSNE_H

#include "../common.h"

/* no parameters */
typedef struct {
    char unused;
} smallvis_cetsne_params;

static const char smallvis_cetsne_fields[] = "";
static inline void smallvis_cetsne_load_fields(const double *f, double n_others,
                                               smallvis_cetsne_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

static inline double smallvis_cetsne_shift(double d2_min, const smallvis_cetsne_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_cetsne_weight(double d2, double shift,
                                            const smallvis_cetsne_params *k)
{
    (void)shift;
    (void)k;
    return 1.0 / (1.0 + d2);
}

/* the Cauchy weight is its own slope, 1 / (1 + d2) */
static inline double smallvis_cetsne_slope(double d2, double w, const smallvis_cetsne_params *k)
{
    (void)d2;
    (void)k;
    return w;
}

static inline double smallvis_cetsne_log_norm(double z, double shift,
                                              const smallvis_cetsne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

/* p (log p - log q) + (1 - p) (log(1 - p) - log(1 - q)), log q = -log1p(d2) - lz */
static inline double smallvis_cetsne_cost(double p, double d2, double shift, double z,
                                          double lz, const smallvis_cetsne_params *k)
{
    const double q = smallvis_cetsne_weight(d2, shift, k) / z;
    const double attract = p > 0.0 ? p * (log(p) + log1p(d2) + lz) : 0.0;
    return attract + smallvis_xlogx(1.0 - p) - (1.0 - p) * log1p(-q);
}

static inline double smallvis_cetsne_offset_term(double p, double q,
                                                 const smallvis_cetsne_params *k)
{
    (void)k;
    return (q - p) / (1.0 - q);
}

static inline double smallvis_cetsne_offset(double mass, double dual,
                                            const smallvis_cetsne_params *k)
{
    (void)mass;
    (void)k;
    return dual;
}

static inline double smallvis_cetsne_force(double p, double w, double z, double d2, double S,
                                           const smallvis_cetsne_params *k)
{
    const double q = w / z;
    return ((p - q) / (1.0 - q) + S * q) * smallvis_cetsne_slope(d2, w, k);
}

#endif /* SMALLVIS_METHODS_CETSNE_H */
