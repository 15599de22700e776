/*
 * mmds, the C unit: metric MDS, the raw stress (r - d)^2 of each pair,
 * r the pair's input distance (the stored value), d its output distance
 * (NumPy unit: methods/mmds/unit.py).  No parameters, no stochastic form.
 */
/* smallvis unit: pair mmds FUSED NO_SGD */
#ifndef SMALLVIS_METHODS_MMDS_H
#define SMALLVIS_METHODS_MMDS_H

#include "../common.h"

/* No parameters: a placeholder member keeps the struct standard C. */
typedef struct {
    char unused;
} smallvis_mmds_params;

/* c = df/dd2 = 1 - r / d.  No learned scalar. */
static inline double smallvis_mmds_c(double d2, double r, double ri, double rj,
                                     const smallvis_mmds_params *k, double *dq_sum)
{
    (void)ri;
    (void)rj;
    (void)k;
    (void)dq_sum;
    return 1.0 - r / sqrt(d2);
}

/* f(0, d2) = d2: the term of a pair at input distance 0 */
static inline double smallvis_mmds_repulsion(double d2, double ri, double rj,
                                             const smallvis_mmds_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    return d2;
}

static inline double smallvis_mmds_repulsion_scale(const smallvis_mmds_params *k)
{
    (void)k;
    return 1.0;
}

/* f(r, d2) - f(0, d2) = r (r - 2 d) */
static inline double smallvis_mmds_edge(double r, double d2, double ri, double rj,
                                        const smallvis_mmds_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    return r * (r - 2.0 * sqrt(d2));
}

static inline double smallvis_mmds_row_value(double psum, ptrdiff_t n,
                                             const smallvis_mmds_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* c_sj = 2 c(d2_sj, r_sj) */
static inline double smallvis_mmds_transform_c(double d2, double r, double rr,
                                               const smallvis_mmds_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_mmds_c(d2, r, rr, rr, k, &unused);
}

/* The NumPy unit (MMDSUnit) has no fields. */
static const char smallvis_mmds_fields[] = "";
static inline void smallvis_mmds_load(const double *f, double n_others,
                                      smallvis_mmds_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

#endif /* SMALLVIS_METHODS_MMDS_H */
