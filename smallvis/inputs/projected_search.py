r"""The approximate search of dense data with many features: found in a projection, chosen exactly.

On data of hundreds of dimensions (raw pixels, embeddings) the approximate
search (``method="annoy"``) of :class:`smallvis.inputs.neighbors.KNNIndex`
would spend its time reading rows:
every candidate distance reads ``D`` float64 numbers of a row that is
rarely in the cache.  From :data:`MIN_FEATURES` features on, for the
metrics whose core is the squared Euclidean distance (:data:`METRICS`),
the search runs in three steps instead:

1. **Projection.**  The prepared, scaled rows are projected on their top
   :data:`SEARCH_RANK` principal axes (centred randomised PCA,
   :func:`smallvis.inputs.projection.fit_projection`, seeded by the
   index's seed).  Squared Euclidean distances of the projection are
   those of the data minus the part outside the axes, so near points stay
   near.  Data whose entries are all float32 numbers are projected from
   their float32 copy, the products in float32, when their mean is near
   the origin for their spread (:func:`projection_rows`).
2. **Candidates in the projection.**  The scores are renumbered in
   :func:`leaf_order` (points near each other get neighbouring numbers),
   the package's own forest (:mod:`smallvis.inputs.search_forest`: trees
   split at the median of a two-means direction, walked best first as
   Annoy's are, all rows in one compiled call on the threads) is built on
   them and walked for at most :data:`PROPOSALS` neighbours of each row
   (:func:`n_proposals`); the
   package's neighbour-of-neighbour rounds then grow each list to
   :func:`n_candidates` (more than ``k``) in the projection: each distance
   costs ``SEARCH_RANK`` numbers instead of ``D``, and a round finds a
   row's last candidates more cheaply than a longer query.  With the near
   rows stored next to each other, the queries, the candidate distances
   and the rounds mostly read rows that are already in the cache
   (docs/experiments.md, 2026-11-24).
   The candidates are numbered back before step 3.
3. **The choice in the original space.**  Of each row's candidates, the
   ``k`` with the smallest exact distance in the original space are kept,
   by the twin kernel ``knn_candidates`` (float64, summed feature by
   feature in order as the exact search does, ties by index): the
   reported distances and the order are those of every other path.  The
   rows are visited in :func:`leaf_order` (points near each other one
   after another), so that the rows of their shared candidates are read
   from the cache; the result of a row does not depend on the order.
   When every entry of the data is a float32 number (images of bytes or
   of float32 pixels, :func:`float32_rows`), the kernel reads a float32
   copy and widens each entry to float64 before the same operations: the
   same bits at half the memory read.

The candidates' recall of the exact ``k`` neighbours is what the
projection loses.  Data whose neighbours are decided in many directions
at once (noise of full rank) have no faithful projection, so every search
checks itself: the exact neighbours of :data:`CHECK_ROWS` fixed rows are
found by brute force (:func:`exact_neighbours`), and if the search found
fewer than :data:`RECALL_FLOOR` of them, the package's refinement rounds
run in the original space after all (the cost of the search without a
projection, and its recall).  On real data the check passes: on 70,000 images of 784 pixels it stays at or above
0.98 for ``k`` = 15, 90 and 150 (tests/test_projected_search.py has a
small case; benchmarks/bench_real.py the large one).  The Manhattan and
Hamming metrics are not Euclidean in any projection (a linear map
preserves neither sums of absolute differences nor counts of unequal
coordinates), so they keep the search in the original space.

New points are projected by the same stored projection, looked up in the
same forest and chosen by the same exact distances
(:meth:`smallvis.inputs.neighbors.KNNIndex.query`).
"""

import numpy as np

from .. import _threads
from .._numeric import power_of_two_exponent
from .projection import fit_projection, row_products

