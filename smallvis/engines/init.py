"""Initial output coordinates."""

import re

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

from .._validation import (ParameterError, check_coordinate_span, check_embedding,
                           warn_from_caller)
from .. import _threads
from .._numeric import SAFE_EXPONENT, power_of_two_exponent
from ..inputs.projected_search import MIN_FEATURES as RANDOMISED_PCA_MIN_FEATURES
from ..inputs.projected_search import scores as projected_scores
from ..inputs.projection import fit_projection, fitted_scores

#: Standard deviation of the "random" and "spca" initialisations.
SMALL_SD = 1e-4

INIT_NAMES = ("random", "pca", "spca", "spectral", "laplacian", "power")
#: The initialisations that are a PCA of the data: of data of lower rank
#: they span fewer dimensions than the map (:func:`_fill_missing_directions`).
PCA_INITS = ("pca", "spca")

#: Power-iteration steps of the "power" initialisation (the NCVis reference).
POWER_ITERATIONS = 20

#: Largest absolute coordinate of the "spectral" and "laplacian" layouts.
SPECTRAL_SCALE = 10.0

#: Inits that need the input affinities ``P``.
GRAPH_INITS = ("spectral", "laplacian")
#: How the warnings name the ``P`` given to :func:`initialize`.
AFFINITY_GRAPH = "the affinity graph"

#: A graph init of each point's ``K`` strongest entries of ``P``, spelled
#: ``"<graph init>:<K>"`` (``"spectral:15"``): ``K`` a positive decimal
#: integer without leading zeros, so one graph has one spelling.
_STRONGEST_INIT = re.compile(rf"({'|'.join(GRAPH_INITS)}):([1-9][0-9]*)")

#: The named inits, for the messages.
INIT_NAME_CHOICES = (f"one of {', '.join(INIT_NAMES)}, "
                     + " or ".join(f"'{name}:K'" for name in GRAPH_INITS)
                     + " (K from 1 to n_samples - 1: the layout of the graph of each "
                       "point's K strongest entries of P)")
#: What ``init`` may be, for the messages.
INIT_CHOICES = f"{INIT_NAME_CHOICES}, or an array"

#: ARPACK's attempts in :func:`spectral_layout`: (relative residual
#: tolerance, most implicit restarts; None for 5 times the number of
#: points).  The precise solve converges within 17 restarts on the
#: perplexity, UMAP and NCVis graphs of iris, s1k and digits; one that
#: needs more than 20 has low eigenvalues so close together that its
#: eigenvectors are not determined to that precision (docs/theory.md §7),
#: and the second attempt asks for umap-learn's tolerance instead.  The
#: restarts of a failed first attempt are wasted (at a million points
#: they dominated the start), so the first attempt stops at 20
#: (docs/experiments.md, 2026-11-28); graphs above
#: :data:`EIGSH_PRECISE_MAX_N` points skip it.
EIGSH_ATTEMPTS = ((1e-8, 20), (1e-4, None))

#: Graphs of more points than this skip the precise attempt of
#: :data:`EIGSH_ATTEMPTS` and ask for umap-learn's tolerance at once.  On
#: 70,000 photographs the precise solve took 1.1 to 1.7 s of a 16 s call
#: at two threads and the loose one 0.6 s, and the maps scored the same
#: (docs/experiments.md, 2026-12-04); the bundled sets and every frozen
#: number stay below it, and keep their precise eigenvectors.
EIGSH_PRECISE_MAX_N = 10_000


#: Seed of the randomised PCA of data with many features (fixed: the
#: initialisation draws nothing from the caller's generator for it).
RANDOMISED_PCA_SEED = 0

#: Components of the truncated SVD that stands for sparse ``X`` where a
#: layout needs coordinates (:func:`data_coordinates`).
SPARSE_INIT_RANK = 8


def _randomised(X, n_components):
    """Whether :func:`pca_scores` uses the randomised PCA (many features, few components)."""
    return X.shape[1] >= RANDOMISED_PCA_MIN_FEATURES and n_components < min(X.shape)


