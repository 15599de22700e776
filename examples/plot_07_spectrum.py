"""
One knob from UMAP to t-SNE
===========================

Neg-t-SNE (``negtsne``) is negative sampling with a fixed normalisation
``z_bar`` of the Cauchy kernel (Damrich et al., ICLR 2023).  At
``z_bar = N(N-1)/m`` it balances attraction and repulsion as UMAP does and
draws tight, compact clusters; as ``z_bar`` shrinks the repulsion grows and
the map spreads out like t-SNE's, and beyond.  The maps below turn that one
knob over 600 digits, between UMAP and t-SNE at their defaults; the titles
give each map's span and the share of each point's 15 nearest neighbours in
the data that stay among its 15 in the map.  Tutorial 08 derives the
forces behind it.
"""

import matplotlib.pyplot as plt
import numpy as np

import smallvis

X, labels = smallvis.datasets.load("digits")
rows = np.random.default_rng(0).choice(len(X), 600, replace=False)
X, labels = X[rows], labels[rows]
N = len(X)
m = 5  # negatives per positive pair, negtsne's default

runs = {"umap": dict(method="umap")}
# from the UMAP end, c = z_bar * m / (N(N-1)) = 1, down to below t-SNE's own
# partition function, which is of the order of 10 N here
for name, z_bar in (("N(N-1)/m", N * (N - 1) / m), ("30 N", 30 * N), ("10 N", 10 * N), ("N", N)):
    runs[f"negtsne, z_bar = {name}"] = dict(method="negtsne", z_bar=z_bar)
runs["tsne"] = dict(method="tsne")

fig, axes = plt.subplots(2, 3, figsize=(11, 7.6))
for ax, (title, params) in zip(axes.flat, runs.items()):
    Y = smallvis.embed(X, random_state=0, **params)
    kept = smallvis.metrics.knn_preservation(X, Y, 15)
    smallvis.plot(Y, labels, ax=ax, legend=False, s=4,
                  title=f"{title}\nspan {np.ptp(Y, axis=0).max():.0f}, 15-NN kept {kept:.2f}")
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()
