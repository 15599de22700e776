/*
 * Pseudo-separable t-SNE (R smallvis's pstsne), the C unit: the
 * generalised KL divergence of P and q = e^{-Q} w, w = 1 / (1 + d2), with
 * the normaliser Z = e^Q held between the resets of the method's rule
 * (NumPy unit: methods/pstsne/unit.py, whose docstrings hold the maths):
 *     f(p, d2) = p log p + p (Q + log(1 + d2)) - p + e^{-Q} w.
 */
/* smallvis unit: pair pstsne NO_ROW_2D NO_SGD */
#ifndef SMALLVIS_METHODS_PSTSNE_H
#define SMALLVIS_METHODS_PSTSNE_H

#include "../common.h"

/* Q = log Z and e = exp(-Q). */
typedef struct {
    double q, e;
} smallvis_pstsne_params;

/* c = (p - e w) w; *dq_sum gets both ordered pairs' p - e w. */
static inline double smallvis_pstsne_c(double d2, double p, double ri, double rj,
                                       const smallvis_pstsne_params *k, double *dq_sum)
{
    const double w = 1.0 / (1.0 + d2);
    const double diff = p - k->e * w;
    (void)ri;
    (void)rj;
    *dq_sum += 2.0 * diff;
    return diff * w;
}

/* e^{-Q} w, every pair's term */
static inline double smallvis_pstsne_repulsion(double d2, double ri, double rj,
                                               const smallvis_pstsne_params *k)
{
    (void)ri;
    (void)rj;
    return k->e / (1.0 + d2);
}

static inline double smallvis_pstsne_repulsion_scale(const smallvis_pstsne_params *k)
{
    (void)k;
    return 1.0;
}

/* p log p + p (Q + log(1 + d2)) - p, a stored entry's term (p > 0) */
static inline double smallvis_pstsne_edge(double p, double d2, double ri, double rj,
                                          const smallvis_pstsne_params *k)
{
    (void)ri;
    (void)rj;
    return p * (log(p) + k->q + log1p(d2) - 1.0);
}

static inline double smallvis_pstsne_row_value(double psum, ptrdiff_t n,
                                               const smallvis_pstsne_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* c_sj = 2 c(d2_sj, p_sj) */
static inline double smallvis_pstsne_transform_c(double d2, double p, double r,
                                                 const smallvis_pstsne_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_pstsne_c(d2, p, r, r, k, &unused);
}

/* The fields of the NumPy unit (PSTSNE: Q), in order, into the struct. */
static const char smallvis_pstsne_fields[] = "Q";
static inline void smallvis_pstsne_load(const double *f, double n_others,
                                        smallvis_pstsne_params *k)
{
    (void)n_others;
    k->q = f[0];
    k->e = exp(-f[0]);
}

#endif /* SMALLVIS_METHODS_PSTSNE_H */
