"""Public API: ``embed``, ``affinities``, ``cost_and_gradient``, ``list_methods``."""

import functools
import inspect
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from . import _progress
from . import _threads
from .inputs import affinities as aff
from .inputs import precomputed
from .inputs.neighbors import check_fit_input
from .inputs.projection import fit_projection
from .backends._backend import kernels as select_kernels
from ._memory import release_free_heap
from ._validation import (
    check_affinities,
    check_built_affinities,
    check_callback,
    check_coordinate_span,
    check_data,
    check_dense_memory,
    check_integer,
    check_random_state,
    check_threads,
)
from .registry import (DEFAULT_METHOD, METHODS, check_param_value, choose_gradient,
                       resolve_method)
from .engines.optim import DivergenceError
from .method_spec import FROM_INPUT
from .families import distance_unit, start_in_distance_unit
from ._validation.errors import ParameterError
from .plans import (EXACT_N_ITER, Objective, kept_start_check, make_plan, method_keywords,
                    warn_if_flung, warn_if_points_merged, warn_if_start_kept)
# the merged-points warning's thresholds, documented under these names
from .plans import MERGED_SHARE, ONE_SPOT  # noqa: F401


@dataclass
class EmbedResult:
    """Everything a run produced.

    Attributes
    ----------
    Y : ndarray of shape (n_samples, n_components)
        Final coordinates.
    cost : float
        Cost at ``Y`` with the true (unexaggerated) ``P``; never NaN.  With
        the stochastic optimizer: the exact cost of the final ``Y`` when
        ``n_samples <= smallvis.engines.sgd.SGD_COST_MAX_N`` (5000; the
        method's ``sgd.exact_cost_max_n``, 1000 for infonce), else (an exact
        evaluation is O(N^2)) an unbiased estimate from a sample of edges
        and of pairs, or of rows (:mod:`smallvis.engines.sampled_cost`); with an approximate
        gradient (t-SNE's ``gradient="fft"``), the cost of that
        approximation (exact attraction, interpolated normalisation Z);
        ``cost_kind`` says which.
    itercosts : ndarray of shape (n_evaluations,)
        Costs at the iterations in ``cost_iterations``.
    cost_iterations : ndarray of shape (n_evaluations,)
        Iteration numbers (1-based) at which the cost was evaluated.
    P : ndarray or scipy.sparse matrix, or None
        The input affinities used; None from ``embed(...,
        keep_affinities=False)``.
    n_iter : int
        Number of iterations (exact) or epochs (sgd) run.
    elapsed : float
        Wall-clock seconds for the whole call.
    method : str
    params : dict
        Every setting that produced the result, defaults filled in.
    optimizer : str
        ``"exact"`` or ``"sgd"``: the optimizer that ran (``"auto"``
        resolved).
    timings : dict
        Seconds spent in each stage: ``"affinities"`` (building ``P``,
        nearest neighbours included), ``"init"`` (the initial ``Y`` alone)
        and ``"optimize"``.  The checks of the data and parameters and the
        planning before them are in no entry: they take
        ``elapsed - sum(timings.values())``.
    stopped_early : bool
        Whether ``tol`` or the callback ended the run before ``n_iter``.
    learned : dict
        Final values of the scalars learned with ``Y`` (``{"Q": ...}`` for
        ncvis, empty otherwise).
    recoveries : list of dict
        Exact optimizer: one entry per recovery from a diverging run
        (``iteration``, ``restart``, ``reason``, new ``learning_rate``; see
        :mod:`smallvis.engines.optim`).  Empty when the run never diverged.
    cost_kind : {"exact", "estimate", "approximate"}
        Whether ``cost`` (and ``itercosts``) is the exact cost, a sampled
        estimate, or the cost of an approximate gradient.
    """

    Y: np.ndarray
    cost: float
    itercosts: np.ndarray
    cost_iterations: np.ndarray
    P: object
    n_iter: int
    elapsed: float
    method: str
    params: dict
    optimizer: str = "exact"
    timings: dict = field(default_factory=dict)
    stopped_early: bool = False
    learned: dict = field(default_factory=dict)
    recoveries: list = field(default_factory=list)
    cost_kind: str = "exact"
    #: The ``pca=`` projection (:class:`smallvis.inputs.projection.Projection`)
    #: that the neighbour search ran in, or None.
    projection: object = None
    #: The training rows' scores on ``projection`` (what ``P`` and the
    #: initialisation were computed from), or None without ``pca=``; the
    #: estimators place new points against them.
    scores: object = field(default=None, repr=False, compare=False)

    @property
    def Q(self):
        r"""The learned log-normaliser ``Q`` (ncvis; pstsne's ``log Z``), None for other methods.

        Every learned scalar, such as dhssne's ``alpha``, is in :attr:`learned`.
        ncvis's stochastic loop with ``correct_q=False`` (its default, as the
        NCVis reference code) learns one scalar that stands for
        :math:`Q + \log p_i^-`, which depends on the row (docs/theory.md
        §4.4 and §4.5): it is returned here as it is, far below the exact
        objective's ``Q``, and :attr:`cost` is evaluated with it, so it is
        far above the cost of a map as good at its own ``Q``.  With
        ``correct_q=True`` the loop learns ``Q`` itself.
        """
        return self.learned.get("Q")


