"""The scikit-learn estimators: contract, registry classes, bad input."""

import ast
import inspect
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import smallvis
import smallvis.estimators
from smallvis.estimator import (METHOD_CLASSES, Embedding, MethodEmbedding,
                                estimator_class_name, method_estimator)
from smallvis.registry import METHODS

#: Checks that a transductive embedding cannot pass: they demand that
#: ``fit_transform(X)`` equal ``fit(X).transform(X)``.  ``fit_transform``
#: returns the fitted map; ``transform`` places the same points again as new
#: points against it, which lands near, not on, their fitted positions
#: (tests/test_transform.py bounds how near).  umap-learn and openTSNE
#: differ in the same way.
EXPECTED_FAILED_CHECKS = {
    "check_transformer_general":
        "transform(X) re-places X against the fitted map: near fit_transform(X), not equal",
    "check_transformer_data_not_an_array":
        "the same comparison of fit_transform(X) and transform(X)",
}


def _small(cls, **params):
    """Settings for scikit-learn's tiny check data (10 to 40 points).

    One thread and ten placement iterations: the checks hold the estimator
    to scikit-learn's contract (shapes, dtypes, copies, batches), which does
    not depend on how far new points move; tests/test_transform*.py check
    the placements themselves on every thread count.  On a few points the
    threads of a placement spend more time waiting than working (scikit-learn
    places some check data one row at a time).
    """
    method = cls(**params)._method_name() if cls is not Embedding else params["method"]
    small = {"perplexity": 3} if "perplexity" in METHODS[method].affinity_params else \
        {"n_neighbors": 5}
    return cls(**params, random_state=0, n_iter=100, n_threads=1, transform_n_iter=10,
               method_params=small)


#: Checks of what constructor values do not reach, run above with the
#: small settings only: with the defaults each costs a fit and a placement
#: per row of its data.
CHECKED_WITH_SMALL_SETTINGS = {
    "check_methods_subset_invariance":
        "a point's placement alone and in a batch: the transform's per-point rule, whatever "
        "the constructor values (test_scikit_learn_estimator_checks, and "
        "tests/test_transform_invariance.py for every method)",
}


def _sklearn_estimators():
    return [_small(Embedding, method="tsne"), _small(smallvis.UMAP)]


try:
    from sklearn.utils.estimator_checks import parametrize_with_checks
except ImportError:  # scikit-learn is optional
    parametrize_with_checks = None

