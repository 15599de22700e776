"""The checks of a search's input: data, a fit's training input, the backend settings.

Every entry point of the kNN search (:func:`smallvis.inputs.neighbors.nearest_neighbors`,
:class:`smallvis.inputs.neighbors.KNNIndex`) and every stage that hands it
data (:func:`smallvis.embed`, the estimators, the command line) checks its
input here, so dense data, sparse data, distance matrices and kNN graphs
are each accepted by one rule.
"""

import scipy.sparse as sp

from . import precomputed, sparse_search
from .annoy_forest import ANNOY_MAX_TREES
from .._validation import ParameterError, check_data, check_integer


#: Backends accepted by :func:`smallvis.inputs.neighbors.nearest_neighbors`.
NEIGHBOR_METHODS = ("auto", "exact", "annoy")


def check_points(X, name="X", min_rows=2, n_threads=None):
    """Dense data checked by :func:`check_data` (copied on ``n_threads`` threads);
    sparse data by :func:`smallvis.inputs.sparse_search.check_sparse_data`
    (a canonical CSR copy)."""
    if sp.issparse(X):
        return sparse_search.check_sparse_data(X, name, min_rows)
    return check_data(X, name, min_rows, n_threads)


def check_fit_input(X, metric, name="X", n_threads=None):
    """The training input of a fit, checked: data, a distance matrix or a kNN graph.

    A sparse ``X`` with ``metric="precomputed"`` is a kNN graph
    (:func:`smallvis.inputs.precomputed.check_graph`: a pair stored twice
    is refused, not summed); a dense one a distance matrix
    (:func:`smallvis.inputs.precomputed.check_distance_matrix`); anything
    else data (:func:`check_points`, a canonical copy of sparse data;
    dense data are copied on ``n_threads`` threads).
    """
    if sp.issparse(X) and metric == precomputed.PRECOMPUTED:
        return precomputed.check_graph(X, name)
    X = check_points(X, name, n_threads=n_threads)
    if metric == precomputed.PRECOMPUTED:
        precomputed.check_distance_matrix(X, name)
    return X


def check_search_params(method, n_trees, name="method"):
    """Check a neighbour-search backend name and Annoy tree count.

    Returns ``n_trees`` as an int (or None); raises ``ParameterError`` (a
    ``ValueError``) or ``TypeError`` naming the argument (``name`` for the
    backend), so that the command line names its option.
    """
    if not isinstance(method, str) or method not in NEIGHBOR_METHODS:
        raise ParameterError(
            f"{name} must be one of {', '.join(map(repr, NEIGHBOR_METHODS))}; got {method!r}",
            (name,))
    if n_trees is not None:
        n_trees = check_integer(n_trees, "n_trees", low=1, high=ANNOY_MAX_TREES)
    return n_trees
