/*
 * UMAP (McInnes et al. 2018), the C unit: w = 1 / (1 + a d2^b) and the
 * fuzzy cross-entropy
 *     sum_{ij} v_ij log(v_ij / w_ij) + (1 - v_ij) log((1 - v_ij) / (1 - w_ij))
 * (docs/theory.md; NumPy unit: methods/umap/unit.py).
 */
/* smallvis unit: pair umap UMAP_TWO_PASS PLAIN */
#ifndef SMALLVIS_METHODS_UMAP_H
#define SMALLVIS_METHODS_UMAP_H

#include "../common.h"

/* a, b: the output weight's shape; eps: softening of 1 / d2 in the exact
 * gradient; gamma: repulsion weight of the stochastic loop (the exact cost
 * has none). */
typedef struct {
    double a, b, eps, gamma;
} smallvis_umap_params;

/* u = a d2^b, the weight being w = 1 / (1 + u) (0 for coincident points) */
static inline double smallvis_umap_u(double d2, const smallvis_umap_params *k)
{
    return d2 > 0.0 ? k->a * SMALLVIS_POW_POS(d2, k->b) : 0.0;
}

/* c = b (v - w) / (d2 + eps), w = 1 / (1 + a d2b), with d2b = d2^b given
 * (UMAP's two-pass 2-D row computes it in a pass of its own). */
static inline double smallvis_umap_c_of_d2b(double d2, double d2b, double p,
                                            const smallvis_umap_params *k)
{
    return k->b * (p - smallvis_power_w(d2b, k->a)) / (d2 + k->eps);
}

/* c = b (v - w) / (d2 + eps): the pair adds 4 c (y_i - y_j) to the
 * gradient of y_i.  No learned scalar. */
static inline double smallvis_umap_c(double d2, double p, double ri, double rj,
                                     const smallvis_umap_params *k, double *dq_sum)
{
    (void)ri;
    (void)rj;
    (void)dq_sum;
    return smallvis_umap_c_of_d2b(d2, SMALLVIS_POW_POS(d2 > 0.0 ? d2 : 1.0, k->b), p, k);
}

/* -log(1 - w) = log(1 + u) - log(u) */
static inline double smallvis_umap_repulsion(double d2, double ri, double rj,
                                             const smallvis_umap_params *k)
{
    (void)ri;
    (void)rj;
    return smallvis_fuzzy_repulsion(smallvis_umap_u(d2, k));
}

static inline double smallvis_umap_repulsion_scale(const smallvis_umap_params *k)
{
    (void)k;
    return 1.0;
}

/* v log v + (1 - v) log(1 - v) + v log u */
static inline double smallvis_umap_edge(double v, double d2, double ri, double rj,
                                        const smallvis_umap_params *k)
{
    (void)ri;
    (void)rj;
    return smallvis_fuzzy_edge(v, smallvis_umap_u(d2, k));
}

static inline double smallvis_umap_row_value(double psum, ptrdiff_t n,
                                             const smallvis_umap_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* c_sj = 2 c(d2_sj, v_sj) */
static inline double smallvis_umap_transform_c(double d2, double p, double r,
                                               const smallvis_umap_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_umap_c(d2, p, r, r, k, &unused);
}

/* The stochastic loop (umap-learn).  Attraction of a positive sample,
 *     c_a = -2 a b d^{2(b-1)} / (1 + a d^{2b})   (0 at d2 = 0),
 * repulsion of a negative sample,
 *     c_r = 2 gamma b / ((eps + d2) (1 + a d^{2b})).
 * No learned scalar. */
static inline double smallvis_umap_sgd_attract(const smallvis_umap_params *k, double d2)
{
    double d2b;
    if (d2 <= 0.0)
        return 0.0;
    d2b = smallvis_sgd_pow(d2, k->b);
    return -2.0 * k->a * k->b * (d2b / d2) / (1.0 + k->a * d2b);
}

static inline double smallvis_umap_sgd_repel(const smallvis_umap_params *k, double d2)
{
    return 2.0 * k->gamma * k->b / ((k->eps + d2) * (1.0 + k->a * smallvis_sgd_pow(d2, k->b)));
}

/* The fields of the NumPy unit (UMAP), in order, into the struct;
 * n_others (the points a point is compared with) is unused. */
static const char smallvis_umap_fields[] = "a b eps gamma";
static inline void smallvis_umap_load(const double *f, double n_others,
                                      smallvis_umap_params *k)
{
    (void)n_others;
    k->a = f[0];
    k->b = f[1];
    k->eps = f[2];
    k->gamma = f[3];
}

#endif /* SMALLVIS_METHODS_UMAP_H */
