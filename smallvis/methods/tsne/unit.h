/*
 * t-SNE (van der Maaten & Hinton 2008), the C unit: the Cauchy output
 * weight that the exact gradient's 4-row loop, its cost rows, the FFT
 * interpolation and a new point's row KL use, and the heavy-tailed weight
 * (1 + d2/dof)^-dof of Kobak et al. (2019) for dof != 1 (docs/theory.md
 * §3.4; NumPy unit: methods/tsne/unit.py).
 */
/* smallvis unit: normalised tsne FAST */
/* smallvis unit: normalised tsne_dof FAST */
#ifndef SMALLVIS_METHODS_TSNE_H
#define SMALLVIS_METHODS_TSNE_H

#include "../common.h"

/* dof = alpha > 0: the heavy tail; 1 is the Cauchy weight (the functions
 * without "dof" in their name) */
typedef struct {
    double dof;
} smallvis_tsne_params;

/* w = scale / (1 + d2); scale is 1, or a power of two for huge layouts so
 * that w^2 does not underflow (the gradient divides it out exactly). */
static inline double smallvis_tsne_w(double d2, double scale)
{
    return smallvis_cauchy(d2, scale);
}

/* The cost of a stored entry p beyond the normaliser: p log(p (1 + d2)). */
static inline double smallvis_tsne_edge(double p, double d2)
{
    return p * log(p > 0.0 ? p * (1.0 + d2) : 1.0);
}

/*
 * The heavy-tailed weight, dof = alpha != 1 (the kernels with "dof" in
 * their name; alpha = 1 runs the Cauchy functions above):
 *     w = (1 + d2/alpha)^-alpha,  -log w = alpha log1p(d2/alpha),
 *     slope -d log w / d d2 = 1 / (1 + d2/alpha) = w^(1/alpha).
 * The loops use w relative to the largest weight of the set they
 * normalise, w' = exp(log_w_max + log w), with log_w_max = -log w at the
 * smallest d2: q = w / sum w is unchanged and no weight underflows to a
 * zero normaliser (large alpha tends to the Gaussian exp(-d2)).
 */
static inline double smallvis_tsne_dof_neg_log_w(double d2, double dof)
{
    return dof * log1p(d2 / dof);
}

static inline double smallvis_tsne_dof_w(double d2, double dof, double log_w_max)
{
    return exp(log_w_max - smallvis_tsne_dof_neg_log_w(d2, dof));
}

static inline double smallvis_tsne_dof_slope(double d2, double dof)
{
    return 1.0 / (1.0 + d2 / dof);
}

/* The cost of a stored entry p beyond the normaliser: p (log p - log w). */
static inline double smallvis_tsne_dof_edge(double p, double d2, double dof)
{
    return p * (log(p) + smallvis_tsne_dof_neg_log_w(d2, dof));
}

/*
 * The hooks of the normalised engine (backends/_pairloops.h, "engine:
 * normalised units"), two units: tsne, the Cauchy weight (dof 1), and
 * tsne_dof, the heavy tail (the NumPy unit picks one by its dof, so that
 * neither row branches on it):
 *     shift    tsne: 0 (the Cauchy weight cannot underflow on a layout the
 *              wrappers accept); tsne_dof: -log w at the set's smallest d2;
 *     weight   1 / (1 + d2); exp(shift + log w);
 *     slope    -d log w / d d2 = 1 / (1 + d2/dof) (w itself for tsne);
 *     log_norm log Z = log z - shift, the log of the true normaliser
 *              (log z for tsne, whose shift is 0);
 *     cost     p (log p - log q) = p (log p - log w) + p log Z;
 *     offset_term, offset, force: the KL divergence's (common.h).
 */
static const char smallvis_tsne_fields[] = "dof";
static inline void smallvis_tsne_load_fields(const double *f, double n_others,
                                      smallvis_tsne_params *k)
{
    (void)n_others;
    k->dof = f[0];
}

static inline double smallvis_tsne_shift(double d2_min, const smallvis_tsne_params *k)
{
    (void)d2_min;
    (void)k;
    return 0.0;
}

static inline double smallvis_tsne_weight(double d2, double shift,
                                          const smallvis_tsne_params *k)
{
    (void)shift;
    (void)k;
    return smallvis_tsne_w(d2, 1.0);
}

/* the Cauchy weight is its own slope, 1 / (1 + d2) */
static inline double smallvis_tsne_slope(double d2, double w, const smallvis_tsne_params *k)
{
    (void)d2;
    (void)k;
    return w;
}

static inline double smallvis_tsne_log_norm(double z, double shift,
                                            const smallvis_tsne_params *k)
{
    (void)shift;
    (void)k;
    return log(z);
}

static inline double smallvis_tsne_cost(double p, double d2, double shift, double z,
                                        double lz, const smallvis_tsne_params *k)
{
    (void)shift;
    (void)z;
    (void)k;
    return p > 0.0 ? p * (log(p) + log1p(d2) + lz) : 0.0;
}

SMALLVIS_KL_HOOKS(tsne, smallvis_tsne_slope)

typedef smallvis_tsne_params smallvis_tsne_dof_params;
static const char smallvis_tsne_dof_fields[] = "dof";
static inline void smallvis_tsne_dof_load_fields(const double *f, double n_others,
                                          smallvis_tsne_dof_params *k)
{
    smallvis_tsne_load_fields(f, n_others, k);
}

static inline double smallvis_tsne_dof_shift(double d2_min, const smallvis_tsne_dof_params *k)
{
    return smallvis_tsne_dof_neg_log_w(d2_min, k->dof);
}

static inline double smallvis_tsne_dof_weight(double d2, double shift,
                                              const smallvis_tsne_dof_params *k)
{
    return smallvis_tsne_dof_w(d2, k->dof, shift);
}

static inline double smallvis_tsne_dof_slope_k(double d2, double w,
                                                const smallvis_tsne_dof_params *k)
{
    (void)w;
    return smallvis_tsne_dof_slope(d2, k->dof);
}

/* log Z = log z - shift, the log of the true normaliser */
static inline double smallvis_tsne_dof_log_norm(double z, double shift,
                                                const smallvis_tsne_dof_params *k)
{
    (void)k;
    return log(z) - shift;
}

static inline double smallvis_tsne_dof_cost(double p, double d2, double shift, double z,
                                            double lz, const smallvis_tsne_dof_params *k)
{
    (void)shift;
    (void)z;
    return p > 0.0 ? smallvis_tsne_dof_edge(p, d2, k->dof) + p * lz : 0.0;
}

SMALLVIS_KL_HOOKS(tsne_dof, smallvis_tsne_dof_slope_k)

#endif /* SMALLVIS_METHODS_TSNE_H */
