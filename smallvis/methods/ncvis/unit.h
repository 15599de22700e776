/*
 * NCVis (Artemenkov & Panov 2020), the C unit: noise-contrastive
 * estimation with the learned normalisation Q (docs/theory.md §3.8; NumPy
 * unit: methods/ncvis/unit.py).  The model weight of a pair is
 *     q = e^{-Q} q_hat,  q_hat = 1 / (1 + a d2^b),
 * and the noise of point i is r_i = nu p_n(i) (the engines pass it as the
 * per-point value ri, rj).
 */
/* smallvis unit: pair ncvis NO_ROW_2D LEARNED */
#ifndef SMALLVIS_METHODS_NCVIS_H
#define SMALLVIS_METHODS_NCVIS_H

#include "../common.h"

/* e = exp(-Q); nu: noise samples per positive sample (a new point's noise
 * is nu p_n(s)); a, b: the output weight's shape. */
typedef struct {
    double e, nu, a, b;
} smallvis_ncvis_params;

/* A point's noise r = nu p_n = nu (its row sum of P) / (the number of
 * points it is compared with): n - 1 in the fit, n training rows for a
 * new point. */
static inline double smallvis_ncvis_noise(double row_sum, double n_others,
                                          const smallvis_ncvis_params *k)
{
    return k->nu * row_sum / n_others;
}

/* q = e^{-Q} / (1 + a d2^b), e^{-Q} at d2 = 0 */
static inline double smallvis_ncvis_q(double d2, const smallvis_ncvis_params *k)
{
    const double q = k->e * smallvis_power_w(SMALLVIS_POW_POS(d2 > 0.0 ? d2 : 1.0, k->b), k->a);
    return d2 > 0.0 ? q : k->e;
}

/*
 * c = (G_ij + G_ji) / 2 with
 *     G_ij = r_i / (q + r_i) (p_ij - q) a b d2^(b - 1) q_hat,
 * so that the pair adds 4 c (y_i - y_j) to the gradient of y_i; *dq_sum gets
 *     (p_ij - q) (r_i / (q + r_i) + r_j / (q + r_j))
 * added, the two ordered pairs' share of the derivative in Q.
 */
static inline double smallvis_ncvis_c(double d2, double p, double ri, double rj,
                                      const smallvis_ncvis_params *k, double *dq_sum)
{
    const double ld = log(d2 > 0.0 ? d2 : 1.0);
    const double q_hat = d2 > 0.0 ? smallvis_power_w(exp(k->b * ld), k->a) : 1.0;
    const double q = k->e * q_hat;
    const double si = q + ri, sj = q + rj;
    const double wi = si > 0.0 ? ri / si : 0.0;
    const double wj = sj > 0.0 ? rj / sj : 0.0;
    const double diff = p - q;
    const double g = diff * k->a * k->b * exp((k->b - 1.0) * ld) * q_hat;
    *dq_sum += diff * (wi + wj);
    return 0.5 * (wi + wj) * g;
}

/* r log(1 + q / r), 0 at r = 0 */
static inline double smallvis_ncvis_noise_term(double r, double q)
{
    return r > 0.0 ? r * log1p(q / (r > 0.0 ? r : 1.0)) : 0.0;
}

/* The noise term of -J for both ordered pairs,
 *     r_i log(1 + q / r_i) + r_j log(1 + q / r_j);
 * the engine halves the row's sum (smallvis_ncvis_repulsion_scale). */
static inline double smallvis_ncvis_repulsion(double d2, double ri, double rj,
                                              const smallvis_ncvis_params *k)
{
    const double q = smallvis_ncvis_q(d2, k);
    return smallvis_ncvis_noise_term(ri, q) + smallvis_ncvis_noise_term(rj, q);
}

static inline double smallvis_ncvis_repulsion_scale(const smallvis_ncvis_params *k)
{
    (void)k;
    return 0.5;
}

