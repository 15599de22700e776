"""The stochastic optimizer: random numbers, twin parity, seeds, quality, inputs."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis import datasets
from smallvis.engines import sgd
from smallvis.backends import _kernels
from smallvis.backends import _sgd_reference
from smallvis.backends import reference
from smallvis.registry import METHODS
from smallvis.metrics import knn_accuracy, knn_preservation

from conftest import digits_sample, example_params

SGD_METHODS = [name for name, m in METHODS.items() if m.sgd is not None]


@pytest.fixture(scope="module")
def iris():
    X, labels = datasets.iris()
    # iris has duplicate rows; a tiny jitter keeps the kNN order unambiguous
    return X + np.random.default_rng(3).normal(scale=1e-6, size=X.shape), labels


@pytest.fixture(scope="module")
def iris60(iris):
    """20 points of each iris species: small enough for the NumPy loop's per-edge Python."""
    X, labels = iris
    keep = np.argsort(np.arange(len(X)) % 50, kind="stable")[:60]
    return X[keep], labels[keep]


@pytest.fixture(scope="module")
def digits():
    """All of digits with SMALLVIS_LONG_TESTS=1, else a sample (tests/conftest.py)."""
    return digits_sample()


def test_sgd_methods_are_registered():
    assert set(SGD_METHODS) >= {"largevis", "umap", "tumap", "ncvis"}
    # every unit with stochastic coefficients (or a grouped step) is some registered method's
    assert {m.sgd.coefficient for m in METHODS.values() if m.sgd} == set(
        reference.SGD_COEFFICIENTS) | set(reference.SGD_GROUPS)


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
    assert int(_sgd_reference._absorb(0, 0)) == 0xE220A8397B1DCDAF


def test_lemire_reduction_is_exact():
    rng = np.random.default_rng(5)
    words = rng.integers(0, 2 ** 64, size=500, dtype=np.uint64)
    for n in (3, 150, 70_000, 2 ** 32 - 1):
        got = _sgd_reference._randint(words, n)
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


