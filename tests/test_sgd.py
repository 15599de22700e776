"""The stochastic optimizer: random numbers, twin parity, seeds, quality, inputs."""

import numpy as np
import pytest

import smallvis
from smallvis import _kernels, datasets, reference, sgd
from smallvis.methods import METHODS
from smallvis.metrics import knn_accuracy, knn_preservation

SGD_METHODS = [name for name, m in METHODS.items() if m.sgd is not None]


@pytest.fixture(scope="module")
def iris():
    X, labels = datasets.iris()
    # iris has duplicate rows; a tiny jitter keeps the kNN order unambiguous
    return X + np.random.default_rng(3).normal(scale=1e-6, size=X.shape), labels


@pytest.fixture(scope="module")
def digits():
    return datasets.digits()


def test_sgd_methods_are_registered():
    assert set(SGD_METHODS) == {"largevis", "umap", "tumap", "ncvis"}


# ---------------------------------------------------------------------------
# counter-based random numbers
# ---------------------------------------------------------------------------


def _key_grid():
    vals = np.array([0, 1, 2, 7, 1000, 2 ** 31 - 1, 2 ** 31, 2 ** 40 + 3], dtype=np.int64)
    e, d, r = np.meshgrid(vals, vals, vals[:5], indexing="ij")
    return e.ravel().copy(), d.ravel().copy(), r.ravel().copy()


@pytest.mark.parametrize("seed", [0, 1, 12345, 2 ** 63 - 1, 2 ** 64 - 1])
def test_rng_twins_agree_bitwise(seed):
    ep, ed, dr = _key_grid()
    outs = {}
    for mod in (reference, _kernels):
        words = np.zeros(len(ep), dtype=np.uint64)
        mod.counter_random(seed, ep, ed, dr, words)
        ints = {}
        for n in (1, 2, 7, 150, 1797, 2 ** 32 - 1):
            out = np.zeros(len(ep), dtype=np.int64)
            mod.counter_randint(seed, ep, ed, dr, n, out)
            ints[n] = out
        unif = np.zeros(len(ep))
        mod.counter_uniform(seed, ep, ed, dr, unif)
        outs[mod.__name__] = (words, ints, unif)
    (w0, i0, u0), (w1, i1, u1) = outs.values()
    np.testing.assert_array_equal(w0, w1)
    for n in i0:
        np.testing.assert_array_equal(i0[n], i1[n])
        assert i0[n].min() >= 0 and i0[n].max() < n
    np.testing.assert_array_equal(u0.view(np.uint64), u1.view(np.uint64))
    assert u0.min() >= 0.0 and u0.max() < 1.0
    assert len(np.unique(w0)) == len(w0)  # distinct keys, distinct words here


def test_splitmix64_known_value():
    # the first output of splitmix64 from state 0 (Vigna's reference code)
    assert int(reference._absorb(0, 0)) == 0xE220A8397B1DCDAF


def test_lemire_reduction_is_exact():
    rng = np.random.default_rng(5)
    words = rng.integers(0, 2 ** 64, size=500, dtype=np.uint64)
    for n in (3, 150, 70_000, 2 ** 32 - 1):
        got = reference._randint(words, n)
        expected = [(int(u) * n) >> 64 for u in words]  # Python big integers
        assert got.tolist() == expected


def test_random_draws_are_uniform():
    n_draws = 60_000
    ep = np.zeros(n_draws, dtype=np.int64)
    ed = np.arange(n_draws, dtype=np.int64)
    dr = np.full(n_draws, 3, dtype=np.int64)
    out = np.zeros(n_draws, dtype=np.int64)
    _kernels.counter_randint(99, ep, ed, dr, 10, out)
    counts = np.bincount(out, minlength=10)
    chi2 = ((counts - n_draws / 10) ** 2 / (n_draws / 10)).sum()
    assert chi2 < 35  # 9 degrees of freedom: p ~ 1e-4
    unif = np.zeros(n_draws)
    _kernels.counter_uniform(99, ep, ed, dr, unif)
    assert abs(unif.mean() - 0.5) < 0.005