/* The data term of -J for both ordered pairs, halved:
 *     p (log(1 + r_i / q) + log(1 + r_j / q)) / 2. */
static inline double smallvis_ncvis_edge(double p, double d2, double ri, double rj,
                                         const smallvis_ncvis_params *k)
{
    const double q = smallvis_ncvis_q(d2, k);
    return 0.5 * p * (log1p(ri / q) + log1p(rj / q));
}

/* A new point's noise, r_s = nu p_n(s) = nu (its row sum) / n. */
static inline double smallvis_ncvis_row_value(double psum, ptrdiff_t n,
                                              const smallvis_ncvis_params *k)
{
    return smallvis_ncvis_noise(psum, (double)n, k);
}

/* Transform row (the training rows fixed, so only the new point's noise):
 *     c_sj = 2 r / (q + r) (p - q) a b d2^(b - 1) q_hat. */
static inline double smallvis_ncvis_transform_c(double d2, double p, double r,
                                                const smallvis_ncvis_params *k)
{
    const double dd = d2 > 0.0 ? d2 : 1.0;
    const double t = SMALLVIS_POW_POS(dd, k->b);
    const double qh = smallvis_power_w(t, k->a);
    const double qm = k->e * qh;
    return 2.0 * r / (qm + r) * (p - qm) * k->a * k->b * (t / dd) * qh;
}

/* The stochastic loop.  For the squared distance d2 and the normalisation
 * Q' seen by the head (q here), in the epoch with nu noise samples:
 *     w' = e^{-Q'} q_hat / nu,  slope = 2 a b d^{2(b-1)} q_hat
 * (slope 0 for coincident points: no force). */
static inline double smallvis_ncvis_sgd_sample(const smallvis_ncvis_params *k, double d2,
                                               double q, double nu, double *slope)
{
    double d2b, q_hat;
    if (d2 <= 0.0) {
        *slope = 0.0;
        return exp(-q) / nu;
    }
    d2b = smallvis_sgd_pow(d2, k->b);
    q_hat = 1.0 / (1.0 + k->a * d2b);
    *slope = 2.0 * k->a * k->b * (d2b / d2) * q_hat;
    return exp(-q) * q_hat / nu;
}

/* Attraction: w+ = 1 / (1 + w'), c_a = -w+ slope, dJ/dQ' = -w+. */
static inline double smallvis_ncvis_sgd_attract(const smallvis_ncvis_params *k, double d2,
                                                double q, double nu, double *dq)
{
    double slope;
    const double w_plus = 1.0 / (1.0 + smallvis_ncvis_sgd_sample(k, d2, q, nu, &slope));
    *dq = -w_plus;
    return -w_plus * slope;
}

/* Repulsion: w- = w' / (1 + w') (written without overflow), c_r = w- slope,
 * dJ/dQ' = w-. */
static inline double smallvis_ncvis_sgd_repel(const smallvis_ncvis_params *k, double d2,
                                              double q, double nu, double *dq)
{
    double slope, w_minus;
    const double w = smallvis_ncvis_sgd_sample(k, d2, q, nu, &slope);
    w_minus = w < 1.0 ? w / (1.0 + w) : 1.0 / (1.0 + 1.0 / w);
    *dq = w_minus;
    return w_minus * slope;
}

/* The fields of the NumPy unit (NCVis: Q, nu, a, b), in order, into the
 * struct, which holds e = exp(-Q); n_others is unused (the engines pass
 * each point's noise).  The stochastic loop passes Q' and the epoch's nu
 * per sample and reads a and b only. */
static const char smallvis_ncvis_fields[] = "Q nu a b";
static inline void smallvis_ncvis_load(const double *f, double n_others,
                                       smallvis_ncvis_params *k)
{
    (void)n_others;
    k->e = exp(-f[0]);
    k->nu = f[1];
    k->a = f[2];
    k->b = f[3];
}

#endif /* SMALLVIS_METHODS_NCVIS_H */
