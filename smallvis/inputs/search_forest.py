"""The forest that proposes the projected search's candidates: its size, its build, its queries.

The projected search (:mod:`smallvis.inputs.projected_search`) asks each
row's nearest rows of the projection of a forest of trees split at the
median of a two-means direction, walked best first (the twin kernels
``forest_tree`` and ``forest_query``,
:mod:`smallvis.backends.reference.search_forest`).  The package builds and
walks this forest itself rather than Annoy's: the walks of all rows run in
one call without the interpreter lock, so they share the threads as the
package's other kernels do (Annoy's Python interface answers one query per
call and takes the lock back between queries), and the trees are built at
once on the threads.  Each tree depends only on the seed, its number and
the rows, and each walk only on the forest and its row, so the candidates
are the same on any number of threads.
"""

import time
from typing import NamedTuple

import numpy as np

from .. import _progress, _threads


class Forest(NamedTuple):
    """A forest's arrays end to end.

    The layout is that of :mod:`smallvis.backends.reference.search_forest`.
    """

    roots: np.ndarray
    children: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    leaf_start: np.ndarray
    items: np.ndarray


def tree_size(n, leaf_size):
    """``(nodes, leaves)`` of a tree over ``n`` rows: every split halves its rows.

    A node of ``s > leaf_size`` rows has children of ``s // 2`` and
    ``s - s // 2`` rows, so the shape depends on ``n`` alone.  The sizes
    of one level differ by at most one, so few distinct sizes are counted.
    """
    known = {}

    def size(s):
        if s <= leaf_size:
            return 1, 1
        if s not in known:
            left, right = size(s // 2), size(s - s // 2)
            known[s] = (1 + left[0] + right[0], left[1] + right[1])
        return known[s]

    return size(int(n))


def build(S, n_trees, seed, leaf_size, n_threads, kernels):
    """The forest of ``n_trees`` trees over the rows of ``S`` (C-contiguous float64).

    The trees are built on up to ``n_threads`` threads (``forest_tree``
    lets go of the interpreter lock), each into its own part of the
    forest's arrays, so the forest is the same on any number of threads.
    """
    t = time.perf_counter()
    n, r = S.shape
    nodes, leaves = tree_size(n, leaf_size)
    children = np.empty((n_trees * nodes, 2), dtype=np.int32)
    normals = np.empty((n_trees * nodes, r))
    offsets = np.empty(n_trees * nodes)
    leaf_start = np.empty(n_trees * leaves + 1, dtype=np.int64)
    items = np.empty(n_trees * n, dtype=np.int32)

    def grow(tree):
        node, leaf = tree * nodes, tree * leaves
        starts = np.empty(leaves + 1, dtype=np.int64)
        kernels.forest_tree(S, seed, tree, leaf_size, children[node:node + nodes],
                            normals[node:node + nodes], offsets[node:node + nodes], starts,
                            items[tree * n:(tree + 1) * n])
        # renumber into the forest: nodes, leaves and rows past the trees before
        own = children[node:node + nodes]
        inner = own[:, 0] >= 0
        own[inner] += node
        own[~inner, 1] += leaf
        leaf_start[leaf:leaf + leaves] = starts[:-1] + tree * n

    _threads.each_block(grow, range(n_trees), n_threads)
    leaf_start[-1] = n_trees * n
    roots = np.arange(n_trees, dtype=np.int32) * nodes
    _progress.step("kNN", f"{n_trees} trees built", t)
    return Forest(roots, children, normals, offsets, leaf_start, items)


def candidates(forest, S, m, search_k, n_threads, kernels):
    """Each row's ``m`` nearest rows among those its walk reaches: (n, m) int32, -1 pads.

    With reporting on, the rows are walked in spans, a progress line (rows
    done, ETA) after a span when one is due; the answer is the same.
    """
    out = np.empty((S.shape[0], m), dtype=np.int32)
    progress = _progress.counter("kNN", "queries", S.shape[0])
    for start, stop in progress.spans():  # one span when not reporting
        kernels.forest_query(S, forest.roots, forest.children, forest.normals, forest.offsets,
                             forest.leaf_start, forest.items, search_k, out, n_threads, start,
                             stop)
    return out
