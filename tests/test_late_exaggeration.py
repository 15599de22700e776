"""Late exaggeration: the schedule, the true-P cost, the guard, records and inputs."""

import io
import json
import zipfile

import numpy as np
import pytest

import smallvis
from smallvis.engines.optim import OptimizerSettings, optimize_exact


def _factors(**settings):
    seen = []

    def gradient(Y, learned, exaggeration, out):
        seen.append(exaggeration)
        out[...] = 0.0

    s = OptimizerSettings(learning_rate=1, tol=0, **settings)
    optimize_exact(np.zeros((3, 2)), gradient, lambda Y, learned: 0.0, s)
    return seen


def test_late_exaggeration_follows_the_early_phase_by_default():
    assert _factors(n_iter=7, exaggeration=4, exaggeration_iter=3,
                    late_exaggeration=2) == [4, 4, 4, 2, 2, 2, 2]


def test_late_exaggeration_starts_after_its_own_iteration():
    assert _factors(n_iter=7, exaggeration=4, exaggeration_iter=2, late_exaggeration=3,
                    late_exaggeration_iter=4) == [4, 4, 1, 1, 3, 3, 3]
    # early exaggeration wins where both would apply
    assert _factors(n_iter=4, exaggeration=4, exaggeration_iter=2, late_exaggeration=3,
                    late_exaggeration_iter=0) == [4, 4, 3, 3]
    assert _factors(n_iter=3, exaggeration=1, late_exaggeration=1) == [1, 1, 1]


@pytest.fixture(scope="module")
def digits():
    X, y = smallvis.datasets.load("digits")
    return X[:400], y[:400]


def test_the_cost_reported_is_that_of_the_true_p(digits):
    X, _ = digits
    r = smallvis.embed(X, "tsne", fast=True, n_iter=350, late_exaggeration=4,
                       random_state=0, return_result=True)
    cost, _ = smallvis.cost_and_gradient("tsne", r.P, r.Y)
    assert r.cost == pytest.approx(cost, rel=1e-12)
    assert r.itercosts[-1] == pytest.approx(cost, rel=1e-12)
    assert r.params["late_exaggeration"] == 4.0
    assert r.params["late_exaggeration_iter"] == 250


def test_late_exaggeration_changes_the_run_and_one_does_not(digits):
    X, _ = digits
    common = dict(fast=True, n_iter=300, random_state=0, tol=0)
    plain = smallvis.embed(X, "tsne", **common)
    same = smallvis.embed(X, "tsne", late_exaggeration=1.0, late_exaggeration_iter=10,
                          **common)
    late = smallvis.embed(X, "tsne", late_exaggeration=4, **common)
    np.testing.assert_array_equal(plain, same)
    assert not np.allclose(plain, late)


def test_late_exaggeration_tightens_the_classes(digits):
    """More attraction draws each class tighter within the map, the UMAP-like
    direction of Böhm, Berens & Kobak (2022): the share of the map's variance
    that lies within the classes falls (0.064 to 0.031 here)."""
    X, y = digits
    shares = []
    for late in (1.0, 4.0):
        Y = smallvis.embed(X, "tsne", fast=True, n_iter=500, late_exaggeration=late,
                           random_state=0)
        within = np.mean([Y[y == c].var(axis=0).sum() for c in np.unique(y)])
        shares.append(within / Y.var(axis=0).sum())
    assert shares[1] < 0.6 * shares[0]


def test_the_rise_rule_waits_while_p_is_exaggerated(digits):
    """The true cost jumps when late exaggeration starts; that is not divergence."""
    X, _ = digits
    r = smallvis.embed(X, "tsne", fast=True, n_iter=500, late_exaggeration=4,
                       late_exaggeration_iter=400, tol=0, random_state=0,
                       return_result=True)
    costs = dict(zip(r.cost_iterations, r.itercosts))
    assert costs[450] > 2 * costs[400]  # a rise the rule would count as divergence
    assert r.recoveries == [] and r.n_iter == 500


def test_tol_does_not_stop_a_run_before_late_exaggeration(digits):
    X, _ = digits
    r = smallvis.embed(X, "tsne", fast=True, n_iter=600, tol=1e-3, late_exaggeration=2,
                       late_exaggeration_iter=450, random_state=0, return_result=True)
    assert r.n_iter > 450 + 15
    early = smallvis.embed(X, "tsne", fast=True, n_iter=600, tol=1e-3, random_state=0,
                           return_result=True)
    assert early.stopped_early and early.n_iter < 450  # the same tol stops a plain run


@pytest.mark.parametrize("kwargs", [
    {"late_exaggeration": 0}, {"late_exaggeration": -2}, {"late_exaggeration": np.nan},
    {"late_exaggeration": "4"}, {"late_exaggeration_iter": -1},
    {"late_exaggeration_iter": 2.5}, {"late_exaggeration_iter": 10**9},
])
def test_bad_late_exaggeration_is_refused_by_name(kwargs):
    X, _ = smallvis.datasets.load("iris")
    with pytest.raises((ValueError, TypeError), match="late_exaggeration"):
        smallvis.embed(X, "tsne", n_iter=5, **kwargs)


