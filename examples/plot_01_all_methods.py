"""
Every method, grouped by family
===============================

Each method registered in :data:`smallvis.METHODS`, run on the same 300
handwritten digits and drawn in one block per family of input affinities
(``p_family``): conditional Gaussian rows (ASNE, JSE), a joint Gaussian P
(SSNE, t-SNE, ...), UMAP's fuzzy graph, and a plain kNN graph (NCVis,
Neg-t-SNE, InfoNCE).  Within a block the input P is the same kind, so the
differences come from the output kernel and the cost.  The families and
their methods are read from the registry, so a new method appears here
without an edit.
"""

import math

import matplotlib.pyplot as plt
import numpy as np

import smallvis
from smallvis.engines.sgd import choose_optimizer

X, labels = smallvis.datasets.load("digits")
# A small, fixed budget so that the page runs in a minute with fifty methods:
# 300 points (the exact costs grow with the square of N) and 500 iterations
# of the exact optimizer (half the default), every other setting at its
# default.  The full data and iterations give tighter maps.
N_POINTS, N_ITER = 300, 500
rows = np.random.default_rng(0).choice(len(X), N_POINTS, replace=False)
X, labels = X[rows], labels[rows]

families = {}
for name, method in smallvis.METHODS.items():
    families.setdefault(method.p_family.name, []).append(name)


def budget(name):
    """``n_iter`` where the exact optimizer runs; infonce's stochastic one runs its epochs."""
    exact = choose_optimizer(smallvis.METHODS[name], "auto", N_POINTS) == "exact"
    return {"n_iter": N_ITER} if exact else {}


maps = {name: smallvis.embed(X, name, random_state=0, **budget(name))
        for names in families.values() for name in names}

# %%
# One block per family, at most six maps to a row.
N_COLS = 6
n_rows = {family: math.ceil(len(names) / N_COLS) for family, names in families.items()}
fig = plt.figure(figsize=(2.2 * N_COLS, 2.6 * sum(n_rows.values()) + 0.6),
                 layout="constrained")
blocks = fig.subfigures(len(families), 1, height_ratios=list(n_rows.values()))
for block, (family, names) in zip(np.atleast_1d(blocks), families.items()):
    block.suptitle(f"input P: {family}", fontweight="bold", fontsize="large")
    axes = block.subplots(n_rows[family], N_COLS, squeeze=False).ravel()
    for ax in axes:
        ax.axis("off")
    for ax, name in zip(axes, names):
        smallvis.plot(maps[name], labels, ax=ax, legend=False, s=4, title=name)
        ax.axis("on")
        ax.set_xticks([])
        ax.set_yticks([])
plt.show()

# %%
# The best map of each family by 10-NN accuracy (how often a point's ten
# nearest neighbours in the map share its digit), larger: the thumbnail of
# this page.
accuracy = {name: smallvis.metrics.knn_accuracy(Y, labels) for name, Y in maps.items()}
firsts = [max(names, key=accuracy.get) for names in families.values()]
n_cols = min(2, len(firsts))
fig, axes = plt.subplots(math.ceil(len(firsts) / n_cols), n_cols,
                         figsize=(3.4 * n_cols, 3.2 * math.ceil(len(firsts) / n_cols)),
                         squeeze=False, layout="constrained")
for ax in axes.ravel():
    ax.axis("off")
for ax, (family, name) in zip(axes.ravel(), zip(families, firsts)):
    ax.axis("on")
    smallvis.plot(maps[name], labels, ax=ax, legend=False, s=6,
                  title=f"{name} ({family})\n10-NN accuracy {accuracy[name]:.2f}")
    ax.set_xticks([])
    ax.set_yticks([])
plt.show()

# sphinx_gallery_thumbnail_number = 2