__all__ = ["CHECK_ROWS", "RECALL_FLOOR", "exact_neighbours", "sample_recall", "MIN_FEATURES",
           "METRICS", "SEARCH_RANK", "DEFAULT_TREES", "LEAF_SIZE", "uses_projection",
           "n_candidates", "n_proposals", "PROPOSALS", "fit_search_projection", "leaf_order",
           "check_rows", "scores", "float32_rows", "projection_rows",
           "FLOAT32_PRODUCTS_EXPONENT", "FLOAT32_PRODUCTS_OFFSET"]

#: Dense data with at least this many features are searched in a
#: projection (for :data:`METRICS`); below, the search stays in the original
#: space, bit for bit as before.
MIN_FEATURES = 500

#: The metrics searched in a projection: those whose core distance is the
#: squared Euclidean distance of the prepared rows
#: (:mod:`smallvis.inputs.distances`).
METRICS = ("euclidean", "cosine", "correlation")

#: Principal axes of the projection the candidates are found in.
SEARCH_RANK = 64

#: The query budget of the forest over the projection, in trees: the
#: refinement that follows recovers what a smaller budget misses, and the
#: queries cost in proportion to it.  Unless ``search_k`` is given, a walk
#: reaches ``min(n_trees, DEFAULT_TREES) * (q + 1)`` rows for ``q``
#: proposals, so a method's larger default forest (7 trees under
#: ``optimizer="sgd"``) costs no more per query.  Three trees are faster than more at nearly the
#: same recall (docs/experiments.md, 2026-11-25).
DEFAULT_TREES = 3

#: Candidates per neighbour found in the projection, the fewest and the
#: most extra candidates (k = 15: 60 candidates; k = 90: 240; k = 150: 300).
CANDIDATES = 3
MIN_EXTRA_CANDIDATES = 45
MAX_EXTRA_CANDIDATES = 150

#: Most neighbours the forest proposes per row in the projection; the
#: refinement rounds grow the lists to :func:`n_candidates`.  A query's
#: last neighbours cost more than a round's, so for k = 150 (300
#: candidates) 200 proposals save 6 to 10% of the search at nearly the
#: same recall (docs/experiments.md, 2026-12-03).  Lists of at most
#: this many candidates (k up to 66, UMAP's 15 and 30 included) are
#: proposed whole.
PROPOSALS = 200

#: Power iterations of the subspace iteration that fits the projection: the
#: search needs a subspace that holds most of the variance, not precise
#: axes, and each iteration costs two products with the data.
SEARCH_POWER_ITERATIONS = 1

#: Rows whose exact neighbours check the projected search (:func:`sample_recall`).
CHECK_ROWS = 128

#: Below this share of the checked rows' exact neighbours, the projected
#: search refines in the original space.
RECALL_FLOOR = 0.95

#: Most points per leaf of :func:`leaf_order`.
LEAF_SIZE = 64

#: Rows :func:`float32_rows` tries first, so that data with a
#: fraction in float64 are turned down after a small copy.
_FLOAT32_PROBE_ROWS = 256

#: Rows :func:`float32_rows` converts and compares at a time: each block's
#: temporaries stay small, and the blocks share the threads.
_FLOAT32_BLOCK_ROWS = 2048


def float32_rows(X, n_threads=1):
    r"""A float32 copy of ``X`` if it holds every entry exactly, else None.

    ``X`` (C-contiguous float64) of pixels read from bytes or float32
    files has only float32 values; the exact distances
    (``knn_candidates``) then read the copy, half the memory, and widen
    each entry back to float64, so that every distance has the float64
    path's bits:

    .. math::

        \mathrm{f64}(\mathrm{f32}(x)) = x \quad \text{for every entry } x.

    The first :data:`_FLOAT32_PROBE_ROWS` rows are tried first, so that
    general float64 data cost a small copy only.  The rest is converted
    and compared in blocks of :data:`_FLOAT32_BLOCK_ROWS` rows on up to
    ``n_threads`` threads (NumPy lets go of the interpreter lock while it
    copies and compares): no temporary of the whole data's size, and the
    same answer on any number of threads.
    """
    with np.errstate(over="ignore"):  # out of float32's range: not equal, hence None
        head = X[:_FLOAT32_PROBE_ROWS]
        if not np.array_equal(head.astype(np.float32), head):
            return None
        X32 = np.empty(X.shape, dtype=np.float32)
        inexact = []

        def convert(start):
            block = slice(start, start + _FLOAT32_BLOCK_ROWS)
            with np.errstate(over="ignore"):  # each thread has its own error state
                np.copyto(X32[block], X[block], casting="unsafe")
            if not np.array_equal(X32[block], X[block]):
                inexact.append(start)

        _threads.each_block(convert, range(0, X.shape[0], _FLOAT32_BLOCK_ROWS), n_threads)
    return None if inexact else X32


