/*
 * ballmmds, the C units: knnmmds's two parts (knnmmds/unit.h), the stress
 * below each input distance on P and above it on the second per-pair
 * input t (the distances inside the ball, 0 outside) (NumPy units:
 * methods/ballmmds/unit.py).
 */
/* smallvis unit: pair ballmmds_below FUSED NO_SGD */
/* smallvis unit: pair ballmmds_above FUSED NO_SGD */
#ifndef SMALLVIS_METHODS_BALLMMDS_H
#define SMALLVIS_METHODS_BALLMMDS_H

#include "../knnmmds/unit.h"

/* no parameters: its parts load knnmmds's empty struct */
typedef smallvis_knnmmds_params smallvis_ballmmds_params;
typedef smallvis_knnmmds_below_params smallvis_ballmmds_below_params;

static const char smallvis_ballmmds_below_fields[] = "";
static inline void smallvis_ballmmds_below_load(const double *f, double n_others,
                                     smallvis_ballmmds_below_params *k)
{
    smallvis_knnmmds_below_load(f, n_others, k);
}

static inline double smallvis_ballmmds_below_c(double d2, double r, double ri, double rj,
                                    const smallvis_ballmmds_below_params *k, double *dq_sum)
{
    return smallvis_knnmmds_below_c(d2, r, ri, rj, k, dq_sum);
}

static inline double smallvis_ballmmds_below_repulsion(double d2, double ri, double rj,
                                            const smallvis_ballmmds_below_params *k)
{
    return smallvis_knnmmds_below_repulsion(d2, ri, rj, k);
}

static inline double smallvis_ballmmds_below_repulsion_scale(const smallvis_ballmmds_below_params *k)
{
    return smallvis_knnmmds_below_repulsion_scale(k);
}

static inline double smallvis_ballmmds_below_edge(double r, double d2, double ri, double rj,
                                       const smallvis_ballmmds_below_params *k)
{
    return smallvis_knnmmds_below_edge(r, d2, ri, rj, k);
}

static inline double smallvis_ballmmds_below_row_value(double psum, ptrdiff_t n,
                                            const smallvis_ballmmds_below_params *k)
{
    return smallvis_knnmmds_below_row_value(psum, n, k);
}

static inline double smallvis_ballmmds_below_transform_c(double d2, double r, double rr,
                                              const smallvis_ballmmds_below_params *k)
{
    return smallvis_knnmmds_below_transform_c(d2, r, rr, k);
}

typedef smallvis_knnmmds_above_params smallvis_ballmmds_above_params;

static const char smallvis_ballmmds_above_fields[] = "";
static inline void smallvis_ballmmds_above_load(const double *f, double n_others,
                                     smallvis_ballmmds_above_params *k)
{
    smallvis_knnmmds_above_load(f, n_others, k);
}

static inline double smallvis_ballmmds_above_c(double d2, double r, double ri, double rj,
                                    const smallvis_ballmmds_above_params *k, double *dq_sum)
{
    return smallvis_knnmmds_above_c(d2, r, ri, rj, k, dq_sum);
}

static inline double smallvis_ballmmds_above_repulsion(double d2, double ri, double rj,
                                            const smallvis_ballmmds_above_params *k)
{
    return smallvis_knnmmds_above_repulsion(d2, ri, rj, k);
}

static inline double smallvis_ballmmds_above_repulsion_scale(const smallvis_ballmmds_above_params *k)
{
    return smallvis_knnmmds_above_repulsion_scale(k);
}

static inline double smallvis_ballmmds_above_edge(double r, double d2, double ri, double rj,
                                       const smallvis_ballmmds_above_params *k)
{
    return smallvis_knnmmds_above_edge(r, d2, ri, rj, k);
}

static inline double smallvis_ballmmds_above_row_value(double psum, ptrdiff_t n,
                                            const smallvis_ballmmds_above_params *k)
{
    return smallvis_knnmmds_above_row_value(psum, n, k);
}

static inline double smallvis_ballmmds_above_transform_c(double d2, double r, double rr,
                                              const smallvis_ballmmds_above_params *k)
{
    return smallvis_knnmmds_above_transform_c(d2, r, rr, k);
}

#endif /* SMALLVIS_METHODS_BALLMMDS_H */
