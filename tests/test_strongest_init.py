"""The named inits "spectral:K" and "laplacian:K", and the record of the init that ran.

The default stochastic largevis starts from the spectral layout of each
point's 30 strongest entries of P; ``result.params["init"]`` must say so
(``"spectral:30"``), so that the params of a result, the estimator's, a
model file's or the command line's, passed back, give the same run, while
``"spectral"`` keeps meaning all of P.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
import smallvis.api
from smallvis import datasets
from smallvis.cli import main
from smallvis.engines.init import initialize

#: A short stochastic largevis run (300 points: P has about 40 entries a row).
SGD_RUN = dict(method="largevis", optimizer="sgd", n_epochs=20, perplexity=10, fast=True,
               n_threads=1)


@pytest.fixture(scope="module")
def digits300():
    X, _ = datasets.load("digits")
    return X[np.random.default_rng(0).permutation(len(X))[:300]]


def _top_k_graph(P, k):
    """Each row's ``k`` largest entries of the dense ``P``, then the maximum with the transpose."""
    kept = np.zeros_like(P)
    for i, row in enumerate(P):
        top = np.argsort(row)[::-1][:k]
        kept[i, top] = row[top]
    return np.maximum(kept, kept.T)


def test_default_stochastic_largevis_record_reproduces_the_map(digits300):
    default = smallvis.embed(digits300, random_state=3, return_result=True, **SGD_RUN)
    assert default.params["init"] == "spectral:30"
    again = smallvis.embed(digits300, random_state=3, init=default.params["init"], **SGD_RUN)
    assert np.array_equal(again, default.Y)
    # "spectral" lays out all of P: another start, another map
    full = smallvis.embed(digits300, random_state=3, init="spectral", return_result=True,
                          **SGD_RUN)
    assert full.params["init"] == "spectral"
    assert not np.allclose(full.Y, default.Y)


def test_a_default_above_the_points_is_recorded_as_the_same_graph(digits300):
    # 12 points have at most 11 entries a row: the default keeps them all,
    # and records the largest K that the data allow
    X = digits300[:12]
    run = dict(SGD_RUN, perplexity=3)
    default = smallvis.embed(X, random_state=1, return_result=True, **run)
    assert default.params["init"] == "spectral:11"
    assert np.array_equal(smallvis.embed(X, random_state=1, init="spectral:11", **run),
                          default.Y)
    with pytest.raises(ValueError, match=r"init='spectral:12'.*K must be from 1 to 11"):
        smallvis.embed(X, random_state=1, init="spectral:12", **run)


def test_the_estimators_record_refits_the_same_map(digits300):
    settings = dict(optimizer="sgd", n_epochs=20, random_state=3, method_params={
        "perplexity": 10})
    model = smallvis.Embedding("largevis", **settings).fit(digits300)
    assert model.get_params()["init"] is None  # the method's default ...
    assert model.result_.params["init"] == "spectral:30"  # ... is recorded as what ran
    refit = smallvis.Embedding("largevis", init=model.result_.params["init"],
                               **settings).fit(digits300)
    assert np.array_equal(refit.embedding_, model.embedding_)


@pytest.mark.parametrize("name", ["spectral", "laplacian"])
def test_named_k_lays_out_a_hand_built_graph_of_the_k_strongest_entries(digits300, name):
    P = smallvis.affinities(digits300, "largevis", perplexity=10)
    graph = _top_k_graph(P.toarray(), 5)
    assert 0 < np.count_nonzero(graph) < P.nnz
    got = initialize(f"{name}:5", digits300, 2, np.random.default_rng(4), P=P)
    expected = initialize(name, digits300, 2, np.random.default_rng(4),
                          P=sp.csr_matrix(graph))
    assert np.array_equal(got, expected)
    assert not np.allclose(got, initialize(name, digits300, 2, np.random.default_rng(4), P=P))


def test_named_k_needs_a_square_p(digits300):
    with pytest.raises(ValueError, match="needs the input affinities"):
        initialize("spectral:5", digits300, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"P must have shape \(300, 300\)"):
        initialize("laplacian:5", digits300, 2, np.random.default_rng(0), P=np.eye(3))


def test_a_split_named_k_graph_is_named_in_the_warning():
    X, _ = datasets.load("s1k")
    P = smallvis.affinities(X[:300], "largevis", perplexity=10)  # 3 clusters at k = 5
    with pytest.warns(RuntimeWarning, match="each point's 5 strongest entries of P has 3 "
                                            "connected components: init='spectral:5'"):
        initialize("spectral:5", X[:300], 2, np.random.default_rng(0), P=P)


@pytest.mark.parametrize("init", ["spectral:0", "spectral:x", "pca:5", "power:3", "spectral:",
                                  ":5", "spectral:015", "spectral:-1", "spectral: 5",
                                  "spectral:5.0", "Spectral:5", "spectral:5 ",
                                  "spectral:\uff11\uff15", "spectral:15:15"])
def test_bad_named_inits_are_refused_before_any_work(digits300, init, monkeypatch):
    def built(*args, **kwargs):
        raise AssertionError("P was built before init was checked")

    monkeypatch.setattr(smallvis.api, "check_built_affinities", built)
    with pytest.raises(ValueError, match=r"init must be one of .*'spectral:K' or "
                                         r"'laplacian:K' \(K from 1 to n_samples - 1"):
        smallvis.embed(digits300, init=init, **SGD_RUN)


def test_cli_runs_and_saves_a_named_k(digits300, tmp_path):
    np.save(tmp_path / "x.npy", digits300)
    out, model = tmp_path / "y.npy", tmp_path / "model.npz"
    assert main(["embed", str(tmp_path / "x.npy"), "--method", "largevis", "--fast",
                 "--optimizer", "sgd", "--n-epochs", "20", "--perplexity", "10",
                 "--init", "laplacian:7", "--random-state", "5", "--out", str(out),
                 "--save-model", str(model), "--quiet"]) == 0
    expected = smallvis.embed(digits300, init="laplacian:7", random_state=5, **SGD_RUN)
    assert np.array_equal(np.load(out), expected)
    assert smallvis.load_model(model).init == "laplacian:7"


def test_cli_refuses_a_bad_named_k(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["embed", "iris", "--init", "spectral:x"])
    assert exit_info.value.code == 2
    assert "--init: must be one of" in capsys.readouterr().err


@pytest.mark.parametrize("init", ["spectral:9", "spectral"])
def test_a_model_file_keeps_the_init_and_its_meaning(digits300, tmp_path, init):
    # a file that says "spectral" (as every file before "spectral:K" did)
    # still means all of P
    settings = dict(optimizer="sgd", n_epochs=20, random_state=3, method_params={
        "perplexity": 10})
    model = smallvis.Embedding("largevis", init=init, **settings).fit(digits300)
    smallvis.save_model(model, tmp_path / "model.npz")
    loaded = smallvis.load_model(tmp_path / "model.npz")
    assert loaded.init == init
    refit = smallvis.Embedding(**loaded.get_params()).fit(digits300)
    assert np.array_equal(refit.embedding_, model.embedding_)
    assert np.array_equal(refit.embedding_, smallvis.embed(digits300, init=init, random_state=3,
                                                           **SGD_RUN))