def uses_projection(n_features, metric):
    """Whether dense data of ``n_features`` and ``metric`` are searched in a projection."""
    return n_features >= MIN_FEATURES and metric in METRICS


def n_candidates(k, n):
    """How many candidates the projection proposes for ``k`` neighbours among ``n`` points."""
    extra = min(max((CANDIDATES - 1) * k, MIN_EXTRA_CANDIDATES), MAX_EXTRA_CANDIDATES)
    return min(n - 1, k + extra)


def n_proposals(m):
    """How many of ``m`` candidates the forest proposes per row (:data:`PROPOSALS`)."""
    return min(m, PROPOSALS)


#: Largest ``|e|`` (``max|X| = m 2**e``) of data whose projection
#: :func:`projection_rows` computes in float32: products of such entries
#: stay far inside float32's range.
FLOAT32_PRODUCTS_EXPONENT = 32

#: Most times the root-mean-square spread of the rows about their mean
#: that the mean itself may lie from the origin for :func:`projection_rows`
#: to compute in float32: the products are taken before centring, so
#: their rounding grows with the distance from the origin.
FLOAT32_PRODUCTS_OFFSET = 16.0


def projection_rows(X, X32):
    r"""The rows the search's projection is fitted on and applied to: ``X32`` or ``X``.

    The float32 copy ``X32`` of ``X`` (:func:`float32_rows`; None: none)
    when its products may be taken in float32, half the memory read and
    twice the arithmetic's speed; else ``X``.  The products are those of
    the uncentred rows, so float32 is used only when the data's largest
    entry lies within ``2**±FLOAT32_PRODUCTS_EXPONENT`` and their mean
    :math:`\bar x` is near the origin for their spread,

    .. math::

        |\bar x| \le c \, \sqrt{\tfrac1n \textstyle\sum_i |x_i|^2 - |\bar x|^2},
        \quad c = \mathtt{FLOAT32\_PRODUCTS\_OFFSET},

    where float32's rounding (about :math:`10^{-7}` of the rows' norms)
    moves the scores by a millionth of the spread: the candidates'
    distances in the projection are approximate anyway, and the
    neighbours are chosen by exact distances.  The same data always give
    the same choice, in the fit and when the forest is rebuilt.
    """
    if X32 is None or abs(power_of_two_exponent(X32)) > FLOAT32_PRODUCTS_EXPONENT:
        return X
    mean = X32.mean(axis=0, dtype=np.float64)
    square = np.einsum("ij,ij->i", X32, X32).mean(dtype=np.float64)
    offset = float(mean @ mean)
    return X32 if offset <= FLOAT32_PRODUCTS_OFFSET ** 2 * (square - offset) else X


def fit_search_projection(X, seed, n_threads=1):
    """The centred PCA of ``X`` on ``min(SEARCH_RANK, n - 1, d)`` axes the search runs in.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The prepared, scaled rows the search measures, float64, or their
        float32 copy (:func:`projection_rows`): the products with ``X``
        are then taken in float32, the rest in float64.
    seed : int
        Seeds the random start of the subspace iteration (the index's seed).
    n_threads : int, default=1
        Threads of the products' conversions; the same projection on any
        number.

    Returns
    -------
    smallvis.inputs.projection.Projection
    """
    rank = max(1, min(SEARCH_RANK, X.shape[0] - 1, X.shape[1]))
    return fit_projection(X, rank, seed, centre=True,
                          power_iterations=SEARCH_POWER_ITERATIONS, stage="kNN",
                          n_threads=n_threads)


