/*
 * Jensen-Shannon embedding (Lee et al. 2013), the C unit: the Gaussian
 * weight of asne/unit.h, normalised over each row, and the elementwise cost
 *     f(p, q) = p log(p / z) / (1 - kappa) + q log(q / z) / kappa,
 *     z = kappa p + (1 - kappa) q,
 * with df/dq = log(q / z) / kappa (NumPy unit: methods/jse/unit.py, whose
 * docstrings hold the maths).  Its hooks of the normalised engine
 * (backends/_pairloops.h, "engine: normalised units"): asne's shift,
 * weight, slope and log_norm; cost, offset_term (q df/dq), offset (S, the
 * summed offset terms) and force (q (S - df/dq) s) below.  A term with
 * q = 0 is 0, its limit.
 */
/* smallvis unit: normalised jse STRICT */
#ifndef SMALLVIS_METHODS_JSE_H
#define SMALLVIS_METHODS_JSE_H

#include "../asne/unit.h"

typedef struct {
    double kappa; /* the weight of P in the mixture, 0 < kappa < 1 */
} smallvis_jse_params;

static const char smallvis_jse_fields[] = "kappa";
static inline void smallvis_jse_load_fields(const double *f, double n_others,
                                            smallvis_jse_params *k)
{
    (void)n_others;
    k->kappa = f[0];
}

static inline double smallvis_jse_shift(double d2_min, const smallvis_jse_params *k)
{
    (void)k;
    return d2_min;
}

static inline double smallvis_jse_weight(double d2, double shift, const smallvis_jse_params *k)
{
    (void)k;
    return smallvis_asne_w(d2, shift);
}

static inline double smallvis_jse_slope(double d2, double w, const smallvis_jse_params *k)
{
    (void)d2;
    (void)w;
    (void)k;
    return 1.0;
}

static inline double smallvis_jse_log_norm(double z, double shift, const smallvis_jse_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

/* q log(q / z_mix), 0 at q = 0 */
static inline double smallvis_jse_q_log_ratio(double p, double q, const smallvis_jse_params *k)
{
    return q > 0.0 ? q * log(q / (k->kappa * p + (1.0 - k->kappa) * q)) : 0.0;
}

static inline double smallvis_jse_cost(double p, double d2, double shift, double z, double lz,
                                       const smallvis_jse_params *k)
{
    const double log_q = -(d2 - shift) - lz;
    const double q = exp(-(d2 - shift)) / z;
    const double mix = k->kappa * p + (1.0 - k->kappa) * q;
    const double p_term = p > 0.0 ? p * (log(p) - log(mix)) : 0.0;
    const double q_term = q > 0.0 ? q * (log_q - log(mix)) : 0.0;
    return p_term / (1.0 - k->kappa) + q_term / k->kappa;
}

static inline double smallvis_jse_offset_term(double p, double q, const smallvis_jse_params *k)
{
    return smallvis_jse_q_log_ratio(p, q, k);
}

static inline double smallvis_jse_offset(double mass, double dual, const smallvis_jse_params *k)
{
    (void)mass;
    return dual / k->kappa;
}

static inline double smallvis_jse_force(double p, double w, double z, double d2, double S,
                                        const smallvis_jse_params *k)
{
    const double q = w / z;
    const double log_ratio = q > 0.0 ? log(q / (k->kappa * p + (1.0 - k->kappa) * q)) : 0.0;
    return q * (S - log_ratio / k->kappa) * smallvis_jse_slope(d2, w, k);
}

#endif /* SMALLVIS_METHODS_JSE_H */
