/*
 * gmmds, the C unit: mmds's raw stress (r - d)^2 (mmds/unit.h), of the
 * geodesic input distances (NumPy unit: methods/gmmds/unit.py).
 */
/* smallvis unit: pair gmmds FUSED NO_SGD */
#ifndef SMALLVIS_METHODS_GMMDS_H
#define SMALLVIS_METHODS_GMMDS_H

#include "../mmds/unit.h"

typedef smallvis_mmds_params smallvis_gmmds_params;

static inline double smallvis_gmmds_c(double d2, double r, double ri, double rj,
                                      const smallvis_gmmds_params *k, double *dq_sum)
{
    return smallvis_mmds_c(d2, r, ri, rj, k, dq_sum);
}

static inline double smallvis_gmmds_repulsion(double d2, double ri, double rj,
                                              const smallvis_gmmds_params *k)
{
    return smallvis_mmds_repulsion(d2, ri, rj, k);
}

static inline double smallvis_gmmds_repulsion_scale(const smallvis_gmmds_params *k)
{
    return smallvis_mmds_repulsion_scale(k);
}

static inline double smallvis_gmmds_edge(double r, double d2, double ri, double rj,
                                         const smallvis_gmmds_params *k)
{
    return smallvis_mmds_edge(r, d2, ri, rj, k);
}

static inline double smallvis_gmmds_row_value(double psum, ptrdiff_t n,
                                              const smallvis_gmmds_params *k)
{
    return smallvis_mmds_row_value(psum, n, k);
}

static inline double smallvis_gmmds_transform_c(double d2, double r, double rr,
                                                const smallvis_gmmds_params *k)
{
    return smallvis_mmds_transform_c(d2, r, rr, k);
}

/* The NumPy unit (GMMDSUnit) has no fields. */
static const char smallvis_gmmds_fields[] = "";
static inline void smallvis_gmmds_load(const double *f, double n_others,
                                       smallvis_gmmds_params *k)
{
    smallvis_mmds_load(f, n_others, k);
}

#endif /* SMALLVIS_METHODS_GMMDS_H */
