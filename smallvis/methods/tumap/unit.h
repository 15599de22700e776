/*
 * t-UMAP, the C unit: UMAP's fuzzy cross-entropy with the Cauchy weight
 * w = 1 / (1 + d2) (a = b = 1; docs/theory.md; NumPy unit: methods/tumap/unit.py).
 * Its stochastic loop is UMAP's with a = b = 1.
 */
/* smallvis unit: pair tumap FUSED NO_SGD */
#ifndef SMALLVIS_METHODS_TUMAP_H
#define SMALLVIS_METHODS_TUMAP_H

#include "../common.h"

/* eps: softening of 1 - w in the exact gradient. */
typedef struct {
    double eps;
} smallvis_tumap_params;

/* c = (v - w) w / (1 - w + eps), with 1 - w = d2 w written without
 * cancellation.  No learned scalar. */
static inline double smallvis_tumap_c(double d2, double p, double ri, double rj,
                                      const smallvis_tumap_params *k, double *dq_sum)
{
    const double w = smallvis_cauchy(d2, 1.0);
    (void)ri;
    (void)rj;
    (void)dq_sum;
    return (p - w) * w / (d2 * w + k->eps);
}

/* -log(1 - w) = log(1 + d2) - log(d2) */
static inline double smallvis_tumap_repulsion(double d2, double ri, double rj,
                                              const smallvis_tumap_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    return smallvis_fuzzy_repulsion(d2);
}

static inline double smallvis_tumap_repulsion_scale(const smallvis_tumap_params *k)
{
    (void)k;
    return 1.0;
}

/* v log v + (1 - v) log(1 - v) + v log d2 */
static inline double smallvis_tumap_edge(double v, double d2, double ri, double rj,
                                         const smallvis_tumap_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    return smallvis_fuzzy_edge(v, d2);
}

static inline double smallvis_tumap_row_value(double psum, ptrdiff_t n,
                                              const smallvis_tumap_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* c_sj = 2 c(d2_sj, v_sj) */
static inline double smallvis_tumap_transform_c(double d2, double p, double r,
                                                const smallvis_tumap_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_tumap_c(d2, p, r, r, k, &unused);
}

/* The fields of the NumPy unit (TUMAP), in order, into the struct. */
static const char smallvis_tumap_fields[] = "eps";
static inline void smallvis_tumap_load(const double *f, double n_others,
                                       smallvis_tumap_params *k)
{
    (void)n_others;
    k->eps = f[0];
}

#endif /* SMALLVIS_METHODS_TUMAP_H */
