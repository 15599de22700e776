"""
Every method, grouped by family
===============================

Each method registered in :data:`smallvis.METHODS`, run with its defaults on
the same 300 handwritten digits and drawn in a row per family of input
affinities (``p_family``): conditional Gaussian rows (ASNE, JSE), a joint
Gaussian P (SSNE, t-SNE, ...), UMAP's fuzzy graph, and a plain kNN graph
(NCVis, Neg-t-SNE, InfoNCE).  Within a row the input P is the same kind, so
the differences come from the output kernel and the cost.
"""

import matplotlib.pyplot as plt
import numpy as np

import smallvis

X, labels = smallvis.datasets.load("digits")
# 300 points: the exact JSE and Hellinger costs grow with the square of N,
# and the whole page has to run in seconds
rows = np.random.default_rng(0).choice(len(X), 300, replace=False)
X, labels = X[rows], labels[rows]

# the families come from the registry, so a method added to smallvis
# appears here without editing this script
families = {}
for name, method in smallvis.METHODS.items():
    families.setdefault(method.p_family.name, []).append(name)

n_cols = max(len(names) for names in families.values())
fig, axes = plt.subplots(len(families), n_cols, figsize=(2.6 * n_cols, 2.8 * len(families)),
                         squeeze=False)
for row, (family, names) in zip(axes, families.items()):
    for ax in row:
        ax.axis("off")
    for ax, name in zip(row, names):
        Y = smallvis.embed(X, name, random_state=0)
        smallvis.plot(Y, labels, ax=ax, legend=False, s=4, title=name)
        ax.axis("on")
        ax.set_xticks([])
        ax.set_yticks([])
    row[0].annotate(family, xy=(-0.12, 0.5), xycoords="axes fraction", rotation=90,
                    ha="right", va="center", fontsize="large", fontweight="bold")
fig.suptitle("300 digits, every method at its defaults, one row per input family")
fig.tight_layout()
plt.show()
