"""Small data with default settings: lowered defaults, one warning, data checked first.

A default neighbourhood size that the data cannot hold (t-SNE's perplexity
30 on 20 points) is lowered to a value that fits, with one warning that
says what was used; a value the user gave that is too large is refused with
a message naming the option.  The expected values below are hand
calculations of the documented rules: perplexity ``(N - 1) / 3``, at least
1 (openTSNE's rule); umap's and tumap's ``n_neighbors`` (which counts the
point itself) ``N - 1``, at least 2 (umap-learn's rule); NCVis's
``n_neighbors`` ``floor((N - 1) / 3)``, at least 1.
"""

import warnings

import numpy as np
import pytest

import smallvis
from conftest import one_method_per_kind
from smallvis.cli import build_parser, main
from smallvis.method_spec import joint_auto_learning_rate, unfloored_auto_learning_rate
from smallvis.metrics import knn_accuracy

IRIS, IRIS_LABELS = smallvis.datasets.load("iris")

#: (method, n_samples) -> (lowered option, value used), by hand
LOWERED = {
    ("tsne", 20): ("perplexity", 19 / 3),
    ("tsne", 10): ("perplexity", 3.0),
    ("tsne", 3): ("perplexity", 1.0),
    ("asne", 2): ("perplexity", 1.0),
    ("ssne", 4): ("perplexity", 1.0),
    ("largevis", 20): ("perplexity", 19 / 3),
    ("largevis", 2): ("perplexity", 1.0),
    ("umap", 10): ("n_neighbors", 9),
    ("umap", 2): ("n_neighbors", 2),
    ("tumap", 3): ("n_neighbors", 2),
    ("ncvis", 10): ("n_neighbors", 3),
    ("ncvis", 20): ("n_neighbors", 6),
    ("ncvis", 45): ("n_neighbors", 14),
    ("ncvis", 2): ("n_neighbors", 1),
}


def _stratified_iris(n):
    """``n`` iris rows, the three species in turn."""
    order = np.argsort(np.arange(150) % 50, kind="stable")
    return IRIS[order[:n]], IRIS_LABELS[order[:n]]