def _vose_with_list_stacks(scaled):
    """Vose's construction in its textbook form: two Python list stacks, a copy of the work values."""
    n = len(scaled)
    scaled = scaled.copy()
    prob, alias = np.ones(n), np.arange(n, dtype=np.int32)
    small = [i for i in range(n) if scaled[i] < 1.0]
    large = [i for i in range(n) if scaled[i] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        prob[s], alias[s] = scaled[s], g
        scaled[g] = (scaled[g] + scaled[s]) - 1.0
        (small if scaled[g] < 1.0 else large).append(g)
    return prob, alias


@pytest.mark.parametrize("n", [1, 2, 3, 40, 1000])
@pytest.mark.parametrize("kernels", [reference, _kernels], ids=["numpy", "cython"])
def test_alias_table_in_place_equals_vose_with_list_stacks(kernels, n):
    # the stacks linked through alias, the work values in prob: the same
    # pops in the same order as the list form, hence the same bits
    rng = np.random.default_rng(n + 7)
    for w in (rng.random(n) ** 3, rng.integers(0, 4, n).astype(float), np.ones(n)):
        if not w.any():
            w[-1] = 1.0
        scaled = w * (n / w.sum())
        prob, alias = scaled.copy(), np.full(n, -7, dtype=np.int32)
        kernels.alias_table(prob, alias)
        expected = _vose_with_list_stacks(scaled)
        np.testing.assert_array_equal(prob.view(np.uint64), expected[0].view(np.uint64))
        np.testing.assert_array_equal(alias, expected[1])


def test_alias_table_rejects_bad_weights():
    for w in ([], [0.0, 0.0], [1.0, -1.0], [1.0, np.nan], [1.0, np.inf], [1e308, 1e308]):
        with pytest.raises(ValueError, match="alias-table weights"):
            sgd.alias_table(np.array(w), reference)


@pytest.mark.parametrize("chunk", [1, 2, 5, 1 << 16])
def test_row_sums_equal_bincount_bitwise(monkeypatch, chunk):
    # rows summed in chunks of whole rows (empty rows, rows longer than a
    # chunk) give bincount's bits
    monkeypatch.setattr(sgd, "_ROW_SUM_CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    lengths = rng.integers(0, 12, 60) * (rng.random(60) < 0.8)
    lengths[[0, 59]] = 0
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    w = rng.random(indptr[-1]) ** 5 * 10.0 ** rng.integers(-8, 8, indptr[-1])
    rows = np.repeat(np.arange(60), lengths)
    expected = np.bincount(rows, weights=w, minlength=60)
    np.testing.assert_array_equal(sgd._row_sums(indptr, w).view(np.uint64),
                                  expected.view(np.uint64))


def test_select_edges_gives_the_row_pointers_of_the_kept_edges():
    rng = np.random.default_rng(4)
    lengths = rng.integers(0, 6, 50)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    rows = np.repeat(np.arange(50), lengths)
    for keep in (rng.random(indptr[-1]) < 0.6, np.ones(indptr[-1], bool),
                 np.zeros(indptr[-1], bool)):
        expected = np.concatenate([[0], np.cumsum(np.bincount(rows[keep], minlength=50))])
        np.testing.assert_array_equal(sgd._select_edges(indptr, keep), expected)


def test_alias_scheme_finds_heads_in_indptr_as_twins():
    # The alias scheme keeps no head per edge: the Cython loop reads it from
    # a table of blocks of edges and searches indptr where a block spans
    # rows.  Rows of very different lengths (empty, one edge, hundreds)
    # make blocks that span many rows; the twins must still agree bitwise.
    # (P need not be symmetric here: the loop samples its rows as given.)
    # About 120 edges per row on average make blocks of 4 edges, which the
    # runs of short and empty rows cross.
    rng = np.random.default_rng(11)
    n = 400
    lengths = rng.choice([0, 1, 2, 3, n - 1], size=n, p=[0.2, 0.2, 0.15, 0.15, 0.3])
    W = np.zeros((n, n))
    for i, k in enumerate(lengths):
        cols = rng.choice(np.delete(np.arange(n), i), size=k, replace=False)
        W[i, cols] = rng.random(k) + 0.01
    assert 64 <= np.count_nonzero(W) / n < 256
    spec = METHODS["largevis"].sgd
    prob = sgd.prepare(spec, W / W.sum(), 3, {"gamma": 1.0}, 1.0, _kernels)
    assert len(prob.head) == 0 and prob.indptr[-1] == len(prob.tail)
    Y0 = rng.normal(size=(n, 2))
    Y_ref, Y_fast = _run(reference, prob, Y0, seed=3), _run(_kernels, prob, Y0, seed=3)
    assert np.abs(Y_ref - Y0).max() > 1e-3
    np.testing.assert_array_equal(Y_fast.view(np.uint64), Y_ref.view(np.uint64))


def test_problem_with_bad_indptr_is_refused(iris):
    import copy

    prob, Y0 = _problem("largevis", iris[0], 2)
    for bad in (prob.indptr[:-1], prob.indptr.astype(np.int64), prob.indptr[::-1].copy(),
                prob.indptr - 1):
        broken = copy.copy(prob)
        broken.indptr = bad
        with pytest.raises(ValueError, match="indptr"):
            sgd.optimize_sgd(Y0.copy(), _kernels, broken, 0)


# ---------------------------------------------------------------------------
# the epoch loop: twins, blocks, seeds, threads
# ---------------------------------------------------------------------------


def _problem(name, X, n_epochs, kernels=reference, correct_q=False):
    """P, initial Y and the kernel inputs, as embed() builds them."""
    m = METHODS[name]
    params = {**m.sgd.param_defaults}
    if name == "largevis":
        params["perplexity"] = 30.0  # iris is small
    affinity_params, cost_params = m.split_params(params, X.shape[0])
    P = m.build_affinities(X, kernels, 0, 1, **affinity_params)
    rng = np.random.default_rng(0)
    Y0 = smallvis.engines.init.initialize(m.sgd.init, X, 2, rng, P=P)
    prob = sgd.prepare(m.sgd, P, n_epochs, m.sgd.unit_params(**cost_params),
                       m.sgd.learning_rate, kernels, correct_q=correct_q)
    return prob, Y0


def _run(kernels, prob, Y0, seed, n_threads=1, blocks=None, return_q=False):
    import copy

    prob = copy.deepcopy(prob)
    Y = Y0.copy()
    cuts = [0] + list(blocks or []) + [prob.n_epochs]
    for e0, e1 in zip(cuts[:-1], cuts[1:]):
        kernels.sgd_epochs(prob, Y, seed, e0, e1, n_threads)
    return (Y, prob.q[0]) if return_q else Y


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("name,correct_q", [(name, False) for name in SGD_METHODS]
                         + [("ncvis", True)])
def test_epoch_loop_twins_agree_bitwise_on_iris(iris60, name, correct_q):
    """One thread: the NumPy and Cython loops give the same Y (and Q), bit for bit.

    60 points and 15 epochs reach every line of the NumPy loop that 150
    points and 100 epochs reached, for every method: the schemes, the
    noises, the skipped tails and repeats, the grouped step, the learned Q
    and its per-row correction, clipped components (where 150 x 100 had
    them: largevis, umap, tumap) and NCVis's noise schedule from 1 to 19
    negatives (the lines run are those of 30 epochs, case for case).
    """
    X, _ = iris60
    prob, Y0 = _problem(name, X, 15, correct_q=correct_q)
    Y_ref, q_ref = _run(reference, prob, Y0, seed=2024, return_q=True)
    Y_fast, q_fast = _run(_kernels, prob, Y0, seed=2024, return_q=True)
    assert np.all(np.isfinite(Y_ref))
    moved = np.abs(Y_ref - Y0).max()
    assert moved > 0.1  # the layout did change over the run
    np.testing.assert_array_equal(Y_fast.view(np.uint64), Y_ref.view(np.uint64))
    assert np.float64(q_fast).view(np.uint64) == np.float64(q_ref).view(np.uint64)
    if name == "ncvis":
        assert q_ref != 0.0  # Q was learned


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("name", SGD_METHODS)
def test_rows_ahead_hints_change_no_number(iris60, name, monkeypatch):
    """The cache hints for a large Y (rows of the samples ahead) only read.

    With the size limit at 0 the hints run on iris; Y, bit for bit, and Q
    are those of the loop without them (which equals the NumPy twin,
    test_epoch_loop_twins_agree_bitwise_on_iris), with one thread and, for
    the schemes' early-row hints too, with the hints on at every size.
    """
    from smallvis.backends import _sgd_kernels

    X, _ = iris60
    prob, Y0 = _problem(name, X, 30, kernels=_kernels)
    monkeypatch.setattr(_sgd_kernels, "ROWS_AHEAD_MIN_BYTES", 1 << 62)
    Y_plain, q_plain = _run(_kernels, prob, Y0, seed=99, return_q=True)
    monkeypatch.setattr(_sgd_kernels, "ROWS_AHEAD_MIN_BYTES", 0)
    Y_hints, q_hints = _run(_kernels, prob, Y0, seed=99, return_q=True)
    assert np.abs(Y_plain - Y0).max() > 0.1
    np.testing.assert_array_equal(Y_hints.view(np.uint64), Y_plain.view(np.uint64))
    assert np.float64(q_hints).view(np.uint64) == np.float64(q_plain).view(np.uint64)


def test_rows_ahead_hints_change_no_transform(monkeypatch):
    """Placing new points (frozen rows, reference noise) with the hints on."""
    from smallvis.backends import _sgd_kernels

    X, _ = datasets.load("iris")
    fitted = smallvis.Embedding("umap", fast=True, optimizer="sgd", random_state=3,
                                n_threads=1).fit(X[:120])
    monkeypatch.setattr(_sgd_kernels, "ROWS_AHEAD_MIN_BYTES", 1 << 62)
    plain = fitted.transform(X[120:])
    monkeypatch.setattr(_sgd_kernels, "ROWS_AHEAD_MIN_BYTES", 0)
    hinted = fitted.transform(X[120:])
    np.testing.assert_array_equal(hinted, plain)


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("name", SGD_METHODS)
def test_blocks_of_epochs_equal_one_run(iris, name):
    X, _ = iris
    prob, Y0 = _problem(name, X, 60)
    whole = _run(_kernels, prob, Y0, seed=7)
    pieces = _run(_kernels, prob, Y0, seed=7, blocks=[1, 25, 26])
    np.testing.assert_array_equal(whole, pieces)


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("fast,n_epochs", [(True, None), (False, 2)])
@pytest.mark.parametrize("name", SGD_METHODS)
def test_same_seed_same_y_bitwise(iris60, name, fast, n_epochs):
    """Same seed, same Y bit for bit; another seed, another Y.

    The NumPy loop (``fast=False``) takes 0.1-0.35 s an epoch on 60 points
    (its per-edge Python): two epochs draw from the seeded stream in every
    epoch and at its boundary, as four did, at half the time.
    """
    X, _ = iris60
    kw = dict(fast=fast, optimizer="sgd", n_epochs=n_epochs, n_threads=1)
    if name == "largevis":
        kw["perplexity"] = 30.0
    Y1 = smallvis.embed(X, name, random_state=11, **kw)
    Y2 = smallvis.embed(X, name, random_state=11, **kw)
    Y3 = smallvis.embed(X, name, random_state=12, **kw)
    np.testing.assert_array_equal(Y1, Y2)
    assert np.abs(Y1 - Y3).max() > 1e-3


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("name", SGD_METHODS)
def test_whole_runs_from_x_agree_between_paths(iris60, name):
    """From X, one thread: fast=True and fast=False, as docs/guide/reproducibility.md says.

    A method without a perplexity calibration builds the same P on both
    paths, and then the whole stochastic run gives the same Y, bit for bit
    (two epochs of the NumPy loop, as in test_same_seed_same_y_bitwise; the
    default start computed by each path from its own P).  A perplexity
    calibration agrees to rounding only, which is all that is promised there.
    """
    X, _ = iris60
    kw = dict(optimizer="sgd", n_epochs=2, n_threads=1, random_state=5, return_result=True)
    fast = smallvis.embed(X, name, fast=True, **kw)
    slow = smallvis.embed(X, name, fast=False, **kw)
    if "perplexity" in METHODS[name].affinity_params:
        np.testing.assert_allclose(fast.P.toarray(), slow.P.toarray(), rtol=1e-10,
                                   atol=1e-14 * abs(slow.P).max())
        return
    assert (fast.P != slow.P).nnz == 0
    one_epoch = smallvis.embed(X, name, fast=True, **{**kw, "n_epochs": 1})
    assert np.abs(fast.Y - one_epoch.Y).max() > 1e-3  # the epochs move the points
    np.testing.assert_array_equal(fast.Y.view(np.uint64), slow.Y.view(np.uint64))


# ---------------------------------------------------------------------------
# quality floor, results and inputs
# ---------------------------------------------------------------------------


#: Default epochs on digits (1,797 points, or the sample), written out from the references
#: (tests/test_defaults.py has each rule at more sizes): umap-learn's 500 up
#: to 10,000 points, which negtsne and infonce follow; LargeVis's 1150 up to
#: 100,000; NCVis's 50 at every size.  A new stochastic method adds its own.
DIGITS_EPOCHS = {"umap": 500, "tumap": 500, "negtsne": 500, "infonce": 500,
                 "largevis": 1150, "ncvis": 50}


def test_every_stochastic_method_has_its_digits_epochs():
    assert set(DIGITS_EPOCHS) == set(SGD_METHODS), "give a new stochastic method its epochs"


@pytest.mark.filterwarnings("ignore:the affinity graph")
@pytest.mark.parametrize("name", SGD_METHODS)
def test_quality_floor_on_digits(digits, name):
    # the default threads (the policy's choice); tests/test_threads.py holds
    # every method to the same floors on two threads at every size
    X, labels = digits
    result = smallvis.embed(X, name, fast=True, optimizer="sgd", random_state=1,
                            return_result=True)
    assert result.optimizer == "sgd"
    assert result.n_iter == result.params["n_epochs"] == DIGITS_EPOCHS[name]
    assert np.isfinite(result.cost)  # exact or an estimate, never NaN
    assert knn_preservation(X, result.Y, 15) >= 0.45
    assert knn_accuracy(result.Y, labels, 10) >= 0.90


def test_auto_chooses_by_size_and_method():
    # the documented limits (docs/guide/methods.md): 1,000 points for umap
    # and tumap, whose exact maps break classes above, and for ncvis, whose
    # exact maps keep fewer neighbours above; every size for infonce; 5,000
    # for the others
    documented = {"umap": 1000, "tumap": 1000, "ncvis": 1000, "infonce": 0}
    for name, m in METHODS.items():
        limit = sgd.AUTO_SGD_MIN_N if m.sgd is None else m.sgd.auto_min_n
        assert limit == documented.get(name, 5000), name
        if limit:
            assert sgd.choose_optimizer(m, "auto", limit) == "exact"
        big = sgd.choose_optimizer(m, "auto", limit + 1)
        assert big == ("sgd" if m.sgd is not None else "exact")
        assert sgd.choose_optimizer(m, "exact", 10 ** 6) == "exact"


def test_auto_switches_after_each_method_s_limit_in_two_and_three_dimensions():
    for name, m in METHODS.items():
        if m.sgd is None or not m.sgd.auto_min_n:
            continue
        limit = m.sgd.auto_min_n
        for dim in (2, 3):
            assert sgd.choose_optimizer(m, "auto", limit, n_components=dim) == "exact", name
            assert sgd.choose_optimizer(m, "auto", limit + 1, n_components=dim) == "sgd", name


#: The methods whose stochastic form "auto" chooses on all 1,797 digits.
STOCHASTIC_ON_DIGITS = [name for name, m in METHODS.items()
                        if m.sgd is not None and m.sgd.auto_min_n < 1797]


def test_some_methods_run_stochastically_on_digits():
    assert STOCHASTIC_ON_DIGITS  # the test below has methods to check


@pytest.mark.parametrize("name", STOCHASTIC_ON_DIGITS)
def test_iterations_that_auto_s_choice_does_not_run_are_named(name):
    # all 1,797 digits: "auto" runs the stochastic form, which has no n_iter
    X, _ = smallvis.datasets.load("digits")
    assert sgd.choose_optimizer(METHODS[name], "auto", len(X)) == "sgd"
    with pytest.warns(UserWarning, match=r"n_iter=50 is ignored: .*\(1,797 points"):
        result = smallvis.embed(X, name, n_iter=50, n_epochs=2, random_state=0,
                                return_result=True)
    assert result.optimizer == "sgd"
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="n_iter")
        # asked for by name, or n_iter left alone: nothing to say
        smallvis.embed(X, name, optimizer="sgd", n_iter=50, n_epochs=2, random_state=0)
        smallvis.embed(X, name, n_epochs=2, random_state=0)
    # not run, but a bad value is refused as the exact optimizer refuses it
    with pytest.raises(ValueError, match="n_iter"):
        smallvis.embed(X, name, n_iter=-5, n_epochs=2)


#: The methods whose exact form "auto" chooses on 60 points, with a stochastic
#: form that n_epochs would set.
EXACT_ON_SIXTY = [name for name, m in METHODS.items()
                  if m.sgd is not None and m.sgd.auto_min_n >= 60]


#: A method with no stochastic form, whose n_epochs nothing could run.
EXACT_ONLY = next(name for name, m in METHODS.items() if m.sgd is None)


def test_some_stochastic_methods_run_exactly_on_sixty_points():
    assert EXACT_ON_SIXTY


@pytest.mark.parametrize("name", EXACT_ON_SIXTY + [EXACT_ONLY])
def test_epochs_that_auto_s_choice_does_not_run_are_named(name):
    # the mirror of the test above: a user's n_epochs with the exact
    # optimizer chosen for them (or a method that has no other)
    X = np.random.default_rng(0).normal(size=(60, 4))
    assert sgd.choose_optimizer(METHODS[name], "auto", len(X)) == "exact"
    why = ("has no stochastic optimizer" if METHODS[name].sgd is None
           else r"optimizer='auto' chose .*\(60 points")
    with pytest.warns(UserWarning, match=rf"n_epochs=5 is ignored: .*{why}"):
        smallvis.embed(X, name, n_epochs=5, n_iter=3, random_state=0)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="n_epochs")
        # asked for by name, or n_epochs left alone: nothing to say
        smallvis.embed(X, name, optimizer="exact", n_epochs=5, n_iter=3, random_state=0)
        smallvis.embed(X, name, n_iter=3, random_state=0)