@pytest.mark.parametrize("n", [1, 2, 40, 1000])
def test_alias_table_twins_reproduce_the_distribution(n):
    w = np.random.default_rng(n).random(n) ** 3
    w[::7] = 0.0
    if not w.any():
        w[0] = 1.0
    tables = [sgd.alias_table(w, mod) for mod in (reference, _kernels)]
    np.testing.assert_array_equal(tables[0][0], tables[1][0])
    np.testing.assert_array_equal(tables[0][1], tables[1][1])
    prob, alias = tables[0]
    implied = prob.copy()
    np.add.at(implied, alias, 1.0 - prob)
    np.testing.assert_allclose(implied / n, w / w.sum(), rtol=1e-10, atol=1e-15)


def test_alias_table_rejects_bad_weights():
    for w in ([], [0.0, 0.0], [1.0, -1.0], [1.0, np.nan]):
        with pytest.raises(ValueError, match="alias-table weights"):
            sgd.alias_table(np.array(w), reference)


# ---------------------------------------------------------------------------
# the epoch loop: twins, blocks, seeds, threads
# ---------------------------------------------------------------------------


def _problem(name, X, n_epochs, kernels=reference):
    """P, initial Y and the kernel inputs, as embed() builds them."""
    m = METHODS[name]
    params = {**m.sgd.param_defaults}
    if name == "largevis":
        params["perplexity"] = 30.0  # iris is small
    affinity_params, cost_params = m.split_params(params, X.shape[0])
    P = m.build_affinities(X, kernels, 0, 1, **affinity_params)
    rng = np.random.default_rng(0)
    Y0 = smallvis.init.initialize(m.sgd.init, X, 2, rng, P=P)
    prob = sgd.prepare(m.sgd, P, n_epochs, m.sgd.kernel_params(**cost_params),
                       m.sgd.learning_rate, kernels)
    return prob, Y0


def _run(kernels, prob, Y0, seed, n_threads=1, blocks=None):
    import copy

    prob = copy.deepcopy(prob)
    Y = Y0.copy()
    cuts = [0] + list(blocks or []) + [prob.n_epochs]
    for e0, e1 in zip(cuts[:-1], cuts[1:]):
        kernels.sgd_epochs(prob.head, prob.tail, prob.edge_weight, prob.edge_alias,
                           prob.noise_prob, prob.noise_alias, Y, prob.config, prob.params,
                           prob.alphas, prob.n_noise, prob.state, prob.q, prob.q_offset,
                           seed, e0, e1, n_threads)
    return Y


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("name", SGD_METHODS)
def test_epoch_loop_twins_agree_on_iris(iris, name):
    X, _ = iris
    prob, Y0 = _problem(name, X, 100)
    Y_ref = _run(reference, prob, Y0, seed=2024)
    Y_fast = _run(_kernels, prob, Y0, seed=2024)
    assert np.all(np.isfinite(Y_ref))
    moved = np.abs(Y_ref - Y0).max()
    assert moved > 0.1  # the layout did change over the run
    np.testing.assert_allclose(Y_fast, Y_ref, rtol=0, atol=1e-10 * np.abs(Y_ref).max())


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("name", SGD_METHODS)
def test_blocks_of_epochs_equal_one_run(iris, name):
    X, _ = iris
    prob, Y0 = _problem(name, X, 60)
    whole = _run(_kernels, prob, Y0, seed=7)
    pieces = _run(_kernels, prob, Y0, seed=7, blocks=[1, 25, 26])
    np.testing.assert_array_equal(whole, pieces)


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("fast,n_epochs", [(True, None), (False, 8)])
@pytest.mark.parametrize("name", SGD_METHODS)
def test_same_seed_same_y_bitwise(iris, name, fast, n_epochs):
    X, _ = iris
    kw = dict(fast=fast, optimizer="sgd", n_epochs=n_epochs, n_threads=1)
    if name == "largevis":
        kw["perplexity"] = 30.0
    Y1 = smallvis.embed(X, name, random_state=11, **kw)
    Y2 = smallvis.embed(X, name, random_state=11, **kw)
    Y3 = smallvis.embed(X, name, random_state=12, **kw)
    np.testing.assert_array_equal(Y1, Y2)
    assert np.abs(Y1 - Y3).max() > 1e-3


