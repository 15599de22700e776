/*
 * Elastic embedding (R smallvis's ee), the C units: its two parts, each a
 * pair unit with the Gaussian weight w = exp(-d2) (NumPy units:
 * methods/ee/unit.py, whose docstrings hold the maths).  The attraction
 * runs on P, the repulsion on the second per-pair input v- (the engine of
 * two-input units, backends/_second_input.pxi, adds lambda times it):
 *     attraction  f = p d2,        c = p;
 *     repulsion   f = v exp(-d2),  c = -v exp(-d2).
 * Neither has an all-pairs term: every term is a stored entry's.
 */
/* smallvis unit: pair ee_attraction FUSED NO_SGD */
/* smallvis unit: pair ee_repulsion FUSED NO_SGD */
#ifndef SMALLVIS_METHODS_EE_H
#define SMALLVIS_METHODS_EE_H

#include "../common.h"

/* no parameters: lambda multiplies the repulsion's part in the engine; both
 * parts load the same empty struct */
typedef struct {
    char unused;
} smallvis_ee_params;

typedef smallvis_ee_params smallvis_ee_attraction_params;

static const char smallvis_ee_attraction_fields[] = "";
static inline void smallvis_ee_attraction_load(const double *f, double n_others,
                                               smallvis_ee_attraction_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

/* c_ij = p: the pair adds 4 p (y_i - y_j) to the gradient of y_i. */
static inline double smallvis_ee_attraction_c(double d2, double p, double ri, double rj,
                                              const smallvis_ee_attraction_params *k,
                                              double *dq_sum)
{
    (void)d2;
    (void)ri;
    (void)rj;
    (void)k;
    (void)dq_sum;
    return p;
}

static inline double smallvis_ee_attraction_repulsion(double d2, double ri, double rj,
                                                      const smallvis_ee_attraction_params *k)
{
    (void)d2;
    (void)ri;
    (void)rj;
    (void)k;
    return 0.0;
}

static inline double smallvis_ee_attraction_repulsion_scale(
    const smallvis_ee_attraction_params *k)
{
    (void)k;
    return 0.0;
}

/* The stored-entry term p d2. */
static inline double smallvis_ee_attraction_edge(double p, double d2, double ri, double rj,
                                                 const smallvis_ee_attraction_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    return p * d2;
}

static inline double smallvis_ee_attraction_row_value(double psum, ptrdiff_t n,
                                                      const smallvis_ee_attraction_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* Transform row: c_sj = 2 c(d2_sj, p_sj). */
static inline double smallvis_ee_attraction_transform_c(double d2, double p, double r,
                                                        const smallvis_ee_attraction_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_ee_attraction_c(d2, p, r, r, k, &unused);
}

typedef smallvis_ee_params smallvis_ee_repulsion_params;

static const char smallvis_ee_repulsion_fields[] = "";
static inline void smallvis_ee_repulsion_load(const double *f, double n_others,
                                              smallvis_ee_repulsion_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

/* c_ij = -v exp(-d2), v the stored weight in the place of p. */
static inline double smallvis_ee_repulsion_c(double d2, double p, double ri, double rj,
                                             const smallvis_ee_repulsion_params *k,
                                             double *dq_sum)
{
    (void)ri;
    (void)rj;
    (void)k;
    (void)dq_sum;
    return -p * exp(-d2);
}

static inline double smallvis_ee_repulsion_repulsion(double d2, double ri, double rj,
                                                     const smallvis_ee_repulsion_params *k)
{
    (void)d2;
    (void)ri;
    (void)rj;
    (void)k;
    return 0.0;
}

static inline double smallvis_ee_repulsion_repulsion_scale(const smallvis_ee_repulsion_params *k)
{
    (void)k;
    return 0.0;
}

/* The stored-entry term v exp(-d2). */
static inline double smallvis_ee_repulsion_edge(double p, double d2, double ri, double rj,
                                                const smallvis_ee_repulsion_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    return p * exp(-d2);
}

static inline double smallvis_ee_repulsion_row_value(double psum, ptrdiff_t n,
                                                     const smallvis_ee_repulsion_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

static inline double smallvis_ee_repulsion_transform_c(double d2, double p, double r,
                                                       const smallvis_ee_repulsion_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_ee_repulsion_c(d2, p, r, r, k, &unused);
}

#endif /* SMALLVIS_METHODS_EE_H */
