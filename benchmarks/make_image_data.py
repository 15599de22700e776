"""A dense image-like dataset: 28 x 28 "pixel" images of 10 classes.

Real image sets (handwritten digits, clothing photographs) are a few hundred
dimensions of strongly correlated pixels, mostly black at the border, whose
classes are curved manifolds (a class is a shape seen with many small
deformations) that touch each other.  This recipe builds such data from
scratch, with no file to download:

* **Class shapes.**  Each class has a few *styles* (4 by default).  A style
  is a smooth random field on the 28 x 28 grid (white noise blurred by a
  Gaussian of sd 3 pixels), half of it shared by the whole class and half
  its own, turned into "ink" by a soft threshold and faded to zero outside
  a centred disc, as strokes of a digit are.
* **Per-sample variation.**  Every image mixes two styles of its class with
  a uniform random weight (a continuous manifold between them), is warped
  by a smooth random displacement field (a few low-frequency sine modes,
  modes of sd 2 pixels, plus a global shift), scaled in
  intensity, and blurred with pixel noise.
* **Pixels** are clipped to 0-255 like raw 8-bit pixels, and stored as
  float32 (70,000 x 784 is 0.2 GB; 0.44 GB once a benchmark reads it as
  float64).

Labels are 0-9, shuffled so that any prefix of the rows samples every class.
With the defaults the leave-one-out 10-NN accuracy in pixel space is 0.89
on 10,000 rows; on 70,000 rows umap-learn's ``UMAP()`` map has a 10-NN
accuracy of 0.89 and a 15-NN preservation of 0.12 (on real 70,000 x 784
images: 0.78 and 0.13), with some classes touching, as in real images.

Usage: python benchmarks/make_image_data.py OUT.npy OUT_labels.npy
       [--n 70000] [--seed 0]
"""

import argparse

import numpy as np
from scipy.ndimage import gaussian_filter, map_coordinates

SIDE = 28
N_CLASSES = 10


def _smooth_field(rng, sigma=3.0):
    """A zero-mean, unit-sd smooth random field on the SIDE x SIDE grid."""
    field = gaussian_filter(rng.standard_normal((SIDE, SIDE)), sigma, mode="wrap")
    return (field - field.mean()) / field.std()


def class_styles(rng, n_styles):
    """Ink images of shape (N_CLASSES, n_styles, SIDE, SIDE), values in [0, 1]."""
    grid = np.arange(SIDE) - (SIDE - 1) / 2.0
    radius = np.hypot(*np.meshgrid(grid, grid, indexing="ij"))
    disc = 1.0 / (1.0 + np.exp((radius - 10.0) / 1.2))
    styles = np.empty((N_CLASSES, n_styles, SIDE, SIDE))
    for c in range(N_CLASSES):
        shared = _smooth_field(rng)
        for s in range(n_styles):
            field = 0.7 * shared + 0.7 * _smooth_field(rng)
            styles[c, s] = disc / (1.0 + np.exp(-4.0 * (field - 0.3)))
    return styles


def _warp_modes():
    """Low-frequency sine modes (4, SIDE, SIDE) used for displacement fields."""
    u = np.linspace(0.0, np.pi, SIDE)
    a, b = np.meshgrid(u, u, indexing="ij")
    return np.stack([np.sin(a), np.sin(b), np.sin(a) * np.sin(b),
                     np.sin(2 * a) * np.sin(b)])


def image_data(n=70_000, seed=0, n_styles=4, warp=2.0, noise=30.0):
    """Return ``n`` image-like rows of 784 pixels and their class labels.

    Parameters
    ----------
    n : int
        Number of images.
    seed : int
        Seed of :func:`numpy.random.default_rng`.
    n_styles : int
        Styles per class.
    warp : float
        Amplitude (pixels) of each mode of the displacement field.
    noise : float
        Sd of the pixel noise, on the 0-255 scale.

    Returns
    -------
    X : ndarray of shape (n, 784), float32, values in [0, 255]
    labels : ndarray of shape (n,), int64
    """
    rng = np.random.default_rng(seed)
    styles = class_styles(rng, n_styles)
    modes = _warp_modes()
    labels = rng.permutation(np.arange(n) % N_CLASSES)
    rows, cols = np.meshgrid(np.arange(SIDE), np.arange(SIDE), indexing="ij")
    X = np.empty((n, SIDE * SIDE), dtype=np.float32)
    for i in range(n):
        pick = rng.choice(n_styles, size=2, replace=False)
        w = rng.random()
        ink = w * styles[labels[i], pick[0]] + (1.0 - w) * styles[labels[i], pick[1]]
        dr = np.tensordot(rng.normal(0.0, warp, 4), modes, 1) + rng.normal(0.0, 1.0)
        dc = np.tensordot(rng.normal(0.0, warp, 4), modes, 1) + rng.normal(0.0, 1.0)
        img = map_coordinates(ink, [rows + dr, cols + dc], order=1, mode="constant")
        img = 255.0 * rng.uniform(0.7, 1.0) * img + rng.normal(0.0, noise, img.shape)
        X[i] = np.clip(img, 0.0, 255.0).ravel()
    return X, labels.astype(np.int64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="output .npy of the (n, 784) pixels")
    parser.add_argument("labels", help="output .npy of the n labels")
    parser.add_argument("--n", type=int, default=70_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    X, labels = image_data(args.n, args.seed)
    np.save(args.data, X)
    np.save(args.labels, labels)
    print(f"wrote {args.data} {X.shape} and {args.labels}")


if __name__ == "__main__":
    main()