def test_model_files_keep_late_exaggeration(tmp_path, digits):
    X, _ = digits
    model = smallvis.Embedding("tsne", n_iter=300, late_exaggeration=3,
                               late_exaggeration_iter=260, random_state=0).fit(X[:200])
    path = tmp_path / "m.smallvis"
    smallvis.save_model(model, path)
    loaded = smallvis.load_model(path)
    assert loaded.late_exaggeration == 3 and loaded.late_exaggeration_iter == 260
    assert model.result_.params["late_exaggeration_iter"] == 260


def _without(path, names, cost_names=(), affinity_names=()):
    """A copy of a model file whose header lacks the parameters ``names`` (and
    the reference's cost parameters ``cost_names``): a file written before
    they existed."""
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    header = np.load(io.BytesIO(members["header.npy"]))
    data = json.loads(header.tobytes().decode())
    for name in names:
        del data["params"][name]
    for name in cost_names:
        del data["reference"]["cost_params"]["__dict__"][name]
    for name in affinity_names:
        del data["reference"]["affinity_params"]["__dict__"][name]
    data["reference"].pop("projection", None)
    buf = io.BytesIO()
    np.save(buf, np.frombuffer(json.dumps(data).encode(), dtype=np.uint8))
    members["header.npy"] = buf.getvalue()
    out = path.with_name("old.smallvis")
    with zipfile.ZipFile(out, "w") as z:
        for name, raw in members.items():
            z.writestr(name, raw)
    return out


def test_a_model_file_from_before_todays_parameters_loads_with_their_defaults(tmp_path):
    X, _ = smallvis.datasets.load("iris")
    model = smallvis.Embedding("tsne", n_iter=50, random_state=0).fit(X)
    path = tmp_path / "m.smallvis"
    smallvis.save_model(model, path)
    old = _without(path, ["late_exaggeration", "late_exaggeration_iter", "pca"], ["dof"],
                   ["metric"])
    loaded = smallvis.load_model(old)
    assert loaded.late_exaggeration == 1.0 and loaded.late_exaggeration_iter is None
    assert loaded.training_map_.cost_params["dof"] == 1.0
    assert loaded.training_map_.affinity_params["metric"] == "euclidean"
    assert loaded.pca is None and loaded.training_map_.projection is None
    np.testing.assert_array_equal(loaded.transform(X[:5]), model.transform(X[:5]))


def test_the_cli_passes_late_exaggeration(tmp_path):
    from smallvis.cli import main
    out = tmp_path / "y.csv"
    model = tmp_path / "m.npz"
    code = main(["embed", "iris", "--method", "tsne", "--n-iter", "300", "--random-state",
                 "1", "--late-exaggeration", "3", "--late-exaggeration-iter", "280",
                 "--out", str(out), "--save-model", str(model), "--quiet"])
    assert code == 0
    loaded = smallvis.load_model(model)
    assert loaded.late_exaggeration == 3.0 and loaded.late_exaggeration_iter == 280


def test_the_auto_rate_of_the_late_phase_keeps_a_strong_factor_stable(digits):
    """ρ = 12 on 400 points at the auto rate of 50 oscillated (within-class
    share 0.59, against 0.06 without late exaggeration); the late phase's auto
    rate N / (4 ρ sum(P)) = 8.3 converges, and the classes tighten."""
    X, y = digits
    frames = []
    r = smallvis.embed(X, "tsne", fast=True, n_iter=1000, tol=0, late_exaggeration=12,
                       random_state=0, return_result=True,
                       callback=lambda it, Y, c: frames.append(Y.copy()) if it >= 999 else None)
    assert r.params["learning_rate"] == 50.0
    assert r.params["late_learning_rate"] == pytest.approx(400 / (4 * 12 * r.P.sum()))
    last_step = np.linalg.norm(frames[1] - frames[0]) / np.linalg.norm(frames[1])
    assert last_step < 1e-3
    within = np.mean([r.Y[y == c].var(axis=0).sum() for c in np.unique(y)])
    assert within / r.Y.var(axis=0).sum() < 0.05


def test_a_learning_rate_given_is_kept_in_the_late_phase(digits):
    X, _ = digits
    r = smallvis.embed(X, "tsne", fast=True, n_iter=300, late_exaggeration=12,
                       learning_rate=50, random_state=0, return_result=True)
    assert r.params["late_learning_rate"] is None
    r = smallvis.embed(X, "tsne", fast=True, n_iter=300, random_state=0, return_result=True)
    assert r.params["late_learning_rate"] is None  # no late phase


def test_late_exaggeration_after_the_last_iteration_is_refused():
    X, _ = smallvis.datasets.load("iris")
    with pytest.raises(ValueError, match="late_exaggeration_iter .*below n_iter"):
        smallvis.embed(X, "tsne", n_iter=300, late_exaggeration=4, late_exaggeration_iter=300)
    smallvis.embed(X, "tsne", n_iter=30, late_exaggeration=1, late_exaggeration_iter=300)


def test_the_stochastic_optimizer_checks_and_names_an_ignored_late_exaggeration():
    X, _ = smallvis.datasets.load("iris")
    with pytest.raises(ValueError, match="late_exaggeration"):
        smallvis.embed(X, "umap", optimizer="sgd", n_epochs=5, late_exaggeration=-5)
    with pytest.warns(UserWarning, match="late_exaggeration=4 is ignored.*optimizer='exact'"):
        smallvis.embed(X, "umap", optimizer="sgd", n_epochs=5, late_exaggeration=4)