def test_auto_draws_lines_of_umap_and_tumap_stochastically():
    # one dimension: the exact optimizer cannot move a point past the others
    # (umap's repulsion, which grows without bound, is the case that needs it)
    assert METHODS["umap"].sgd.auto_min_n_line is not None
    for name, m in METHODS.items():
        if m.sgd is None:
            continue
        line = m.sgd.auto_min_n_line
        if line is None:  # a line is chosen for as a map of two dimensions
            for n in (16, m.sgd.auto_min_n + 1):
                assert (sgd.choose_optimizer(m, "auto", n, n_components=1)
                        == sgd.choose_optimizer(m, "auto", n, n_components=2)), name
            continue
        assert sgd.choose_optimizer(m, "auto", line, n_components=1) == "exact", name
        assert sgd.choose_optimizer(m, "auto", line + 1, n_components=1) == "sgd", name
        assert sgd.choose_optimizer(m, "auto", line + 1, n_components=2) == "exact", name
        assert sgd.choose_optimizer(m, "exact", line + 1, n_components=1) == "exact", name


@pytest.mark.filterwarnings("ignore:the affinity graph")
def test_a_line_of_500_digits_keeps_its_classes(digits):
    # the exact optimizer, the former default here, scored 0.11 (chance)
    X, labels = digits
    result = smallvis.embed(X[:500], "umap", n_components=1, fast=True, random_state=0,
                            return_result=True)
    assert result.optimizer == "sgd"
    assert knn_accuracy(result.Y, labels[:500], 10) >= 0.9


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
    (dict(method="umap", optimizer="sgd", n_epochs=0), r"n_epochs must be in \[1, 100000\]"),
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
# ---------------------------------------------------------------------------
# NCVis: the expected stochastic update is the exact NCE gradient
# ---------------------------------------------------------------------------


