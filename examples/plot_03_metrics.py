"""
Distance metrics
================

``metric=`` decides which points are neighbours before any method sees the
data.  The same 600 digits under the Euclidean, cosine and Manhattan
distances, with t-SNE and UMAP: cosine ignores each image's total ink (the
length of its vector), Manhattan weighs many small pixel differences more
than a few large ones.  The maps differ in detail, not in which digits
separate, because on these images the three metrics largely agree on the
nearest neighbours; the title gives the share of each point's 15 Euclidean
neighbours that the metric keeps.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.spatial.distance import cdist

import smallvis

X, labels = smallvis.datasets.load("digits")
rows = np.random.default_rng(0).choice(len(X), 600, replace=False)
X, labels = X[rows], labels[rows]
metrics = ("euclidean", "cosine", "manhattan")


def neighbours(metric, k=15):
    D = cdist(X, X, {"manhattan": "cityblock"}.get(metric, metric))
    np.fill_diagonal(D, np.inf)
    return np.argsort(D, axis=1)[:, :k]


# how much the metric changes the input, measured on the data itself
# rather than on a map: the share of Euclidean neighbours it keeps
euclidean = neighbours("euclidean")
kept = {"euclidean": "the reference"}
for metric in metrics[1:]:
    shared = np.mean([len(set(a) & set(b)) / 15 for a, b in zip(neighbours(metric), euclidean)])
    kept[metric] = f"{shared:.0%} of Euclidean 15-NN kept"

fig, axes = plt.subplots(2, 3, figsize=(11, 7.4))
for row, method in zip(axes, ("tsne", "umap")):
    for ax, metric in zip(row, metrics):
        Y = smallvis.embed(X, method, metric=metric, random_state=0)
        smallvis.plot(Y, labels, ax=ax, legend=False, s=5,
                      title=f"{method}, metric={metric!r}\n{kept[metric]}")
        ax.set_xticks([])
        ax.set_yticks([])
fig.tight_layout()
plt.show()
