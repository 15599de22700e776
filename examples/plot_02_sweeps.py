"""
Perplexity and number of neighbours
===================================

The one parameter most worth varying: t-SNE's ``perplexity`` (the effective
number of neighbours each point's Gaussian reaches) and UMAP's
``n_neighbors`` (the size of its kNN graph).  Small values keep only very
local structure and break classes into pieces; large values join
neighbouring classes and show more of the global arrangement.  The 10-NN
accuracy of the labels in each map is in its title.
"""

import matplotlib.pyplot as plt
import numpy as np

import smallvis

X, labels = smallvis.datasets.load("digits")
rows = np.random.default_rng(0).choice(len(X), 600, replace=False)
X, labels = X[rows], labels[rows]

sweeps = {
    "tsne": ("perplexity", (5, 30, 100)),
    "umap": ("n_neighbors", (5, 15, 100)),
}
fig, axes = plt.subplots(len(sweeps), 3, figsize=(11, 7.4))
for row, (method, (param, values)) in zip(axes, sweeps.items()):
    for ax, value in zip(row, values):
        # the same seed in every panel, so only the parameter differs
        Y = smallvis.embed(X, method, random_state=0, **{param: value})
        accuracy = smallvis.metrics.knn_accuracy(Y, labels, 10)
        smallvis.plot(Y, labels, ax=ax, legend=False, s=5,
                      title=f"{method}, {param}={value}\n10-NN accuracy {accuracy:.3f}")
        ax.set_xticks([])
        ax.set_yticks([])
fig.tight_layout()
plt.show()