class CheckedInput:
    """Training input already checked by :func:`smallvis.inputs.neighbors.check_fit_input`.

    :func:`embed` takes it in place of ``X`` and does not check it again:
    the estimators check their input first (the data before any parameter,
    in scikit-learn's words) and hand it on in this wrapper, so that the
    data are checked, and sparse data copied, once.
    """

    __slots__ = ("X",)

    def __init__(self, X):
        self.X = X


def _check_data(X, params, n_threads=None):
    """The data, or what stands for them: ``(X or None, params)``, before the method is known.

    ``X`` is checked by :func:`check_fit_input` on ``n_threads`` threads (unless it comes as a
    :class:`CheckedInput`); with ``metric="precomputed"``, a dense ``X``
    is a distance matrix and a sparse one a kNN graph, passed on as
    ``knn`` (``X`` None).  ``params`` is a new dict.
    """
    params = dict(params)
    metric = params.get("metric", "euclidean")
    checked = isinstance(X, CheckedInput)
    if checked:
        X = X.X
    graph = X is not None and precomputed.is_graph(X, metric)
    if graph and params.get("knn") is not None:
        raise ValueError("give the neighbours once: a sparse X with metric='precomputed' "
                         "is a kNN graph, and knn= was given too")
    if X is not None and not checked:
        X = check_fit_input(X, metric, n_threads=n_threads)  # sparse X: a canonical CSR copy
    if graph:
        params["knn"] = precomputed.graph_neighbours(X)
        return None, params
    return X, params


#: Metrics that a ``pca=`` projection keeps meaningful, and whether it is
#: centred for them.  Euclidean distances do not change with the origin,
#: so dense data are centred (their principal axes).  The cosine distance
#: is the angle between the rows as they are: an orthonormal projection
#: that is not centred keeps it (exactly with as many components as
#: features), while the centred scores of positive data (counts,
#: intensities) have other angles.  Sparse data are never centred.
#: (The correlation distance centres each row on its own mean, which no
#: projection of the rows commutes with: it is not offered.)
PCA_CENTRED = {"euclidean": True, "cosine": False}
PCA_METRICS = tuple(PCA_CENTRED)


def _check_pca(pca, shape, params, random_state):
    """``(n_components, seed, centre)`` of the ``pca=`` projection, or None (``pca`` None).

    ``shape`` is that of the data (None without data); ``centre`` is as
    :func:`smallvis.inputs.projection.fit_projection` takes it (None:
    dense data only).
    """
    if pca is None:
        return None
    if shape is None or params.get("metric") == precomputed.PRECOMPUTED:
        raise ValueError("pca= reduces the data X; it takes no precomputed distances, "
                         "knn= or affinities= alone")
    metric = params.get("metric", "euclidean")
    if metric not in PCA_METRICS:
        raise ValueError(f"pca= keeps the {' and '.join(PCA_METRICS)} metrics; got metric="
                         f"{metric!r} (drop pca= for it)")
    pca = check_integer(pca, "pca", low=1, high=min(shape))
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        seed = int(random_state)
    else:  # a Generator (or None): one draw from it seeds the projection
        seed = int(check_random_state(random_state).integers(2**31 - 1))
    return pca, seed, None if PCA_CENTRED[metric] else False


def _coordinates_seed(random_state):
    """The seed of the truncated SVD that stands for sparse ``X`` where a layout needs coordinates.

    ``random_state`` itself when it is an integer, else 0 (the coordinates
    are computed by :func:`smallvis.engines.init.data_coordinates`, only
    by the layouts that need them: none for "random", "spectral" without
    disconnected components, "power" or a user's array).
    """
    return int(random_state) if isinstance(random_state, (int, np.integer)) else 0


