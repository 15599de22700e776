"""Shared fixtures: small deterministic (P, Y) pairs and the two backends."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import scipy.sparse as sp

from smallvis import _kernels, reference


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
    from smallvis.affinities import kernel_triplet

    return kernel_triplet(check_affinities(sp.csr_matrix(P)))
