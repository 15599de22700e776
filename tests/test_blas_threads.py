"""The public calls hold NumPy's and SciPy's BLAS to their own ``n_threads``.

Without it the BLAS picks its own thread count (OpenBLAS: every core), and
the spectral start's last bits, hence the map, change with the machine's
cores at the same ``n_threads`` (docs/experiments.md, 2026-12-03).
"""

import sys
import types

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import smallvis
from smallvis import _threads, datasets
from smallvis.api import _blas_held_to_n_threads


def _blas_counts():
    return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info()
            if lib["user_api"] == "blas"}


@pytest.fixture
def outside_two():
    """The BLAS at two threads outside the call (skipped where it cannot be set to two)."""
    if not _blas_counts():
        pytest.skip("threadpoolctl finds no BLAS library in this process")
    with threadpool_limits(limits=2, user_api="blas"):
        if set(_blas_counts().values()) != {2}:
            pytest.skip("the BLAS here cannot run two threads")
        yield


def test_the_decorator_holds_the_blas_to_the_resolved_count_and_restores_it(outside_two):
    @_blas_held_to_n_threads
    def probe(a, *, n_threads=None):
        return a, n_threads, set(_blas_counts().values())

    assert probe(7, n_threads=1) == (7, 1, {1})
    assert set(_blas_counts().values()) == {2}  # restored on leaving
    # n_threads resolved once: None becomes a count, passed on as such
    a, n_threads, inside = probe(7)
    assert isinstance(n_threads, int) and n_threads >= 1 and inside == {n_threads}
    # an invalid count is left to the call to report, in its own order of checks
    assert probe(7, n_threads=0) == (7, 0, {2})
    assert set(_blas_counts().values()) == {2}


def test_a_fit_runs_its_blas_on_its_own_thread_count(outside_two):
    X, _ = datasets.load("iris")
    seen = []

    def callback(iteration, Y, cost):
        seen.append(set(_blas_counts().values()))

    smallvis.embed(X, "umap", random_state=0, n_threads=1, callback=callback)
    assert seen and all(counts == {1} for counts in seen)
    assert set(_blas_counts().values()) == {2}


@pytest.mark.parametrize("call", [smallvis.embed, smallvis.affinities,
                                  smallvis.cost_and_gradient],
                         ids=lambda f: f.__qualname__)
def test_the_public_calls_that_fit_hold_the_blas(call):
    # the wrapper of _blas_held_to_n_threads, around the documented function
    assert call.__code__ is _blas_held_to_n_threads(lambda n_threads=None: 0).__code__
    assert "n_threads" in call.__wrapped__.__code__.co_varnames


def test_a_hold_reads_the_counts_afresh_after_the_libraries_were_found(outside_two):
    # the libraries are found once, but the count restored is the one
    # outside at each entry, also when it changed after the search
    with _threads.blas_threads(1):
        pass  # the search is made (or kept) here
    for outside, inside in ((1, 2), (2, 1)):
        with threadpool_limits(limits=outside, user_api="blas"):
            assert set(_blas_counts().values()) == {outside}
            with _threads.blas_threads(inside):
                assert set(_blas_counts().values()) == {inside}
            assert set(_blas_counts().values()) == {outside}


def test_the_libraries_are_searched_again_once_a_module_is_imported(monkeypatch):
    first = _threads._blas_controller()
    assert _threads._blas_controller() is first  # kept while no module comes
    monkeypatch.setitem(sys.modules, "smallvis_test_new_module", types.ModuleType("m"))
    again = _threads._blas_controller()
    assert again is not first
    assert ({lib.filepath for lib in again.lib_controllers}
            >= {lib.filepath for lib in first.lib_controllers})


def test_p_of_many_features_is_the_same_on_one_thread_and_two(outside_two):
    # the search's projection (600 features) and pca= multiply X by BLAS
    # products, which OpenBLAS sums in another order on two threads; the
    # products run in blocks on one BLAS thread each, so P does not change.
    # Here pca= alone differed before (the exact distances of the search
    # absorb its scores' last bits at this size; on 70,000 photographs they
    # did not: tests/test_pca_inputs.py checks the scores themselves)
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=4.0, size=(6, 600))
    X = centres[rng.integers(6, size=3000)] + rng.normal(size=(3000, 600))
    searched = [smallvis.affinities(X, "largevis", knn_method="annoy", fast=True,
                                    random_state=0, n_threads=t) for t in (1, 2)]
    reduced = [smallvis.embed(X, "umap", pca=40, fast=True, random_state=0, init="random",
                              optimizer="sgd", n_epochs=1, n_threads=t,
                              return_result=True).P for t in (1, 2)]
    for one, two in (searched, reduced):
        assert (one != two).nnz == 0
