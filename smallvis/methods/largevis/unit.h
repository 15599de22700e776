/*
 * LargeVis (Tang et al. 2016), the C unit: both output weights,
 *     largevis:      w = 1 / (1 + alpha d2),
 *     largevis_exp:  w = 1 / (1 + exp(d2)),
 * with the cost sum_{ij} -p_ij log w_ij - gamma sum_{ij} log(1 - w_ij)
 * (docs/theory.md; NumPy unit: methods/largevis/unit.py).
 * Every function is documented by its formula; the engines of
 * _pairloops.h and _sgd_kernels.pyx instantiate them.
 */
/* smallvis unit: pair largevis FUSED PLAIN */
/* smallvis unit: pair largevis_exp FUSED NO_SGD */
#ifndef SMALLVIS_METHODS_LARGEVIS_H
#define SMALLVIS_METHODS_LARGEVIS_H

#include "../common.h"

/* gamma: repulsion weight; eps: softening of the repulsive 1 / d2;
 * alpha: the Cauchy weight's scale (the stochastic loop uses alpha = 1). */
typedef struct {
    double gamma, eps, alpha;
} smallvis_largevis_params;

/* w = 1 / (1 + alpha d2) */
static inline double smallvis_largevis_w(double d2, const smallvis_largevis_params *k)
{
    return smallvis_cauchy(k->alpha * d2, 1.0);
}

/* c = alpha p w - gamma w / (d2 + eps): the pair adds 4 c (y_i - y_j) to
 * the gradient of y_i.  ri, rj (per-point values) are unused; no learned
 * scalar (*dq_sum, the sum of its derivative's terms, is left as it is). */
static inline double smallvis_largevis_c(double d2, double p, double ri, double rj,
                                         const smallvis_largevis_params *k, double *dq_sum)
{
    const double w = smallvis_largevis_w(d2, k);
    (void)ri;
    (void)rj;
    (void)dq_sum;
    return k->alpha * p * w - k->gamma * w / (d2 + k->eps);
}

/* The all-pairs term -log(1 - w) = log(1 + alpha d2) - log(alpha d2);
 * the engine multiplies the row's sum by smallvis_largevis_repulsion_scale. */
static inline double smallvis_largevis_repulsion(double d2, double ri, double rj,
                                                 const smallvis_largevis_params *k)
{
    (void)ri;
    (void)rj;
    return smallvis_fuzzy_repulsion(k->alpha * d2);
}

/* gamma */
static inline double smallvis_largevis_repulsion_scale(const smallvis_largevis_params *k)
{
    return k->gamma;
}

/* The stored-entry term -p log w = p log(1 + alpha d2). */
static inline double smallvis_largevis_edge(double p, double d2, double ri, double rj,
                                            const smallvis_largevis_params *k)
{
    (void)ri;
    (void)rj;
    return p * log1p(k->alpha * d2);
}

/* A new point's per-point value: none. */
static inline double smallvis_largevis_row_value(double psum, ptrdiff_t n,
                                                 const smallvis_largevis_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* Transform row (new point s, reference j): grad_s = sum_j c_sj (y_s - y_j)
 * with c_sj = 2 c(d2_sj, p_sj), the exact coefficient. */
static inline double smallvis_largevis_transform_c(double d2, double p, double r,
                                                   const smallvis_largevis_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_largevis_c(d2, p, r, r, k, &unused);
}

/* The stochastic loop (alpha = 1).  Attraction of a positive sample:
 *     c_a = -2 / (1 + d2),
 * repulsion of a negative sample:
 *     c_r = 2 gamma / ((eps + d2) (1 + d2));
 * the head moves by alpha_e c (y_i - y_other).  No learned scalar. */
static inline double smallvis_largevis_sgd_attract(const smallvis_largevis_params *k,
                                                   double d2)
{
    (void)k;
    return -2.0 / (1.0 + d2);
}

static inline double smallvis_largevis_sgd_repel(const smallvis_largevis_params *k,
                                                 double d2)
{
    return 2.0 * k->gamma / ((k->eps + d2) * (1.0 + d2));
}

/* The fields of the NumPy unit (LargeVis), in order, into the struct;
 * n_others (the points a point is compared with) is unused. */
static const char smallvis_largevis_fields[] = "gamma eps alpha";
static inline void smallvis_largevis_load(const double *f, double n_others,
                                          smallvis_largevis_params *k)
{
    (void)n_others;
    k->gamma = f[0];
    k->eps = f[1];
    k->alpha = f[2];
}

/* ---- exponential weight ------------------------------------------------ */

/* gamma: repulsion weight. */
typedef struct {
    double gamma;
} smallvis_largevis_exp_params;

/* w = 1 / (1 + exp(d2)) */
static inline double smallvis_largevis_exp_w(double d2)
{
    return 1.0 / (1.0 + exp(d2));
}

/* c = (1 - w) p - gamma w */
static inline double smallvis_largevis_exp_c(double d2, double p, double ri, double rj,
                                             const smallvis_largevis_exp_params *k,
                                             double *dq_sum)
{
    const double w = smallvis_largevis_exp_w(d2);
    (void)ri;
    (void)rj;
    (void)dq_sum;
    return (1.0 - w) * p - k->gamma * w;
}

/* -log(1 - w) = log(1 + exp(-d2)) */
static inline double smallvis_largevis_exp_repulsion(double d2, double ri, double rj,
                                                     const smallvis_largevis_exp_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    return log1p(exp(-d2));
}

/* gamma */
static inline double smallvis_largevis_exp_repulsion_scale(
    const smallvis_largevis_exp_params *k)
{
    return k->gamma;
}

/* -p log w = p (d2 + log(1 + exp(-d2))) */
static inline double smallvis_largevis_exp_edge(double p, double d2, double ri, double rj,
                                                const smallvis_largevis_exp_params *k)
{
    return p * (d2 + smallvis_largevis_exp_repulsion(d2, ri, rj, k));
}

static inline double smallvis_largevis_exp_row_value(double psum, ptrdiff_t n,
                                                     const smallvis_largevis_exp_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* c_sj = 2 c(d2_sj, p_sj) */
static inline double smallvis_largevis_exp_transform_c(
    double d2, double p, double r, const smallvis_largevis_exp_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_largevis_exp_c(d2, p, r, r, k, &unused);
}

/* The fields of the NumPy unit (LargeVisExp), in order, into the struct. */
static const char smallvis_largevis_exp_fields[] = "gamma";
static inline void smallvis_largevis_exp_load(const double *f, double n_others,
                                              smallvis_largevis_exp_params *k)
{
    (void)n_others;
    k->gamma = f[0];
}

#endif /* SMALLVIS_METHODS_LARGEVIS_H */
