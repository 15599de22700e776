"""Small datasets for trying out and testing neighbour embeddings.

All datasets are available offline: the two real datasets ship as small files
in ``smallvis/datasets/data/`` and the synthetic ones are generated at load
time from fixed seeds with :func:`numpy.random.default_rng`, so every call to
:func:`load` returns the same values.  Nothing is downloaded, ever.

=================  ======  ====  =======  ====================================
name               n       d     classes  source
=================  ======  ====  =======  ====================================
``"curves"``       3000    50    10       synthetic (MIT)
``"digits"``       1797    64    10       UCI optical digits (8x8), CC BY 4.0
``"hubs"``         1000    50    5        synthetic (MIT)
``"iris"``         150     4     3        Fisher / Anderson iris, CC BY 4.0
``"s1k"``          1000    9     10       synthetic (MIT)
``"swiss_roll"``   1000    3     6        synthetic (MIT)
``"two_clusters"`` 200     10    2        synthetic (MIT)
=================  ======  ====  =======  ====================================

Use :func:`names` to list them and :func:`load` to get ``(X, labels)``.  The
per-dataset functions (``iris()``, ``digits()``, ...) document the source,
licence and, for the synthetic data, the exact recipe.
"""

import gzip
import os

import numpy as np

__all__ = ["load", "names", "iris", "digits", "s1k", "swiss_roll",
           "two_clusters", "hubs", "curved_clusters"]

_DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def _read_csv(filename):
    """Read a bundled CSV file (optionally gzipped) with one header line.

    The last column holds the integer class label.
    """
    path = os.path.join(_DATA_DIR, filename)
    opener = gzip.open if filename.endswith(".gz") else open
    with opener(path, "rt", encoding="ascii") as fh:
        table = np.loadtxt(fh, delimiter=",", skiprows=1, dtype=np.float64)
    X = np.ascontiguousarray(table[:, :-1], dtype=np.float64)
    labels = table[:, -1].astype(np.int64)
    return X, labels


def iris():
    """Fisher's (Anderson's) iris data.

    150 flowers, 50 from each of three species, measured on four variables:
    sepal length, sepal width, petal length and petal width (cm).  Labels are
    0 = setosa, 1 = versicolor, 2 = virginica.  Rows are in the same order, and
    the values identical, to R's ``datasets::iris`` (which differs from the
    UCI file in two rows, 35 and 38, where R follows Fisher's paper).

    Source: R. A. Fisher (1936), "The use of multiple measurements in taxonomic
    problems", Annals of Eugenics 7(2); data collected by E. Anderson.  The
    bundled file ``data/iris.csv`` was converted from the copy distributed
    with scikit-learn (``sklearn/datasets/data/iris.csv``).  The data are in
    the public domain; the UCI Machine Learning Repository distributes them
    under CC BY 4.0.

    Returns
    -------
    X : ndarray of shape (150, 4)
        Measurements, float64.
    labels : ndarray of shape (150,)
        Species codes 0, 1, 2 (int64).
    """
    return _read_csv("iris.csv")


def digits():
    """UCI optical recognition of handwritten digits (8x8 version).

    1797 images of handwritten digits, each downsampled to an 8x8 grid of
    counts in 0..16 and flattened row by row into 64 features.  Labels are the
    digits 0..9.

    Source: E. Alpaydin and C. Kaynak (1998), "Optical Recognition of
    Handwritten Digits", UCI Machine Learning Repository,
    doi:10.24432/C50P49, licensed CC BY 4.0.  The bundled file
    ``data/digits.csv.gz`` was converted from scikit-learn's copy
    (``sklearn/datasets/data/digits.csv.gz``, the test part of the UCI data)
    keeping its row order.

    Returns
    -------
    X : ndarray of shape (1797, 64)
        Pixel counts in 0..16, float64.
    labels : ndarray of shape (1797,)
        Digit 0..9 of each image (int64).
    """
    return _read_csv("digits.csv.gz")