def _ncvis_graph(edges, n):
    """P = V / sum(V) of an undirected graph given by its edges."""
    V = np.zeros((n, n))
    for i, j in edges:
        V[i, j] = V[j, i] = 1.0
    return V / V.sum()


def _exact_ncvis_ascent(P, Y, Q, nu, a, b):
    """-d(-J)/dY and -d(-J)/dQ of the exact kernels (the ascent direction of J)."""
    import scipy.sparse as sp

    M = sp.csr_matrix(P)
    grad = np.zeros_like(Y)
    dQ = reference.ncvis_gradient(M.indptr.astype(np.int64), M.indices.astype(np.int64),
                                  M.data, Y, Q, nu, a, b, grad, 1)
    return -grad, -dQ


def _example_fields(coefficient):
    """The unit fields of the first registry example of a method with this coefficient."""
    for name, m in METHODS.items():
        if m.sgd is not None and m.sgd.coefficient == coefficient and m.examples:
            fields = dict(m.sgd.unit_params(**example_params(name, 40)[0]))
            fields.pop("n_negative", None)
            return fields
    return {}


def _coefficients(kernels, name, d2, q, nu, n_others=99, **params):
    """(c_a, dJ/dQ_a, c_r, dJ/dQ_r) at the squared distances d2, from a twin.

    ``params`` set the unit's fields (names it does not have are ignored);
    the others take the engine's defaults, or a registry example's.
    """
    from types import SimpleNamespace

    unit = reference.SGD_COEFFICIENTS[name]
    values = {**sgd.SGD_FIELD_DEFAULTS, **unit._field_defaults, **_example_fields(name),
              **params}
    problem = SimpleNamespace(coefficient=name, n_others=n_others,
                              params=tuple(float(values[f]) for f in unit._fields))
    out = np.full((4, len(d2)), np.nan)
    kernels.sgd_coefficients(problem, np.ascontiguousarray(d2, dtype=np.float64), q, nu, out)
    return out


