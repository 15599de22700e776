/*
 * smmds, the C unit: the squared-distance stress (r^2 - d2)^2 of each pair,
 * r the pair's input distance (the stored value), d2 its squared output
 * distance (NumPy unit: methods/smmds/unit.py).  No parameters, no
 * stochastic form.
 */
/* smallvis unit: pair smmds FUSED NO_SGD */
#ifndef SMALLVIS_METHODS_SMMDS_H
#define SMALLVIS_METHODS_SMMDS_H

#include "../common.h"

/* No parameters: a placeholder member keeps the struct standard C. */
typedef struct {
    char unused;
} smallvis_smmds_params;

/* c = df/dd2 = 2 (d2 - r^2).  No learned scalar. */
static inline double smallvis_smmds_c(double d2, double r, double ri, double rj,
                                      const smallvis_smmds_params *k, double *dq_sum)
{
    (void)ri;
    (void)rj;
    (void)k;
    (void)dq_sum;
    return 2.0 * (d2 - r * r);
}

/* f(0, d2) = d2^2: the term of a pair at input distance 0 */
static inline double smallvis_smmds_repulsion(double d2, double ri, double rj,
                                              const smallvis_smmds_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    return d2 * d2;
}

static inline double smallvis_smmds_repulsion_scale(const smallvis_smmds_params *k)
{
    (void)k;
    return 1.0;
}

/* f(r, d2) - f(0, d2) = r^2 (r^2 - 2 d2) */
static inline double smallvis_smmds_edge(double r, double d2, double ri, double rj,
                                         const smallvis_smmds_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    return r * r * (r * r - 2.0 * d2);
}

static inline double smallvis_smmds_row_value(double psum, ptrdiff_t n,
                                              const smallvis_smmds_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* c_sj = 2 c(d2_sj, r_sj) */
static inline double smallvis_smmds_transform_c(double d2, double r, double rr,
                                                const smallvis_smmds_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_smmds_c(d2, r, rr, rr, k, &unused);
}

/* The NumPy unit (SMMDSUnit) has no fields. */
static const char smallvis_smmds_fields[] = "";
static inline void smallvis_smmds_load(const double *f, double n_others,
                                       smallvis_smmds_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

#endif /* SMALLVIS_METHODS_SMMDS_H */
