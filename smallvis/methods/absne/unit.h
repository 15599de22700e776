/*
 * The alpha-beta divergence (Cichocki, Cruces & Amari 2011), the C unit of
 * absne: the Cauchy weight w = 1 / (1 + d2), normalised over all pairs, and
 * the elementwise cost, lambda = alpha + beta,
 *     f(p, q) = (alpha p^lambda + beta q^lambda - lambda p^alpha q^beta)
 *               / (alpha beta lambda)                          (beta != 0),
 *     f(p, q) = (p^alpha log(p^alpha / q^alpha) - p^alpha + q^alpha)
 *               / alpha^2                                      (beta = 0),
 * with q df/dq = (q^lambda - p^alpha q^beta) / alpha (NumPy unit:
 * methods/absne/unit.py, whose docstrings hold the maths).  Its hooks of
 * the normalised engine (backends/_pairloops.h, "engine: normalised
 * units"): shift 0, weight w, slope w, log_norm log z; cost, offset_term
 * (q df/dq), offset (S, the summed offset terms) and force ((q S - q df/dq)
 * s) below.  A pair with p = 0 has no cross term (alpha > 0), so it costs
 * q^lambda / (alpha lambda).  STRICT: at a good fit the force is a
 * difference of nearly equal terms.  The abssne unit (abssne/unit.h) takes
 * the maths here with the Gaussian weight.
 */
/* smallvis unit: normalised absne STRICT */
#ifndef SMALLVIS_METHODS_ABSNE_H
#define SMALLVIS_METHODS_ABSNE_H

#include "../common.h"

typedef struct {
    double alpha; /* alpha > 0 */
    double beta;  /* beta > -alpha */
} smallvis_absne_params;

static const char smallvis_absne_fields[] = "alpha beta";
static inline void smallvis_absne_load_fields(const double *f, double n_others,
                                              smallvis_absne_params *k)
{
    (void)n_others;
    k->alpha = f[0];
    k->beta = f[1];
}

/* f(p, q) from log q, for the Cauchy and the Gaussian weight alike */
static inline double smallvis_ab_cost(double p, double log_q, const smallvis_absne_params *k)
{
    const double alpha = k->alpha, beta = k->beta, lam = alpha + beta;
    if (!(p > 0.0))
        return exp(lam * log_q) / (alpha * lam);
    const double lp = log(p);
    if (beta == 0.0) {
        const double pa = exp(alpha * lp);
        return (alpha * pa * (lp - log_q) - pa + exp(alpha * log_q)) / (alpha * alpha);
    }
    return (alpha * exp(lam * lp) + beta * exp(lam * log_q)
            - lam * exp(alpha * lp + beta * log_q)) / (alpha * beta * lam);
}

/* x^e, with the exponents 1 and 0 (the KL divergence's alpha = 1, beta = 0,
 * the default) taken without pow: the same values (pow is exact there),
 * several times faster in the inner loop */
static inline double smallvis_ab_pow(double x, double e)
{
    return e == 1.0 ? x : (e == 0.0 ? 1.0 : pow(x, e));
}

/* q df/dq = (q^lambda - p^alpha q^beta) / alpha, no cross term at p = 0 */
static inline double smallvis_ab_q_dfdq(double p, double q, const smallvis_absne_params *k)
{
    const double cross = p > 0.0 ? smallvis_ab_pow(p, k->alpha) * smallvis_ab_pow(q, k->beta)
                                  : 0.0;
    return (smallvis_ab_pow(q, k->alpha + k->beta) - cross) / k->alpha;
}

static inline double smallvis_absne_shift(double d2_min, const smallvis_absne_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_absne_weight(double d2, double shift,
                                           const smallvis_absne_params *k)
{
    (void)shift;
    (void)k;
    return 1.0 / (1.0 + d2);
}

/* the Cauchy weight is its own slope, 1 / (1 + d2) */
static inline double smallvis_absne_slope(double d2, double w, const smallvis_absne_params *k)
{
    (void)d2;
    (void)k;
    return w;
}

static inline double smallvis_absne_log_norm(double z, double shift,
                                             const smallvis_absne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_absne_cost(double p, double d2, double shift, double z,
                                         double lz, const smallvis_absne_params *k)
{
    const double w = smallvis_absne_weight(d2, shift, k);
    return smallvis_ab_cost(p, log(w) - lz, k);
}

static inline double smallvis_absne_offset_term(double p, double q,
                                                const smallvis_absne_params *k)
{
    return smallvis_ab_q_dfdq(p, q, k);
}

static inline double smallvis_absne_offset(double mass, double dual,
                                           const smallvis_absne_params *k)
{
    (void)mass;
    (void)k;
    return dual;
}

static inline double smallvis_absne_force(double p, double w, double z, double d2, double S,
                                          const smallvis_absne_params *k)
{
    const double q = w / z;
    return (q * S - smallvis_ab_q_dfdq(p, q, k)) * smallvis_absne_slope(d2, w, k);
}

#endif /* SMALLVIS_METHODS_ABSNE_H */