def _expected_sgd_ascent(kernels, P, Y, Q, nu, a, b, q_offset):
    """One epoch's update per unit step, averaged over the noise draws, at fixed Y and Q.

    Every edge (i, j) once as a positive sample; then nu negatives k, each
    uniform over the n - 1 points other than i: the expectation is the sum
    over k != i with weight nu / (n - 1).  Enumerated exactly with the
    coefficients the loop calls.
    """
    n = len(Y)
    G, dQ = np.zeros_like(Y), 0.0
    for i, j in zip(*np.nonzero(P)):
        diff = Y[i] - Y
        c_a, dq_a, c_r, dq_r = _coefficients(kernels, "ncvis", np.sum(diff ** 2, axis=1),
                                             Q + q_offset[i], nu, a=a, b=b)
        G[i] += c_a[j] * diff[j]
        G[j] -= c_a[j] * diff[j]
        dQ += dq_a[j]
        for k in range(n):
            if k == i:
                continue
            G[i] += nu / (n - 1) * c_r[k] * diff[k]
            G[k] -= nu / (n - 1) * c_r[k] * diff[k]
            dQ += nu / (n - 1) * dq_r[k]
    return G, dQ


@pytest.mark.parametrize("kernels", [reference, _kernels], ids=["numpy", "cython"])
@pytest.mark.parametrize("nu", [1.0, 5.0, 20.0])
@pytest.mark.parametrize("correct_q", [False, True])
def test_ncvis_expected_update_is_the_exact_nce_gradient(kernels, nu, correct_q):
    """E[update] = |E| grad J at the epoch's nu (correct_q; or any regular graph).

    The loop's w' = e^{-Q'} q_hat / nu is the exact q_ij / (nu p_i^-) when
    Q' = Q + log p_i^-.  Without correct_q the loop uses Q' = Q for every
    head, which is right only where p_i^- is the same for all rows: a
    regular graph (a ring), compared with the exact gradient at
    Q - log p^-.  With correct_q the graph is irregular (degrees 1 to 4).
    """
    rng = np.random.default_rng(8)
    n = 7
    if correct_q:
        edges = [(0, 1), (0, 2), (0, 3), (0, 4), (4, 5), (5, 6), (2, 3)]
    else:
        edges = [(i, (i + 1) % n) for i in range(n)]
    P = _ncvis_graph(edges, n)
    Y = rng.normal(size=(n, 2))
    a, b, Q = 0.8, 1.2, 3.0
    log_pminus = np.log(P.sum(axis=1) / (n - 1))
    offset = log_pminus if correct_q else np.zeros(n)
    G, dQ = _expected_sgd_ascent(kernels, P, Y, Q, nu, a, b, offset)
    Q_exact = Q if correct_q else Q - log_pminus[0]
    G_exact, dQ_exact = _exact_ncvis_ascent(P, Y, Q_exact, nu, a, b)
    n_edges = np.count_nonzero(P)  # each edge sampled once: p_ij = 1 / n_edges
    np.testing.assert_allclose(G, n_edges * G_exact, rtol=1e-12, atol=1e-14)
    assert dQ == pytest.approx(n_edges * dQ_exact, rel=1e-12)
    assert abs(dQ) > 0.1  # Q is not already stationary: the check has teeth