def s1k(seed=1):
    """Ten Gaussian clusters of different spreads in 9 dimensions.

    Synthetic data in the spirit of the ``s1k`` set of the R package
    smallvis: 1000 points in 9-D, 100 per cluster.  Recipe, with
    ``rng = np.random.default_rng(seed)``:

    1. cluster centres ``C = rng.normal(0.0, 4.0, size=(10, 9))``;
    2. cluster ``j`` (j = 0..9) has isotropic standard deviation
       ``0.5 + j / 6``, i.e. spreads evenly from 0.5 to 2.0;
    3. for j = 0..9 in turn, its 100 points are
       ``C[j] + sigma_j * rng.standard_normal((100, 9))``.

    Rows are grouped by cluster; labels are the cluster index.  With the
    default seed the clusters are mostly separated but a couple of the wider
    clusters overlap a little (about 99% of the 15 nearest neighbours of a
    point share its label).

    Source: generated; same licence as smallvis (MIT).

    Parameters
    ----------
    seed : int, default=1
        Seed for :func:`numpy.random.default_rng`.

    Returns
    -------
    X : ndarray of shape (1000, 9)
    labels : ndarray of shape (1000,)
        Cluster index 0..9 (int64).
    """
    n_clusters, n_per, dim = 10, 100, 9
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 4.0, size=(n_clusters, dim))
    spreads = 0.5 + np.arange(n_clusters) / 6.0
    X = np.concatenate(
        [centres[j] + spreads[j] * rng.standard_normal((n_per, dim))
         for j in range(n_clusters)]
    )
    labels = np.repeat(np.arange(n_clusters, dtype=np.int64), n_per)
    return X, labels


def swiss_roll(n_samples=1000, n_bins=6, noise=0.05, seed=42):
    """A 2-D sheet rolled up in 3-D.

    Recipe, with ``rng = np.random.default_rng(seed)``:

    1. position along the roll ``t = 1.5 * pi * (1 + 2 * u)`` with
       ``u = rng.uniform(size=n_samples)`` (so ``t`` is in [1.5 pi, 4.5 pi],
       one and a half turns);
    2. height ``h = 20 * rng.uniform(size=n_samples)``;
    3. ``X = [t cos t, h, t sin t] + noise * rng.standard_normal((n, 3))``.

    Labels discretise ``t`` into ``n_bins`` equal-width bins, so they run
    0..n_bins-1 from the centre of the roll outwards; a good embedding
    unrolls the sheet and shows the labels as consecutive stripes.

    Source: generated; same licence as smallvis (MIT).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of points.
    n_bins : int, default=6
        Number of label bins along the roll.
    noise : float, default=0.05
        Standard deviation of the isotropic Gaussian noise added.
    seed : int, default=42
        Seed for :func:`numpy.random.default_rng`.

    Returns
    -------
    X : ndarray of shape (n_samples, 3)
    labels : ndarray of shape (n_samples,)
        Bin index 0..n_bins-1 (int64).
    """
    n_samples = _check_count(n_samples, "n_samples", 1)
    n_bins = _check_count(n_bins, "n_bins", 1)
    noise = float(noise)
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a finite number >= 0, got {noise}")
    rng = np.random.default_rng(seed)
    u = rng.uniform(size=n_samples)
    t = 1.5 * np.pi * (1.0 + 2.0 * u)
    h = 20.0 * rng.uniform(size=n_samples)
    X = np.column_stack([t * np.cos(t), h, t * np.sin(t)])
    X += noise * rng.standard_normal(X.shape)
    labels = np.minimum((u * n_bins).astype(np.int64), n_bins - 1)
    return X, labels


