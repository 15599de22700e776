"""Model files: round trips (also across processes), and files that are not ours."""

import io
import json
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import smallvis
from smallvis.registry import METHODS

from conftest import one_method_per_kind

#: One method of each kind (tests/conftest.py), and those with a stochastic form.
KINDS = one_method_per_kind()
STOCHASTIC_KINDS = [m for m in KINDS if METHODS[m].sgd is not None]

#: Where the smallvis this test imported lives (the clone with its kernels
#: built in place, or site-packages after ``pip install .``): the child
#: processes import the same one, not the clone's unbuilt sources.
ROOT = Path(smallvis.__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def split():
    X, _ = smallvis.datasets.load("digits")
    order = np.random.default_rng(3).permutation(len(X))[:300]
    return X[order[:240]], X[order[240:]]


@pytest.fixture(scope="module")
def small_split(split):
    """120 training and 30 new points of ``split``: the round trips of every method.

    A round trip checks that the saved state gives the same numbers, which
    does not depend on the number of points; every method's perplexity (30
    by default) and neighbour count stay below 120, and the new points are
    still placed by the exact path (below ``EXACT_MAX_N``), as on 240, or
    by the Annoy forest where a test lowers that limit below 120.  The fits
    and transforms of the 44 round trips cost about half of those on 240.
    """
    X, X_new = split
    return X[:120], X_new[:30]


@pytest.mark.parametrize("method,optimizer", [(m, "exact") for m in METHODS]
                         + [(m, "sgd") for m in STOCHASTIC_KINDS])
def test_saved_model_transforms_bit_identically(method, optimizer, small_split, tmp_path):
    X, X_new = small_split
    # 10 iterations (epochs) of fit and of transform: the round trip of the
    # state, not a converged map, is checked (infonce's exact gradient takes
    # 50 ms a step)
    model = smallvis.Embedding(method, random_state=2, n_iter=10, n_threads=1,
                               optimizer=optimizer, n_epochs=10,
                               transform_n_iter=10).fit(X)
    assert model.training_map_.optimizer == optimizer
    path = tmp_path / "model.npz"
    smallvis.save_model(model, path)
    loaded = smallvis.load_model(path)
    assert type(loaded) is type(model)
    assert loaded.get_params() == model.get_params()
    assert np.array_equal(loaded.embedding_, model.embedding_)
    assert np.array_equal(loaded.transform(X_new), model.transform(X_new))
    assert loaded.result_ is None


def test_array_and_nested_params_survive(split, tmp_path):
    X, X_new = split
    init = np.random.default_rng(0).normal(size=(len(X), 2))
    model = smallvis.UMAP(init=init, random_state=1, n_iter=50,
                          method_params={"a": 1.5, "b": 0.9, "n_neighbors": 10}).fit(X)
    buf = io.BytesIO()
    smallvis.save_model(model, buf)
    buf.seek(0)
    loaded = smallvis.load_model(buf)
    assert np.array_equal(loaded.init, init)
    assert loaded.method_params == {"a": 1.5, "b": 0.9, "n_neighbors": 10}
    assert np.array_equal(loaded.transform(X_new), model.transform(X_new))


def test_round_trip_across_processes(small_split, tmp_path):
    """One Python process fits and writes; a fresh one loads and transforms."""
    X, X_new = small_split
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "X_new.npy", X_new)
    env_path = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
    write = env_path + textwrap.dedent(f"""
        import numpy as np, smallvis
        X = np.load({str(tmp_path / 'X.npy')!r}); X_new = np.load({str(tmp_path / 'X_new.npy')!r})
        for method in {KINDS!r}:
            m = smallvis.Embedding(method, random_state=4, n_iter=20).fit(X)
            smallvis.save_model(m, {str(tmp_path)!r} + f"/{{method}}.npz")
            np.save({str(tmp_path)!r} + f"/{{method}}_Y.npy", m.transform(X_new))
    """)
    read = env_path + textwrap.dedent(f"""
        import numpy as np, smallvis
        X_new = np.load({str(tmp_path / 'X_new.npy')!r})
        for method in {KINDS!r}:
            m = smallvis.load_model({str(tmp_path)!r} + f"/{{method}}.npz")
            np.save({str(tmp_path)!r} + f"/{{method}}_Y2.npy", m.transform(X_new))
    """)
    for code in (write, read):
        subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)
    for method in KINDS:
        a = np.load(tmp_path / f"{method}_Y.npy")
        b = np.load(tmp_path / f"{method}_Y2.npy")
        assert np.array_equal(a, b), method


