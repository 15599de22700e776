/*
 * Distances of the kNN kernels other than the squared Euclidean one
 * (smallvis_sq_dists_to in _pairloops.h), selected by a metric code
 * (smallvis.inputs.distances.KERNEL_CODES):
 *
 *   1  sum_f |X[cand[t], f] - xi[f]|          (manhattan)
 *   2  #{f : X[cand[t], f] != xi[f]}          (hamming, as a count)
 *
 * Summed over f in order, as the NumPy twins in smallvis/backends/reference/neighbours.py
 * (_core_distances_to): the same bits.
 */
#ifndef SMALLVIS_METRIC_DISTS_H
#define SMALLVIS_METRIC_DISTS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Exact rounding as the NumPy twin: no re-association (the module is built
 * with -fassociative-math; the same switch as _pairloops.h's kNN loops). */
#if defined(__clang__)
#define SMALLVIS_METRIC_STRICT
#define SMALLVIS_METRIC_STRICT_BODY _Pragma("clang fp reassociate(off)") \
    _Pragma("clang fp contract(off)")
#elif defined(__GNUC__)
#define SMALLVIS_METRIC_STRICT \
    __attribute__((optimize("no-associative-math", "fp-contract=off")))
#define SMALLVIS_METRIC_STRICT_BODY
#else
#define SMALLVIS_METRIC_STRICT
#define SMALLVIS_METRIC_STRICT_BODY
#endif

SMALLVIS_METRIC_STRICT
static void smallvis_metric_dists_to(int code, const double *__restrict__ X, ptrdiff_t dim,
                                     const double *__restrict__ xi,
                                     const int64_t *__restrict__ cand, ptrdiff_t m,
                                     double *__restrict__ out)
{
    SMALLVIS_METRIC_STRICT_BODY
    for (ptrdiff_t t = 0; t < m; t++) {
        const double *a = X + cand[t] * dim;
        double s = 0.0;
        if (code == 1) {
            for (ptrdiff_t f = 0; f < dim; f++)
                s += fabs(a[f] - xi[f]);
        } else {
            for (ptrdiff_t f = 0; f < dim; f++)
                s += (a[f] != xi[f]) ? 1.0 : 0.0;
        }
        out[t] = s;
    }
}

/*
 * sum_f (x_a[f] - x_b[f])^2 of rows a and b of a CSR matrix (sorted column
 * indices), over the union of their stored columns in column order: exact
 * differences, so equal rows are at exactly 0, and the order of the NumPy
 * twin's sequential sum (smallvis/backends/reference/neighbours.py).
 */
SMALLVIS_METRIC_STRICT
static double smallvis_sparse_pair_sq(const int64_t *__restrict__ indptr,
                                      const int64_t *__restrict__ indices,
                                      const double *__restrict__ data, int64_t a, int64_t b)
{
    SMALLVIS_METRIC_STRICT_BODY
    int64_t p = indptr[a], pe = indptr[a + 1], q = indptr[b], qe = indptr[b + 1];
    double s = 0.0, e;
    while (p < pe || q < qe) {
        if (q >= qe || (p < pe && indices[p] < indices[q])) {
            e = data[p++];
        } else if (p >= pe || indices[q] < indices[p]) {
            e = -data[q++];
        } else {
            e = data[p++] - data[q++];
        }
        s += e * e;
    }
    return s;
}

/*
 * out[c] = x_a . x_c for every row c of a CSR matrix, from its transpose's
 * columns (CSC: for each column f, the rows that store it and their values):
 * out is cleared, then for each stored column f of row a in column order and
 * each row c storing f in row order, out[c] += x_a[f] * x_c[f].  The order of
 * the NumPy twin's scatter (smallvis/backends/reference/neighbours.py): the same bits.
 */
SMALLVIS_METRIC_STRICT
static void smallvis_sparse_row_dots(const int64_t *__restrict__ indptr,
                                     const int64_t *__restrict__ indices,
                                     const double *__restrict__ data,
                                     const int64_t *__restrict__ col_indptr,
                                     const int64_t *__restrict__ col_rows,
                                     const double *__restrict__ col_data,
                                     int64_t a, int64_t n, double *__restrict__ out)
{
    SMALLVIS_METRIC_STRICT_BODY
    int64_t p, q, f;
    double x;
    for (q = 0; q < n; q++)
        out[q] = 0.0;
    for (p = indptr[a]; p < indptr[a + 1]; p++) {
        f = indices[p];
        x = data[p];
        for (q = col_indptr[f]; q < col_indptr[f + 1]; q++)
            out[col_rows[q]] += x * col_data[q];
    }
}

/*
 * The `width` rows c != skip of smallest key[c] = half_sq[c] - dots[c]
 * (dots from smallvis_sparse_row_dots, written into `dots`), ties by index,
 * into idx in increasing (key, index) order; returns how many keys lie
 * within slack of the last one's (>= width).  As the NumPy twin's lexsort.
 */
SMALLVIS_METRIC_STRICT
static int64_t smallvis_sparse_row_nearest(const int64_t *__restrict__ indptr,
                                           const int64_t *__restrict__ indices,
                                           const double *__restrict__ data,
                                           const int64_t *__restrict__ col_indptr,
                                           const int64_t *__restrict__ col_rows,
                                           const double *__restrict__ col_data,
                                           const double *__restrict__ half_sq,
                                           int64_t a, int64_t skip, int64_t n, int64_t width,
                                           double slack, double *__restrict__ dots,
                                           double *__restrict__ keys,
                                           int64_t *__restrict__ idx)
{
    SMALLVIS_METRIC_STRICT_BODY
    int64_t c, j, filled = 0, count = 0;
    double key, last;
    smallvis_sparse_row_dots(indptr, indices, data, col_indptr, col_rows, col_data, a, n, dots);
    for (c = 0; c < n; c++) {
        if (c == skip)
            continue;
        key = half_sq[c] - dots[c];
        if (filled == width && !(key < keys[width - 1]))
            continue;
        j = filled < width ? filled++ : width - 1;
        while (j > 0 && key < keys[j - 1]) {
            keys[j] = keys[j - 1];
            idx[j] = idx[j - 1];
            j--;
        }
        keys[j] = key;
        idx[j] = c;
    }
    last = keys[width - 1] + slack;
    for (c = 0; c < n; c++)
        if (c != skip && half_sq[c] - dots[c] <= last)
            count++;
    return count;
}

#endif
