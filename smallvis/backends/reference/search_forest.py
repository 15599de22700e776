r"""The projected search's forest: one tree's build, and the best-first queries of a forest.

A tree splits the rows of a node in two halves along a direction found by
two-means on a sample of them, until a node holds at most ``leaf_size``
rows; the queries walk every tree at once, nearest side first, as Annoy's
do (Bernhardsson, "Annoy", 2015), and return each row's nearest rows among
those its walk reached.  Written here in NumPy, and in
:mod:`smallvis.backends._search_forest` in Cython; the two give the same
bits, since every sum is taken one term after another in the order
written below (:func:`_sums`), and the compiled twin is built without
the flags that would regroup its sums.

The random draws come from a counter-based generator (SplitMix64's
finaliser of a key made from the seed, the tree, the node and the draw),
so a tree depends on nothing but its seed and the rows, and the trees can
be built on any number of threads.

Arrays of a tree with ``N`` nodes, ``L`` leaves, over ``n`` rows of ``r``
coordinates (node 0 is the root; nodes are numbered as they are made):

* ``children`` (N, 2) int32: an internal node's two children (its left
  half, then its right half), or ``(-1, leaf)`` for a leaf;
* ``normals`` (N, r) float64 and ``offsets`` (N,) float64: the split of an
  internal node, zeros for a leaf;
* ``leaf_start`` (L + 1,) int64 and ``items`` (n,) int32: leaf ``l`` holds
  the rows ``items[leaf_start[l]:leaf_start[l + 1]]``.

A forest is several trees' arrays end to end, the node and leaf numbers of
each tree shifted past those of the trees before it, with the root of each
tree listed in ``roots``.
"""

import heapq

import numpy as np

#: Rows of a node drawn (with replacement) for its two-means.
SPLIT_SAMPLE = 256

