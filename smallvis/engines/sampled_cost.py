r"""A cheap sampled estimate of a method's exact cost (for large stochastic runs).

The exact costs of the methods whose entry has
:attr:`~smallvis.method_spec.Method.pair_units` (largevis, umap, tumap, ncvis,
negtsne; :mod:`smallvis.backends.reference`)
are sums over all ordered pairs :math:`i \ne j` of a pair term
:math:`f_i(p_{ij}, d_{ij}^2)`, which the method's unit defines
(``smallvis/methods/<name>/unit.py``): its ``edge_term`` is
:math:`f_i(p, d^2) - f_i(0, d^2)` and its ``pair_term`` :math:`f_i(0, d^2)`.
Evaluating the sum is O(N^2), so the stochastic optimizer reports the exact
cost only up to :data:`smallvis.engines.sgd.SGD_COST_MAX_N` points.  Split the sum as

.. math::

    C = \sum_{(i, j) \in E} \left[ f_i(p_{ij}, d_{ij}^2) - f_i(0, d_{ij}^2) \right]
      + \sum_{i \ne j} f_i(0, d_{ij}^2),

where :math:`E` are the stored edges of ``P`` (every pair with
:math:`p_{ij} = 0` contributes only to the second sum).  The estimate
replaces each sum by its mean over a uniform random sample (of edges, and of
ordered pairs :math:`i \ne j`) times its number of terms.  Both parts are
unbiased.  When a sample would be at least as large as the set it samples,
the whole set is used, so on small data the "estimate" is the exact cost to
rounding (the tests check this against the exact kernels).

The samples are drawn once, from a fixed internal seed (never from the
run's ``random_state``, so estimating changes no result), and reused at
every evaluation: successive estimates during a run differ only because
``Y`` changed, which makes their trend readable.  Its spread is a few per
cent of the cost with the default sample sizes on data of tens of thousands
of points; use it to follow a run, not to compare runs to the last digit.

The estimated (like the exact) cost is the method's cost of
:mod:`smallvis.backends.reference`, not always what the stochastic updates descend.
For largevis the cost weighs the repulsion of every pair by ``gamma``, the
sampled negatives by about ``5 * gamma / N**2``, so the estimate is almost
all repulsion and rises late in a good run, when the classes tighten
(docs/theory.md §8 shows it on 70,000 points); umap's rises too, on digits
from about 164,000 at epoch 50 to 266,000 at the end of a good map (its
negatives stand for a part of the repulsion of all pairs only, Damrich and
Hamprecht 2021).  Nothing acts on it: the stochastic
optimizer's divergence guard looks only at whether the coordinates are
finite.
"""

import numpy as np

__all__ = ["RowSampledCost", "SampledCost", "supports"]

#: Default number of sampled edges and of sampled pairs.
DEFAULT_SAMPLES = 100_000
#: Default number of sampled rows of :class:`RowSampledCost`.
DEFAULT_ROWS = 100


def supports(method, cost_params):
    """Whether the cost of ``method`` with ``cost_params`` can be estimated."""
    name, _ = method.kernel_name(cost_params)
    return name in method.pair_units


