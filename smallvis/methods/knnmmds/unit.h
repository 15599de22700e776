/*
 * knnmmds, the C units: its two parts, each a pair unit of the output
 * distance d = sqrt(d2) (NumPy units: methods/knnmmds/unit.py, whose
 * docstrings hold the maths).  The part below runs on P (the input
 * distances r), the part above on the second per-pair input t (r inside a
 * neighbourhood, 0 outside; the engine of two-input units,
 * backends/_second_input.pxi, adds them):
 *     below  f = max(0, r - d)^2,          c = min(0, 1 - r / d);
 *     above  f = [t > 0] max(0, d - t)^2,  c = [t > 0] max(0, 1 - t / d).
 * Neither has an all-pairs term: every term is a stored entry's.
 */
/* smallvis unit: pair knnmmds_below FUSED NO_SGD */
/* smallvis unit: pair knnmmds_above FUSED NO_SGD */
#ifndef SMALLVIS_METHODS_KNNMMDS_H
#define SMALLVIS_METHODS_KNNMMDS_H

#include "../common.h"

/* no parameters: both parts load the same empty struct */
typedef struct {
    char unused;
} smallvis_knnmmds_params;

typedef smallvis_knnmmds_params smallvis_knnmmds_below_params;

static const char smallvis_knnmmds_below_fields[] = "";
static inline void smallvis_knnmmds_below_load(const double *f, double n_others,
                                      smallvis_knnmmds_below_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

/* c = min(0, 1 - r / d): only a pair nearer than r is pushed apart */
static inline double smallvis_knnmmds_below_c(double d2, double r, double ri, double rj,
                                     const smallvis_knnmmds_below_params *k, double *dq_sum)
{
    (void)ri;
    (void)rj;
    (void)k;
    (void)dq_sum;
    double c = 1.0 - r / sqrt(d2);
    return c < 0.0 ? c : 0.0;
}

/* no all-pairs term: f(0, d2) = 0 */
static inline double smallvis_knnmmds_below_repulsion(double d2, double ri, double rj,
                                             const smallvis_knnmmds_below_params *k)
{
    (void)d2;
    (void)ri;
    (void)rj;
    (void)k;
    return 0.0;
}

static inline double smallvis_knnmmds_below_repulsion_scale(const smallvis_knnmmds_below_params *k)
{
    (void)k;
    return 0.0;
}

/* f = max(0, r - d)^2 */
static inline double smallvis_knnmmds_below_edge(double r, double d2, double ri, double rj,
                                        const smallvis_knnmmds_below_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    double gap = r - sqrt(d2);
    return gap > 0.0 ? gap * gap : 0.0;
}

static inline double smallvis_knnmmds_below_row_value(double psum, ptrdiff_t n,
                                             const smallvis_knnmmds_below_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* c_sj = 2 c(d2_sj, r_sj) */
static inline double smallvis_knnmmds_below_transform_c(double d2, double r, double rr,
                                               const smallvis_knnmmds_below_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_knnmmds_below_c(d2, r, rr, rr, k, &unused);
}

typedef smallvis_knnmmds_params smallvis_knnmmds_above_params;

static const char smallvis_knnmmds_above_fields[] = "";
static inline void smallvis_knnmmds_above_load(const double *f, double n_others,
                                      smallvis_knnmmds_above_params *k)
{
    (void)f;
    (void)n_others;
    k->unused = 0;
}

/* c = [t > 0] max(0, 1 - t / d), t the stored value in the place of r */
static inline double smallvis_knnmmds_above_c(double d2, double r, double ri, double rj,
                                     const smallvis_knnmmds_above_params *k, double *dq_sum)
{
    (void)ri;
    (void)rj;
    (void)k;
    (void)dq_sum;
    if (!(r > 0.0))
        return 0.0;
    double c = 1.0 - r / sqrt(d2);
    return c > 0.0 ? c : 0.0;
}

/* no all-pairs term: f(0, d2) = 0 */
static inline double smallvis_knnmmds_above_repulsion(double d2, double ri, double rj,
                                             const smallvis_knnmmds_above_params *k)
{
    (void)d2;
    (void)ri;
    (void)rj;
    (void)k;
    return 0.0;
}

static inline double smallvis_knnmmds_above_repulsion_scale(const smallvis_knnmmds_above_params *k)
{
    (void)k;
    return 0.0;
}

/* f = [t > 0] max(0, d - t)^2 */
static inline double smallvis_knnmmds_above_edge(double r, double d2, double ri, double rj,
                                        const smallvis_knnmmds_above_params *k)
{
    (void)ri;
    (void)rj;
    (void)k;
    if (!(r > 0.0))
        return 0.0;
    double gap = sqrt(d2) - r;
    return gap > 0.0 ? gap * gap : 0.0;
}

static inline double smallvis_knnmmds_above_row_value(double psum, ptrdiff_t n,
                                             const smallvis_knnmmds_above_params *k)
{
    (void)psum;
    (void)n;
    (void)k;
    return 0.0;
}

/* c_sj = 2 c(d2_sj, r_sj) */
static inline double smallvis_knnmmds_above_transform_c(double d2, double r, double rr,
                                               const smallvis_knnmmds_above_params *k)
{
    double unused = 0.0;
    return 2.0 * smallvis_knnmmds_above_c(d2, r, rr, rr, k, &unused);
}

#endif /* SMALLVIS_METHODS_KNNMMDS_H */
