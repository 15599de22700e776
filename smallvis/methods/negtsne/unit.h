/*
 * Neg-t-SNE (Damrich et al. 2023), the C unit: negative sampling with a
 * fixed normalisation Z-bar (docs/theory.md §3.10; NumPy unit:
 * methods/negtsne/unit.py).  With phi = 1 / (1 + d2), m negatives per positive
 * sample, xi = 1 / (N (N - 1)) and the per-pair constant c = Z-bar m xi,
 * the cost is
 *     sum_{i != j} p_ij log(1 + c (1 + d2)) + gamma log(1 + 1 / (c (1 + d2))),
 * gamma = m xi.
 */
/* smallvis unit: pair negtsne FUSED PLAIN */
#ifndef SMALLVIS_METHODS_NEGTSNE_H
#define SMALLVIS_METHODS_NEGTSNE_H

#include "../common.h"

/* c = Z-bar m xi, the per-pair constant; gamma = m xi, the repulsion
 * weight of every pair (xi = 1 / (n_o (n_o + 1)) for n_o other points:
 * N - 1 in a fit, the N training points for a new point). */
typedef struct {
    double c, gamma;
} smallvis_negtsne_params;

/* The fields of the NumPy unit (NegTSNEUnit: z_bar, m), in order, into the
 * struct, with the same operations as NegTSNEUnit.noise and NegTSNEUnit.sgd_unit. */
static const char smallvis_negtsne_fields[] = "z_bar m";
static inline void smallvis_negtsne_load(const double *f, double n_others,
                                         smallvis_negtsne_params *k)
{
    k->gamma = f[1] / (n_others * (n_others + 1.0));
    k->c = f[0] * k->gamma;
}

/* c_ij = phi (c p - gamma phi) / (phi + c): the pair adds 4 c_ij (y_i - y_j)
 * to the gradient of y_i.  ri, rj unused; no learned scalar. */
static inline double smallvis_negtsne_c(double d2, double p, double ri, double rj,
                                        const smallvis_negtsne_params *k, double *dq_sum)
{
    const double phi = smallvis_cauchy(d2, 1.0);
    (void)ri;
    (void)rj;
    (void)dq_sum;
    return phi * (k->c * p - k->gamma * phi) / (phi + k->c);
}

/* The all-pairs term log(1 + 1 / (c (1 + d2))); the engine multiplies the
 * row's sum by gamma (smallvis_negtsne_repulsion_scale). */
static inline double smallvis_negtsne_repulsion(double d2, double ri, double rj,
                                                const smallvis_negtsne_params *k)
{
    (void)ri;
    (void)rj;
    return log1p(1.0 / (k->c * (1.0 + d2)));
}

/* gamma */
static inline double smallvis_negtsne_repulsion_scale(const smallvis_negtsne_params *k)
{
    return k->gamma;
}

/* The stored-entry term p log(1 + c (1 + d2)). */
static inline double smallvis_negtsne_edge(double p, double d2, double ri, double rj,
                                           const smallvis_negtsne_params *k)
{
    (void)ri;
    (void)rj;
    return p * log1p(k->c * (1.0 + d2));
}

/* A new point's per-point value: none (gamma is in the parameters). */
static inline double smallvis_negtsne_row_value(double psum, ptrdiff_t n,
                                                const smallvis_negtsne_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* Transform row: c_sj = 2 c(d2_sj, p_sj). */
static inline double smallvis_negtsne_transform_c(double d2, double p, double r,
                                                  const smallvis_negtsne_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_negtsne_c(d2, p, r, r, k, &unused);
}

/* The stochastic loop.  Attraction of a positive sample (descent on
 * log(1 + c (1 + d2))):
 *     c_a = -2 c / (1 + c (1 + d2)),
 * repulsion of a negative sample (descent on log(1 + 1 / (c (1 + d2)))):
 *     c_r = 2 / ((1 + d2) (1 + c (1 + d2)));
 * the head moves by alpha_e c (y_i - y_other).  No learned scalar. */
static inline double smallvis_negtsne_sgd_attract(const smallvis_negtsne_params *k,
                                                  double d2)
{
    return -2.0 * k->c / (1.0 + k->c * (1.0 + d2));
}

static inline double smallvis_negtsne_sgd_repel(const smallvis_negtsne_params *k,
                                                double d2)
{
    return 2.0 / ((1.0 + d2) * (1.0 + k->c * (1.0 + d2)));
}

#endif /* SMALLVIS_METHODS_NEGTSNE_H */