class SampledCost:
    """A sampled estimate of the exact cost of ``method`` on ``P`` (module docstring).

    Parameters
    ----------
    method : smallvis.method_spec.Method
        A method whose cost is a sum of pair terms: one with a unit in
        :attr:`~smallvis.method_spec.Method.pair_units` for its kernel
        (:func:`supports`).
    cost_params : dict
        The method's cost parameters, defaults filled in (the values of its
        learned parameters, e.g. NCVis's ``Q``, are taken from the
        ``learned`` argument of each call instead).
    triplet : (indptr, indices, data)
        ``P`` in CSR form, as the cost kernels take it.
    n_samples : int
        Number of points.
    n_edges_sampled, n_pairs_sampled : int, default=100_000
        Sample sizes; the whole set is used when it is not larger.

    Attributes
    ----------
    exact : bool
        True when both samples cover their whole sets, so that the estimate
        is the exact cost to rounding.
    """

    def __init__(self, method, cost_params, triplet, n_samples, *,
                 n_edges_sampled=DEFAULT_SAMPLES, n_pairs_sampled=DEFAULT_SAMPLES):
        name, args = method.kernel_name(cost_params)
        if name not in method.pair_units:
            raise ValueError(f"no sampled cost estimate for {method.name!r} "
                             f"(kernel {name!r}); it has no pair-sum cost")
        indptr, indices, data = (np.asarray(a) for a in triplet)
        n = int(n_samples)
        rng = np.random.default_rng(20_160_412)  # fixed: never the run's generator
        n_edges = len(data)
        if n_edges > n_edges_sampled:
            pick = rng.integers(0, n_edges, size=n_edges_sampled)
            self._edge_scale = n_edges / n_edges_sampled
        else:
            pick = np.arange(n_edges)
            self._edge_scale = 1.0
        # the row of edge e is the r with indptr[r] <= e < indptr[r + 1]; no
        # array of one row index per edge (13 million at 70,000 points)
        self._ei = np.searchsorted(indptr, pick, side="right").astype(np.int64) - 1
        self._ej = np.asarray(indices)[pick].astype(np.int64)
        self._ep = np.asarray(data, dtype=np.float64)[pick]
        n_pairs = n * (n - 1)
        if n_pairs > n_pairs_sampled:
            i = rng.integers(0, n, size=n_pairs_sampled)
            j = rng.integers(0, n - 1, size=n_pairs_sampled)
            j += j >= i  # uniform over the other points
            self._pair_scale = n_pairs / n_pairs_sampled
        else:
            i, j = np.nonzero(~np.eye(n, dtype=bool))
            self._pair_scale = 1.0
        self._pi, self._pj = i.astype(np.int64), j.astype(np.int64)
        self.exact = self._edge_scale == 1.0 and self._pair_scale == 1.0
        self.name = name
        self._unit = method.pair_units[name]
        self._args = tuple(args)
        self._n_learned = len(method.learned)
        self._n = n
        self._row_sums = None
        if self._unit.row_noise:  # the noise of each row (NCVis)
            rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
            self._row_sums = np.bincount(rows, weights=data, minlength=n)

    def _parameters(self, learned):
        """The unit's parameters: the learned values (0 when not given), then the fixed ones."""
        values = [float(v) for v in np.ravel(learned)[:self._n_learned]]
        values += [0.0] * (self._n_learned - len(values))
        return self._unit(*values, *self._args)

    @staticmethod
    def _d2(Y, i, j):
        diff = Y[i] - Y[j]
        return np.einsum("ij,ij->i", diff, diff)

    def __call__(self, Y, learned=()):
        """The estimated cost at ``Y`` (with the learned scalars, e.g. NCVis's ``Q``).

        Returns
        -------
        float
        """
        Y = np.asarray(Y, dtype=np.float64)
        unit = self._parameters(learned)
        edge_noise = pair_noise = None
        if unit.row_noise:
            noise = unit.noise(self._row_sums, self._n - 1)
            edge_noise, pair_noise = noise[self._ei], noise[self._pi]
        with np.errstate(over="ignore", under="ignore"):
            d2 = self._d2(Y, self._ei, self._ej)
            edges = np.sum(unit.edge_term(self._ep, d2, edge_noise))  # f(p) - f(0)
            pairs = np.sum(unit.pair_term(self._d2(Y, self._pi, self._pj), pair_noise))
        return float(self._edge_scale * edges + self._pair_scale * pairs)


class RowSampledCost:
    r"""A row-sampled estimate of a cost that is a sum of row terms, :math:`C = \sum_i C_i`.

    For a method whose row term is not a sum of pair terms (InfoNCE's row
    is one expectation over its candidates) but is linear in the row's
    ``P`` (each :math:`C_i` is :math:`\sum_j p_{ij}` times a function of
    ``Y``): the exact cost kernel, run on the rows of a uniform sample
    ``S`` of ``P``'s rows scaled by :math:`N / |S|` (the other rows empty),
    is the unbiased estimate :math:`\frac{N}{|S|} \sum_{i \in S} C_i`.
    Its cost is that of ``|S|`` rows of the exact kernel.  The rows are
    drawn once from a fixed internal seed, as :class:`SampledCost`.

    Parameters
    ----------
    cost_fn : callable
        The exact cost kernel, ``cost_fn(indptr, indices, data, Y, *learned,
        *args, n_threads)``.
    args : tuple
        Its method arguments.
    triplet : tuple of ndarray
        ``P`` as the kernels read it (int64 CSR, or the full dense layout).
    n_samples : int
    n_threads : int
    n_rows_sampled : int

    Attributes
    ----------
    exact : bool
        True when every row is in the sample (the estimate is the exact cost).
    rows : ndarray of int
        The sampled rows.
    """

    def __init__(self, cost_fn, args, triplet, n_samples, n_threads, *,
                 n_rows_sampled=DEFAULT_ROWS):
        indptr, indices, data = (np.asarray(a) for a in triplet)
        n = int(n_samples)
        if len(data) == n * n and len(indptr) == n + 1:  # the full layout: rows of n
            indptr = np.arange(0, n * n + 1, n, dtype=np.int64)
            indices = np.tile(np.arange(n, dtype=np.int64), n)
        rng = np.random.default_rng(20_160_412)  # fixed: never the run's generator
        rows = (np.arange(n) if n_rows_sampled >= n
                else np.sort(rng.choice(n, size=n_rows_sampled, replace=False)))
        counts = np.zeros(n, dtype=np.int64)
        counts[rows] = indptr[rows + 1] - indptr[rows]
        keep = np.concatenate([np.arange(indptr[r], indptr[r + 1]) for r in rows])
        self._triplet = (np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
                         np.ascontiguousarray(indices[keep], dtype=np.int64),
                         np.ascontiguousarray(data[keep] * (n / len(rows))))
        self._cost_fn, self._args, self._n_threads = cost_fn, tuple(args), n_threads
        self.exact = len(rows) == n
        self.rows = rows

    def __call__(self, Y, learned=()):
        """The estimated cost at ``Y``."""
        return float(self._cost_fn(*self._triplet, Y, *learned, *self._args, self._n_threads))