def _expected_grouped_descent(kernels, name, P, Y, params):
    """:func:`_expected_descent` of a grouped step (InfoNCE): every tuple of negatives.

    Each stored edge (i, j) once, with each of the (n - 1)^m ordered tuples
    of m negatives drawn uniformly (with replacement) from the n - 1 points
    other than i, at probability (n - 1)^-m; the sample's coefficients come
    from the twin the loop calls (``sgd_group_coefficients``), every
    difference taken at the same Y, as the grouped step does.
    """
    from types import SimpleNamespace

    m = METHODS[name]
    unit_params = dict(m.sgd.unit_params(**params))
    n_negative = int(unit_params.pop("n_negative", m.sgd.n_negative))
    unit = reference.SGD_GROUPS[m.sgd.coefficient]
    n = len(Y)
    problem = SimpleNamespace(coefficient=m.sgd.coefficient, n_others=n - 1,
                              params=tuple(float(unit_params[f]) for f in unit._fields))
    weight = float(n - 1) ** -n_negative
    G = np.zeros_like(Y)
    c = np.empty(n_negative + 1)
    for i, j in zip(*np.nonzero(P)):
        others = [k for k in range(n) if k != i]
        for negatives in itertools.product(others, repeat=n_negative):
            rows = [j, *negatives]
            diff = Y[i] - Y[rows]
            kernels.sgd_group_coefficients(problem, np.sum(diff ** 2, axis=1), c)
            G[i] += weight * (c @ diff)
            for q, k in enumerate(rows):
                if q == 0 or m.sgd.move_negatives:
                    G[k] -= weight * c[q] * diff[q]
    return G


def _expected_descent(kernels, name, P, Y, params):
    """One epoch's update per unit step of a method's loop, averaged over the noise.

    The loop of scheme "every_edge" with "uniform_others" noise: every
    stored edge (i, j) once as a positive sample (the tail moves opposite),
    then m negatives k uniform over the n - 1 points other than i, which move
    too if the spec says so: the expectation is the sum over k != i with
    weight m / (n - 1).  Enumerated exactly with the coefficients the loop
    calls, at the unit fields of the method's unit_params.
    """
    m = METHODS[name]
    if m.sgd.coefficient in reference.SGD_GROUPS:
        return _expected_grouped_descent(kernels, name, P, Y, params)
    unit_params = dict(m.sgd.unit_params(**params))
    n_negative = unit_params.pop("n_negative", m.sgd.n_negative)
    n = len(Y)
    G = np.zeros_like(Y)
    for i, j in zip(*np.nonzero(P)):
        diff = Y[i] - Y
        c_a, _, c_r, _ = _coefficients(kernels, m.sgd.coefficient, np.sum(diff ** 2, axis=1),
                                       0.0, n_negative, n_others=n - 1, **unit_params)
        G[i] += c_a[j] * diff[j]
        G[j] -= c_a[j] * diff[j]
        for k in range(n):
            if k != i:
                G[i] += n_negative / (n - 1) * c_r[k] * diff[k]
                if m.sgd.move_negatives:
                    G[k] -= n_negative / (n - 1) * c_r[k] * diff[k]
    return G