def test_pickle_across_processes_with_an_annoy_index(small_split, tmp_path, monkeypatch):
    """The Annoy index is dropped from the pickle and rebuilt identically."""
    import smallvis.transform as tr

    X, X_new = small_split
    monkeypatch.setattr(tr, "EXACT_MAX_N", 50)
    model = smallvis.UMAP(random_state=5, n_iter=50).fit(X)
    Y = model.transform(X_new)
    assert model.training_map_._index is not None
    (tmp_path / "m.pkl").write_bytes(pickle.dumps(model))
    code = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {str(ROOT)!r})
        import pickle, numpy as np, smallvis.transform as tr
        tr.EXACT_MAX_N = 50
        m = pickle.loads(open({str(tmp_path / 'm.pkl')!r}, 'rb').read())
        assert m.training_map_._index is None
        np.save({str(tmp_path / 'Y.npy')!r}, m.transform(np.load({str(tmp_path / 'Xn.npy')!r})))
    """)
    np.save(tmp_path / "Xn.npy", X_new)
    subprocess.run([sys.executable, "-c", code], check=True)
    assert np.array_equal(np.load(tmp_path / "Y.npy"), Y)


@pytest.fixture(scope="module")
def model_bytes(small_split):
    X, _ = small_split
    buf = io.BytesIO()
    smallvis.save_model(smallvis.TSNE(random_state=0, n_iter=50).fit(X), buf)
    return buf.getvalue()


@pytest.mark.parametrize("damage", ["empty", "truncated", "text", "npy", "foreign_npz",
                                    "other_format", "future_version", "bad_json",
                                    "wrong_shapes", "pickle"])
def test_files_that_are_not_models_are_refused(damage, model_bytes, tmp_path):
    path = tmp_path / "bad.npz"
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "truncated":
        path.write_bytes(model_bytes[: len(model_bytes) // 2])
    elif damage == "text":
        path.write_text("y1,y2\n1,2\n")
    elif damage == "npy":
        with open(path, "wb") as fh:
            np.save(fh, np.zeros(3))
    elif damage == "foreign_npz":
        np.savez(path, a=np.zeros(3))
    elif damage == "pickle":
        path.write_bytes(pickle.dumps({"format": "smallvis-model"}))
    else:
        with np.load(io.BytesIO(model_bytes)) as f:
            arrays = {k: f[k] for k in f.files}
        header = json.loads(arrays["header"].tobytes())
        if damage == "other_format":
            header["format"] = "something-else"
        elif damage == "future_version":
            header["version"] = 99
        elif damage == "wrong_shapes":
            arrays["Y"] = arrays["Y"][:-1]
        blob = json.dumps(header).encode()
        if damage == "bad_json":
            blob = blob[:-5]
        arrays["header"] = np.frombuffer(blob, dtype=np.uint8)
        np.savez(path, **arrays)
    with pytest.raises(smallvis.ModelFileError, match="not a smallvis model file"):
        smallvis.load_model(path)
    assert issubclass(smallvis.ModelFileError, ValueError)


def test_unfitted_and_unsaveable_models(small_split, tmp_path):
    X, _ = small_split
    with pytest.raises(smallvis.NotFittedError):
        smallvis.save_model(smallvis.TSNE(), tmp_path / "m.npz")
    model = smallvis.TSNE(random_state=0, n_iter=20, callback=lambda *a: False).fit(X)
    with pytest.raises(ValueError, match="callback"):
        smallvis.save_model(model, tmp_path / "m.npz")
