/*
 * InfoNCE, "InfoNC-t-SNE" (Damrich et al. 2023), the C unit (docs/theory.md
 * §3.11; NumPy unit: methods/infonce/unit.py).  A sample is a positive pair
 * (i, j) drawn with probability p_ij and m negatives k_l drawn uniformly
 * from the points other than i; its loss is
 *     -log phi_ij + log(phi_ij + sum_l phi_ik_l),   phi = 1 / (1 + d2).
 * The expected loss of a row is one Frullani integral per positive,
 *     E log(phi_ij + S_i) = int_0^inf (e^-t - e^{-phi_ij t} M_i(t)^m) dt / t,
 *     M_i(t) = mean_k e^{-t phi_ik},
 * by the trapezoid rule in u = log t on the lattice u = k h, after the row's
 * weights are divided by their largest (a = phi_ij + S_i then lies in
 * (0, m + 1]).
 */
/* smallvis unit: row infonce */
#ifndef SMALLVIS_METHODS_INFONCE_H
#define SMALLVIS_METHODS_INFONCE_H

#include "../common.h"

/* the lattice: QUADRATURE_STEP, _LEFT and _RIGHT of methods/infonce/unit.py */
#define SMALLVIS_INFONCE_STEP 0.25
#define SMALLVIS_INFONCE_LEFT 37.0
#define SMALLVIS_INFONCE_RIGHT 4.0

/* m, the negatives per positive sample (the NumPy unit's one field) */
typedef struct {
    double m;
} smallvis_infonce_params;

/* The Cauchy weight phi = 1 / (1 + d2). */
static inline double smallvis_infonce_phi(double d2)
{
    return smallvis_cauchy(d2, 1.0);
}

/*
 * One row's expected loss, and (slopes != NULL) its derivatives
 * slopes[k] = dC_i / dphi_k over the row's candidates k != skip (skip: the
 * row's own point in a fit, -1 for a new point against training points).
 * phi[0 .. n_cols) holds the weights on entry and is divided by its largest
 * in place; pos[0 .. n_pos) are the positives' columns (none equal to skip)
 * with probabilities p > 0; e is work room for n_cols doubles.  The sums
 * follow InfoNCEUnit.row_cost_and_slopes (methods/infonce/unit.py):
 *   lambda(t) = log1p(mean_k expm1(-t phi_k)),
 *   C_i = sum_j p_j [-log phi_j + h sum_u (expm1(-t) - expm1(-t phi_j + m lambda))],
 *   dC_i/dphi_k = [k pos] p_k (-1/phi_k + h sum_u t e^{-t phi_k + m lambda})
 *               + m / n_o h sum_u t sum_j p_j e^{-t phi_j + (m - 1) lambda} e^{-t phi_k},
 * all divided by the row's largest weight s (phi here is phi / s).
 */
static inline double smallvis_infonce_row(double *phi, ptrdiff_t n_cols, ptrdiff_t skip,
                                          const int64_t *pos, const double *p, ptrdiff_t n_pos,
                                          double m, double *slopes, double *e)
{
    const double h = SMALLVIS_INFONCE_STEP;
    const double n_o = (double)(n_cols - (skip >= 0 ? 1 : 0));
    double s = 0.0, phi_min = INFINITY, pos_min = INFINITY, cost = 0.0;
    double a_min, right, t, sum, mean, lambda, em1t, x, g, lam_m1;
    ptrdiff_t k, q;
    int64_t node, lo, hi;
    if (slopes != NULL)
        for (k = 0; k < n_cols; k++)
            slopes[k] = 0.0;
    if (n_pos == 0)
        return 0.0;
    if (n_o == 1.0) { /* the only candidate is the positive: every sample costs log(1 + m) */
        for (q = 0; q < n_pos; q++)
            cost += p[q];
        return cost * log1p(m);
    }
    for (k = 0; k < n_cols; k++) {
        if (k == skip)
            continue;
        s = phi[k] > s ? phi[k] : s;
    }
    for (k = 0; k < n_cols; k++) {
        if (k == skip)
            continue;
        phi[k] = phi[k] / s;
        phi_min = phi[k] < phi_min ? phi[k] : phi_min;
    }
    for (q = 0; q < n_pos; q++)
        pos_min = phi[pos[q]] < pos_min ? phi[pos[q]] : pos_min;
    a_min = pos_min + m * phi_min;
    right = -log(a_min);
    right = right > 0.0 ? right : 0.0;
    lo = (int64_t)floor((-SMALLVIS_INFONCE_LEFT - log1p(m)) / h);
    hi = (int64_t)ceil((right + SMALLVIS_INFONCE_RIGHT) / h);
    for (q = 0; q < n_pos; q++)
        cost += p[q] * -log(phi[pos[q]]);
    for (node = lo; node <= hi; node++) {
        t = exp(h * (double)node);
        sum = 0.0;
        for (k = 0; k < n_cols; k++) {
            if (k == skip)
                continue;
            e[k] = expm1(-t * phi[k]);
            sum += e[k];
        }
        mean = sum / n_o;
        lambda = log1p(mean > -1.0 ? mean : -1.0);
        lam_m1 = m > 1.0 ? (m - 1.0) * lambda : 0.0;
        em1t = expm1(-t);
        g = 0.0;
        for (q = 0; q < n_pos; q++) {
            x = -t * phi[pos[q]] + m * lambda;
            cost += h * p[q] * (em1t - expm1(x));
            if (slopes != NULL) {
                slopes[pos[q]] += p[q] * h * t * exp(x);
                g += p[q] * exp(-t * phi[pos[q]] + lam_m1);
            }
        }
        if (slopes != NULL) {
            g *= (m / n_o) * h * t;
            for (k = 0; k < n_cols; k++)
                if (k != skip)
                    slopes[k] += g * (1.0 + e[k]);
        }
    }
    if (slopes != NULL) {
        for (q = 0; q < n_pos; q++)
            slopes[pos[q]] -= p[q] / phi[pos[q]];
        for (k = 0; k < n_cols; k++)
            slopes[k] /= s;
    }
    return cost;
}

/*
 * The stochastic loop's grouped step of one sample (descent on its loss):
 * with phi_j = phi(d2_pos), phi_l = phi(d2_neg[l]) and
 * D = phi_j + sum_l phi_l (summed in draw order),
 *     c[0]     = -2 phi_j (1 - phi_j / D)      (the positive),
 *     c[1 + l] = 2 phi_l^2 / D                 (negative l);
 * the head moves by alpha c (y_i - y_other).  The phis are written into
 * c first (c has m + 1 entries).
 */
static inline void smallvis_infonce_sgd_group(double d2_pos, const double *d2_neg,
                                              int64_t m, double *c)
{
    const double phi_pos = 1.0 / (1.0 + d2_pos);
    double total = phi_pos, phi;
    int64_t l;
    for (l = 0; l < m; l++) {
        c[1 + l] = 1.0 / (1.0 + d2_neg[l]);
        total += c[1 + l];
    }
    c[0] = -2.0 * phi_pos * (1.0 - phi_pos / total);
    for (l = 0; l < m; l++) {
        phi = c[1 + l];
        c[1 + l] = 2.0 * phi * phi / total;
    }
}

#endif /* SMALLVIS_METHODS_INFONCE_H */