@pytest.mark.parametrize("kernels", [reference, _kernels], ids=["numpy", "cython"])
@pytest.mark.parametrize("name", SGD_METHODS)
def test_expected_update_is_the_exact_gradient(kernels, name):
    """E[update] = -|E| dC/dY on a regular graph (a ring), at each registry example.

    Each edge is sampled once an epoch (p_ij = 1 / |E|), and a head of
    degree 2 draws 2 m uniform negatives, so every ordered pair is repelled
    with the weight of an exact cost whose noise is uniform over the pairs.
    umap-learn's and LargeVis's sampling (edges by weight, negatives that do
    not move or follow the degree) is not the gradient of their exact costs
    in expectation, and NCVis's learned Q has its own test (below).
    """
    m = METHODS[name]
    if m.sgd.scheme != "every_edge" or m.sgd.noise != "uniform_others" or m.learned:
        pytest.skip(f"{name}: its sampling is not its exact cost's gradient in expectation, "
                    "or its learned scalar has its own test")
    rng = np.random.default_rng(9)
    n = 7
    P = _ncvis_graph([(i, (i + 1) % n) for i in range(n)], n)
    M = sp.csr_matrix(P)
    triplet = (M.indptr.astype(np.int64), M.indices.astype(np.int64), M.data)
    Y = rng.normal(size=(n, 2))
    examples = example_params(name, n)
    assert examples, f"{name}: give its Method entry examples=(...)"
    for params in examples:
        G = _expected_descent(kernels, name, P, Y, params)
        _, gradient, args = m.cost_kernels(kernels, params)
        grad = np.zeros_like(Y)
        gradient(*triplet, Y, *args, grad, 1)
        np.testing.assert_allclose(G, -np.count_nonzero(P) * grad, rtol=1e-12, atol=1e-14)
        assert np.abs(grad).max() > 1e-3  # not a stationary layout: the check has teeth


@pytest.mark.parametrize("kernels", [reference, _kernels], ids=["numpy", "cython"])
@pytest.mark.parametrize("correct_q", [False, True])
def test_ncvis_loop_uses_the_epochs_noise_count(kernels, correct_q):
    """The loop's nu is n_noise[epoch]: one epoch, tiny steps, two points.

    With two points every draw is determined (the only negative of i is the
    other point), so a step of 1e-9 moves Y and Q by 1e-9 times the expected
    update, which is the exact NCE gradient at that epoch's noise count.
    """
    P = _ncvis_graph([(0, 1)], 2)
    Y0 = np.array([[0.3, -0.2], [-0.5, 0.9]])
    a, b, Q, step = 0.8, 1.2, 1.5, 1e-9
    spec = METHODS["ncvis"].sgd
    for n_noise in (1, 7, 20):
        prob = sgd.prepare(spec, P, 1, {"a": a, "b": b}, step, kernels, q0=Q,
                           correct_q=correct_q)
        prob.n_noise[:] = n_noise
        prob.q_learning_rate = step
        Y = Y0.copy()
        kernels.sgd_epochs(prob, Y, 0, 0, 1, 1)
        # p^- = 1/2 for both rows: without correct_q the loop's Q is the
        # exact Q + log(1/2)
        Q_exact = Q if correct_q else Q - np.log(0.5)
        G_exact, dQ_exact = _exact_ncvis_ascent(P, Y0, Q_exact, float(n_noise), a, b)
        np.testing.assert_allclose((Y - Y0) / step, 2 * G_exact, rtol=1e-5)
        assert (prob.q[0] - Q) / step == pytest.approx(2 * dQ_exact, rel=1e-5)


# ---------------------------------------------------------------------------
# every coefficient, scheme and noise name means the same in both twins
# ---------------------------------------------------------------------------

_D2 = np.array([0.0, 1e-300, 1e-12, 0.01, 0.5, 1.0, 3.0, 100.0, 1e8, 1e300])


@pytest.mark.parametrize("name", list(reference.SGD_COEFFICIENTS))
def test_every_coefficient_agrees_between_twins(name):
    params = dict(a=1.3, b=0.8, gamma=2.0, eps=0.05)
    for q in (-3.0, 0.0, 2.5):
        for nu in (1.0, 7.0):
            ref = _coefficients(reference, name, _D2, q, nu, **params)
            fast = _coefficients(_kernels, name, _D2, q, nu, **params)
            assert np.all(np.isfinite(ref[:, 1:])) and np.all(np.isfinite(ref[:2, 0]))
            assert np.all(np.isnan(ref[2:, 0]))  # a negative at distance 0 is skipped
            np.testing.assert_array_equal(fast, ref)
            np.testing.assert_array_equal(fast[:, 1:].view(np.uint64),
                                          ref[:, 1:].view(np.uint64))