#: Two-means rounds (assign the sample to the nearer centre, move the
#: centres to their means) of a split.
SPLIT_ROUNDS = 3

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix64(z):
    """SplitMix64's finaliser of the 64-bit integer ``z``."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _draw(seed, tree, node, j, size):
    """Draw ``j`` of node ``node`` of tree ``tree``: an integer in ``[0, size)``."""
    h = _mix64((seed + _GOLDEN * (tree + 1)) & _MASK)
    h = _mix64(h ^ node)
    return _mix64(h ^ j) % size


def _sample(seed, tree, node, m, size):
    """``m >= 2`` positions in ``[0, size)``, drawn with replacement but the first two distinct.

    The first two start the two centres (:func:`_split_direction`): were
    they the same row, the direction would be zero.
    """
    first = _draw(seed, tree, node, 0, size)
    second = (first + 1 + _draw(seed, tree, node, 1, size - 1)) % size
    return [first, second] + [_draw(seed, tree, node, j, size) for j in range(2, m)]


#: Partial sums of :func:`_sums`: independent chains of additions, so that a
#: sum of ``r`` terms waits on ``r / LANES`` additions in turn, not ``r``.
LANES = 8


def _sums(A):
    r"""The sums along the last axis of ``A``, in :data:`LANES` lanes.

    Term :math:`t` goes to lane :math:`t \bmod 8`, whose terms are added
    one after another from the first; the lanes are then added in pairs:
    :math:`((s_0 + s_1) + (s_2 + s_3)) + ((s_4 + s_5) + (s_6 + s_7))`.
    The compiled twin adds in this order too (its terms past the last
    multiple of 8 simply join their lanes; here they are padded with
    zeros, which change no sum).
    """
    A = np.asarray(A, dtype=np.float64)
    r = A.shape[-1]
    pad = -r % LANES
    if pad:
        A = np.concatenate([A, np.zeros(A.shape[:-1] + (pad,))], axis=-1)
    s = np.cumsum(A.reshape(A.shape[:-1] + (-1, LANES)), axis=-2)[..., -1, :]
    return (((s[..., 0] + s[..., 1]) + (s[..., 2] + s[..., 3]))
            + ((s[..., 4] + s[..., 5]) + (s[..., 6] + s[..., 7])))


def _split_direction(P):
    r"""The direction of two-means on the sample ``P``: :math:`w = c_0 - c_1`.

    The centres start at the first two sample rows; each of
    :data:`SPLIT_ROUNDS` rounds gives every row :math:`x` to the nearer
    centre, :math:`c_1` when

    .. math::

        w \cdot x < w \cdot \tfrac{1}{2}(c_0 + c_1), \qquad w = c_0 - c_1

    (one product a row instead of two distances; :math:`c_0` on a tie),
    and moves each centre to the mean of its rows, taken in sample order.
    A round that leaves a centre without rows ends the rounds, the centres
    kept.
    """
    c0, c1 = P[0].copy(), P[1].copy()
    for _ in range(SPLIT_ROUNDS):
        w = c0 - c1
        to_c1 = _sums(P * w) < _sums(w * ((c0 + c1) * 0.5))
        n1 = int(np.count_nonzero(to_c1))
        if n1 == 0 or n1 == len(P):
            break
        c0 = np.cumsum(P[~to_c1], axis=0)[-1] / (len(P) - n1)
        c1 = np.cumsum(P[to_c1], axis=0)[-1] / n1
    return c0 - c1


def forest_tree(S, seed, tree, leaf_size, children, normals, offsets, leaf_start, items):
    r"""Build tree number ``tree`` of the forest over the rows of ``S`` into the given arrays.

    A node of ``s > leaf_size`` rows draws ``min(s, SPLIT_SAMPLE)`` of them
    (:func:`_sample`), takes the direction ``w`` of their two-means
    (:func:`_split_direction`) and ranks its rows by
    :math:`d_i = w \cdot x_i` (ties by row number): the first
    :math:`h = \lfloor s/2 \rfloor` go left, the rest right (each half
    keeping the node's order of its rows), and the split
    is stored as ``w`` with the offset
    :math:`(d_{(h)} + d_{(h+1)}) / 2`, so that a query's margin
    :math:`w \cdot x - \mathrm{offset}` is at most 0 on the left and at
    least 0 on the right.  Nodes are
    taken depth first, left before right.  The arrays are sized by
    :func:`smallvis.inputs.search_forest.tree_size`.

    Parameters
    ----------
    S : ndarray of shape (n, r), float64
        The rows.
    seed, tree : int
        The forest's seed and the tree's number.
    leaf_size : int
        Most rows in a leaf, at least 1.
    children, normals, offsets, leaf_start, items : ndarray
        Outputs, in the layout of the module's docstring.
    """
    n = S.shape[0]
    perm = np.arange(n, dtype=np.int32)
    stack = [(0, 0, n)]
    n_nodes = 1
    n_leaves = 0
    leaf_start[0] = 0
    while stack:
        node, lo, hi = stack.pop()
        size = hi - lo
        if size <= leaf_size:
            children[node] = (-1, n_leaves)
            normals[node] = 0.0
            offsets[node] = 0.0
            items[lo:hi] = perm[lo:hi]
            n_leaves += 1
            leaf_start[n_leaves] = hi
            continue
        m = min(size, SPLIT_SAMPLE)
        w = _split_direction(S[perm[lo + np.array(_sample(seed, tree, node, m, size))]])
        rows = perm[lo:hi]
        d = _sums(S[rows] * w)
        by = np.lexsort((rows, d))
        half = size // 2
        goes_left = np.zeros(size, dtype=bool)
        goes_left[by[:half]] = True
        perm[lo:hi] = np.concatenate([rows[goes_left], rows[~goes_left]])  # each half in its order
        normals[node] = w
        offsets[node] = (d[by[half - 1]] + d[by[half]]) * 0.5
        left, right = n_nodes, n_nodes + 1
        n_nodes += 2
        children[node] = (left, right)
        stack.append((right, lo + half, hi))
        stack.append((left, lo, lo + half))


def forest_query(S, roots, children, normals, offsets, leaf_start, items, search_k, out,
                 n_threads, start=0, stop=None):
    r"""Each row's ``m = out.shape[1]`` nearest rows among those its walk of the forest reaches.

    The walk of row :math:`x` keeps a queue of nodes, each with a
    priority; every root starts at :math:`+\infty`.  It takes the node of
    highest priority (ties: the higher node number): a leaf adds its rows
    (counted with repeats) to what was reached; an internal node with
    margin :math:`\mu = w \cdot x - \mathrm{offset}` and priority
    :math:`p` queues its right child at :math:`\min(p, \mu)` and its left
    at :math:`\min(p, -\mu)`.  The walk stops when ``search_k`` rows have
    been reached or the queue is empty.  The distinct rows reached are
    ranked by squared distance to :math:`x` (ties by row number), and the
    first ``m`` written to the row of ``out``, ``-1`` after the last.
    Row :math:`x` itself is among them when its walk reaches it.  Only
    the rows ``start`` to ``stop`` (default: the last) are walked and
    written.  ``n_threads`` is the twin's.
    """
    n, m = out.shape
    stop = n if stop is None else stop
    if m < 1:
        raise ValueError("forest_query: out needs at least one column")
    out[start:stop] = -1
    for i in range(start, stop):
        x = S[i]
        queue = [(-np.inf, -int(r)) for r in roots]
        heapq.heapify(queue)
        reached = []
        seen = set()
        count = 0
        while count < search_k and queue:
            neg_p, neg_node = heapq.heappop(queue)
            node = -neg_node
            if children[node, 0] < 0:
                leaf = children[node, 1]
                members = items[leaf_start[leaf]:leaf_start[leaf + 1]]
                count += len(members)
                for j in members:
                    if j not in seen:
                        seen.add(j)
                        reached.append(j)
                continue
            p = -neg_p
            mu = _sums(normals[node] * x) - offsets[node]
            heapq.heappush(queue, (-min(p, mu), -int(children[node, 1])))
            heapq.heappush(queue, (-min(p, -mu), -int(children[node, 0])))
        if reached:
            reached = np.array(reached, dtype=np.int64)
            dist = _sums((S[reached] - x) ** 2)
            best = reached[np.lexsort((reached, dist))[:m]]
            out[i, :len(best)] = best


def leaf_order(S, leaf_size, order, n_threads):
    """The rows of ``S`` ordered leaf by leaf of a median-split tree, written to ``order``.

    The rows are split in two at the median of the coordinate with the
    widest range (the first such coordinate on a tie): the first
    ``s // 2`` of a part's ``s`` rows, ranked by that coordinate (ties
    kept in the part's order), go left.  Parts are split until they hold
    at most ``leaf_size`` rows, and listed depth first, left before
    right; a leaf's rows keep the order of the last split.  Rows listed
    one after another are then mostly near each other.  ``order``
    (``(n,)`` int64) receives the permutation; ``n_threads`` is the
    twin's.
    """
    if leaf_size < 1 or S.shape[1] < 1:
        raise ValueError("leaf_order: needs leaf_size >= 1 and S with a column at least")
    parts, pending = [], [np.arange(S.shape[0], dtype=np.int64)]
    while pending:
        rows = pending.pop()
        if len(rows) <= leaf_size:
            parts.append(rows)
            continue
        coords = S[rows]
        widest = int(np.argmax(coords.max(axis=0) - coords.min(axis=0)))
        half = len(rows) // 2
        ranked = np.argsort(coords[:, widest], kind="stable")
        pending.append(rows[ranked[half:]])
        pending.append(rows[ranked[:half]])
    order[:] = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