def scores(projection, X, n_threads=1):
    r"""The rows of ``X`` on the search's axes, without a centred copy of ``X``, float64.

    .. math::

        S = X C^\top - \bar x\, C^\top

    (``C`` the components, :math:`\bar x` the training means): one
    product with ``X`` and no ``n x d`` temporary.  Of float32 ``X``
    (:func:`projection_rows`) the product is taken in float32.  The rows
    are projected, widened and centred a block at a time on up to
    ``n_threads`` threads (:func:`smallvis.inputs.projection.row_products`),
    with the same bits on any number.
    """
    components = projection.components
    with _threads.blas_threads(1):  # a small product, summed in one order
        offset = projection.mean @ components.T
    return row_products(X, components.T.astype(X.dtype), n_threads, offset=offset)


def leaf_order(S, kernels, leaf_size=LEAF_SIZE, n_threads=1):
    """The rows of ``S`` ordered leaf by leaf of a median-split tree (twin kernel ``leaf_order``).

    The rows are split in two at the median of the coordinate with the
    widest range, recursively, until a part holds at most ``leaf_size``
    rows; the parts are listed depth first.  Rows that follow each other
    are then mostly near each other, so a pass over the rows in this order
    reads their shared neighbours from the cache.  Deterministic, and the
    same on any number of threads.

    Parameters
    ----------
    S : ndarray of shape (n_samples, r)
        Finite coordinates (the projection's scores, or the scaled rows), ``r >= 1``.
    kernels : module
        The twin kernels (:func:`smallvis.backends._backend.kernels`).
    leaf_size : int
        Most rows per part, ``>= 1``.
    n_threads : int
        Threads of the compiled kernel, which splits the parts of one
        depth at once.

    Returns
    -------
    order : ndarray of shape (n_samples,), int64
        A permutation of ``range(n_samples)``.
    """
    S = np.ascontiguousarray(S, dtype=np.float64)
    order = np.empty(S.shape[0], dtype=np.int64)
    kernels.leaf_order(S, leaf_size, order, n_threads)
    return order


def check_rows(n):
    """The rows :func:`sample_recall` checks: ``CHECK_ROWS`` evenly spaced rows of ``n``."""
    return np.unique(np.linspace(0, n - 1, min(n, CHECK_ROWS)).astype(np.int64))


#: Columns of :func:`exact_neighbours`'s distance blocks: 8 MB a block for
#: the :data:`CHECK_ROWS` rows, however many points there are, and enough
#: blocks at 70,000 points to share evenly among the threads.
_CHECK_BLOCK = 1 << 13

#: Margin of :func:`exact_neighbours`'s ``bound``, relative to the squared
#: norms of the pair: far above the rounding of a distance from products
#: (about ``n_features`` units in the last place of those norms).
_BOUND_MARGIN = 2.0 ** -30