@pytest.mark.filterwarnings("ignore:the affinity graph")
def test_hogwild_threads_keep_quality(digits):
    """n_threads > 1 is lock-free: finite and as good, not bitwise reproducible."""
    X, labels = digits
    Y = smallvis.embed(X, "umap", fast=True, optimizer="sgd", n_threads=2,
                       random_state=4)
    assert np.all(np.isfinite(Y))
    assert knn_preservation(X, Y, 15) >= 0.45
    assert knn_accuracy(Y, labels, 10) >= 0.90


# ---------------------------------------------------------------------------
# quality floor, results and inputs
# ---------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("name", SGD_METHODS)
def test_quality_floor_on_digits(digits, name):
    X, labels = digits
    result = smallvis.embed(X, name, fast=True, optimizer="sgd", random_state=1,
                            return_result=True)
    assert result.optimizer == "sgd"
    assert result.n_iter == result.params["n_epochs"] == METHODS[name].sgd.n_epochs(len(X))
    assert np.isfinite(result.cost)  # 1797 <= SGD_COST_MAX_N
    assert knn_preservation(X, result.Y, 15) >= 0.45
    assert knn_accuracy(result.Y, labels, 10) >= 0.90


def test_auto_chooses_by_size_and_method():
    for name, m in METHODS.items():
        assert sgd.choose_optimizer(m, "auto", sgd.AUTO_SGD_MIN_N) == "exact"
        big = sgd.choose_optimizer(m, "auto", sgd.AUTO_SGD_MIN_N + 1)
        assert big == ("sgd" if m.sgd is not None else "exact")
        assert sgd.choose_optimizer(m, "exact", 10 ** 6) == "exact"


@pytest.mark.filterwarnings("ignore:the affinity graph")
def test_small_data_auto_is_exact_and_recorded(iris):
    X, _ = iris
    r = smallvis.embed(X, "umap", fast=True, n_iter=5, return_result=True)
    assert r.optimizer == "exact" and r.params["optimizer"] == "exact"


@pytest.mark.filterwarnings("ignore:the affinity graph")
def test_verbose_progress_and_callback(iris, capsys):
    X, _ = iris
    seen = []

    def stop_at_twelve(epoch, Y, cost):
        seen.append((epoch, cost))
        return epoch == 12

    r = smallvis.embed(X, "tumap", fast=True, optimizer="sgd", n_epochs=50, verbose=True,
                       callback=stop_at_twelve, return_result=True)
    assert seen == [(e, None) for e in range(1, 13)]
    assert r.n_iter == 12 and r.stopped_early
    err = capsys.readouterr().err
    assert "sgd optimizer" in err and "ETA" in err


@pytest.mark.parametrize("kwargs,match", [
    (dict(method="umap", optimizer="adam"), "optimizer must be one of"),
    (dict(method="tsne", optimizer="sgd"), "has no stochastic form"),
    (dict(method="asne", optimizer="sgd"), "has no stochastic form"),
    (dict(method="umap", optimizer="sgd", n_epochs=0), r"n_epochs must be in \[1, inf\]"),
    (dict(method="umap", optimizer="sgd", learning_rate=-1.0), "learning_rate"),
    (dict(method="largevis", optimizer="sgd", kernel="exp"), "kernel='cauchy' only"),
])
def test_bad_inputs_raise_clear_errors(iris, kwargs, match):
    X, _ = iris
    with pytest.raises(ValueError, match=match):
        smallvis.embed(X, fast=True, **kwargs)


def test_non_integer_n_epochs_is_a_type_error(iris):
    # as every integer parameter (smallvis._validation.check_integer)
    with pytest.raises(TypeError, match="n_epochs must be an integer"):
        smallvis.embed(iris[0], "umap", fast=True, optimizer="sgd", n_epochs=2.5)
