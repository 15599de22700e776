/*
 * Weighted symmetric SNE (Yang et al. 2014; R smallvis's wssne), the C
 * unit: symmetric SNE's hooks (ssne/unit.h: the Gaussian weight relative
 * to the smallest d2, the KL divergence), over all pairs.  The per-point
 * field "importance" (NumPy unit: methods/wssne/unit.py) is read by the
 * engine itself (backends/_kernels.pyx, _normalised and _transform): it
 * multiplies the weight of (i, j) by m_i m_j, running the rows named _a of
 * backends/_pairloops.h, so these hooks are the plain Gaussian's.
 */
/* smallvis unit: normalised wssne FAST */
#ifndef SMALLVIS_METHODS_WSSNE_H
#define SMALLVIS_METHODS_WSSNE_H

#include "../ssne/unit.h"

/* no scalar parameters: the one field, "importance", is per point, and
 * the engine reads it (its place in f holds 0) */
typedef smallvis_ssne_params smallvis_wssne_params;

static const char smallvis_wssne_fields[] = "importance";
static inline void smallvis_wssne_load_fields(const double *f, double n_others,
                                              smallvis_wssne_params *k)
{
    smallvis_ssne_load_fields(f, n_others, k);
}

static inline double smallvis_wssne_shift(double d2_min, const smallvis_wssne_params *k)
{
    return smallvis_ssne_shift(d2_min, k);
}

static inline double smallvis_wssne_weight(double d2, double shift,
                                           const smallvis_wssne_params *k)
{
    return smallvis_ssne_weight(d2, shift, k);
}

static inline double smallvis_wssne_slope(double d2, double w, const smallvis_wssne_params *k)
{
    return smallvis_ssne_slope(d2, w, k);
}

static inline double smallvis_wssne_log_norm(double z, double shift,
                                             const smallvis_wssne_params *k)
{
    return smallvis_ssne_log_norm(z, shift, k);
}

static inline double smallvis_wssne_cost(double p, double d2, double shift, double z,
                                         double lz, const smallvis_wssne_params *k)
{
    return smallvis_ssne_cost(p, d2, shift, z, lz, k);
}

SMALLVIS_KL_HOOKS(wssne, smallvis_wssne_slope)

#endif /* SMALLVIS_METHODS_WSSNE_H */