def _check_stand_ins(n_rows, m, params):
    """``(n_samples, params, P)``: what stands for data not given.

    ``n_rows`` is the number of rows of the data (None without data).
    ``affinities`` (a user's ``P``) is removed from ``params`` and returned
    checked and normalised as the method's own (else None).  Without data
    (``knn`` or ``affinities`` alone) the number of points is read from
    those.
    """
    params = dict(params)
    n = n_rows
    user_P = params.pop("affinities", None)
    if user_P is not None:
        C = check_affinities(user_P, symmetric=m.symmetric, fuzzy=m.fuzzy, name="affinities")
        if n_rows is not None and C.shape[0] != n_rows:
            raise ValueError(f"affinities has {C.shape[0]} rows but X has {n_rows}; "
                             "they must match")
        user_P = precomputed.affinities_of_method(C, m.p_family)
        n = C.shape[0]
    elif n_rows is None:
        knn = params.get("knn")
        if knn is None:
            raise TypeError("X is required unless the neighbours (knn=, or a sparse kNN graph "
                            "with metric='precomputed') or the affinities (affinities=) are "
                            "given")
        if "knn" not in m.affinity_params:
            usable = [name for name, other in METHODS.items() if "knn" in other.affinity_params]
            raise ValueError(f"{m.name}'s P needs the distances between all points, not a kNN "
                             f"graph; use one of {', '.join(usable)}, or pass the dense "
                             "distance matrix with metric='precomputed'")
        # the shapes first: the number of points is read from them
        n = aff.knn_arrays(knn)[0].shape[0]
    return n, params, user_P


def list_methods():
    """Names of the available methods, in registry order.

    Returns
    -------
    list of str
    """
    return list(METHODS)


def _blas_held_to_n_threads(fn):
    """Decorate a public call that takes ``n_threads``: run it with the BLAS held to that count.

    ``n_threads`` is resolved once by :func:`check_threads` (a count above
    the cores warns once) and passed on resolved, and the call runs inside
    :func:`smallvis._threads.blas_threads` of it, so that the package's
    kernels and NumPy's and SciPy's BLAS use the same number of threads and
    the same ``n_threads`` gives the same bits on machines with other core
    counts.  A call whose arguments do not bind, or whose ``n_threads`` is
    invalid, runs as it is, so that it reports its errors in its own order
    (the data's before any option's).
    """
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
            n_threads = check_threads(bound.arguments.get("n_threads"))
        except (TypeError, ValueError):
            return fn(*args, **kwargs)
        bound.arguments["n_threads"] = n_threads
        with _threads.blas_threads(n_threads):
            return fn(*bound.args, **bound.kwargs)

    return call


@_blas_held_to_n_threads
def affinities(X, method=DEFAULT_METHOD, *, fast=False, random_state=None, n_threads=None, **params):
    """Input affinities ``P`` that ``method`` uses for the data ``X``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or None
        Input data; with ``metric="precomputed"``, distances (see
        :func:`embed`); None with ``knn=``.
    method : str, default="tsne"
        A name from :func:`list_methods`, or an alias of one
        (``smallvis.registry.ALIASES``) with its own parameters.
    fast : bool, default=False
        Use the Cython kernels instead of the NumPy reference.
    random_state : None, int or numpy.random.Generator
        Seeds the approximate nearest neighbours (Annoy), when used.
    n_threads : int or None, default=None
        Threads for the neighbour search (None: the cores this process may
        use, see ``n_threads`` of :func:`embed`); the graph is the same
        on any number of threads.
    **params
        The method's affinity parameters (e.g. ``perplexity=30``).

    Returns
    -------
    P : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        One of four kinds, set by the method's entry in the registry
        (``smallvis.registry.METHODS[method].p_family``):

        * conditional (asne): the probabilities ``p_{j|i}``; rows sum to 1;
        * joint (ssne, tsne, largevis): the symmetric ``p_ij``, summing to 1;
          dense for ssne and for tsne up to 4096 points, sparse (kNN) above
          and for largevis;
        * fuzzy (umap, tumap): the fuzzy graph ``V``, symmetric, entries in
          (0, 1], not normalised;
        * kNN graph (ncvis, negtsne, infonce): the union of the kNN graphs,
          normalised to sum 1.
    """
    if "affinities" in params:
        raise TypeError("affinities() builds P; it takes no affinities= (pass that P to "
                        "embed)")
    X, params = _check_data(X, params, n_threads)  # the data first: NaN before any parameter
    given = set(params)
    m, params = resolve_method(method, params, defaults=False)
    n, params, _ = _check_stand_ins(None if X is None else X.shape[0], m, params)
    if X is None:  # the builders read the number of points from an (n, 0) array
        X = np.zeros((n, 0))
    kern = select_kernels(fast)
    if set(params) & set(m.cost_params):
        cost = ", ".join(sorted(given - set(m.affinity_params)))  # as the user named them
        raise ValueError(
            f"affinities() takes only affinity parameters of {m.name!r}: "
            f"{', '.join(m.affinity_params)}; got {cost}"
        )
    affinity_params, _ = m.split_params(params, X.shape[0])
    return m.split_built(m.build_affinities(X, kern, check_random_state(random_state),
                                            check_threads(n_threads), **affinity_params))[0]


def _check_y(Y):
    Y = check_data(Y, name="Y", min_rows=2)
    return check_coordinate_span(Y, "Y")