def exact_neighbours(X, rows, k, bound=None, n_threads=1):
    r"""The ``k`` nearest other rows of each of ``rows``, by brute force over blocks of columns.

    Ranked by the squared Euclidean distance from products (BLAS),

    .. math::

        d^2_{ij} = |x_i|^2 + |x_j|^2 - 2\, x_i \cdot x_j,

    whose rounding may swap near ties: the reference of
    :func:`sample_recall`'s estimate; equal distances go to the smaller
    index.  The columns are taken :data:`_CHECK_BLOCK` at a time, so the
    memory does not grow with the number of points, and the blocks share
    ``n_threads`` threads, each with the BLAS on one thread: a block's
    products, and so the result, are the same on any number of threads.

    Each block keeps, for row ``i``, the columns within ``bound[i]`` (plus
    a margin of :data:`_BOUND_MARGIN` times :math:`|x_i|^2 + |x_j|^2` for
    the rounding), or its ``k`` nearest where ``bound[i]`` is not finite.
    Any bound at least the ``k``-th smallest squared distance of row ``i``
    gives the same result as none; the search's own ``k``-th distance is
    one, since its ``k`` neighbours are rows of ``X``.  A row that keeps
    fewer than ``k`` columns (a bound too small) is searched again without
    one.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The rows the search measured.
    rows : ndarray of int64
        The rows checked (:func:`check_rows`), distinct.
    k : int
        Neighbours per row, ``1 <= k < n_samples``.
    bound : ndarray of shape (len(rows),), optional
        An upper bound on each row's ``k``-th smallest squared distance
        (``inf``: none), in the units of ``X``.
    n_threads : int, default=1
        Threads the blocks share.

    Returns
    -------
    ndarray of shape (len(rows), k), int64
        Each row's ``k`` nearest other rows, in no particular order.
    """
    n = X.shape[0]
    if not 1 <= k < n:
        raise ValueError(f"k must be at least 1 and below the {n} rows; got {k}")
    rows = np.asarray(rows, dtype=np.int64)
    Xr = X[rows]
    sq_rows = np.einsum("ij,ij->i", Xr, Xr)
    limit = np.full(len(rows), np.inf) if bound is None else \
        np.asarray(bound, dtype=np.float64) + _BOUND_MARGIN * sq_rows
    open_rows = np.flatnonzero(~np.isfinite(limit))
    limit[open_rows] = -np.inf  # no column is kept by these rows' bound
    starts = range(0, n, _CHECK_BLOCK)
    kept = [None] * len(starts)

    def keep_block(start):
        stop = min(n, start + _CHECK_BLOCK)
        block = X[start:stop]
        sq = np.einsum("ij,ij->i", block, block)
        d2 = sq_rows[:, None] + sq[None, :] - 2.0 * (Xr @ block.T)
        own = np.flatnonzero((rows >= start) & (rows < stop))
        d2[own, rows[own] - start] = np.inf  # a row is not its own neighbour
        r, c = np.nonzero(d2 - _BOUND_MARGIN * sq[None, :] <= limit[:, None])
        if len(open_rows):  # rows without a bound: the block's k nearest
            best = np.argpartition(d2[open_rows], min(k, stop - start) - 1,
                                   axis=1)[:, :k]
            r = np.concatenate([r, np.repeat(open_rows, best.shape[1])])
            c = np.concatenate([c, best.ravel()])
        kept[start // _CHECK_BLOCK] = (r, c + start, d2[r, c])

    _threads.each_blas_block(keep_block, starts, n_threads)
    r, c, d2 = (np.concatenate(parts) for parts in zip(*kept))
    real = np.isfinite(d2)  # the row itself, where a block kept it
    r, c, d2 = r[real], c[real], d2[real]
    by = np.lexsort((c, d2, r))  # by row, then distance, then index
    r, c = r[by], c[by]
    first = np.searchsorted(r, np.arange(len(rows)))
    count = np.diff(np.append(first, len(r)))
    best = np.empty((len(rows), k), dtype=np.int64)
    for i in np.flatnonzero(count >= k):
        best[i] = c[first[i]:first[i] + k]
    short = np.flatnonzero(count < k)  # bounds below the k-th distance (never without one)
    if len(short):
        best[short] = exact_neighbours(X, rows[short], k, None, n_threads)
    return best


def sample_recall(exact, indices, rows):
    """The share of the exact neighbours of ``rows`` that ``indices`` holds.

    An estimate of the search's recall, used to decide whether the
    projection was faithful.

    Parameters
    ----------
    exact : ndarray of shape (len(rows), k)
        The exact neighbours of ``rows`` (:func:`exact_neighbours`).
    indices : ndarray of shape (n_samples, k)
        The search's neighbours (-1: none).
    rows : ndarray of int64
        The rows checked (:func:`check_rows`).

    Returns
    -------
    float
    """
    hits = sum(np.intersect1d(exact[r], indices[row]).size for r, row in enumerate(rows))
    return hits / exact.size