def test_coefficient_names_bind_distinct_functions():
    params = dict(a=1.3, b=0.8, gamma=2.0, eps=0.05)
    outs = [_coefficients(_kernels, name, _D2[3:8], 0.5, 3.0, **params)
            for name in reference.SGD_COEFFICIENTS]
    for i in range(len(outs)):
        for j in range(i):
            assert not np.allclose(outs[i], outs[j])


@pytest.mark.parametrize("kernels", [reference, _kernels], ids=["numpy", "cython"])
@pytest.mark.parametrize("a,b", [(1.0, 1.0), (1.577, 0.895), (0.7, 1.3)])
def test_umap_and_cauchy_coefficients_are_derivatives_of_log_weights(kernels, a, b):
    """c_a = 2 d log w / d d^2 and, at eps = 0, c_r = 2 gamma d log(1 - w) / d d^2."""
    d2, gamma = np.array([0.05, 0.3, 1.0, 4.0, 30.0]), 1.7
    h = 1e-5 * d2
    log_w = lambda x: -np.log1p(a * x ** b)  # noqa: E731
    log_1mw = lambda x: np.log(a * x ** b) + log_w(x)  # noqa: E731
    c_a = (log_w(d2 + h) - log_w(d2 - h)) / h
    c_r = gamma * (log_1mw(d2 + h) - log_1mw(d2 - h)) / h
    names = ["umap", "cauchy"] if a == b == 1.0 else ["umap"]
    for name in names:
        out = _coefficients(kernels, name, d2, 0.0, 5.0, a=a, b=b, gamma=gamma, eps=0.0)
        np.testing.assert_allclose(out[0], c_a, rtol=1e-7)
        np.testing.assert_allclose(out[2], c_r, rtol=1e-7)
        assert not out[1].any() and not out[3].any()  # no learned Q


def _tiny_problem(coefficient, scheme, noise, kernels):
    """A 12-point graph and a spec with every switch set, for the given names."""
    rng = np.random.default_rng(len(coefficient) * 7 + len(scheme) + len(noise))
    n = 12
    W = rng.random((n, n)) * (rng.random((n, n)) < 0.4)
    W = np.triu(W, 1)
    W = W + W.T
    W[0, 1] = W[1, 0] = 1.0  # no isolated pair structure needed, but never empty
    spec = sgd.SgdSpec(coefficient=coefficient, scheme=scheme, noise=noise,
                       n_epochs=lambda n: 4, unit_params=None,
                       move_negatives=rng.random() < 0.5, defer_head=rng.random() < 0.5,
                       skip_tail=rng.random() < 0.5, clip_after_step=rng.random() < 0.5,
                       q_learning_rate=0.3, noise_schedule="cubic", n_negative=3)
    prob = sgd.prepare(spec, W / W.sum(), 4, {**_example_fields(coefficient), "a": 1.2,
                                              "b": 0.9, "gamma": 1.5, "eps": 0.01},
                       0.5, kernels, correct_q=True)
    return prob, rng.normal(size=(n, 2))


@pytest.mark.parametrize("coefficient", list(reference.SGD_COEFFICIENTS))
@pytest.mark.parametrize("scheme", reference.SGD_SCHEMES)
@pytest.mark.parametrize("noise", reference.SGD_NOISES)
def test_every_scheme_and_noise_agrees_between_twins(coefficient, scheme, noise):
    prob, Y0 = _tiny_problem(coefficient, scheme, noise, reference)
    Y_ref, q_ref = _run(reference, prob, Y0, seed=5, return_q=True)
    Y_fast, q_fast = _run(_kernels, prob, Y0, seed=5, return_q=True)
    assert np.abs(Y_ref - Y0).max() > 1e-3
    np.testing.assert_array_equal(Y_fast.view(np.uint64), Y_ref.view(np.uint64))
    assert np.float64(q_fast).view(np.uint64) == np.float64(q_ref).view(np.uint64)


@pytest.mark.parametrize("kernels", [reference, _kernels], ids=["numpy", "cython"])
@pytest.mark.parametrize("field", ["coefficient", "scheme", "noise"])
def test_unknown_names_are_refused_by_both_twins(kernels, field):
    prob, Y = _tiny_problem("umap", "every_edge", "uniform", kernels)
    setattr(prob, field, "bogus")
    with pytest.raises(ValueError, match="bogus"):
        kernels.sgd_epochs(prob, Y, 0, 0, 1, 1)
    with pytest.raises(ValueError, match="bogus"):
        sgd.optimize_sgd(Y, kernels, prob, 0)


@pytest.mark.parametrize("field", ["coefficient", "scheme", "noise"])
def test_sgd_spec_refuses_unknown_names(field):
    kw = dict(coefficient="umap", scheme="alias", noise="degree", n_epochs=None,
              unit_params=None)
    kw[field] = "bogus"
    with pytest.raises(ValueError, match=f"SgdSpec {field} must be one of"):
        sgd.SgdSpec(**kw)


def test_sgd_engine_does_not_import_the_registry():
    import ast
    import inspect as _inspect

    tree = ast.parse(_inspect.getsource(sgd))
    imported = {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module}
    assert "methods" not in imported and "api" not in imported, imported