def two_clusters(seed=7):
    """Two far-apart Gaussian blobs in 10 dimensions.

    Recipe, with ``rng = np.random.default_rng(seed)``: 100 points from a
    standard normal centred on the origin (label 0) followed by 100 points
    from a standard normal centred on ``(10, 10, ..., 10)`` (label 1).  The
    centres are about 31.6 apart while points of one blob are about 4.5 apart,
    so the 15-nearest-neighbour graph has (at least) two connected
    components: useful for testing how methods cope with a disconnected
    neighbour graph (e.g. spectral initialisation).

    Source: generated; same licence as smallvis (MIT).

    Parameters
    ----------
    seed : int, default=7
        Seed for :func:`numpy.random.default_rng`.

    Returns
    -------
    X : ndarray of shape (200, 10)
    labels : ndarray of shape (200,)
        Blob index 0 or 1 (int64).
    """
    n_per, dim = 100, 10
    rng = np.random.default_rng(seed)
    X = np.concatenate([
        rng.standard_normal((n_per, dim)),
        10.0 + rng.standard_normal((n_per, dim)),
    ])
    labels = np.repeat(np.arange(2, dtype=np.int64), n_per)
    return X, labels


def hubs(seed=42):
    """High-dimensional Gaussian data whose k-NN graph has strong hubs.

    Recipe: ``X = np.random.default_rng(seed).standard_normal((1000, 50))``.

    In high dimensions the distances from a point to all others concentrate,
    and the few points that happen to lie closest to the centre of the
    distribution are nearer to almost everyone than typical points are.  They
    become *hubs*: they turn up in very many other points' nearest-neighbour
    lists, while many points are nobody's neighbour ("anti-hubs").  With the
    default seed, in the exact 15-nearest-neighbour graph (self excluded) the
    largest in-degree is about 23 times k (each point has out-degree 15).
    Methods that normalise affinities per row, such as NCVis's per-row
    correction, behave differently from t-SNE/UMAP on such data.

    Labels group the points into quintiles of their distance to the origin:
    0 holds the 200 points closest to the centre (where the hubs are) and 4
    the 200 furthest.

    Source: generated; same licence as smallvis (MIT).

    Parameters
    ----------
    seed : int, default=42
        Seed for :func:`numpy.random.default_rng`.

    Returns
    -------
    X : ndarray of shape (1000, 50)
    labels : ndarray of shape (1000,)
        Distance quintile 0..4 (int64).
    """
    n, dim, n_groups = 1000, 50, 5
    X = np.random.default_rng(seed).standard_normal((n, dim))
    order = np.argsort(np.linalg.norm(X, axis=1), kind="stable")
    labels = np.empty(n, dtype=np.int64)
    labels[order] = np.arange(n) * n_groups // n
    return X, labels


