"""largevis's early phase under the stochastic optimizer: early_gamma, early_epochs.

The first ``early_epochs`` epochs run with the repulsion weight
``early_gamma`` in place of ``gamma`` (docs/theory.md §4.3).
"""

import warnings

import numpy as np
import pytest

import smallvis
from smallvis import datasets
from smallvis.backends import _kernels, reference
from smallvis.engines import sgd
from smallvis.engines.init import initialize
from smallvis.registry import METHODS

pytestmark = pytest.mark.filterwarnings("ignore:the affinity graph")

LARGEVIS = METHODS["largevis"]


@pytest.fixture(scope="module")
def iris_problem():
    """P of iris (perplexity 30), its spectral start, and the cost parameters."""
    X, _ = datasets.load("iris")
    affinity_params, cost_params = LARGEVIS.split_params(
        {**LARGEVIS.sgd.param_defaults, "perplexity": 30.0}, X.shape[0])
    P = LARGEVIS.build_affinities(X, reference, 0, 1, **affinity_params)
    Y0 = initialize(LARGEVIS.sgd.init, X, 2, np.random.default_rng(0), P=P)
    return P, Y0, cost_params


def _prepared(P, gamma, n_epochs, kernels, early=None):
    params = {"gamma": gamma, "eps": 0.1}
    return sgd.prepare(LARGEVIS.sgd, P, n_epochs, params, LARGEVIS.sgd.learning_rate,
                       kernels, early=early)


@pytest.mark.parametrize("kernels", [reference, _kernels], ids=["numpy", "cython"])
def test_the_early_phase_is_early_gamma_then_gamma(iris_problem, kernels):
    """The driver's run equals two kernel calls on problems of gamma 1 and 7.

    The expected map is built without the driver: one problem prepared
    with ``gamma = 1`` runs epochs 0-5 and one with ``gamma = 7`` epochs
    5-20 (the schedule of the learning rate is that of 20 epochs in both).
    """
    P, Y0, _ = iris_problem
    n_epochs, n_early, seed = 20, 5, 31
    expected = Y0.copy()
    kernels.sgd_epochs(_prepared(P, 1.0, n_epochs, kernels), expected, seed, 0, n_early, 1)
    kernels.sgd_epochs(_prepared(P, 7.0, n_epochs, kernels), expected, seed, n_early,
                       n_epochs, 1)

    prob = _prepared(P, 7.0, n_epochs, kernels, early=({"gamma": 1.0, "eps": 0.1}, n_early))
    got = Y0.copy()
    sgd.optimize_sgd(got, kernels, prob, seed, n_blocks=3)  # blocks of 7: the phase ends inside one
    np.testing.assert_array_equal(got, expected)

    without = Y0.copy()
    sgd.optimize_sgd(without, kernels, _prepared(P, 7.0, n_epochs, kernels), seed)
    assert np.abs(without - got).max() > 1e-3  # the phase changed the map


def test_the_early_phase_twins_agree_bitwise(iris_problem):
    P, Y0, _ = iris_problem
    early = ({"gamma": 0.5, "eps": 0.1}, 9)
    maps = []
    for kernels in (reference, _kernels):
        Y = Y0.copy()
        sgd.optimize_sgd(Y, kernels, _prepared(P, 7.0, 30, kernels, early=early), 5)
        maps.append(Y)
    assert np.abs(maps[0] - Y0).max() > 0.1
    np.testing.assert_array_equal(maps[0].view(np.uint64), maps[1].view(np.uint64))


def _sgd_fit(X, **kw):
    return smallvis.embed(X, "largevis", fast=True, optimizer="sgd", perplexity=30.0,
                          random_state=4, n_threads=1, return_result=True, **kw)


def test_the_default_phase_is_sixty_percent_at_gamma_one():
    X, _ = datasets.load("iris")
    result = _sgd_fit(X, n_epochs=40)
    assert result.params["early_gamma"] == 1.0
    assert result.params["early_epochs"] == 24  # round(0.6 * 40)
    from smallvis.methods.largevis.method import SGD_GAMMA, early_epochs_default

    assert result.params["gamma"] == SGD_GAMMA == 6.0

    assert early_epochs_default(1150) == 690
    # the params reproduce the run
    again = smallvis.embed(X, "largevis", fast=True, optimizer="sgd", perplexity=30.0,
                           random_state=4, n_threads=1, n_epochs=40, early_gamma=1.0,
                           early_epochs=24)
    np.testing.assert_array_equal(again, result.Y)