@_blas_held_to_n_threads
def cost_and_gradient(method, P, Y, *, fast=False, n_threads=None, return_learned=False,
                      gradient="exact", **method_params):
    """Cost and gradient of ``method`` at ``Y``: exact, or approximate on request.

    Parameters
    ----------
    method : str
        A name from :func:`list_methods`, or an alias of one
        (``smallvis.registry.ALIASES``) with its own parameters.
    P : ndarray or scipy.sparse matrix of shape (n_samples, n_samples)
        Input affinities, non-negative with a zero diagonal; symmetric for
        every method except ``asne``; at most 1 for ``umap`` and ``tumap``.
    Y : array-like of shape (n_samples, n_components)
        Output coordinates.
    fast : bool, default=False
        Use the Cython kernels.
    n_threads : int or None, default=None
        Threads for the Cython kernels (None: the cores this process may
        use, see ``n_threads`` of :func:`embed`).  Below
        ``smallvis._threads.EXACT_MIN_PAIRS`` unordered pairs ``N (N - 1) / 2``,
        that is on fewer than 20,000 points
        (``smallvis._threads.exact_min_samples()``), one thread runs whatever
        this says, and the result is the one-thread result.
    return_learned : bool, default=False
        Also return the derivatives in the method's learned scalars.
    gradient : str, default="exact"
        "exact", the name of one of the method's approximations
        (``smallvis.METHODS[method].approximations``; t-SNE's "fft", in 1-D
        and 2-D, whose accuracy ``n_interpolation`` sets), or "auto" (as in
        :func:`embed`).  An approximation gives its own cost: for "fft", the
        exact attraction term with the interpolated normalisation Z.
    **method_params
        The method's cost parameters (for ncvis including ``Q``).

    Returns
    -------
    cost : float
    gradient : ndarray of shape (n_samples, n_components)
    learned_gradient : dict
        Only with ``return_learned=True``: ``{"Q": dcost/dQ}`` for ncvis
        (and pstsne), empty for a method without learned scalars or whose
        kernels give no derivative in them (dhssne's tail, which its rule
        sets by comparing costs).

    Raises
    ------
    ValueError
        Bad ``P`` (shape, structure, negative/non-finite entries, a sum that
        overflows), ``Y`` whose coordinates span more than about 1e154 (squared
        distances would overflow), a cost or gradient that is not finite in
        float64 for this ``P`` and ``Y``, or, with ``fast=False``, more points
        than the NumPy reference may hold (``smallvis.backends.reference.MAX_DENSE_BYTES``);
        a ``gradient`` the method does not have, or in a dimension the
        approximation does not support (the message lists what exists).
    TypeError
        Non-numeric ``P`` or ``Y``, or a parameter of the wrong type.
    """
    Y = _check_y(Y)  # the data first, then the parameters
    m, method_params = resolve_method(method, method_params)
    kern = select_kernels(fast)
    check_dense_memory(kern, Y.shape[0])
    unknown = set(method_params) - set(m.cost_params)
    if unknown:
        valid = ", ".join(m.cost_params) or "none"
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, sorted(unknown)))} for the "
            f"cost of {m.name!r}; valid: {valid}"
        )
    cost_params = {k: check_param_value(k, method_params.get(k, v), v)
                   for k, v in m.cost_params.items()}
    cost_params = m.with_inputs(m.resolve_auto(cost_params, Y.shape[0]), {})
    learned = tuple(m.check_learned_value(k, cost_params[k]) for k in m.learned)
    gradient = choose_gradient(m, gradient, Y.shape[0], Y.shape[1])
    cost_fn, gradient_fn, args = m.cost_kernels(kern, cost_params, gradient)
    C = check_affinities(P, Y.shape[0], symmetric=m.symmetric, fuzzy=m.fuzzy)
    triplet = aff.kernel_triplet(C)
    n_threads = _threads.exact_threads(check_threads(n_threads), Y.shape[0])
    grad = np.zeros_like(Y)
    with np.errstate(over="ignore", invalid="ignore"):  # checked just below
        d_learned = gradient_fn(*triplet, Y, *learned, *args, grad, n_threads)
        cost = float(cost_fn(*triplet, Y, *learned, *args, n_threads))
    if not (np.isfinite(cost) and np.all(np.isfinite(grad))):
        raise ValueError(
            f"the {m.name} cost or gradient overflows float64 for this P and Y "
            f"(P sums to {float(np.sum(triplet[2])):.3g}, Y spans up to "
            f"{float(np.max(np.ptp(Y, axis=0))):.3g}); use P normalised as "
            "smallvis.affinities returns it and coordinates of moderate size"
        )
    if return_learned:
        # a scalar that its rule sets may have no derivative in the kernels
        return cost, grad, ({} if d_learned is None
                            else {k: float(d_learned) for k in m.learned})
    return cost, grad