def curved_clusters(n_samples=3000, seed=0):
    """Ten clusters on curved two-dimensional sheets, mixed in 50 dimensions.

    Structured synthetic data for judging embeddings: unlike isotropic
    Gaussian blobs, each class is a curved low-dimensional piece (a strip
    of a spiral surface), the pieces share an 8-dimensional space where they
    pass close to one another, and noise fills all 50 dimensions.  Recipe,
    with ``rng = np.random.default_rng(seed)``:

    1. class sizes proportional to ``rng.uniform(0.5, 1.5, 10)``, rounded
       down, the remainder added one by one to the first classes;
    2. centres ``C = rng.normal(0, 2, size=(10, 8))`` in an 8-D latent space,
       and an orthonormal lift ``L`` (50 x 8) from ``numpy.linalg.qr`` of a
       standard normal matrix;
    3. for each class in turn: ``u, v`` uniform on [0, 1),
       ``theta = pi (0.5 + 1.5 u)``, ``r = 1 + theta / 2``, the sheet
       ``(r cos theta, r sin theta, 3 v)`` turned into the latent space by an
       orthonormal 8 x 3 basis (``qr`` of a standard normal matrix), moved
       to its centre, lifted by ``L`` and blurred by ``0.5 *
       rng.standard_normal`` in all 50 dimensions.

    With the defaults, 99.5% of the points share the label of the majority
    of their 10 nearest neighbours in X.

    Source: generated; same licence as smallvis (MIT).

    Parameters
    ----------
    n_samples : int, default=3000
        Number of points, at least 10.
    seed : int, default=0
        Seed for :func:`numpy.random.default_rng`.

    Returns
    -------
    X : ndarray of shape (n_samples, 50)
    labels : ndarray of shape (n_samples,)
        Class index 0..9 (int64); rows are grouped by class.
    """
    n_samples = _check_count(n_samples, "n_samples", 10)
    n_classes, latent, dim = 10, 8, 50
    rng = np.random.default_rng(seed)
    weights = rng.uniform(0.5, 1.5, n_classes)
    counts = np.floor(weights / weights.sum() * n_samples).astype(np.int64)
    counts[: n_samples - int(counts.sum())] += 1
    centres = rng.normal(0.0, 2.0, size=(n_classes, latent))
    lift, _ = np.linalg.qr(rng.standard_normal((dim, latent)))
    X = []
    for c in range(n_classes):
        m = int(counts[c])
        u, v = rng.random(m), rng.random(m)
        theta = np.pi * (0.5 + 1.5 * u)
        r = 1.0 + 0.5 * theta
        sheet = np.column_stack([r * np.cos(theta), r * np.sin(theta), 3.0 * v])
        basis, _ = np.linalg.qr(rng.standard_normal((latent, 3)))
        Z = centres[c] + sheet @ basis.T
        X.append(Z @ lift.T + 0.5 * rng.standard_normal((m, dim)))
    labels = np.repeat(np.arange(n_classes, dtype=np.int64), counts)
    return np.concatenate(X), labels


def _check_count(value, name, minimum):
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


_LOADERS = {
    "curves": curved_clusters,
    "digits": digits,
    "hubs": hubs,
    "iris": iris,
    "s1k": s1k,
    "swiss_roll": swiss_roll,
    "two_clusters": two_clusters,
}


def names():
    """Names of the available datasets.

    Returns
    -------
    list of str
        Sorted dataset names accepted by :func:`load`.
    """
    return sorted(_LOADERS)


def load(name):
    """Load a bundled or synthetic dataset by name.

    Available datasets (see the function of the same name for details,
    source and licence):

    - ``"iris"``: Fisher's iris, 150 x 4, 3 species (public domain;
      CC BY 4.0 at UCI).  Same rows as R's ``datasets::iris``.
    - ``"digits"``: UCI optical handwritten digits, 1797 x 64, digits 0..9
      (E. Alpaydin and C. Kaynak, UCI, CC BY 4.0).
    - ``"s1k"``: 10 Gaussian clusters of 100 points in 9-D with spreads
      0.5 to 2.0 (generated, MIT).
    - ``"swiss_roll"``: 1000 points on a Swiss roll in 3-D, 6 label bins
      along the roll (generated, MIT).
    - ``"two_clusters"``: two 10-D Gaussian blobs of 100 points, far enough
      apart that the 15-NN graph is disconnected (generated, MIT).
    - ``"curves"``: 3000 points in 50-D, ten classes on curved 2-D sheets
      that pass close to one another, plus noise (generated, MIT).
    - ``"hubs"``: 1000 points of a 50-D standard Gaussian, whose 15-NN
      graph has hubs with in-degree over 10 times k (generated, MIT).

    The synthetic datasets are generated from fixed seeds, so repeated calls
    give identical arrays.  No network access is needed.

    Parameters
    ----------
    name : str
        Name of the dataset, one of :func:`names`.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Data, float64.
    labels : ndarray of shape (n_samples,)
        Integer class labels (int64).

    Raises
    ------
    TypeError
        If `name` is not a string.
    ValueError
        If `name` is not a known dataset.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    try:
        loader = _LOADERS[name]
    except KeyError:
        raise ValueError(
            f"unknown dataset name {name!r}; valid names are: "
            + ", ".join(names())
        ) from None
    return loader()
