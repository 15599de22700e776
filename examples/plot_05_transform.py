"""
Placing new points with ``transform``
=====================================

A fitted :class:`smallvis.Embedding` keeps its map fixed and places new
points in it, each from its neighbours among the training points.  Here
t-SNE and UMAP are fitted on 450 digits, and 150 other digits are placed
afterwards (crosses, over the fitted points in pale colours).  A new point
that lands among training points of its own class is placed well; the
title gives the share of new points whose 10 nearest training points in
the map mostly carry their label.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.spatial.distance import cdist

import smallvis

X, labels = smallvis.datasets.load("digits")
rows = np.random.default_rng(0).choice(len(X), 600, replace=False)
train, new = rows[:450], rows[450:]


def agreement(Y_train, Y_new, k=10):
    # vote among each new point's nearest training points in the map
    nearest = np.argsort(cdist(Y_new, Y_train), axis=1)[:, :k]
    votes = labels[train][nearest]
    majority = np.array([np.bincount(v, minlength=10).argmax() for v in votes])
    return np.mean(majority == labels[new])


fig, axes = plt.subplots(1, 2, figsize=(11, 5))
for ax, method in zip(axes, ("tsne", "umap")):
    model = smallvis.Embedding(method=method, random_state=0).fit(X[train])
    Y_new = model.transform(X[new])
    colours = plt.cm.tab10(labels / 9)
    ax.scatter(*model.embedding_.T, c=colours[train], s=8, alpha=0.3, linewidths=0)
    ax.scatter(*Y_new.T, c=colours[new], s=30, marker="x", linewidths=1.2)
    share = agreement(model.embedding_, Y_new)
    ax.set_title(f"{method}: 450 fitted (dots), 150 placed (crosses)\n"
                 f"{share:.0%} of the new points among their own class")
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()