def _run_recording_warnings(*args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = smallvis.embed(*args, fast=True, random_state=0, return_result=True,
                                **kwargs)
    return result, [str(w.message) for w in caught]


@pytest.mark.parametrize("method,n", sorted(LOWERED))
def test_a_default_too_large_for_the_data_is_lowered_with_one_warning(method, n):
    name, expected = LOWERED[method, n]
    X, _ = _stratified_iris(n)
    result, messages = _run_recording_warnings(X, method, n_iter=200)
    # (ncvis's maps of 10 and 20 rows put rows whose data differ (on 10: a
    # versicolor and a virginica) on one spot, which warns on its own:
    # tests/test_ncvis_small.py)
    messages = [m for m in messages if "ended on one spot" not in m]
    assert np.all(np.isfinite(result.Y)) and result.Y.shape == (n, 2)
    assert result.params[name] == pytest.approx(expected, rel=1e-12)
    assert len(messages) == 1, messages
    default = smallvis.METHODS[method].affinity_params[name]
    assert f"{name} lowered from {default:g} to {expected:g} for {n} samples" in messages[0]
    assert f"{name}=" in messages[0]  # the keyword that sets it


def test_affinities_lower_the_default_too_and_calibrate_to_the_lowered_value():
    # asne's conditional rows: each row's perplexity exp(entropy), computed
    # here from P, is the value used, 19 / 3 on 20 points
    X, _ = _stratified_iris(20)
    with pytest.warns(smallvis._validation.SmallDataWarning, match="to 6.33333 for 20"):
        P = smallvis.affinities(X, "asne")
    rows = np.where(P > 0, P, 1.0)
    perplexities = np.exp(-np.sum(P * np.log(rows), axis=1))
    np.testing.assert_allclose(perplexities, 19 / 3, rtol=1e-4)


@pytest.mark.parametrize("method", smallvis.list_methods())
def test_every_method_runs_on_two_points_with_either_optimizer(method):
    X = np.array([[0.0, 1.0], [2.0, 3.5]])
    optimizers = ["exact"] + (["sgd"] if smallvis.METHODS[method].sgd else [])
    for optimizer in optimizers:
        result, messages = _run_recording_warnings(X, method, optimizer=optimizer,
                                                   n_iter=50, n_epochs=20)
        assert np.all(np.isfinite(result.Y))
        # the default lowered to fit two points; a method without a size
        # parameter (the stress of all input distances) has nothing to lower
        assert len(messages) == (1 if smallvis.METHODS[method].sized_params else 0), messages
        if optimizer == "exact":
            # (LargeVis's sampler skips a negative sample equal to the edge's
            # other end: with two points its SGD has attraction only)
            assert np.linalg.norm(result.Y[0] - result.Y[1]) > 0


@pytest.mark.parametrize("method,n", [("tsne", 31), ("largevis", 51), ("umap", 15),
                                      ("tumap", 15), ("ncvis", 46), ("ssne", 31)])
def test_a_default_that_fits_is_used_unchanged_and_silently(method, n):
    X, _ = _stratified_iris(n)
    result, messages = _run_recording_warnings(X, method, n_iter=20)
    # (ncvis's map of these 46 rows puts two rows whose data differ on one
    # spot, which warns on its own: tests/test_ncvis_small.py)
    messages = [m for m in messages if "ended on one spot" not in m]
    assert messages == []
    m = smallvis.METHODS[method]
    for name in ("perplexity", "n_neighbors"):
        if m.affinity_params.get(name) is not None:
            assert result.params[name] == m.affinity_params[name]


@pytest.mark.parametrize("method,params,match", [
    ("tsne", {"perplexity": 30}, r"perplexity must be at most n_samples - 1 = 19 for 20"),
    ("largevis", {"perplexity": 19.5}, r"perplexity must be at most n_samples - 1 = 19"),
    ("tsne", {"n_neighbors": 20}, r"n_neighbors must be at most n_samples - 1 = 19 for 20"),
    ("umap", {"n_neighbors": 21}, r"n_neighbors must be at most n_samples = 20 for 20"),
    ("tumap", {"n_neighbors": 30}, r"n_neighbors must be at most n_samples = 20 for 20"),
    ("ncvis", {"n_neighbors": 20}, r"n_neighbors must be at most n_samples - 1 = 19 for 20"),
])
def test_an_explicit_value_too_large_is_refused_naming_the_option(method, params, match):
    X, _ = _stratified_iris(20)
    with pytest.raises(ValueError, match=match):
        smallvis.embed(X, method, **params)
    with pytest.raises(ValueError, match=match):
        smallvis.affinities(X, method, **params)


@pytest.mark.parametrize("method", one_method_per_kind())
def test_maps_of_ten_and_twenty_points_separate_the_species(method):
    # setosa lies far from the other two species in every feature scale;
    # a sensible map keeps each setosa point's nearest neighbour a setosa
    for n in (10, 20):
        X, labels = _stratified_iris(n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Y = smallvis.embed(X, method, fast=True, random_state=0)
        setosa = labels == 0
        assert knn_accuracy(Y, setosa, 1) == 1.0, (method, n)


def test_largevis_default_rate_needs_no_recovery_on_a_few_random_points():
    # structureless points are the hard case for a default step (every pair
    # at about the same distance, LargeVis's repulsion stiff between close
    # points); at the former N / 4 the divergence guard halved the rate on
    # many of these, and warned the user about a default of ours
    for n in (6, 10, 16):
        for seed in range(4):
            X = np.random.default_rng(seed).normal(size=(n, 5))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the lowered perplexity's warning
                result = smallvis.embed(X, "largevis", fast=True, random_state=seed,
                                        return_result=True)
            assert result.params["learning_rate"] == pytest.approx(n / 6)
            assert not result.recoveries, (n, seed, result.recoveries)


NO_EXAGGERATION_UNFLOORED = sorted(
    name for name, m in smallvis.METHODS.items()
    if m.optimizer_defaults.get("exaggeration", 1.0) == 1.0
    and m.auto_learning_rate is unfloored_auto_learning_rate)


def test_the_methods_without_exaggeration_take_t_snes_rule_without_its_floor():
    # the floor of 50 is scikit-learn's, for t-SNE's exaggeration of 12,
    # where it binds up to 2,400 points; without exaggeration it binds below
    # 200 only, and there it made runs on a few points diverge
    joint = {name for name, m in smallvis.METHODS.items()
             if m.auto_learning_rate is joint_auto_learning_rate}
    assert all(smallvis.METHODS[name].optimizer_defaults["exaggeration"] > 1.0
               for name in joint), joint
    assert {"pstsne", "rklsne", "ntumap", "skdtsne", "tmsne", "hlsne"} <= set(
        NO_EXAGGERATION_UNFLOORED)


@pytest.mark.parametrize("method", NO_EXAGGERATION_UNFLOORED)
def test_default_rates_need_no_recovery_on_a_few_random_points(method):
    # with the floor of 50 every one of these runs of pstsne, rklsne, ntumap
    # and skdtsne needed the divergence guard (and warned about a default
    # of ours), and some of tmsne and hlsne
    for n in (10, 16):
        for seed in (0, 3):
            X = np.random.default_rng(seed).normal(size=(n, 5))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the lowered perplexity's warning
                result = smallvis.embed(X, method, fast=True, random_state=seed,
                                        return_result=True)
            assert not result.recoveries, (n, seed, result.recoveries)


@pytest.mark.parametrize("estimator,option", [
    (smallvis.Embedding("umap", n_iter=50), "pass method_params={'n_neighbors': ...} to"),
    (smallvis.NCVIS(n_iter=50), "pass method_params={'n_neighbors': ...} to"),
    (smallvis.Embedding("tsne", n_iter=50), "pass perplexity= to"),
])
def test_estimator_warning_names_its_own_parameter(estimator, option):
    X, _ = _stratified_iris(10)
    with pytest.warns(smallvis._validation.SmallDataWarning) as caught:
        estimator.set_params(random_state=0).fit(X)
    # (NCVis's map of these 10 rows puts two rows whose data differ on one
    # spot, which warns on its own: tests/test_ncvis_small.py)
    caught = [w for w in caught if "ended on one spot" not in str(w.message)]
    assert len(caught) == 1 and option in str(caught[0].message)
    assert caught[0].filename == __file__  # attributed to the caller


def _nan_data(n=10):
    X = _stratified_iris(n)[0].copy()
    X[3, 2] = np.nan
    return X


@pytest.mark.parametrize("method", smallvis.list_methods())
def test_nan_is_reported_before_any_parameter(method):
    X = _nan_data()
    bad = {"n_components": 0, "random_state": -1, "n_threads": 0, "learning_rate": -1,
           "n_iter": -1, "optimizer": "nope", "gradient": "nope", "init": "nope",
           "fast": "nope"}
    sized = {"perplexity": 50} if "perplexity" in smallvis.METHODS[method].affinity_params \
        else {"n_neighbors": 50}
    with pytest.raises(ValueError, match="NaN"):
        smallvis.embed(X, method, **bad, **sized)
    with pytest.raises(ValueError, match="NaN"):
        smallvis.affinities(X, method, fast="nope", **sized)
    with pytest.raises(ValueError, match="NaN"):
        smallvis.Embedding(method, random_state=-1, n_components=0,
                           method_params=sized).fit(X)


def test_nan_is_reported_before_a_bad_method_name():
    with pytest.raises(ValueError, match="NaN"):
        smallvis.embed(_nan_data(), "tsnee")


# ---- the command line --------------------------------------------------


def _csv(tmp_path, X, name="x.csv"):
    path = tmp_path / name
    np.savetxt(path, X, delimiter=",")
    return str(path)


def test_cli_has_a_flag_for_every_numeric_method_parameter():
    embed_parser = build_parser()._subparsers._group_actions[0].choices["embed"]
    flags = {s for a in embed_parser._actions for s in a.option_strings}
    for m in smallvis.METHODS.values():
        for name, default in {**m.affinity_params, **m.cost_params}.items():
            if isinstance(default, (int, float)) and not isinstance(default, bool):
                assert "--" + name.replace("_", "-") in flags, name
    assert "--n-neighbors" in flags


def test_cli_n_neighbors_reaches_the_method(tmp_path, capsys):
    src = _csv(tmp_path, _stratified_iris(30)[0])
    out = tmp_path / "y.csv"
    assert main(["embed", src, "--method", "umap", "--n-neighbors", "31", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "error: --n-neighbors: n_neighbors must be at most n_samples = 30" in err
    assert main(["embed", src, "--method", "umap", "--n-neighbors", "5", "--n-iter", "50",
                 "--fast", "--random-state", "0", "--quiet", "--out", str(out)]) == 0
    expected = smallvis.embed(_stratified_iris(30)[0], "umap", n_neighbors=5, n_iter=50,
                              fast=True, random_state=0)
    np.testing.assert_allclose(np.loadtxt(out, delimiter=",", skiprows=1), expected,
                               rtol=1e-12)


@pytest.mark.parametrize("option,value,needle", [
    ("--n-iter", "-1", "--n-iter: n_iter must be in"),
    ("--threads", "0", "--threads: n_threads must be"),
    ("--n-components", "0", "--n-components: n_components must be in"),
    ("--min-dist", "-1", "--min-dist: min_dist must be in"),
])
def test_cli_errors_lead_with_the_option(tmp_path, capsys, option, value, needle):
    src = _csv(tmp_path, _stratified_iris(30)[0])
    assert main(["embed", src, "--method", "umap", "--quiet", option, value]) == 2
    assert needle in capsys.readouterr().err


def test_cli_warning_names_the_flag(tmp_path, capsys):
    src = _csv(tmp_path, _stratified_iris(20)[0])
    assert main(["embed", src, "--fast", "--n-iter", "50", "--quiet"]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(err) == 1, err
    assert err[0].startswith("smallvis: warning: --perplexity: tsne: perplexity lowered "
                             "from 30 to 6.33333 for 20 samples")
    assert "pass --perplexity to choose" in err[0] and "perplexity=" not in err[0]


def test_cli_flag_of_another_method_is_refused(tmp_path, capsys):
    src = _csv(tmp_path, _stratified_iris(30)[0])
    assert main(["embed", src, "--method", "tsne", "--min-dist", "0.2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--min-dist" in err and "tsne" in err and "umap" in err


def test_cli_reports_nan_before_parameters(tmp_path, capsys):
    src = _csv(tmp_path, _nan_data())
    assert main(["embed", src, "--method", "umap", "--n-neighbors", "50",
                 "--learning-rate", "fast", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "NaN" in err and len(err.strip().splitlines()) == 1