@_blas_held_to_n_threads
def embed(X, method=DEFAULT_METHOD, *, fast=True, n_components=2, init=None,
          perplexity=None, optimizer="auto", gradient="auto", n_epochs=None,
          learning_rate=None, n_iter=EXACT_N_ITER, exaggeration=None,
          exaggeration_iter=250, late_exaggeration=1.0, late_exaggeration_iter=None,
          momentum=0.5, final_momentum=0.8,
          momentum_switch_iter=250, min_gain=0.01, tol=1e-7, cost_every=50,
          random_state=None, n_threads=None, verbose=False, callback=None,
          return_result=False, keep_affinities=True, pca=None, **method_params):
    """Embed ``X`` in ``n_components`` dimensions with ``method``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or None
        Input data; finite, at least 2 rows.  Checked before any other
        argument.  With the method parameter ``metric="precomputed"``: a
        dense symmetric matrix of distances with a zero diagonal, or a
        sparse kNN graph (row ``i`` stores the distances to the neighbours
        of ``i``).  None when ``knn=(indices, distances)`` (a method
        parameter) or ``affinities=P`` (a user's input affinities, checked
        as :func:`cost_and_gradient` checks ``P`` and normalised as the
        method's own: divided by their sum, by row sums for asne, as given
        for umap and tumap) stand for the data.  A :class:`CheckedInput`
        holds data that :func:`smallvis.inputs.neighbors.check_fit_input`
        checked already.  Without coordinates
        (precomputed distances, ``knn`` or ``affinities`` alone) the default
        ``init`` is "spectral"; without any data "pca"/"spca" are refused.
    method : str, default="tsne"
        A name from :func:`list_methods`, or an alias of one
        (``smallvis.registry.ALIASES``) with its own parameters.
    fast : bool, default=True
        Cython kernels (True) or the NumPy reference (False); both give the
        same numbers to rounding, and from the same ``P`` and start the
        stochastic optimizer's loops give the same bits.  A whole run from
        ``X`` can still differ: where the two calibrations of ``P`` differ in
        the last bits (the perplexity methods), the run amplifies that.  The reference is the formulas written out, to
        read and to step through in a debugger; it is slow (its stochastic
        optimizer is a Python loop over the edges) and holds N x N arrays.
        The default is the estimators' (:class:`smallvis.Embedding`).
    n_components : int, default=2
        Output dimension.
    init : {"spca", "pca", "random", "spectral", "laplacian", "power"}, "spectral:K",
        "laplacian:K" or ndarray, optional
        Initial coordinates, see :func:`smallvis.engines.init.initialize`.
        "spectral" and "laplacian" lay out the graph of all of ``P``;
        "spectral:K" and "laplacian:K" (``1 <= K <= n_samples - 1``) that
        of each point's ``K`` strongest entries of ``P``, made symmetric.
        Default: the method's, read from the registry:
        ``optimizer_defaults["init"]`` for the exact optimizer, the
        reference code's ``sgd.init`` for the stochastic one (e.g.
        ``smallvis.METHODS["umap"].sgd.init``; the stochastic largevis's is
        "spectral:30", written "spectral:<n_samples - 1>" on fewer than 31
        points, where it is the same graph).  ``result.params["init"]``
        records the named init that ran: passed back, it gives the same
        start.  "pca" starts in the units of X; an affinity method whose
        map hardly leaves such a start, because it is far wider than the
        method's output kernel reaches (pixels of 0 to 255), warns
        (:func:`smallvis.plans.warn_if_start_kept`).
    perplexity : float, optional
        Perplexity for the methods that use it (default: the method's
        ``affinity_params["perplexity"]``).  At most ``n_samples - 1``.  A
        default too large for ``X`` (and a default ``n_neighbors``, see
        ``METHODS[method].sized_params``) is lowered, with one
        :class:`smallvis.SmallDataWarning` saying what was used:
        perplexity to ``(n_samples - 1) / 3`` (at least 1), umap's and
        tumap's ``n_neighbors`` to ``n_samples - 1`` (at least 2), NCVis's to
        ``(n_samples - 1) // 3`` (at least 1).  A value given that is too
        large is a ValueError.
    optimizer : {"auto", "exact", "sgd"}, default="auto"
        "exact": full-gradient delta-bar-delta (:mod:`smallvis.engines.optim`).
        "sgd": edge and negative sampling (:mod:`smallvis.engines.sgd`), for the
        methods whose registry entry has a stochastic form (``sgd`` not
        None); asking for it with another method is a ValueError.  "auto":
        "sgd" for those methods when ``n_samples > 5000``
        (``smallvis.engines.sgd.AUTO_SGD_MIN_N``); for umap and tumap above
        1000 points (``smallvis.methods.umap.method.FUZZY_AUTO_SGD_MIN_N``:
        above it their exact optimizer breaks classes into more pieces than
        umap-learn's sampled loop), for ncvis above 1000 points
        (``smallvis.methods.ncvis.method.NCVIS_AUTO_SGD_MIN_N``: above it
        the exact optimizer's maps keep fewer neighbours than the NCVis
        reference loop's and take far longer), and for umap and tumap in
        one dimension (``n_components=1``) above 15 points (the exact
        optimizer cannot move points past one another on a line); "exact"
        otherwise.  With "sgd"
        the method takes its stochastic form's defaults
        (``METHODS[method].sgd``, including ``param_defaults`` such as
        largevis's ``gamma``; module docstring of :mod:`smallvis.engines.sgd`).
        Each optimizer reads and validates only its own keywords
        (:mod:`smallvis.plans`): with "sgd", ``n_iter``, ``exaggeration*``,
        ``momentum*``, ``min_gain``, ``tol`` and ``cost_every`` are ignored;
        with "exact", ``n_epochs`` (a bad ``n_iter`` or ``n_epochs`` is still
        refused).
    gradient : str, default="auto"
        The gradient of the exact optimizer: "exact" (all pairs, O(N^2) per
        iteration), or one of the method's approximations
        (``smallvis.METHODS[method].approximations``): for tsne "fft",
        FFT-accelerated interpolation of the repulsion (FIt-SNE; 1-D and 2-D
        output, O(N) per iteration; the attraction over ``P`` stays exact;
        accuracy set by the method parameter ``n_interpolation``, default 3).
        "auto": the approximation above its ``auto_min_n`` points (tsne:
        10,000, ``smallvis.methods.tsne.method.FFT_AUTO_MIN_N``) when the dimension
        allows, "exact" otherwise.  With an approximation the costs
        monitored and reported are its own (``cost_kind="approximate"``).
        ``result.params["gradient"]`` records what ran.  A name the method
        does not have, or an unsupported ``n_components``, is a ValueError
        listing what exists.
    n_epochs : int, optional
        Epochs of the stochastic optimizer; default: the method's,
        ``METHODS[method].sgd.n_epochs(n_samples)``.  When
        ``optimizer="auto"`` chooses the exact optimizer (or the method has
        no other), a given ``n_epochs`` warns that it is ignored.
    learning_rate : float or "auto", optional
        Step size.  With the stochastic optimizer: the initial rate
        ``alpha_0`` of the decay; default (and "auto") the reference code's,
        ``METHODS[method].sgd.learning_rate``.  With the exact optimizer:
        default ``optimizer_defaults["learning_rate"]``, and "auto" is
        ``METHODS[method].auto_learning_rate(n_samples, exaggeration)``
        (for a ``P`` that sums to 1, ``max(n_samples / exaggeration / 4,
        50)`` as scikit-learn with t-SNE's exaggeration, and without the
        floor for the methods without exaggeration), then lowered where a
        floor would take P's stiffest row beyond reach
        (:func:`smallvis.plans.stiffest_row_learning_rate`; docs/theory.md
        §5); under exaggeration a row stiffer still takes a smaller step of
        its own (``result.params["rows_damped"]`` rows).
        ``result.params["learning_rate"]`` is the rate used; a rate given
        here damps no row, so "auto" repeats a damped run and that rate
        does not.
    n_iter : int, default=1000
        Number of iterations of the exact optimizer.  The stochastic
        optimizer runs ``n_epochs`` instead; when ``optimizer="auto"``
        chooses it, another ``n_iter`` than 1000 warns that it is ignored.
    exaggeration : float, optional
        Factor multiplying ``P`` for the first ``exaggeration_iter``
        iterations.  Default: the method's ``optimizer_defaults["exaggeration"]``
        (12 for t-SNE).  Use 1 to reproduce the R package smallvis.
    exaggeration_iter : int, default=250
    late_exaggeration : float, default=1.0
        Factor multiplying ``P`` after iteration ``late_exaggeration_iter``,
        to the end of the run (1: none).  Values above 1 move a t-SNE map
        toward UMAP-like maps (Böhm, Berens & Kobak 2022; docs/theory.md
        §5).  The costs monitored and reported are always those of the true
        ``P``.
    late_exaggeration_iter : int, optional
        The last iteration before late exaggeration; default
        ``exaggeration_iter`` (late exaggeration follows the early phase).
        With ``learning_rate="auto"`` the late phase steps at
        ``min(learning_rate, n_samples / (4 * late_exaggeration * sum(P)))``
        (docs/theory.md §5).  Late exaggeration belongs to the exact
        optimizer: with "sgd" it is checked, and a value other than 1 is
        ignored with a ``UserWarning``.
    momentum, final_momentum : float, default=0.5, 0.8
    momentum_switch_iter : int, default=250
        The last iteration that uses ``momentum``.
    min_gain : float, default=0.01
    tol : float, default=1e-7
        Stop when the relative cost change per iteration between two
        evaluations falls below ``tol`` (0 disables).
    cost_every : int, default=50
        Evaluate (and record) the cost every ``cost_every`` iterations.
    random_state : None, int or numpy.random.Generator
        Seed for random initialisation and approximate nearest neighbours.
    n_threads : int or None, default=None
        Threads for the Cython kernels, and for NumPy's and SciPy's BLAS
        during the call (held there, then restored).  None: the cores this
        process may use (its CPU affinity and cgroup CPU quota), at most
        ``OMP_NUM_THREADS`` when that is a positive integer; -1: all the
        cores this process may use; a larger count than those is lowered
        to them with a warning.  Small problems run on one thread whatever
        the count (:mod:`smallvis._threads`).  With a fixed
        ``random_state`` and the same thread count, both optimizers give
        the same ``Y`` bit for bit on every run; a different thread count
        gives a different map (of the same quality; exact optimizer: in the
        last bits only), and the neighbour graph is the same on any number
        of threads (docs/guide/reproducibility.md).
    verbose : bool, default=False
        Print progress to stderr: each stage (nearest neighbours with its
        trees, queries and refinement rounds; calibration; init;
        optimisation) as it starts, with its time when it ends, then the
        optimizer's lines (iteration, cost, elapsed, ETA).  The stochastic
        optimizer's lines show a sampled estimate of the cost
        (:mod:`smallvis.engines.sampled_cost`), labelled "est. cost".
    callback : callable, optional
        ``callback(iteration, Y, cost)`` after every iteration (sgd: every
        epoch); ``cost`` is None unless it was evaluated (always None with
        sgd).  Return True to stop.  A method of input distances (a family
        whose ``units`` is ``"equivariant"``) is fitted in units of the
        mean input distance (:func:`smallvis.families.distance_unit`): its
        callback sees ``Y`` and ``cost`` in those units, and the map it
        returns is in the data's.
    return_result : bool, default=False
        Return an :class:`EmbedResult` instead of the coordinates.
    keep_affinities : bool, default=True
        With ``return_result``: keep ``P`` in :attr:`EmbedResult.P`.  False
        leaves it None, so that, as in a call that does not return the
        result, a stochastic optimizer that samples edges from an alias
        table (largevis's, above 5,000 points) may build that table in the
        memory of a ``P`` the call built itself: 8 bytes per stored entry
        less at its peak, about 1.9 GB at a million points.  The map is the
        same either way.  Ignored without ``return_result``.
    pca : int, optional
        Reduce ``X`` to this many principal components before anything
        else (the neighbour search, P, the initialisation): centred
        randomised SVD for dense ``X``, truncated SVD without centring for
        sparse ``X`` (:mod:`smallvis.inputs.projection`), seeded from
        ``random_state``.  For the Euclidean and cosine metrics; with
        ``metric="cosine"`` dense ``X`` is not centred either, so the
        scores keep the angles between the rows (all of them with
        ``pca=n_features``).  At most ``min(n_samples, n_features)``.  The projection is kept
        (``result.projection``, the estimators' ``training_map_``, model
        files) and ``transform`` applies it to new points.
    **method_params
        Method parameters (see ``smallvis.METHODS[method]``).

    Returns
    -------
    Y : ndarray of shape (n_samples, n_components), or EmbedResult
    """
    t0 = time.perf_counter()
    progress = _progress.begin(verbose)  # noqa: F841  stage lines while this lives
    # validate: the data first (NaN before any parameter), then what stands for them
    X, method_params = _check_data(X, method_params, n_threads)
    m, method_params = resolve_method(method, method_params)
    has_data = X is not None
    n, method_params, user_P = _check_stand_ins(X.shape[0] if has_data else None, m,
                                                method_params)
    reduce_to = _check_pca(pca, X.shape if has_data else None, method_params, random_state)
    if not has_data:  # the builders read the number of points from an (n, 0) array
        X = np.zeros((n, 0))
    n_threads = check_threads(n_threads)
    # project
    projection = None
    if reduce_to is not None:
        # the fit (the SVD) and the scores, both timed
        with _progress.stage("pca", f"{pca} components of {X.shape[1]} features"):
            projection = fit_projection(X, *reduce_to, n_threads=n_threads)
            X = projection.apply(X, n_threads)
    coordinates = has_data and method_params.get("metric") != precomputed.PRECOMPUTED
    if not coordinates and init is None:
        init = "spectral"  # no coordinates to take principal components of
    elif not has_data and isinstance(init, str) and init in ("pca", "spca"):
        raise ValueError(f"init={init!r} needs the data X; without them (knn= or "
                         "affinities= alone) use 'spectral', 'random' or an array")
    kern = select_kernels(fast)
    check_dense_memory(kern, n)
    n_components = check_integer(n_components, "n_components", low=1)
    callback = check_callback(callback)
    rng = check_random_state(random_state)
    plan = make_plan(
        m, n, optimizer, method_keywords(m, perplexity, method_params), init=init,
        learning_rate=learning_rate, n_epochs=n_epochs, gradient=gradient,
        n_components=n_components, n_iter=n_iter,
        exaggeration=exaggeration, exaggeration_iter=exaggeration_iter,
        late_exaggeration=late_exaggeration, late_exaggeration_iter=late_exaggeration_iter,
        momentum=momentum, final_momentum=final_momentum,
        momentum_switch_iter=momentum_switch_iter, min_gain=min_gain, tol=tol,
        cost_every=cost_every)

    _progress.say(f"{m.name}, {n} points, {plan.describe()}, {'Cython' if fast else 'NumPy'} "
                  f"kernels, learning rate {plan.learning_rate:g}")

    # neighbours and P
    t1 = time.perf_counter()
    inputs = {}
    if user_P is not None:
        C = user_P
        # a per-point value the calibration of X would give cannot come
        # from a P alone: taking 1 (the plain method) would be another
        # method under this one's name
        missing = [k for k in m.input_params if k not in m.pair_inputs
                   and isinstance(plan.cost_params.get(k), str)
                   and plan.cost_params[k] == FROM_INPUT]
        if missing:
            raise ParameterError(
                f"method {m.name!r} takes {', '.join(missing)} from the calibration of X, "
                f"which affinities= does not carry: pass {missing[0]}= as well (one value "
                f"per point, or 1 for the plain method), or pass X instead", tuple(missing))
    else:
        C, inputs = m.split_built(
            m.build_affinities(X, kern, random_state, n_threads, **plan.affinity_params))
        if not (m.p_family.distances and not np.any(C)):  # identical rows: the builder warned
            C = check_built_affinities(C, n, symmetric=m.symmetric, fuzzy=m.fuzzy)
    cost_params = m.with_inputs(plan.cost_params, inputs)
    release_free_heap()  # the builders' temporaries, before the optimizer allocates
    # input distances are fitted in units of their mean, and the map returned in theirs
    unit = distance_unit(C) if m.p_family.units == "equivariant" else 1.0
    C_fit = C / unit if unit != 1.0 else C
    # start
    t2 = time.perf_counter()
    # data in the same unit, so that their principal components cannot overflow
    Y = plan.start(X / unit if unit != 1.0 else X, C_fit, n_components, rng,
                   seed=_coordinates_seed(random_state), kernels=kern, n_threads=n_threads)
    if m.p_family.units == "equivariant":
        start_in_distance_unit(Y, C_fit)
    start = Y.copy() if kept_start_check(plan.init, m) else None
    release_free_heap()  # the start's temporaries (a graph of the strongest entries)
    t_init = time.perf_counter()
    # optimise
    objective = Objective.build(m, kern, C_fit, cost_params, n_threads, plan.gradient)
    _progress.say(f"optimisation: {plan.describe()}")
    # P built here and not returned is the optimizer's to reuse (at a million
    # points its values are 1.9 GB, as large as the alias table it can hold)
    consume_P = (user_P is None and not (return_result and keep_affinities)
                 and sp.issparse(C_fit)
                 and not np.may_share_memory(C_fit.data, X.data if sp.issparse(X) else X))
    try:
        outcome = plan.run(Y, objective, P=C_fit, kernels=kern, rng=rng, callback=callback,
                           verbose=verbose, method=m, consume_P=consume_P)
    except DivergenceError as exc:
        raise DivergenceError(f"{m.name}: {exc}") from None
    Y *= unit
    t3 = time.perf_counter()
    if has_data:
        warn_if_points_merged(Y, X, cost_params, m.name)
    warn_if_flung(Y, cost_params, m)
    if start is not None:
        warn_if_start_kept(Y, start, m.name)
    _progress.say(f"optimisation: done in {t3 - t_init:.2f}s")
    if not return_result:
        return Y
    params = dict(fast=bool(fast), n_components=n_components, optimizer=plan.name,
                  init=plan.init if isinstance(plan.init, str) else "array",
                  random_state=random_state, n_threads=n_threads, pca=pca,
                  **outcome.settings,
                  **plan.affinity_params, **cost_params)
    return EmbedResult(
        Y=Y, cost=float(outcome.final_cost), itercosts=np.asarray(outcome.costs, dtype=float),
        cost_iterations=np.asarray(outcome.cost_iterations, dtype=int),
        P=C if keep_affinities else None,
        n_iter=outcome.n_run, elapsed=t3 - t0, method=m.name, params=params,
        optimizer=plan.name, timings={"init": t_init - t2, "affinities": t2 - t1,
                                      "optimize": t3 - t_init},
        stopped_early=outcome.stopped_early,
        learned={k: float(v) for k, v in zip(m.learned, objective.learned)},
        recoveries=outcome.recoveries,
        cost_kind=outcome.cost_kind,
        projection=projection,
        scores=X if projection is not None else None,
    )
