"""Shared fixtures: small deterministic (P, Y) pairs and the two backends."""

import os

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis

try:
    from smallvis.backends import _kernels
    from smallvis.backends import reference
except ImportError as exc:  # e.g. `python -m pytest` on a checkout never built
    raise ImportError(
        f"the smallvis imported from {smallvis.__path__[0]} has no compiled "
        "smallvis.backends._kernels; for development install it editable, which builds "
        "the extension in place: pip install -e \".[test]\" (see CONTRIBUTING.md)"
    ) from exc


#: ``SMALLVIS_LONG_TESTS=1``: quality floors on full data sets, sweeps over
#: many cases; without it each such test runs a smaller form of itself.
LONG_TESTS = os.environ.get("SMALLVIS_LONG_TESTS", "") not in ("", "0")

#: Images of digits in the default run's quality floors.
DIGITS_SAMPLE = 600


def digits_sample(n=DIGITS_SAMPLE):
    """digits for a quality floor: all 1,797 images when long, else ``n`` of them.

    A seeded random sample keeps the ten classes in about their proportions.
    On 600 images, where a point has a third as many same-class neighbours,
    the stochastic defaults reach a 10-NN accuracy of 0.94-0.97 and a 15-NN
    preservation of 0.60-0.67 (0.98 and 0.53 on all 1,797): the floors of
    0.90 and 0.45 hold on both.
    """
    X, labels = smallvis.datasets.load("digits")
    if LONG_TESTS:
        return X, labels
    keep = np.sort(np.random.default_rng(0).permutation(len(X))[:n])
    return X[keep], labels[keep]


@pytest.fixture(params=[False, True], ids=["numpy", "cython"])
def fast(request):
    return request.param


def random_affinities(n, rng, *, symmetric=True, density=1.0):
    """A random non-negative P with a zero diagonal (dense or sparse pattern)."""
    A = rng.random((n, n))
    if density < 1.0:
        A *= rng.random((n, n)) < density
    np.fill_diagonal(A, 0.0)
    if symmetric:
        A = A + A.T
        return A / A.sum()
    rows = A.sum(axis=1, keepdims=True)
    rows[rows == 0] = 1.0
    return A / rows


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)


KERNEL_MODULES = {"reference": reference, "cython": _kernels}


def csr_triplet(P):
    """Kernel input for P via the package's own conversion."""
    from smallvis._validation import check_affinities
    from smallvis.inputs.affinities import kernel_triplet

    return kernel_triplet(check_affinities(sp.csr_matrix(P)))


#: Cost-parameter settings exercised for every method.  ``eps`` (a
#: regulariser of the repulsion) is 0 so that each gradient is the exact
#: gradient of its cost; the twin tests add the defaults (eps > 0).
EXACT_VARIANTS = {
    "asne": [{}],
    "ssne": [{}],
    "tsne": [{}, dict(dof=0.3), dict(dof=0.5), dict(dof=2.0), dict(dof=100.0)],
    "largevis": [dict(eps=0.0), dict(eps=0.0, gamma=3.0, kernel="cauchy_alpha", alpha=0.5),
                 dict(kernel="exp", gamma=0.5)],
    "umap": [dict(eps=0.0), dict(eps=0.0, a=1.2, b=0.7), dict(eps=0.0, spread=1.0, min_dist=0.4)],
    "tumap": [dict(eps=0.0)],
    "ncvis": [dict(Q=0.0), dict(Q=4.0, nu=2.0, a=1.3, b=0.8), dict(Q=-1.0, min_dist=0.1)],
}
#: A method without hand-written rows takes its registry examples (and fails
#: tests/test_registry_only.py::test_every_method_has_example_parameters
#: without them).
EXACT_VARIANTS.update({name: [dict(example) for example in m.examples]
                       for name, m in smallvis.METHODS.items() if name not in EXACT_VARIANTS})


#: The methods that take a user's nearest neighbours (``knn=``, or a sparse
#: kNN graph with ``metric="precomputed"``): ``knn`` among their affinity
#: parameters.
KNN_METHODS = [name for name, m in smallvis.METHODS.items() if "knn" in m.affinity_params]

#: The methods whose P is calibrated to a perplexity.
PERPLEXITY_METHODS = [name for name, m in smallvis.METHODS.items()
                      if "perplexity" in m.affinity_params]

#: The methods whose P holds fuzzy memberships in [0, 1].
FUZZY_METHODS = [name for name, m in smallvis.METHODS.items() if m.fuzzy]


def example_params(method, n_samples):
    """A method's cost parameters at each of its registry examples, ``"auto"`` resolved."""
    m = smallvis.METHODS[method]
    return [m.resolve_auto({**m.cost_params, **example}, n_samples) for example in m.examples]


def method_affinities(method, n, rng, density=1.0):
    """A P suited to ``method``: conditional for asne, memberships for umap.

    A P that is not symmetric but normalised over all pairs (the family's
    ``normalised``) sums to 1, as the engine takes it.
    """
    from smallvis.registry import METHODS

    m = METHODS[method]
    P = random_affinities(n, rng, symmetric=m.symmetric, density=density)
    if not m.symmetric and m.p_family.normalised == "total":
        P = P / P.sum()
    if m.fuzzy:
        P = 0.95 * P / P.max()
    return P


def one_error_line(capsys, *needles):
    """The command line's stderr: exactly one ``smallvis: error:`` line holding every needle."""
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("smallvis: error:"), err
    for needle in needles:
        assert needle in err, err
    return err


def quadratic_problem(target):
    """``(gradient, cost)`` of 0.5 |Y - target|^2, in the optimizer's calling form.

    A smooth bowl whose gradient is ``Y - target``: the update rule and the
    divergence guard are checked on it without any embedding method.
    """
    def gradient(Y, learned, exaggerated, out):
        out[...] = Y - target

    def cost(Y, learned):
        return 0.5 * float(np.sum((Y - target) ** 2))
    return gradient, cost


def one_method_per_kind():
    """The first method of each kind that takes a kNN graph, from registry fields.

    A kind is an affinity family (``p_family.name``) with or without a
    stochastic form (``sgd``): today a perplexity method of each optimizer,
    a fuzzy one and a kNN-graph one.  A method of a new kind joins the list.
    """
    first = {}
    for name, m in smallvis.METHODS.items():
        if "knn" in m.affinity_params:
            first.setdefault((m.p_family.name, m.sgd is not None), name)
    return list(first.values())


def perplexity_and_fuzzy_methods():
    """The first perplexity method that takes a kNN graph and the first fuzzy one.

    The two calibrations of P from a kNN graph (a perplexity per row, a
    fuzzy set per row), read from registry fields.
    """
    return [next(name for name in PERPLEXITY_METHODS if name in KNN_METHODS), FUZZY_METHODS[0]]