def pca_scores(X, n_components, n_threads=1):
    """Principal-component scores of ``X`` with a deterministic sign.

    Each component is flipped so that its largest-magnitude score is positive.
    Columns beyond the rank of ``X`` are zero.  From
    ``RANDOMISED_PCA_MIN_FEATURES`` (500) features on, the components come
    from the randomised subspace iteration of
    :func:`smallvis.inputs.projection.fit_projection` (seed
    ``RANDOMISED_PCA_SEED``), which needs neither a centred copy of ``X``
    nor its full SVD (on 70,000 x 784 those take 1.3 GB and most of a
    minute; the iteration a few seconds and ``n x (n_components + 10)``
    numbers); the scores agree with the SVD's to the iteration's
    accuracy (``tests/test_projected_search.py``).  Below, the thin SVD of
    the centred data.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_components : int
    n_threads : int, default=1
        Threads the randomised PCA's products share; its scores have the
        same bits on any number.

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    if _randomised(X, n_components):
        scores = projected_scores(fit_projection(X, n_components, RANDOMISED_PCA_SEED,
                                                 centre=True, n_threads=n_threads), X,
                                  n_threads)
        k = n_components
    else:
        Xc = X - X.mean(axis=0)
        U, s, _ = np.linalg.svd(Xc, full_matrices=False)
        k = min(n_components, len(s))
        scores = np.zeros((X.shape[0], n_components))
        scores[:, :k] = U[:, :k] * s[:k]
    for c in range(k):
        col = scores[:, c]
        if col[np.argmax(np.abs(col))] < 0:
            scores[:, c] = -col
    return scores


def data_coordinates(X, seed=RANDOMISED_PCA_SEED):
    """Dense coordinates whose PCA stands for that of ``X``: ``X`` itself if dense.

    For sparse ``X``, the scores of its top :data:`SPARSE_INIT_RANK`
    singular directions, not centred
    (:func:`smallvis.inputs.projection.fitted_scores`): their PCA
    approximates the PCA of ``X``, and no dense copy of ``X``, nor any
    array with a number per column, is made, so memory follows the stored
    entries and the rows.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    seed : int, default=RANDOMISED_PCA_SEED
        Seeds the truncated SVD of sparse ``X``.

    Returns
    -------
    ndarray of shape (n_samples, m)
    """
    if not sp.issparse(X):
        return X
    rank = max(1, min(SPARSE_INIT_RANK, X.shape[0] - 1, X.shape[1]))
    return fitted_scores(X, rank, int(seed), centre=False)


def _scale_to_max(Y, scale=SPECTRAL_SCALE):
    """Scale ``Y`` so its largest absolute coordinate is ``scale``."""
    m = np.abs(Y).max()
    return Y * (scale / m) if m > 0 else Y


def _fix_signs(V):
    """Flip each column so its largest-magnitude entry is positive."""
    for c in range(V.shape[1]):
        col = V[:, c]
        if col[np.argmax(np.abs(col))] < 0:
            V[:, c] = -col
    return V


def _graph(P):
    """Symmetric, non-negative sparse weights from ``P`` with a zero diagonal.

    ``P`` is square (:func:`_check_graph_input`).
    """
    W = sp.csr_matrix(P, dtype=np.float64)
    W = 0.5 * (W + W.T)
    W = (W - sp.diags(W.diagonal())).tocsr()  # zero diagonal (setdiag goes via LIL: slow)
    W.eliminate_zeros()
    if W.nnz and W.data.min() < 0:
        raise ValueError("P must be non-negative for spectral initialisation")
    return W


def _strongest_graph(A):
    """:func:`_graph` of a graph of :func:`strongest_entries`, without its copies where it can.

    That graph is symmetric by construction, so ``(W + W^T) / 2`` is ``W``
    bit for bit; without diagonal entries or negative values it is
    returned as it is (sorted), else it goes through :func:`_graph`.
    """
    if not (sp.issparse(A) and A.format == "csr" and A.dtype == np.float64) \
            or A.diagonal().any() \
            or (A.nnz and A.data.min() <= 0):
        return _graph(A)
    A.sort_indices()
    return A


def strongest_entries(P, k, n_threads=1, kernels=None):
    """The graph of each row's ``k`` largest entries of ``P``, made symmetric.

    Row ``i`` keeps its ``k`` largest stored entries, the smaller column
    first among equal values (the twin kernel ``row_strongest``); the
    result is the element-wise maximum of that matrix and its transpose, so
    an entry kept by either row stays.  A smaller graph for a graph
    initialisation of a dense-rowed ``P`` (largevis's 60 or 150 neighbours).

    Parameters
    ----------
    P : sparse matrix of shape (n_samples, n_samples)
    k : int
        Entries kept per row, at least 1.
    n_threads : int, default=1
        Threads that share the rows; the result is the same on any number.
    kernels : module, optional
        The twin module whose ``row_strongest`` chooses the entries
        (default: the NumPy reference).

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    """
    if kernels is None:
        from ..backends import reference as kernels
    P = sp.csr_matrix(P)
    if not P.has_canonical_format:  # one entry per column, without touching the caller's P
        P = P.copy()
        P.sum_duplicates()
    keep = np.empty(P.nnz, dtype=np.uint8)
    kernels.row_strongest(P.indptr.astype(np.int64), P.indices,
                          np.asarray(P.data, dtype=np.float64), k, keep, n_threads)
    keep = keep.view(bool)
    indptr = np.concatenate(([0], np.cumsum(np.minimum(np.diff(P.indptr), k))))
    A = sp.csr_matrix((P.data[keep], P.indices[keep], indptr), shape=P.shape)
    del keep  # a byte per entry of P, not needed by the maximum's copies
    return A.maximum(A.T).tocsr()


def strongest_init(name, k):
    """The init ``name`` (a graph init) of each point's ``k`` strongest entries: ``"name:k"``."""
    return f"{name}:{int(k)}"


def split_init(init):
    """``(name, k)`` of a named init: ``k`` per point for ``"name:k"``, else None.

    ``"spectral:15"`` gives ``("spectral", 15)``, ``"spectral"``
    ``("spectral", None)``; a string of neither form comes back whole, as
    the name (:func:`check_init_name` refuses it).
    """
    match = _STRONGEST_INIT.fullmatch(init)
    if match is None:
        return init, None
    return match.group(1), int(match.group(2))


def init_graph_name(init):
    """How the warnings name the graph that the named ``init`` lays out."""
    _, k = split_init(init)
    if k is None:
        return AFFINITY_GRAPH
    return f"the graph of each point's {k} strongest entries of P"


def describe_init(init):
    """The named ``init`` for the progress lines: ``"spectral:15"`` says what its graph is."""
    name, k = split_init(init)
    if k is None:
        return init
    return f"{init}, the {name} layout of {init_graph_name(init)}"


def sized_init(init, n_samples):
    """A default ``init`` for ``n_samples`` points: ``"name:k"`` with ``k`` at most ``n_samples - 1``.

    A point has at most ``n_samples - 1`` entries in its row of ``P``, so
    keeping its ``k >= n_samples - 1`` strongest keeps them all: lowering
    ``k`` to ``n_samples - 1`` gives the same graph and the same layout,
    spelled as a value that :func:`check_init` accepts.  Any other ``init``
    is returned as it is.
    """
    name, k = split_init(init)
    if k is None or k <= n_samples - 1:
        return init
    return strongest_init(name, max(1, n_samples - 1))


def spectral_layout(P, n_components, rng, *, random_walk=False, kernels=None, n_threads=1):
    r"""Laplacian eigenmap of the affinity graph ``P``.

    With :math:`W = (P + P^\top)/2` (zero diagonal) and degrees
    :math:`D = \mathrm{diag}(W \mathbf{1})`, the symmetric normalised
    Laplacian is :math:`L = I - D^{-1/2} W D^{-1/2}`.  Its eigenvectors
    :math:`u` for the smallest eigenvalues are those of
    :math:`M = D^{-1/2} W D^{-1/2}` for the largest ones, which is what
    :func:`scipy.sparse.linalg.eigsh` is asked for (``which="LA"``, faster
    and more reliable than the smallest of ``L``).  The first eigenvector
    (:math:`\propto D^{1/2}\mathbf{1}`, eigenvalue 0 of ``L``) is dropped
    and the next ``n_components`` are returned:

    * ``random_walk=False`` ("spectral", as umap-learn): the columns
      :math:`u_2, \dots, u_{d+1}`;
    * ``random_walk=True`` ("laplacian", Belkin and Niyogi's eigenmap): the
      solutions of the generalised problem :math:`(D - W) v = \lambda D v`,
      i.e. :math:`v = D^{-1/2} u`.

    Signs are fixed (largest-magnitude entry of each column positive) and
    the result is scaled so that its largest absolute coordinate is 10
    (umap-learn's convention: the UMAP and t-UMAP kernels are designed for
    unit-scale distances, and a box of side ~20 leaves room for clusters to
    move apart without starting in the flat tail of the kernel).

    The graph must be connected; the ARPACK start vector is drawn from
    ``rng``, so the layout is reproducible for a given seed.  ARPACK's
    product with ``M`` is ``kernels.csr_matvec`` on ``n_threads`` threads
    when ``kernels`` is given and ``n_threads > 1`` (else SciPy's): both add
    each row's terms in SciPy's order.  ARPACK's own vector work runs with
    the BLAS held to one thread, whose sums do not depend on the number of
    cores; so the layout has the same bits on any number of threads.  ARPACK is
    asked for a relative residual of 1e-8 within 20 restarts, then, if
    that fails, of 1e-4 (umap-learn's tolerance) within ``5 * n_samples``
    restarts (:data:`EIGSH_ATTEMPTS`); a graph of more than
    :data:`EIGSH_PRECISE_MAX_N` points is asked for 1e-4 at once, where
    the precise solve costs a second and draws the same map.  Below that
    size only a graph made of weakly linked clusters needs the second
    attempt: its lowest Laplacian eigenvalues lie
    so close together that the precise eigenvectors are ill-determined and
    costly (minutes at 150,000 points), while any vectors of small
    residual from that low-frequency subspace separate the clusters as
    well or better.

    Returns
    -------
    ndarray of shape (n_samples, n_components), or None if ARPACK did not
    converge.
    """
    W = P
    n = W.shape[0]
    deg = np.asarray(W.sum(axis=1)).ravel()
    d_inv_sqrt = 1.0 / np.sqrt(deg)
    M = _scaled_both_sides(W, d_inv_sqrt)
    k = n_components + 1
    if n <= max(2 * k + 1, 64):  # tiny graphs: dense and exact
        vals, vecs = np.linalg.eigh(M.toarray())
        order = np.argsort(vals)[::-1]
    else:
        vals, vecs = _top_eigenvectors(_product(M, kernels, n_threads), k,
                                       rng.uniform(-1.0, 1.0, size=n))
        if vals is None:
            return None
        order = np.argsort(vals)[::-1]
    U = vecs[:, order[1:k]]
    if U.shape[1] < n_components:  # fewer eigenvectors than dimensions
        U = np.hstack([U, np.zeros((n, n_components - U.shape[1]))])
    if random_walk:
        U = U * d_inv_sqrt[:, None]
    return _scale_to_max(_fix_signs(np.ascontiguousarray(U)))


#: Entries of :func:`_scaled_both_sides` scaled at once (8 MB of temporaries).
_SCALE_BLOCK = 1 << 20


def _scaled_both_sides(W, d):
    r""":math:`D W D` with :math:`D = \mathrm{diag}(d)`, entry by entry ``(d_i * w_ij) * d_j``.

    The products that SciPy's ``diags(d) @ W @ diags(d)`` forms, in the
    same order of entries for a CSR ``W`` with sorted indices, but as one
    new array of values beside ``W``'s indices rather than two products'
    copies of ``W``.  Any other ``W`` goes through SciPy.
    """
    if not (sp.issparse(W) and W.format == "csr" and W.has_sorted_indices):
        return sp.diags(d) @ W @ sp.diags(d)
    data = np.repeat(d, np.diff(W.indptr))
    np.multiply(data, W.data, out=data)
    for start in range(0, len(data), _SCALE_BLOCK):
        block = slice(start, start + _SCALE_BLOCK)
        np.multiply(data[block], d[W.indices[block]], out=data[block])
    return sp.csr_matrix((data, W.indices, W.indptr), shape=W.shape)


def _product(M, kernels, n_threads):
    """``M`` as ARPACK multiplies by it: ``M`` itself, or ``kernels.csr_matvec``'s operator.

    SciPy's product on one thread, the twin's on several (the same bits).
    """
    if kernels is None or n_threads <= 1:
        return M
    M = sp.csr_matrix(M)
    indptr = M.indptr.astype(np.int64)
    # SciPy's int32 columns as they are: a third less memory read per product
    indices = M.indices if M.indices.dtype == np.int32 else M.indices.astype(np.int64)
    data = np.ascontiguousarray(M.data, dtype=np.float64)

    def matvec(x):
        out = np.empty(M.shape[0])
        kernels.csr_matvec(indptr, indices, data,
                           np.ascontiguousarray(x, dtype=np.float64).ravel(), out, n_threads)
        return out

    return LinearOperator(M.shape, matvec=matvec, dtype=np.float64)


def _top_eigenvectors(M, k, v0):
    """The ``k`` largest eigenpairs of the symmetric ``M`` (sparse, or its operator) by ARPACK.

    Tries each (tolerance, restarts) of :data:`EIGSH_ATTEMPTS` in turn from
    the same start vector ``v0``, all but the precise first above
    :data:`EIGSH_PRECISE_MAX_N` points; returns ``(None, None)`` if none
    converges.
    The BLAS runs on one thread meanwhile: a BLAS sum split over more
    threads ends in other last bits, which ARPACK's iterations carry into
    another start, and its threads would spin against those of a threaded
    product (two of each on two cores took 2.6 times as long,
    docs/experiments.md, 2026-12-03).
    """
    n = M.shape[0]
    attempts = EIGSH_ATTEMPTS if n <= EIGSH_PRECISE_MAX_N else EIGSH_ATTEMPTS[1:]
    with _threads.blas_threads(1):
        for tol, restarts in attempts:
            try:
                return eigsh(M, k=k, which="LA", v0=v0, tol=tol,
                             ncv=min(n, max(2 * k + 1, 20)),
                             maxiter=5 * n if restarts is None else restarts)
            except ArpackNoConvergence:
                continue
    return None, None


def _graph_init(init, coordinates, n_components, rng, P, kernels=None, n_threads=1):
    """The layout of a graph init of ``P`` (already its strongest entries for "name:k").

    ``coordinates()`` gives the data's coordinates (:func:`data_coordinates`),
    asked for only when the graph alone does not give the layout.
    """
    W = _strongest_graph(P) if split_init(init)[1] is not None else _graph(P)
    n_comp, labels = connected_components(W, directed=False)
    if n_comp > 1:
        X = coordinates()
        # a fit given only a kNN graph, knn= or affinities= has no coordinates
        # (X has no columns): every component mean is the same point
        placed = ("places them by the PCA of the component means of X" if X.shape[1] else
                  "centres them all on one point, overlapping, since the fit was given no "
                  "data coordinates (only a kNN graph, knn= or affinities=) to place them "
                  "apart by; pass init as an array to place them yourself")
        warn_from_caller(RuntimeWarning(
            f"{init_graph_name(init)} has {n_comp} connected components: init={init!r} lays "
            f"out each component separately and {placed}"))
        return _component_layout(init, X, n_components, rng, W, n_comp, labels,
                                 kernels, n_threads)
    Y = spectral_layout(W, n_components, rng, random_walk=_random_walk(init),
                        kernels=kernels, n_threads=n_threads)
    if Y is None:
        warn_from_caller(RuntimeWarning(
            f"the eigensolver did not converge: init={init!r} replaced by PCA scaled "
            f"to a largest coordinate of {SPECTRAL_SCALE:g}"))
        return _pca_fallback(coordinates(), n_components, rng)
    return Y


def _random_walk(init):
    """Whether the graph init ``init`` is the random-walk ("laplacian") eigenmap."""
    return split_init(init)[0] == "laplacian"


def _component_layout(init, X, n_components, rng, W, n_comp, labels, kernels=None,
                      n_threads=1):
    """Disconnected graph: one spectral layout per component, placed apart.

    Component centres are the PCA scores of the component means of ``X``
    (scaled to a largest coordinate of 1); each component's own layout is
    shrunk to a box of half-side a quarter of the smallest distance between
    centres, so components never overlap.  A component the eigensolver
    cannot handle, or one of one or two points, uses its PCA scores
    instead.  The whole is finally scaled to a largest coordinate of 10.
    """
    n = X.shape[0]
    means = np.vstack([np.asarray(X[labels == c].mean(axis=0)).ravel() for c in range(n_comp)])
    centres = _scale_to_max(pca_scores(means, n_components), 1.0)
    gaps = np.sqrt(((centres[:, None] - centres[None]) ** 2).sum(-1))
    gaps = gaps[~np.eye(n_comp, dtype=bool)]
    gaps = gaps[gaps > 0]
    half = 0.25 * gaps.min() if gaps.size else 0.25
    Y = np.zeros((n, n_components))
    for c in range(n_comp):
        members = np.flatnonzero(labels == c)
        sub = None
        if len(members) > 2:
            sub = spectral_layout(W[members][:, members], n_components, rng,
                                  random_walk=_random_walk(init), kernels=kernels,
                                  n_threads=n_threads)
        if sub is None:
            sub = pca_scores(X[members], n_components) if len(members) > 1 \
                else np.zeros((1, n_components))
        Y[members] = centres[c] + _scale_to_max(sub, half)
    return _scale_to_max(Y)


def _pca_fallback(X, n_components, rng):
    scores = pca_scores(X, n_components)
    if not np.any(scores):
        return rng.normal(0.0, SMALL_SD, size=(X.shape[0], n_components))
    return _scale_to_max(scores)


def power_iteration_layout(P, n_components, rng, n_iter=POWER_ITERATIONS):
    r"""NCVis's start: power iteration on ``P`` with columns standardised.

    From a standard-normal ``Y`` drawn with ``rng``, repeat ``n_iter`` times

    .. math::

        Y \leftarrow P Y, \qquad
        Y_{:c} \leftarrow (Y_{:c} - \bar Y_{:c}) / \operatorname{sd}(Y_{:c}),

    which turns the columns towards the leading eigenvectors of ``P`` while
    keeping them centred, of unit spread and (in practice) distinct.

    Parameters
    ----------
    P : ndarray or sparse matrix of shape (n_samples, n_samples)
    n_components : int
    rng : numpy.random.Generator
    n_iter : int, default=20

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    Y = rng.standard_normal((P.shape[0], n_components))
    for _ in range(n_iter):
        Y = np.asarray(P @ Y)
        Y -= Y.mean(axis=0)
        sd = Y.std(axis=0)
        sd[sd == 0] = 1.0  # a column P wiped out stays at zero
        Y /= sd
    return np.ascontiguousarray(Y)


def check_init_name(init):
    """A named ``init`` checked: a name from ``INIT_NAMES``, or ``"spectral:K"`` / ``"laplacian:K"``.

    The number of points is not needed: :func:`check_init` also bounds ``K``.
    """
    if init not in INIT_NAMES and split_init(init)[1] is None:
        raise ParameterError(f"init must be {INIT_CHOICES}; got {init!r}", ("init",))
    return init


def check_init(init, n_samples, n_components):
    """``init`` checked, computing nothing: a named init, or the array.

    A name is one of ``INIT_NAMES``, or ``"spectral:K"`` / ``"laplacian:K"``
    with ``1 <= K <= n_samples - 1`` (:func:`split_init`).  An array must
    have shape ``(n_samples, n_components)``, finite values and rows that
    are not all equal; it is returned as a float64 copy.
    """
    if init is None:
        raise TypeError(f"init must be {INIT_CHOICES}; got None")
    if not isinstance(init, str):
        return check_not_degenerate(check_embedding(init, n_samples, n_components))
    _, k = split_init(check_init_name(init))
    if k is not None and k > n_samples - 1:
        raise ParameterError(
            f"init={init!r} keeps each point's {k} strongest entries of P, but each of the "
            f"{n_samples} points has at most {n_samples - 1}: K must be from 1 to "
            f"{n_samples - 1}", ("init",))
    return init


def init_affinities(init, P, n_samples, n_threads=1, kernels=None):
    """The graph that the named ``init`` lays out: ``P``, or each point's ``K`` strongest entries.

    ``P`` itself for a name without ``K`` (None stays None);
    :func:`strongest_entries` of ``P`` for ``"spectral:K"`` and
    ``"laplacian:K"``, which need ``P`` of shape ``(n_samples, n_samples)``.
    """
    _, k = split_init(init)
    if k is None:
        return P
    _check_graph_input(init, P, n_samples)
    return strongest_entries(P, k, n_threads, kernels)


def _check_graph_input(init, P, n):
    """Refuse a missing ``P``, or one of the wrong shape, for the graph init ``init``."""
    if P is None:
        raise ValueError(
            f"init={init!r} needs the input affinities: pass P (a (n_samples, "
            f"n_samples) affinity matrix) to initialize()"
        )
    if np.shape(P) != (n, n):
        raise ValueError(f"P must have shape ({n}, {n}) for spectral initialisation; "
                         f"got {np.shape(P)}")


def initialize(init, X, n_components, rng, P=None, seed=RANDOMISED_PCA_SEED, *,
               kernels=None, n_threads=1):
    """Return the initial embedding.

    Parameters
    ----------
    init : {"random", "pca", "spca", "spectral", "laplacian", "power"}, "spectral:K",
        "laplacian:K" or ndarray of shape (n_samples, n_components)
        ``"random"``: Gaussian with standard deviation 1e-4.
        ``"pca"``: the first principal-component scores, unscaled (in the
        units of ``X``; :func:`smallvis.embed` warns when an affinity
        method's map hardly leaves such a start).
        ``"spca"``: the PCA scores scaled so the first column has standard
        deviation 1e-4 (the t-SNE recommendation of Kobak and Berens).
        ``"spectral"``: eigenvectors of the symmetric normalised Laplacian
        of ``P`` (as umap-learn); ``"laplacian"``: the random-walk Laplacian
        eigenmap of ``P`` (Belkin and Niyogi).  Both are scaled so that the
        largest absolute coordinate is 10, see :func:`spectral_layout`.  If
        the graph of ``P`` is disconnected they warn and lay out each
        component separately, placed by the PCA of the component means of
        ``X`` (see :func:`_component_layout`); if the eigensolver fails they
        warn and use the PCA scores scaled the same way instead.
        ``"spectral:K"`` and ``"laplacian:K"`` (``K`` from 1 to
        ``n_samples - 1``): the same layouts of a smaller graph, each
        point's ``K`` strongest entries of ``P`` made symmetric
        (:func:`strongest_entries`), which is also the ``P`` the check
        for merged rows below sees.
        ``"power"``: 20 steps of power iteration on ``P`` with standardised
        columns (the NCVis reference), see :func:`power_iteration_layout`.
        An array is used as given (copied, not centred); one whose rows
        are all equal is refused (``ValueError``: every gradient vanishes
        there).  A named initialisation that puts every point at the same
        place (e.g. "spectral" or "power" on a degenerate ``P``) is
        replaced by "random" with a ``RuntimeWarning``; one that puts rows
        whose data differ but whose rows of ``P`` are equal on one spot
        moves those rows apart (see :func:`_part_merged_rows`).  One that
        spans fewer dimensions than ``n_components`` ("pca" and "spca" of
        data of lower rank, such as a line) gets small noise along the
        missing directions, since no gradient would ever leave them (see
        :func:`_fill_missing_directions`).
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The data.  Where a layout needs coordinates (the PCA of "pca" and
        "spca", placing the components of a disconnected graph, the
        eigensolver's fallback) those of :func:`data_coordinates` stand
        for sparse ``X``; they are computed only then.  The check for
        merged rows compares the rows of ``X`` themselves (sparse ones by
        their stored entries).
    n_components : int
    rng : numpy.random.Generator
    P : ndarray or sparse matrix of shape (n_samples, n_samples), optional
        Input affinities; required by the graph inits (made symmetric as
        ``(P + P.T) / 2``) and "power".
    seed : int, default=RANDOMISED_PCA_SEED
        Seeds the truncated SVD that stands for sparse ``X``.
    kernels : module, optional
        The twin whose ``csr_matvec`` the eigensolver of the graph inits
        multiplies with (SciPy's product when None; the same bits).
    n_threads : int, default=1
        Threads of the graph inits' product and of :func:`strongest_entries`;
        the layout is the same on any number.

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    n = X.shape[0]
    init = check_init(init, n, n_components)
    if not isinstance(init, str):
        return init
    P = init_affinities(init, P, n, n_threads, kernels)
    Y = _named_init(init, X, n_components, rng, P, seed, kernels, n_threads)
    if n > 1 and not np.any(np.ptp(Y, axis=0)):
        warn_from_caller(RuntimeWarning(
            f"init={init!r} put every point at the same place (the gradient vanishes "
            f"there); replaced by init='random' (Gaussian, sd {SMALL_SD:g})"))
        return rng.normal(0.0, SMALL_SD, size=(n, n_components))
    if init in PCA_INITS:
        Y = _fill_missing_directions(Y, seed)
    if P is not None:
        Y = _part_merged_rows(Y, X, P, rng)
    return Y


#: A direction a named initialisation leaves empty is filled with Gaussian
#: noise of this fraction of the layout's leading standard deviation: small
#: enough that the start stays the layout asked for, large enough that the
#: gradient has a second direction to unfold into.
FILL_FRACTION = 0.01


def _fill_missing_directions(Y, seed):
    """``Y`` with small noise along the directions its centred rows do not span.

    Every method's gradient is a sum of terms along ``y_i - y_j``, and the
    delta-bar-delta gains and the re-centring keep that span, so a start
    confined to fewer dimensions than ``n_components`` stays confined for
    the whole run.  The PCA of data of lower rank gives such a start (a
    line, a time series, a constant column beside a varying one: the
    scores beyond the rank are zero); on a line the map is then a line,
    where points cannot pass each other, and a chain whose order is upset
    in the first iterations never untangles.  Directions whose singular
    value is zero to rounding (at most ``n * eps`` of the largest, the
    rule of ``numpy.linalg.matrix_rank``) get Gaussian noise of
    :data:`FILL_FRACTION` of the leading standard deviation, drawn from a
    generator seeded by ``seed``, so that a named initialisation stays a
    function of the data and ``seed``.  A layout of full rank, or of no
    more points than components (which span fewer directions whatever
    they are), is returned unchanged.
    """
    n, k = Y.shape
    if n <= k:
        return Y
    _, s, Vt = np.linalg.svd(Y - Y.mean(axis=0), full_matrices=False)
    missing = s <= s[0] * max(n, k) * np.finfo(np.float64).eps
    if not np.any(missing):
        return Y
    sd = FILL_FRACTION * s[0] / np.sqrt(n)
    noise = np.random.default_rng(seed).normal(0.0, sd, size=(n, int(missing.sum())))
    return Y + noise @ Vt[missing]


#: A row a named initialisation put on another's spot moves by a Gaussian
#: step of this fraction of the layout's column standard deviations.
PART_FRACTION = 0.1


def _part_merged_rows(Y, X, P, rng):
    """``Y`` with the rows it put on another row's spot moved apart (a copy if any).

    Power iteration (and a graph's eigenvectors) give points with equal
    rows of ``P`` equal coordinates; the gradient of every method then
    moves them alike, so distinct data would stay one point.  Each such row
    takes a Gaussian step of :data:`PART_FRACTION` of the column spread;
    the other rows are unchanged.
    """
    rows = merged_rows(Y, X, same_rows_of=P)
    if not rows.size:
        return Y
    Y = Y.copy()
    Y[rows] += rng.normal(0.0, PART_FRACTION, size=(rows.size, Y.shape[1])) * Y.std(axis=0)
    return Y


def count_merged_rows(Y, X, tolerance=0.0, same_rows_of=None):
    """The number of rows :func:`merged_rows` finds."""
    return int(merged_rows(Y, X, tolerance, same_rows_of).size)


def merged_rows(Y, X, tolerance=0.0, same_rows_of=None):
    """Rows of ``Y`` within ``tolerance`` of an earlier row whose row of ``X`` differs.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_components)
        A layout.
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The data the layout shows.
    tolerance : float, default=0.0
        Largest Euclidean distance between rows of ``Y`` counted as one
        place.
    same_rows_of : ndarray or sparse matrix of shape (n_samples, n_samples), optional
        Count only pairs whose rows of this matrix (the affinities ``P``)
        are equal: the gradient of every method moves such a pair alike,
        so a layout that puts them together keeps them together.

    Returns
    -------
    ndarray of int
        The rows (sorted) that sit within ``tolerance`` of an earlier row
        although their data differ from that row's.
    """
    pairs = cKDTree(Y).query_pairs(tolerance, output_type="ndarray")
    if not len(pairs):
        return np.zeros(0, dtype=np.intp)
    pairs = pairs[_rows_differ(X, pairs[:, 0], pairs[:, 1])]
    if same_rows_of is not None and len(pairs):
        pairs = pairs[_equal_rows(same_rows_of, pairs[:, 0], pairs[:, 1])]
    return np.unique(pairs[:, 1])


#: Most numbers of the dense rows compared at once by :func:`_rows_differ`
#: (8 MiB of float64 on each side): the pairs a layout puts on one spot can
#: be thousands, and rows of ``P`` are ``n_samples`` long.
_COMPARE_BLOCK = 1 << 20


def _pair_blocks(n_pairs, row_length):
    """Slices of at most ``_COMPARE_BLOCK // row_length`` pairs covering ``n_pairs``."""
    step = max(1, _COMPARE_BLOCK // max(1, row_length))
    return [slice(lo, lo + step) for lo in range(0, n_pairs, step)]


def _row_differences(M, first, second):
    """Where ``M[first] - M[second]`` is not zero (sparse, finite ``M``), block by block.

    Yields ``(block, rows, cols)``: a slice of the pairs and, for each
    entry of their difference that is not zero, the pair (counted from
    ``block.start``) and the column.  A block holds about
    :data:`_COMPARE_BLOCK` / 16 stored entries per side (a sparse
    difference and its coordinates take some 80 bytes per entry).
    """
    M = sp.csr_array(M)
    per_row = 16 * max(1, M.nnz // max(1, M.shape[0]))
    for block in _pair_blocks(len(first), per_row):
        D = (M[first[block]] - M[second[block]]).tocoo()
        keep = D.data != 0
        yield block, D.row[keep].astype(np.intp), D.col[keep].astype(np.intp)


def _rows_differ(M, first, second):
    """Whether row ``first[k]`` of ``M`` differs from row ``second[k]`` (``-0.0 == 0.0``).

    ``M`` dense or sparse; no dense copy of more than :data:`_COMPARE_BLOCK`
    numbers per side is made (a sparse ``M`` is compared by the stored
    entries of the rows' differences).
    """
    first, second = np.asarray(first), np.asarray(second)
    if sp.issparse(M):
        out = np.zeros(len(first), dtype=bool)
        for block, rows, _ in _row_differences(M, first, second):
            out[block.start + rows] = True
        return out
    M = np.asarray(M)
    out = np.empty(len(first), dtype=bool)
    for block in _pair_blocks(len(first), M.shape[1]):
        out[block] = np.any(M[first[block]] != M[second[block]], axis=1)
    return out


def _equal_rows(P, first, second):
    """Whether row ``first[k]`` of ``P`` equals row ``second[k]``, for every ``k``.

    Rows are equal as neighbourhoods: ``P[i, j] == P[i', j]`` for every
    column ``j`` other than ``i`` and ``i'`` themselves, and ``P[i, i'] ==
    P[i', i]`` (each the other's neighbour alike).  ``P`` dense or sparse,
    compared without a dense copy of its rows (as :func:`_rows_differ`).
    """
    first, second = np.asarray(first), np.asarray(second)
    if sp.issparse(P):
        P = sp.csr_array(P)
        equal = np.ones(len(first), dtype=bool)
        for block, rows, cols in _row_differences(P, first, second):
            rows = block.start + rows
            own = (cols == first[rows]) | (cols == second[rows])
            equal[rows[~own]] = False
        return equal & (P[first, second] == P[second, first])
    P = np.asarray(P)
    out = np.empty(len(first), dtype=bool)
    for block in _pair_blocks(len(first), P.shape[1]):
        i, j = first[block], second[block]
        a, b = P[i], P[j]
        k = np.arange(len(i))
        cross_a, cross_b = a[k, j].copy(), b[k, i].copy()
        a[k, j] = b[k, i] = 0.0
        a[k, i] = b[k, j] = 0.0
        out[block] = np.all(a == b, axis=1) & (cross_a == cross_b)
    return out


def check_not_degenerate(Y, name="init"):
    """Refuse a user's initial layout whose rows are all equal.

    Every method's gradient vanishes when all points coincide, so such a
    layout would be returned unchanged: a single point.  (A layout with
    some coincident rows is fine: the other points pull them apart.)
    """
    if Y.shape[0] > 1 and not np.any(np.ptp(Y, axis=0)):
        raise ValueError(
            f"{name} array has all {Y.shape[0]} rows equal: every gradient vanishes "
            f"there and the embedding would stay a single point; pass distinct "
            f"starting points, e.g. {name}=\"random\" or {name}=\"spca\", or add small "
            f"noise such as {name} + 1e-4 * np.random.default_rng(0).standard_normal"
            f"({name}.shape)"
        )
    return Y


#: What every start says of an X whose rows are all one point.
NO_VARIANCE = ("every row of X is the same point (X has no variance), so the map carries "
               "no information")

#: Rows compared at once by :func:`_all_rows_equal` (a boolean block of
#: at most this many rows, not one of X's size).
_EQUAL_ROWS_BLOCK = 4096


def _all_rows_equal(X):
    """True for two rows or more, all equal (``X`` with columns; False otherwise).

    A sparse ``X`` counts as its stored entries say: rows that store their
    entries in other orders, or store explicit zeros, count as different
    (no warning, never a wrong one).
    """
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] == 0:
        return False
    if sp.issparse(X):
        if X.format != "csr":
            return False
        counts = np.diff(X.indptr)
        if np.any(counts != counts[0]):
            return False
        # every row stores as many entries: compare them as a dense table
        k = int(counts[0])
        if k == 0:  # every row empty: all zero
            return True
        start = int(X.indptr[0])
        indices = X.indices[start:start + X.shape[0] * k].reshape(-1, k)
        data = X.data[start:start + X.shape[0] * k].reshape(-1, k)
        return _all_rows_equal(indices) and _all_rows_equal(data)
    # nearly all data differ within the first block: one block's comparison
    return all(not np.any(X[start:start + _EQUAL_ROWS_BLOCK] != X[0])
               for start in range(1, X.shape[0], _EQUAL_ROWS_BLOCK))


def _named_init(init, X, n_components, rng, P, seed=RANDOMISED_PCA_SEED, kernels=None,
                n_threads=1):
    """The layout of a named initialisation (``initialize`` checks it).

    ``P`` is the graph a graph init lays out (:func:`init_affinities`);
    ``seed`` seeds the coordinates of sparse ``X`` (:func:`data_coordinates`),
    computed only by the layouts that need them.
    """
    n = X.shape[0]
    # compared exactly: centring rows that are all one float leaves rounding
    # residues (1e-17) that scaled PCA would blow up into a start
    same = init != "random" and _all_rows_equal(X)
    if same and (split_init(init)[0] in GRAPH_INITS or init == "power"):
        # the PCA starts say so below; the starts made from P must too
        warn_from_caller(RuntimeWarning(NO_VARIANCE))
    if split_init(init)[0] in GRAPH_INITS:
        _check_graph_input(init, P, n)
        return _graph_init(init, lambda: data_coordinates(X, seed), n_components, rng, P,
                           kernels, n_threads)
    if init == "power":
        if P is None:
            raise ValueError("init='power' needs the input affinities: pass P to initialize()")
        return power_iteration_layout(P, n_components, rng)
    if init == "random":
        return rng.normal(0.0, SMALL_SD, size=(n, n_components))
    pca_name = "PCA" if init == "pca" else "scaled PCA"
    if same:
        return _random_for_no_variance(pca_name, n, n_components, rng)
    X = data_coordinates(X, seed)
    # PCA of X / 2**e with max|X / 2**e| in [0.5, 1): exact for normal numbers
    # and safe from overflow (data near 1e300) and underflow (near 1e-300) in
    # the SVD and the standard deviation below; "pca" scales back to X's units.
    e = power_of_two_exponent(X)
    if _randomised(X, n_components) and abs(e) <= SAFE_EXPONENT:
        # no scaled copy of X: products and QR commute with a power of two
        scores = np.ldexp(pca_scores(X, n_components, n_threads), -e)
    else:
        scores = pca_scores(np.ldexp(X, -e), n_components, n_threads)
    if init == "pca":
        scores = np.ldexp(scores, e)
        if not np.any(scores):  # rows the comparison above could not tell equal
            return _random_for_no_variance(pca_name, n, n_components, rng)
        return check_coordinate_span(scores, "init='pca'")
    sd = scores[:, 0].std()
    if sd == 0:
        return _random_for_no_variance(pca_name, n, n_components, rng)
    return scores * (SMALL_SD / sd)


def _random_for_no_variance(pca_name, n, n_components, rng):
    """The random start that replaces a PCA start of rows that are all one point, and its warning."""
    warn_from_caller(RuntimeWarning(f"{NO_VARIANCE}: {pca_name} initialisation replaced by "
                                    "random"))
    return rng.normal(0.0, SMALL_SD, size=(n, n_components))