def test_the_default_first_learning_rate_is_half_the_references():
    from smallvis.methods.largevis.method import SGD_LEARNING_RATE

    X, _ = datasets.load("iris")
    result = _sgd_fit(X, n_epochs=40)
    assert result.params["learning_rate"] == SGD_LEARNING_RATE == 0.5
    # the recorded rate reproduces the run; the reference's 1 is another run
    np.testing.assert_array_equal(_sgd_fit(X, n_epochs=40, learning_rate=0.5).Y, result.Y)
    assert np.abs(_sgd_fit(X, n_epochs=40, learning_rate=1.0).Y - result.Y).max() > 1e-3


def test_an_early_gamma_equal_to_gamma_or_none_is_the_reference_schedule():
    """No phase: ``early_gamma=None``, ``early_epochs=0`` or ``early_gamma=gamma``."""
    X, _ = datasets.load("iris")
    plain = _sgd_fit(X, n_epochs=40, early_gamma=None)
    assert plain.params["early_epochs"] == 0
    for kw in ({"early_epochs": 0}, {"early_gamma": 6.0}):
        np.testing.assert_array_equal(_sgd_fit(X, n_epochs=40, **kw).Y, plain.Y)
    assert np.abs(_sgd_fit(X, n_epochs=40).Y - plain.Y).max() > 1e-3


@pytest.mark.parametrize("kw,match", [
    ({"early_epochs": 41}, "early_epochs must be at most n_epochs"),
    ({"early_epochs": -1}, "early_epochs"),
    ({"early_epochs": 2.5}, "early_epochs"),
    ({"early_gamma": -1.0}, "early_gamma"),
    ({"early_gamma": float("nan")}, "early_gamma"),
])
def test_bad_early_phase_values_are_refused(kw, match):
    X, _ = datasets.load("iris")
    with pytest.raises((ValueError, TypeError), match=match):
        _sgd_fit(X, n_epochs=40, **kw)


def test_the_exact_optimizer_says_it_ignores_the_early_phase():
    X, _ = datasets.load("iris")
    with pytest.warns(UserWarning, match="early_gamma is ignored"):
        smallvis.embed(X, "largevis", optimizer="exact", perplexity=30.0, n_iter=5,
                       early_gamma=2.0, random_state=0)
    with warnings.catch_warnings():  # the defaults say nothing
        warnings.simplefilter("error", UserWarning)
        smallvis.embed(X, "largevis", optimizer="exact", perplexity=30.0, n_iter=5,
                       random_state=0)


def test_transform_of_a_model_with_an_early_phase(tmp_path):
    """Model files keep the phase's parameters; placing new points runs no phase."""
    X, _ = datasets.load("iris")
    model = smallvis.Embedding("largevis", fast=True, optimizer="sgd", perplexity=30.0,
                               random_state=2, n_epochs=40).fit(X[:120])
    path = tmp_path / "m.npz"
    smallvis.save_model(model, path)
    loaded = smallvis.load_model(path)
    assert loaded.training_map_.cost_params["early_epochs"] == 24
    assert loaded.training_map_.cost_params["early_gamma"] == 1.0
    np.testing.assert_array_equal(loaded.transform(X[120:]), model.transform(X[120:]))


def test_a_model_file_from_before_the_phase_loads_without_it():
    """A file whose largevis parameters lack early_gamma and early_epochs (older smallvis)."""
    import io
    import json
    import zipfile

    X, _ = datasets.load("iris")
    model = smallvis.Embedding("largevis", fast=True, optimizer="sgd", perplexity=30.0,
                               random_state=2, n_epochs=40).fit(X[:120])
    buf = io.BytesIO()
    smallvis.save_model(model, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        members = {info.filename: zf.read(info) for info in zf.infolist()}
    header = json.loads(np.lib.format.read_array(io.BytesIO(members["header.npy"])).tobytes())
    stored = header["reference"]["cost_params"]["__dict__"]
    assert stored.pop("early_gamma") == 1.0 and stored.pop("early_epochs") == 24
    blob = io.BytesIO()
    np.lib.format.write_array(blob, np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    members["header.npy"] = blob.getvalue()
    old = io.BytesIO()
    with zipfile.ZipFile(old, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    loaded = smallvis.load_model(io.BytesIO(old.getvalue()))
    assert loaded.training_map_.cost_params["early_gamma"] is None
    assert loaded.training_map_.cost_params["early_epochs"] == 0
    np.testing.assert_array_equal(loaded.transform(X[120:]), model.transform(X[120:]))
