/*
 * t-distributed elastic embedding (R smallvis's tee), the C unit: the
 * Cauchy weight w = 1 / (1 + d2), with P summing to 1 (NumPy unit:
 * methods/tee/unit.py, whose docstrings hold the maths) the cost
 *     sum_{i != j} p log(N p) - lambda p + p log(1 + d2) + (lambda / N) w,
 * and the pair coefficient c = w (p - (lambda / N) w).
 */
/* smallvis unit: pair tee FUSED NO_SGD */
#ifndef SMALLVIS_METHODS_TEE_H
#define SMALLVIS_METHODS_TEE_H

#include "../common.h"

/* lam: lambda; inv_n: 1 / N (N = n_o + 1 for n_o other points: N - 1 in a
 * fit, the N training points for a new point), as TEEUnit.noise; log_inv_n
 * its log. */
typedef struct {
    double lam, inv_n, log_inv_n;
} smallvis_tee_params;

/* The fields of the NumPy unit (TEEUnit: lam), in order, into the struct. */
static const char smallvis_tee_fields[] = "lam";
static inline void smallvis_tee_load(const double *f, double n_others, smallvis_tee_params *k)
{
    k->lam = f[0];
    k->inv_n = 1.0 / (n_others + 1.0);
    k->log_inv_n = log(k->inv_n);
}

/* c_ij = w (p - lambda / N w): the pair adds 4 c_ij (y_i - y_j) to the
 * gradient of y_i.  ri, rj unused; no learned scalar. */
static inline double smallvis_tee_c(double d2, double p, double ri, double rj,
                                    const smallvis_tee_params *k, double *dq_sum)
{
    const double w = 1.0 / (1.0 + d2);
    (void)ri;
    (void)rj;
    (void)dq_sum;
    return w * (p - k->lam * k->inv_n * w);
}

/* The all-pairs term w; the engine multiplies the row's sum by lambda / N
 * (smallvis_tee_repulsion_scale). */
static inline double smallvis_tee_repulsion(double d2, double ri, double rj,
                                            const smallvis_tee_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    return 1.0 / (1.0 + d2);
}

static inline double smallvis_tee_repulsion_scale(const smallvis_tee_params *k)
{
    return k->lam * k->inv_n;
}

/* The stored-entry term p log(N p) - lambda p + p log(1 + d2), 0 at p = 0. */
static inline double smallvis_tee_edge(double p, double d2, double ri, double rj,
                                       const smallvis_tee_params *k)
{
    (void)ri;
    (void)rj;
    if (!(p > 0.0))
        return 0.0;
    return p * (log(p) - k->log_inv_n) - k->lam * p + p * log1p(d2);
}

/* A new point's per-point value: none (1 / N is in the parameters). */
static inline double smallvis_tee_row_value(double psum, ptrdiff_t n,
                                            const smallvis_tee_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* Transform row: c_sj = 2 c(d2_sj, p_sj). */
static inline double smallvis_tee_transform_c(double d2, double p, double r,
                                              const smallvis_tee_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_tee_c(d2, p, r, r, k, &unused);
}

#endif /* SMALLVIS_METHODS_TEE_H */
