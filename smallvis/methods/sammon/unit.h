/*
 * sammon, the C unit: Sammon's stress (r - d)^2 / r of each pair, r > 0
 * the pair's input distance (the stored value), d its output distance; a
 * pair at input distance 0 has no term (NumPy unit: methods/sammon/unit.py).
 * No parameters, no stochastic form.
 */
/* smallvis unit: pair sammon FUSED NO_SGD */
#ifndef SMALLVIS_METHODS_SAMMON_H
#define SMALLVIS_METHODS_SAMMON_H

#include "../common.h"

/* No parameters: a placeholder member keeps the struct standard C. */
typedef struct {
    char unused;
} smallvis_sammon_params;

/* c = df/dd2 = (d - r) / (r d), written without the cancellation of
 * 1/r - 1/d; 0 for r = 0.  No learned scalar. */
static inline double smallvis_sammon_c(double d2, double r, double ri, double rj,
                                       const smallvis_sammon_params *k, double *dq_sum)
{
    (void)ri;
    (void)rj;
    (void)k;
    (void)dq_sum;
    const double d = sqrt(d2);
    return r > 0.0 ? (d - r) / (r * d) : 0.0;
}

/* f(0, d2) = 0: a pair at input distance 0 has no term */
static inline double smallvis_sammon_repulsion(double d2, double ri, double rj,
                                               const smallvis_sammon_params *k)
{
    (void)d2;
    (void)ri;
    (void)rj;
    (void)k;
    return 0.0;
}

static inline double smallvis_sammon_repulsion_scale(const smallvis_sammon_params *k)
{
    (void)k;
    return 1.0;
}

/* f(r, d2) = (r - d)^2 / r, for a stored r > 0 */
static inline double smallvis_sammon_edge(double r, double d2, double ri, double rj,
                                          const smallvis_sammon_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    const double e = r - sqrt(d2);
    return e * e / r;
}

static inline double smallvis_sammon_row_value(double psum, ptrdiff_t n,
                                               const smallvis_sammon_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* c_sj = 2 c(d2_sj, r_sj) */
static inline double smallvis_sammon_transform_c(double d2, double r, double rr,
                                                 const smallvis_sammon_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_sammon_c(d2, r, rr, rr, k, &unused);
}

/* The NumPy unit (SammonUnit) has no fields. */
static const char smallvis_sammon_fields[] = "";
static inline void smallvis_sammon_load(const double *f, double n_others,
                                        smallvis_sammon_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

#endif /* SMALLVIS_METHODS_SAMMON_H */