if parametrize_with_checks is not None:
    @parametrize_with_checks(_sklearn_estimators(),
                             expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
    def test_scikit_learn_estimator_checks(estimator, check):
        check(estimator)


    # default constructor arguments: scikit-learn's data have 10 to 40 rows,
    # fewer than t-SNE's perplexity 30 and UMAP's 15 neighbours need; the
    # defaults are lowered to fit (tests/test_small_data.py)
    @parametrize_with_checks([Embedding("tsne"), Embedding("umap")],
                             expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
    @pytest.mark.filterwarnings("ignore::smallvis._validation.SmallDataWarning")
    def test_scikit_learn_estimator_checks_with_default_arguments(estimator, check):
        reason = CHECKED_WITH_SMALL_SETTINGS.get(getattr(check, "func", check).__name__)
        if reason:
            pytest.skip(reason)
        check(estimator)


def test_import_smallvis_does_not_import_sklearn():
    code = "import sys, smallvis; smallvis.Embedding('tsne'); print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_every_embed_setting_is_a_parameter():
    embed_kw = {name for name, p in inspect.signature(smallvis.embed).parameters.items()
                if p.kind is p.KEYWORD_ONLY} - {"return_result", "keep_affinities"}
    params = set(Embedding().get_params())
    assert embed_kw <= params, embed_kw - params
    assert {"method", "method_params"} <= params


def test_one_class_per_registered_method():
    assert set(METHOD_CLASSES) == set(METHODS)
    for name, cls in METHOD_CLASSES.items():
        assert getattr(smallvis, cls.__name__) is cls
        assert "method" not in cls().get_params()
        assert cls()._method_name() == name
    with pytest.raises(TypeError, match="unexpected"):
        smallvis.TSNE(method="umap")


def _written_classes(module):
    """The names of the classes written in ``module``'s source, read without running it."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    return [node.name for node in tree.body if isinstance(node, ast.ClassDef)]


@pytest.mark.parametrize("name, cls", [("LargeVis", "LARGEVIS"), ("NCVis", "NCVIS"),
                                       ("tumap", "TUMAP"), ("Tsne", "TSNE")])
def test_an_estimator_in_another_case_is_named(name, cls):
    """smallvis.LargeVis (as the paper writes it) says which class is meant."""
    with pytest.raises(AttributeError, match=rf"no attribute '{name}'; the estimator of "
                                             rf"method '{cls.lower()}' is smallvis\.{cls}$"):
        getattr(smallvis, name)
    with pytest.raises(AttributeError, match=r"no attribute 'nothing_here'$"):
        smallvis.nothing_here
    assert not hasattr(smallvis, "LargeVis")


def test_save_plot_is_where_plot_s_docstring_points():
    """plot's docstring says "use save_plot": it is smallvis.save_plot."""
    assert "save_plot" in smallvis.plot.__doc__
    assert smallvis.save_plot is smallvis.plotting.save_plot


def test_the_estimator_classes_are_written_out_for_editors():
    """``class UMAP`` is a statement that an editor and a type checker can read.

    Classes made in a loop and put in place with ``globals().update`` are
    invisible to "go to definition"; this reads the source, not the
    imported module, so that a class made at run time does not count.
    """
    expected = sorted(estimator_class_name(name) for name in METHODS)
    classes = _written_classes(smallvis.estimators)
    missing = sorted(set(expected) - set(classes))
    assert not missing, (
        f"smallvis/estimators.py has no class for {missing}: add "
        f"'@_method_estimator\nclass {missing[0]}(_MethodEmbedding): ...' at its end")
    assert sorted(classes) == expected
    # its public names, which smallvis imports, are the classes alone
    public = sorted(name for name in vars(smallvis.estimators) if not name.startswith("_"))
    assert public == expected
    for name, cls in METHOD_CLASSES.items():
        assert cls.__module__ == "smallvis.estimators" and cls.__qualname__ == cls.__name__
        assert issubclass(cls, MethodEmbedding)
        assert f'method="{name}"' in cls.__doc__ and METHODS[name].summary in cls.__doc__
    for module in (smallvis, smallvis.estimator, smallvis.estimators):
        assert "globals()" not in Path(module.__file__).read_text(encoding="utf-8")


def test_a_class_is_bound_to_the_method_its_name_spells():
    with pytest.raises(ValueError, match="no registered method has the estimator class "
                                         "name 'NOSUCHMETHOD'"):
        @method_estimator
        class NOSUCHMETHOD(MethodEmbedding):
            pass
    with pytest.raises(ValueError, match="has a class already"):
        method_estimator(type(smallvis.UMAP.__name__, (MethodEmbedding,), {}))
    with pytest.raises(TypeError, match="not a subclass of MethodEmbedding"):
        method_estimator(type(smallvis.UMAP.__name__, (Embedding,), {}))
    # a user's subclass keeps its parent's method
    class MyUMAP(smallvis.UMAP):
        pass
    assert MyUMAP()._method_name() == smallvis.UMAP()._method_name()
    assert METHOD_CLASSES[smallvis.UMAP()._method_name()] is smallvis.UMAP


def test_a_method_parameter_given_to_the_constructor_names_method_params():
    # umap-learn and openTSNE take metric= in the constructor; here it is a
    # method parameter, and the error says how to spell it.
    with pytest.raises(TypeError, match=r"metric is a method parameter: "
                                        r"pass method_params=\{'metric': \.\.\.\}"):
        smallvis.UMAP(metric="cosine")
    with pytest.raises(TypeError, match=r"metric, n_neighbors are method parameters: "
                                        r"pass method_params=\{'metric': \.\.\., "
                                        r"'n_neighbors': \.\.\.\}") as caught:
        smallvis.LARGEVIS(metric="cosine", n_neighbors=30, colour="red")
    assert "colour" in str(caught.value) and "'colour'" not in str(caught.value)
    with pytest.raises(TypeError) as caught:
        smallvis.TSNE(colour="red")
    assert "method_params" not in str(caught.value)
    model = smallvis.UMAP(method_params={"metric": "cosine"})
    assert model.get_params()["method_params"] == {"metric": "cosine"}


def test_init_only_stores_and_params_round_trip():
    model = Embedding("umap", n_threads=2, method_params={"min_dist": 0.3})
    assert not [k for k in vars(model) if k.endswith("_")]
    params = model.get_params()
    assert params["method"] == "umap" and params["method_params"] == {"min_dist": 0.3}
    assert Embedding(**params).get_params() == params
    assert model.set_params(method="tsne", n_threads=None) is model
    assert model.method == "tsne"
    with pytest.raises(ValueError, match="invalid parameter 'nonsense'"):
        model.set_params(nonsense=1)
    assert repr(model) == "Embedding(method_params={'min_dist': 0.3})"  # defaults hidden


@pytest.fixture(scope="module")
def iris():
    X, y = smallvis.datasets.load("iris")
    order = np.random.default_rng(0).permutation(len(X))
    return X[order[:120]], X[order[120:]]


@pytest.fixture(scope="module")
def fitted(iris):
    X, _ = iris
    return smallvis.TSNE(random_state=0, n_iter=300).fit(X)


def test_fit_matches_embed_and_sets_the_fitted_state(iris, fitted):
    X, _ = iris
    Y = smallvis.embed(X, method="tsne", fast=True, random_state=0, n_iter=300)
    assert np.array_equal(fitted.embedding_, Y)
    assert fitted.n_features_in_ == 4 and not hasattr(fitted, "feature_names_in_")
    assert fitted.result_.method == "tsne"
    again = smallvis.TSNE(random_state=0, n_iter=300).fit_transform(X)
    assert np.array_equal(again, Y)


def test_method_params_reach_embed(iris):
    X, _ = iris
    a = Embedding("umap", random_state=0, n_iter=50, method_params={"min_dist": 0.5}).fit(X)
    assert a.result_.params["min_dist"] == 0.5
    b = Embedding("tsne", random_state=0, n_iter=50, method_params={"perplexity": 7}).fit(X)
    assert b.result_.params["perplexity"] == 7
    with pytest.raises(ValueError, match="given twice"):
        Embedding("tsne", perplexity=5, method_params={"perplexity": 7}).fit(X)


class _Frame:
    """The part of a DataFrame that the estimator reads: columns and values."""

    def __init__(self, values, columns):
        self.values, self.columns = np.asarray(values), list(columns)

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)


def test_feature_names_are_kept(iris):
    X, X_new = iris
    names = ["sepal_l", "sepal_w", "petal_l", "petal_w"]
    model = smallvis.TSNE(random_state=0, n_iter=100).fit(_Frame(X, names))
    assert list(model.feature_names_in_) == names
    model.transform(_Frame(X_new, names))
    with pytest.raises(ValueError, match=r"feature names should match(.|\n)*"
                                         r"X\[model.feature_names_in_\]"):
        model.transform(_Frame(X_new, names[::-1]))
    with pytest.raises(ValueError, match="feature names should match") as renamed:
        model.transform(_Frame(X_new, ["a", "b", "c", "d"]))
    assert "another order" not in str(renamed.value)  # not the same columns
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        model.transform(X_new)


def _state(model):
    return {k: (v.copy() if isinstance(v, np.ndarray) else v)
            for k, v in vars(model).items()}


@pytest.mark.parametrize("bad,error,match", [
    (np.zeros((3, 5)), ValueError, "X has 5 features, but TSNE is expecting 4"),
    (np.array([[1.0, np.nan, 2.0, 3.0]]), ValueError, "NaN"),
    (np.array([[1.0, np.inf, 2.0, 3.0]]), ValueError, "infinite"),
    (np.zeros((0, 4)), ValueError, "empty"),
    (np.zeros(4), ValueError, "Reshape your data"),
    (np.array([["a", "b", "c", "d"]]), TypeError, "numeric"),
])
def test_bad_new_points_are_refused_and_change_nothing(fitted, bad, error, match):
    before = _state(fitted)
    Y_before = fitted.embedding_.copy()
    with pytest.raises(error, match=match):
        fitted.transform(bad)
    assert set(vars(fitted)) == set(before)
    assert np.array_equal(fitted.embedding_, Y_before)
    assert fitted.training_map_ is before["training_map_"]


def test_transform_before_fit():
    with pytest.raises(smallvis.NotFittedError, match="not fitted yet"):
        smallvis.UMAP().transform(np.zeros((2, 3)))
    assert issubclass(smallvis.NotFittedError, (ValueError, AttributeError))


def test_not_fitted_error_is_defined_with_the_exceptions():
    from smallvis import exceptions, transform

    assert smallvis.NotFittedError is exceptions.NotFittedError
    assert smallvis.NotFittedError.__module__ == "smallvis.exceptions"
    # the spellings that code may already import
    assert transform.NotFittedError is smallvis.NotFittedError
    assert smallvis.estimator.NotFittedError is smallvis.NotFittedError


def test_failed_refit_keeps_the_previous_fit(iris, fitted):
    X, _ = iris
    model = pickle.loads(pickle.dumps(fitted))
    before = model.embedding_.copy()
    model.set_params(n_components=0)
    with pytest.raises(ValueError):
        model.fit(X)
    assert np.array_equal(model.embedding_, before)


def test_pickle_round_trip_is_bit_identical(iris, fitted):
    _, X_new = iris
    clone = pickle.loads(pickle.dumps(fitted))
    assert np.array_equal(clone.transform(X_new), fitted.transform(X_new))


def test_reference_is_the_old_read_only_name_of_training_map(fitted):
    # the training map's old public name still answers, with the same object
    assert fitted.reference_ is fitted.training_map_
    with pytest.raises(AttributeError):
        fitted.reference_ = fitted.training_map_
    unfitted = Embedding("tsne")
    assert not hasattr(unfitted, "training_map_") and not hasattr(unfitted, "reference_")


def test_a_pickle_of_the_previous_version_loads(iris, fitted):
    # the previous version pickled the class smallvis.transform.Reference under the
    # attribute reference_; protocol 0 spells names as text lines, so the old
    # pickle is the new one with those two names written back
    _, X_new = iris
    new = pickle.dumps(fitted, protocol=0)
    assert b"TrainingMap" in new and b"training_map_" in new
    old = new.replace(b"TrainingMap", b"Reference").replace(b"training_map_", b"reference_")
    model = pickle.loads(old)
    assert "reference_" not in vars(model)
    assert isinstance(model.training_map_, smallvis.transform.TrainingMap)
    assert model.reference_ is model.training_map_
    assert np.array_equal(model.transform(X_new), fitted.transform(X_new))


def test_sklearn_pipeline_and_clone(iris):
    sklearn = pytest.importorskip("sklearn")  # noqa: F841
    from sklearn.base import clone
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, X_new = iris
    pipe = make_pipeline(StandardScaler(), smallvis.UMAP(random_state=0, n_iter=100))
    Y = pipe.fit_transform(X)
    assert Y.shape == (120, 2)
    assert pipe.transform(X_new).shape == (30, 2)
    c = clone(pipe.steps[1][1])
    assert c.get_params() == pipe.steps[1][1].get_params() and not hasattr(c, "embedding_")


def test_transform_of_a_fit_made_from_a_knn_graph_says_why_first():
    """Whatever X_new is, the answer is that such a fit has no data to place it against."""
    import scipy.sparse as sp

    X = np.random.default_rng(3).normal(size=(40, 3))
    idx, dist = smallvis.inputs.neighbors.nearest_neighbors(X, 12)
    G = sp.csr_matrix((dist.ravel(), idx.ravel(), np.arange(0, 40 * 12 + 1, 12)), shape=(40, 40))
    model = smallvis.UMAP(random_state=0, n_iter=30,
                          method_params={"metric": "precomputed", "n_neighbors": 8}).fit(G)
    for X_new in (G[:2], X[:2], np.full((2, 40), np.nan)):
        with pytest.raises(ValueError, match="kNN graph .* cannot place new points: it has "
                                             "no data to measure new points against"):
            model.transform(X_new)
        with pytest.raises(ValueError, match="cannot place new points"):
            model.training_map_.transform(X_new)


def test_a_fit_of_no_data_says_how_to_fit_a_knn_graph():
    # embed(None, knn=...) embeds a graph alone; an estimator needs its X
    X = np.random.default_rng(3).normal(size=(40, 3))
    knn = smallvis.inputs.neighbors.nearest_neighbors(X, 12)
    for method_params in ({"knn": knn}, {}):
        with pytest.raises(ValueError, match="X is None.*'metric': 'precomputed'.*knn="):
            smallvis.UMAP(method_params=method_params).fit(None)


# ---- one fast default: embed, the estimators and the command line ------------

def test_embed_and_the_estimators_have_the_same_defaults():
    """Every setting that ``embed`` and the estimators share has one default."""
    embed_defaults = {name: p.default
                      for name, p in inspect.signature(smallvis.embed).parameters.items()
                      if p.kind is p.KEYWORD_ONLY}
    for cls in (Embedding, *METHOD_CLASSES.values()):
        params = inspect.signature(cls).parameters
        differ = {name: (embed_defaults[name], params[name].default)
                  for name in set(params) & set(embed_defaults)
                  if params[name].default != embed_defaults[name]}
        assert not differ, f"{cls.__name__}: (embed's, its own) defaults {differ}"


def test_the_command_line_defaults_to_the_embed_default_and_can_choose_either():
    from smallvis.cli import build_parser

    parser = build_parser()
    default = inspect.signature(smallvis.embed).parameters["fast"].default
    assert parser.parse_args(["embed", "iris"]).fast is default
    assert parser.parse_args(["embed", "iris", "--fast"]).fast is True
    assert parser.parse_args(["embed", "iris", "--reference"]).fast is False
    with pytest.raises(SystemExit):
        parser.parse_args(["embed", "iris", "--fast", "--reference"])


@pytest.fixture
def unbuilt(monkeypatch):
    """The compiled kernels missing, as in a source tree that was never built."""
    import smallvis.backends._backend as backend

    monkeypatch.setattr(backend, "_kernels", None)
    monkeypatch.setattr(backend, "_IMPORT_ERROR", ImportError("no module _kernels"))


def test_an_unbuilt_fast_path_says_how_to_build_it_or_run_the_reference(unbuilt, iris):
    from smallvis.exceptions import KernelsNotBuiltError

    X, _ = iris
    for run in (lambda: smallvis.embed(X, n_iter=5),
                lambda: smallvis.TSNE(n_iter=5).fit(X)):
        with pytest.raises(KernelsNotBuiltError,
                           match=r"build_ext --inplace.*fast=False .*--reference"):
            run()
    assert issubclass(KernelsNotBuiltError, ImportError)
    assert smallvis.embed(X, n_iter=5, fast=False, random_state=0).shape == (len(X), 2)


def test_an_unbuilt_fast_path_is_one_error_line_on_the_command_line(unbuilt, tmp_path,
                                                                     capsys):
    from smallvis.cli import main

    out = tmp_path / "y.csv"
    assert main(["embed", "iris", "--n-iter", "5", "--quiet", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("smallvis: error: ") and len(err.splitlines()) == 1, err
    assert "--reference" in err and "Traceback" not in err
    assert not out.exists()
    assert main(["embed", "iris", "--n-iter", "5", "--quiet", "--reference",
                 "--out", str(out)]) == 0
    assert out.exists()
