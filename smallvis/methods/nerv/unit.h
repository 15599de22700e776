/*
 * NeRV (Venna et al. 2010; R smallvis's nerv), the C unit: the Gaussian
 * weight w = exp(-d2) normalised over each row, and the elementwise cost
 *     f(p, q) = lam p log(p / q) + (1 - lam) q log(q / max(p, p_floor)),
 * with df/dq = -lam p / q + (1 - lam) (l + 1), l = log q - log max(p,
 * p_floor); the constant 1 - lam cancels from the fit's force but not from
 * a new point's column, so it is kept (NumPy unit: methods/nerv/unit.py,
 * whose docstrings hold the maths).  Hooks of the normalised engine (backends/_pairloops.h,
 * "engine: normalised units"): asne's shift, weight and log_norm; cost;
 * offset_term (1 - lam) q (l + 1), offset S = -lam mass + the summed terms,
 * and force (lam p + q S - (1 - lam) q (l + 1)) with slope 1.  The reverse KL pieces
 * are rklsne's.  STRICT: the force subtracts l from the summed offset, of
 * terms of both signs.
 */
/* smallvis unit: normalised nerv STRICT */
#ifndef SMALLVIS_METHODS_NERV_H
#define SMALLVIS_METHODS_NERV_H

#include "../common.h"
#include "../rklsne/unit.h"

typedef struct {
    double lam;     /* the forward divergence's weight, in [0, 1] */
    double p_floor; /* the floor of P inside the reverse divergence's log, > 0 */
} smallvis_nerv_params;

static const char smallvis_nerv_fields[] = "lam p_floor";
static inline void smallvis_nerv_load_fields(const double *f, double n_others,
                                             smallvis_nerv_params *k)
{
    (void)n_others;
    k->lam = f[0];
    k->p_floor = f[1];
}

/* the row's smallest d2, so that its largest weight is 1 */
static inline double smallvis_nerv_shift(double d2_min, const smallvis_nerv_params *k)
{
    (void)k;
    return d2_min;
}

static inline double smallvis_nerv_weight(double d2, double shift,
                                          const smallvis_nerv_params *k)
{
    (void)k;
    return exp(-(d2 - shift));
}

static inline double smallvis_nerv_log_norm(double z, double shift,
                                            const smallvis_nerv_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_nerv_cost(double p, double d2, double shift, double z,
                                        double lz, const smallvis_nerv_params *k)
{
    const double log_q = -(d2 - shift) - lz;
    const double fwd = p > 0.0 ? p * (log(p) - log_q) : 0.0;
    return k->lam * fwd
        + (1.0 - k->lam) * smallvis_rkl_cost(p, exp(-(d2 - shift)) / z, log_q, k->p_floor);
}

static inline double smallvis_nerv_offset_term(double p, double q,
                                               const smallvis_nerv_params *k)
{
    return q > 0.0 ? (1.0 - k->lam) * q * (smallvis_rkl_log_ratio(p, q, k->p_floor) + 1.0)
                   : 0.0;
}

static inline double smallvis_nerv_offset(double mass, double dual,
                                          const smallvis_nerv_params *k)
{
    return -k->lam * mass + dual;
}

static inline double smallvis_nerv_force(double p, double w, double z, double d2, double S,
                                         const smallvis_nerv_params *k)
{
    const double q = w / z;
    (void)d2;
    return k->lam * p + q * S
        - (1.0 - k->lam) * q * (smallvis_rkl_log_ratio(p, q, k->p_floor) + 1.0);
}

#endif /* SMALLVIS_METHODS_NERV_H */
