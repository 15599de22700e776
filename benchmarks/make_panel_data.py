"""Write the synthetic members of the evaluation panel for bench_real.py.

A default is chosen on a panel of varied data, never on one set
(docs/experiments.md, 2026-12-03).  The real members come from their own
scripts (``make_fashion_data.py``, ``make_debian_text.py``) and the
image-like and text-like members from ``make_image_data.py`` and
``make_text_data.py``; this script writes the other three, each as
``OUT_DIR/NAME.npy`` (float64 rows) and ``OUT_DIR/NAME_labels.npy``:

* ``roll``: a manifold, :func:`smallvis.datasets.swiss_roll` with ten
  bins along the roll as labels (noise 0.5 on a roll of radius 5 to 14).
  A map that unrolls the sheet draws each bin as one stripe, so pieces
  per class count tears;
* ``curves``: ten classes on curved sheets that pass close to one another
  in 50 dimensions, :func:`smallvis.datasets.curved_clusters`;
* ``unequal``: clusters of unequal size and density (:func:`unequal_clusters`).

Usage: python benchmarks/make_panel_data.py OUT_DIR [--n 30000] [--seed 0]
"""

import argparse
import os

import numpy as np

from smallvis import datasets

#: Bins of the roll's position that label its points.
ROLL_BINS = 10
#: Noise of the roll (its radius runs from about 5 to 14).
ROLL_NOISE = 0.5


def unequal_clusters(n, seed=0, n_classes=10, dim=50, latent=5):
    r"""``n`` points in ``n_classes`` Gaussian clusters of unequal size and spread.

    Cluster ``c`` holds a share of the points proportional to
    :math:`2^{-c/2}` (the largest about 23 times the smallest) and has a
    spread proportional to :math:`3^{c/9}` (the smallest cluster is three
    times as wide as the largest, so it is far less dense).  Each cluster
    is a ``latent``-dimensional standard normal cloud mapped into ``dim``
    dimensions by its own random linear map, scaled by its spread, around
    a centre of standard deviation 6 per coordinate, plus isotropic noise
    of standard deviation 0.1.

    Returns
    -------
    X : ndarray of shape (n, dim)
    labels : ndarray of shape (n,), int64
        Cluster index, 0 the largest and densest.
    """
    rng = np.random.default_rng(seed)
    shares = 2.0 ** (-np.arange(n_classes) / 2.0)
    counts = np.floor(shares / shares.sum() * n).astype(np.int64)
    counts[: n - int(counts.sum())] += 1
    spreads = 3.0 ** (np.arange(n_classes) / (n_classes - 1))
    centres = rng.normal(scale=6.0, size=(n_classes, dim))
    parts = []
    for c in range(n_classes):
        lift = rng.normal(scale=1.0 / np.sqrt(latent), size=(latent, dim))
        cloud = rng.standard_normal((int(counts[c]), latent)) @ lift
        parts.append(centres[c] + spreads[c] * cloud)
    X = np.concatenate(parts) + rng.normal(scale=0.1, size=(n, dim))
    labels = np.repeat(np.arange(n_classes, dtype=np.int64), counts)
    order = rng.permutation(n)  # the rows in no particular order, as real data
    return X[order], labels[order]


def panel(n, seed):
    """The synthetic members, ``{name: (X, labels)}``."""
    return {
        "roll": datasets.swiss_roll(n, n_bins=ROLL_BINS, noise=ROLL_NOISE, seed=seed),
        "curves": datasets.curved_clusters(n, seed=seed),
        "unequal": unequal_clusters(n, seed=seed),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--n", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    members = panel(args.n, args.seed)
    paths = {name: (os.path.join(args.out_dir, f"{name}.npy"),
                    os.path.join(args.out_dir, f"{name}_labels.npy")) for name in members}
    for path in (p for pair in paths.values() for p in pair):  # before anything is written
        if os.path.exists(path):
            raise SystemExit(f"{path} exists; name a new OUT_DIR")
    os.makedirs(args.out_dir, exist_ok=True)
    for name, (X, labels) in members.items():
        data_path, labels_path = paths[name]
        np.save(data_path, np.ascontiguousarray(X, dtype=np.float64))
        np.save(labels_path, labels)
        print(f"{data_path}: {X.shape[0]} x {X.shape[1]}, {len(np.unique(labels))} classes")


if __name__ == "__main__":
    main()
