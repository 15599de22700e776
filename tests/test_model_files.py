"""Damaged and forged model files: every header field checked, memory bounded.

A model file is an ``.npz`` (zip) archive of ``.npy`` members.  These tests
build archives member by member (``zipfile`` and ``numpy.lib.format``, not
:func:`smallvis.save_model`'s own code path) from a real saved model, damage
them, and check the promise of :func:`smallvis.load_model`: it returns a
model whose ``transform`` gives finite output of the right shape, or raises
:class:`smallvis.ModelFileError` naming what is wrong, never ``MemoryError``,
``KeyError``, ``TypeError``, ``ZeroDivisionError`` or NaN output.

The default run takes a few seconds; ``SMALLVIS_LONG_TESTS=1`` runs many
more generated files.
"""

import copy
import functools
import io
import json
import re
import os
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import smallvis
from smallvis.cli import main

LONG = os.environ.get("SMALLVIS_LONG_TESTS", "") not in ("", "0")

#: Bytes of Python and NumPy allocations a refused file may cost (tracemalloc).
SMALL_PEAK = 8 * 2**20


# ---------------------------------------------------------------------------
# building archives member by member
# ---------------------------------------------------------------------------


def _npy_bytes(array):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def _forged_npy(descr, shape, payload):
    """An ``.npy`` member whose header declares ``descr`` and ``shape``, then ``payload``."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False,
                                                "shape": shape})
    return buf.getvalue() + payload


def _members(raw):
    """The members of an archive: ``{key: npy bytes}`` (key without ``.npy``)."""
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return {info.filename[:-4]: zf.read(info) for info in zf.infolist()}


def _archive(members, compression=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as zf:
        for key, data in members.items():
            zf.writestr(key + ".npy", data)
    return buf.getvalue()


def _header(members):
    return json.loads(np.lib.format.read_array(io.BytesIO(members["header"])).tobytes())


def _with_header(members, header):
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    return {**members, "header": _npy_bytes(blob)}


def _load(raw):
    return smallvis.load_model(io.BytesIO(raw))


def _split():
    X, _ = smallvis.datasets.load("iris")
    order = np.random.default_rng(7).permutation(len(X))
    return X[order[:60]], X[order[60:66]]


@pytest.fixture(scope="module")
def data():
    return _split()


def _saved(model, X):
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small data: e.g. a disconnected graph
        model.fit(X)
    smallvis.save_model(model, buf)
    return buf.getvalue()


@functools.lru_cache(maxsize=1)
def _saved_fits():
    """Saved small fits: ``{name: archive bytes}`` (fitted once per session)."""
    X, _ = _split()
    return {
        "umap": _saved(smallvis.UMAP(random_state=0, n_iter=30), X),
        "tsne": _saved(smallvis.TSNE(random_state=0, n_iter=30, perplexity=10), X),
        "ncvis": _saved(smallvis.NCVIS(random_state=0, n_iter=30), X),
        "largevis": _saved(smallvis.Embedding("largevis", random_state=0, n_iter=30,
                                              perplexity=10), X),
        "umap_sgd": _saved(smallvis.UMAP(random_state=0, optimizer="sgd", n_epochs=20), X),
        "ncvis_sgd": _saved(smallvis.NCVIS(random_state=0, optimizer="sgd", n_epochs=10), X),
        "asne": _saved(smallvis.ASNE(random_state=0, n_iter=30, perplexity=10), X),
        "ssne": _saved(smallvis.SSNE(random_state=0, n_iter=30, perplexity=10), X),
        "tumap": _saved(smallvis.TUMAP(random_state=0, n_iter=30,
                                       method_params={"n_neighbors": 8}), X),
        "tsne_init": _saved(smallvis.TSNE(
            random_state=0, n_iter=30, perplexity=10,
            init=np.random.default_rng(1).normal(size=(60, 2))), X),
    }


@pytest.fixture(scope="module")
def saved():
    return _saved_fits()


# ---------------------------------------------------------------------------
# forged header fields (the cases of the issue and their variants)
# ---------------------------------------------------------------------------


def _set(path, value):
    """An edit of the header that sets the field at ``path`` (a tuple of keys)."""
    def edit(header):
        node = header
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return edit


def _drop(path):
    def edit(header):
        node = header
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return edit


AFF = ("reference", "affinity_params", "__dict__")
COST = ("reference", "cost_params", "__dict__")

FORGED = [
    # (saved model, edit of the header, a word the message must contain)
    ("umap", _set(("reference", "row_scale"), float("nan")), "row_scale"),
    ("tsne", _set(("reference", "row_scale"), float("inf")), "row_scale"),
    ("tsne", _set(("reference", "row_scale"), -0.5), "row_scale"),
    ("ncvis", _set(("reference", "row_scale"), 1e300), "row_scale"),
    ("tsne", _set(("reference", "row_scale"), 1e-300), "row_scale"),
    ("umap", _set(("reference", "row_scale"), 2.0), "row_scale"),
    ("umap", _set(("reference", "row_scale"), "1"), "row_scale"),
    ("umap", _set(("reference", "method"), "tsne"), "method"),
    ("tsne", _set(("reference", "method"), "umap"), "method"),
    ("ncvis", _set(("reference", "method"), "largevis"), "method"),
    ("umap", _set(("reference", "method"), "nope"), "method"),
    ("umap", _set(AFF + ("n_neighbors",), 0), "n_neighbors"),
    ("umap", _set(AFF + ("n_neighbors",), 1), "n_neighbors"),
    ("umap", _set(AFF + ("n_neighbors",), 61), "n_neighbors"),
    ("ncvis", _set(AFF + ("n_neighbors",), 0), "n_neighbors"),
    ("ncvis", _set(AFF + ("n_neighbors",), 2.5), "n_neighbors"),
    ("tsne", _set(AFF + ("n_neighbors",), 0), "n_neighbors"),
    ("tsne", _set(AFF + ("n_neighbors",), 5), "n_neighbors"),  # below perplexity 10
    ("tsne", _set(AFF + ("perplexity",), float("nan")), "perplexity"),
    ("largevis", _set(AFF + ("perplexity",), 0.5), "perplexity"),
    ("umap", _set(AFF + ("bandwidth",), 0.0), "bandwidth"),
    ("umap", _set(AFF + ("local_connectivity",), -1.0), "local_connectivity"),
    ("umap", _set(AFF + ("n_trees",), 0), "n_trees"),
    ("umap", _set(AFF[:2], {"__dict__": {}}), "n_neighbors"),
    ("umap", _drop(AFF + ("bandwidth",)), "bandwidth"),
    ("umap", _set(AFF + ("surprise",), 3), "surprise"),
    ("umap", _set(AFF[:2], [15]), "affinity_params"),
    ("umap", _set(COST + ("min_dist",), -1.0), "min_dist"),
    ("umap", _set(COST + ("a",), 2.0), "b"),  # a without b
    ("umap", _set(COST + ("eps",), float("nan")), "eps"),
    ("ncvis", _set(COST + ("Q",), float("nan")), "Q"),
    ("ncvis", _set(COST + ("Q",), 1e6), "Q"),
    ("ncvis", _drop(COST + ("Q",)), "Q"),
    ("ncvis", _set(COST + ("correct_q",), "no"), "correct_q"),
    ("largevis", _set(COST + ("gamma",), -1.0), "gamma"),
    ("largevis", _set(COST + ("kernel",), "gauss"), "kernel"),
    ("tsne", _set(COST + ("n_interpolation",), 0), "n_interpolation"),
    ("umap", _set(("reference", "seed"), -1), "seed"),
    ("umap", _set(("reference", "seed"), "zero"), "seed"),
    ("umap", _set(("reference", "seed"), 1.5), "seed"),
    ("umap", _set(("reference", "fast"), "yes"), "fast"),
    ("umap", _set(("reference", "optimizer"), "adam"), "optimizer"),
    ("tsne", _set(("reference", "optimizer"), "sgd"), "optimizer"),
    ("umap", _drop(("reference", "optimizer")), "optimizer"),
    ("umap", _set(("reference", "extra"), 1), "extra"),
    ("umap", _set(("reference",), None), "reference"),
    ("umap", _set(("params", "n_components"), 3), "n_components"),
    ("umap", _set(("params", "n_components"), 0), "n_components"),
    ("tsne", _set(("params", "perplexity"), -5.0), "perplexity"),
    ("umap", _set(("params", "n_iter"), -1), "n_iter"),
    ("umap", _set(("params", "learning_rate"), "fast"), "learning_rate"),
    ("umap", _set(("params", "optimizer"), "adam"), "optimizer"),
    ("tsne", _set(("params", "optimizer"), "sgd"), "optimizer"),
    ("umap", _set(("params", "n_threads"), 0), "n_threads"),
    ("umap", _set(("params", "random_state"), -3), "random_state"),
    ("umap", _set(("params", "fast"), 2), "fast"),
    ("umap", _set(("params", "init"), "circle"), "init"),
    ("umap", _set(("params", "init"), "spectral:0"), "init"),
    ("umap", _set(("params", "init"), "laplacian:x"), "init"),
    ("umap", _set(("params", "init"), "spectral:60"), "init"),  # above n_samples - 1
    ("umap", _set(("params", "transform_n_iter"), -1), "transform_n_iter"),
    ("umap", _set(("params", "transform_learning_rate"), 0.0), "transform_learning_rate"),
    ("umap", _set(("params", "method_params"), {"__dict__": {"perplexity": 5.0}}),
     "perplexity"),
    ("umap", _set(("params", "method_params"), {"__dict__": {"n_neighbors": 0}}),
     "n_neighbors"),
    ("umap", _set(("params", "method_params"), {"__dict__": {"knn": {"__seq__": [
        [[1, 2]], [[0.5, 1.0]]]}}}), "knn"),
    ("umap", _set(("params", "callback"), "print"), "callback"),
    ("umap", _set(("params", "verbose"), "loud"), "verbose"),
    ("umap", _drop(("params", "n_iter")), "n_iter"),
    ("umap", _set(("params", "surprise"), 1), "surprise"),
    ("umap", _set(("params", "init"), {"__array__": "param:missing"}), "param:missing"),
    ("umap", _set(("params", "init"), {"__weird__": 1}), "init"),
    ("umap", _set(("n_features_in",), 5), "n_features_in"),
    ("umap", _set(("n_features_in",), "4"), "n_features_in"),
    ("umap", _set(("feature_names_in",), ["a", "b"]), "feature_names_in"),
    ("umap", _set(("feature_names_in",), [1, 2, 3, 4]), "feature_names_in"),
    ("umap", _set(("class",), "Nope"), "class"),
    ("umap", _set(("class",), ["UMAP"]), "class"),
    ("umap", _set(("class",), "TSNE"), "method"),
    ("umap", _drop(("params",)), "params"),
    ("umap", _set(("surprise",), 1), "surprise"),
    ("umap", _set(("version",), True), "version"),
    ("asne", _set(("reference", "row_scale"), 1.5), "row_scale"),
    ("ssne", _set(AFF + ("perplexity",), 60.0), "perplexity"),
    ("tumap", _set(COST + ("eps",), -1.0), "eps"),
    ("tumap", _set(("reference", "method"), "umap"), "method"),
    ("ncvis_sgd", _set(COST + ("nu",), 0.0), "nu"),
    ("ncvis_sgd", _set(("reference", "optimizer"), "auto"), "optimizer"),
]


@pytest.mark.parametrize("name,edit,word", FORGED)
def test_forged_header_fields_are_refused(name, edit, word, saved, data):
    members = _members(saved[name])
    header = _header(members)
    edit(header)
    with pytest.raises(smallvis.ModelFileError, match="not a smallvis model file") as info:
        _load(_archive(_with_header(members, header)))
    assert word in str(info.value)


def test_the_unedited_archives_load(saved, data):
    """The rebuilt archives differ from the saved ones only by the edit."""
    _, X_new = data
    for raw in saved.values():
        model = _load(raw)
        rebuilt = _load(_archive(_with_header(_members(raw), _header(_members(raw)))))
        assert np.array_equal(rebuilt.transform(X_new), model.transform(X_new))


@pytest.mark.parametrize("array,word", [
    ("Y7", "n_components"), ("Yshort", "rows"), ("Xwide", "n_features_in"),
    ("Xint", "dtype"), ("Xnan", "X"), ("Yinf", "Y"), ("Yhuge", "Y"), ("Y1d", "Y"),
    ("Xone", "rows"), ("init_shape", "init"), ("init_object", "dtype"),
])
def test_forged_arrays_are_refused(array, word, saved):
    members = _members(saved["tsne_init"])
    X = np.load(io.BytesIO(members["X"]))
    Y = np.load(io.BytesIO(members["Y"]))
    rng = np.random.default_rng(0)
    if array == "Y7":
        members["Y"] = _npy_bytes(rng.normal(size=(len(Y), 7)))
    elif array == "Yshort":
        members["Y"] = _npy_bytes(Y[:-1])
    elif array == "Xwide":
        members["X"] = _npy_bytes(np.c_[X, X[:, :1]])
    elif array == "Xint":
        members["X"] = _npy_bytes(X.astype(np.int64))
    elif array == "Xnan":
        X[3, 1] = np.nan
        members["X"] = _npy_bytes(X)
    elif array == "Yinf":
        Y[0, 0] = np.inf
        members["Y"] = _npy_bytes(Y)
    elif array == "Yhuge":  # squared distances would overflow float64
        Y[0, 0] = 1e200
        members["Y"] = _npy_bytes(Y)
    elif array == "Y1d":
        members["Y"] = _npy_bytes(Y.ravel())
    elif array == "Xone":
        members["X"], members["Y"] = _npy_bytes(X[:1]), _npy_bytes(Y[:1])
    elif array == "init_shape":
        members["param:init"] = _npy_bytes(rng.normal(size=(len(Y), 3)))
    elif array == "init_object":  # a pickled member: never unpickled
        buf = io.BytesIO()
        np.lib.format.write_array(buf, np.array([{"a": 1}], dtype=object))
        members["param:init"] = buf.getvalue()
    with pytest.raises(smallvis.ModelFileError, match="not a smallvis model file") as info:
        _load(_archive(members))
    assert word in str(info.value)


# ---------------------------------------------------------------------------
# members: only those the format defines, shapes checked before reading
# ---------------------------------------------------------------------------


def _peak_of(call):
    """``call()``'s exception and the peak of traced allocations while it ran."""
    tracemalloc.start()
    try:
        try:
            call()
        except Exception as exc:  # noqa: BLE001 - returned for the caller's checks
            error = exc
        else:
            error = None
        return error, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _deflated_zeros(zf, key, npy_header_shape, n_bytes, descr="<f8"):
    """Stream a deflated member: an ``.npy`` header, then ``n_bytes`` zero bytes."""
    chunk = bytes(2**20)
    with zf.open(key + ".npy", "w", force_zip64=True) as fh:
        np.lib.format.write_array_header_1_0(
            fh, {"descr": descr, "fortran_order": False, "shape": npy_header_shape})
        for _ in range(n_bytes // len(chunk)):
            fh.write(chunk)


def test_an_unknown_member_is_refused_without_reading_it(saved):
    """A small file with a large zero-filled member nothing refers to."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for key, data in _members(saved["umap"]).items():
            zf.writestr(key + ".npy", data)
        _deflated_zeros(zf, "zeros", (8 * 2**20,), 64 * 2**20)
    raw = buf.getvalue()
    assert len(raw) < 2**20  # 64 MiB of zeros in well under 1 MiB
    error, peak = _peak_of(lambda: _load(raw))
    assert isinstance(error, smallvis.ModelFileError), error
    assert "'zeros'" in str(error)
    assert peak < SMALL_PEAK


@pytest.mark.parametrize("key", ["X", "Y", "header", "param:init"])
def test_a_declared_shape_beyond_the_member_is_refused(key, saved):
    """4 KiB of data under an ``.npy`` header that declares 10**12 rows."""
    members = _members(saved["tsne_init"])
    descr = "|u1" if key == "header" else "<f8"
    shape = (10**12,) if key == "header" else (10**12, 2)
    members[key] = _forged_npy(descr, shape, bytes(4096))
    error, peak = _peak_of(lambda: _load(_archive(members)))
    assert isinstance(error, smallvis.ModelFileError), repr(error)
    assert key in str(error)
    assert peak < SMALL_PEAK


def test_a_compressed_member_larger_than_the_model_is_refused_before_reading(saved):
    """A deflated X of consistent size (64 MiB of zeros) but 2**21 rows where Y has 60."""
    members = _members(saved["umap"])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for key, data in members.items():
            if key != "X":
                zf.writestr(key + ".npy", data)
        _deflated_zeros(zf, "X", (2**21, 4), 64 * 2**20)
    error, peak = _peak_of(lambda: _load(buf.getvalue()))
    assert isinstance(error, smallvis.ModelFileError), repr(error)
    assert "X" in str(error)
    assert peak < SMALL_PEAK


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_a_size_in_the_directory_that_lies_is_refused(compression, saved):
    """The zip directory declares a member larger than its ``.npy`` header does."""
    raw = bytearray(_archive(_members(saved["umap"]), compression=compression))
    # the central directory entry of Y: its uncompressed size field
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as zf:
        info = zf.getinfo("Y.npy")
    central = raw.rfind(b"PK\x01\x02", 0, raw.rfind(b"Y.npy"))
    assert int.from_bytes(raw[central + 24:central + 28], "little") == info.file_size
    raw[central + 24:central + 28] = (info.file_size + 8 * 10**6).to_bytes(4, "little")
    error, peak = _peak_of(lambda: _load(bytes(raw)))
    assert isinstance(error, smallvis.ModelFileError), repr(error)
    assert "'Y'" in str(error)
    assert peak < SMALL_PEAK


def test_compressed_model_files_load(saved, data):
    """``np.savez_compressed`` members (deflated) are read as stored ones are."""
    _, X_new = data
    raw = saved["tsne_init"]
    model = _load(raw)
    loaded = _load(_archive(_members(raw), compression=zipfile.ZIP_DEFLATED))
    assert np.array_equal(loaded.init, model.init)
    assert np.array_equal(loaded.transform(X_new), model.transform(X_new))


def test_duplicate_and_foreign_members_are_refused(saved):
    members = _members(saved["umap"])
    for extra, word in [("Y.npy", "Y"), ("notes.txt", "notes.txt"), ("sub/", "sub/")]:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns of a duplicate name
            for key, data in members.items():
                zf.writestr(key + ".npy", data)
            zf.writestr(extra, members["Y"] if extra.endswith(".npy") else b"")
        with pytest.raises(smallvis.ModelFileError, match="not a smallvis model file") as info:
            _load(buf.getvalue())
        assert word in str(info.value)


# ---------------------------------------------------------------------------
# the command line: a damaged model is an input error (exit 2)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["row_scale", "huge_rows", "unknown_member"])
def test_cli_reports_a_damaged_model_as_an_input_error(damage, saved, data, tmp_path,
                                                      monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _, X_new = data
    np.savetxt("new.csv", X_new, delimiter=",")
    members = _members(saved["umap"])
    if damage == "row_scale":
        header = _header(members)
        header["reference"]["row_scale"] = float("nan")
        members = _with_header(members, header)
    elif damage == "huge_rows":
        members["X"] = _forged_npy("<f8", (10**12, 4), bytes(4096))
    else:
        members["extra"] = _npy_bytes(np.zeros(10))
    (tmp_path / "m.npz").write_bytes(_archive(members))
    (tmp_path / "Y_new.csv").write_text("precious\n")
    assert main(["transform", "new.csv", "--model", "m.npz", "--out", "Y_new.csv"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("smallvis: error: --model"), err
    assert "not a smallvis model file" in err
    assert (tmp_path / "Y_new.csv").read_text() == "precious\n"


# ---------------------------------------------------------------------------
# generated damage: loads and transforms finitely, or ModelFileError
# ---------------------------------------------------------------------------

#: Values a forged header field takes.
HOSTILE = st.one_of(
    st.none(), st.booleans(),
    st.sampled_from([0, 1, 2, -1, 3, 15, 59, 60, 61, 10**30, -10**30]),
    st.sampled_from([0.0, -0.0, 0.5, 1.0, -1.0, 1e-300, 1e300, float("nan"),
                     float("inf"), -float("inf"), 1.5, 700.0, 701.0]),
    st.sampled_from(["", "auto", "tsne", "umap", "exact", "sgd", "cauchy", "x" * 50]),
    # containers: a fresh copy each time (a shared one could end up inside itself)
    st.sampled_from([[], {}, {"__dict__": {}}, {"__seq__": []}, {"__array__": "X"},
                     {"__array__": "param:init"}]).map(copy.deepcopy),
)


def _leaves(node, path=()):
    """Every path into the header's dicts (inner nodes too)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield path + (key,)
            yield from _leaves(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield path + (i,)
            yield from _leaves(value, path + (i,))


def _edit_header(header, draw):
    paths = sorted(_leaves(header), key=repr)
    path = draw(st.sampled_from(paths))
    node = header
    for key in path[:-1]:
        node = node[key]
    action = draw(st.sampled_from(["set", "set", "set", "drop", "add"]))
    if action == "drop":
        del node[path[-1]]
    elif action == "add" and isinstance(node, dict):
        node[draw(st.sampled_from(["extra", "n_neighbors", "Q", "a", "method"]))] = \
            draw(HOSTILE)
    else:
        node[path[-1]] = draw(HOSTILE)


def _edit_members(members, draw):
    key = draw(st.sampled_from(sorted(members)))
    action = draw(st.sampled_from(["remove", "add", "truncate", "reshape", "retype"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if action == "remove":
        del members[key]
    elif action == "add":
        members[draw(st.sampled_from(["extra", "param:x", "X2", "header "]))] = \
            _npy_bytes(np.zeros(draw(st.integers(0, 100))))
    elif action == "truncate":
        members[key] = members[key][:draw(st.integers(0, len(members[key])))]
    else:
        array = np.load(io.BytesIO(members[key]))
        if action == "reshape":
            shape = draw(st.sampled_from([(-1,), (1, -1), (-1, 1), (2, -1), (-1, 2, 1)]))
            try:
                array = array.reshape(shape)
            except ValueError:
                array = array.ravel()
        else:
            array = array.astype(draw(st.sampled_from(["<f4", ">f8", "<i8", "|u1", "<c16"])))
        if array.size and draw(st.booleans()):
            value = draw(st.sampled_from([0, 1, -1, 1e300, float("nan")]))
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    array.flat[rng.integers(array.size)] = value
                except (OverflowError, ValueError):
                    pass  # not representable in this dtype
        members[key] = _npy_bytes(array)


def _damage(raw, kind, draw):
    if kind == "bytes":
        out = bytearray(raw)
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(out) - 1))
            out[i] ^= 1 << draw(st.integers(0, 7))
        return bytes(out)
    members = _members(raw)
    if kind == "header":
        header = _header(members)
        for _ in range(draw(st.integers(1, 3))):
            _edit_header(header, draw)
        return _archive(_with_header(members, header))
    _edit_members(members, draw)
    return _archive(members)


@settings(max_examples=1500 if LONG else 60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_damaged_files_load_correctly_or_raise_model_file_error(data):
    saved = _saved_fits()
    X_new = _split()[1]
    name = data.draw(st.sampled_from(sorted(saved)))
    kind = data.draw(st.sampled_from(["header", "header", "members", "bytes"]))
    raw = _damage(saved[name], kind, data.draw)
    try:
        model = _load(raw)
    except smallvis.ModelFileError:
        event(f"{kind}: refused")
        return
    event(f"{kind}: loaded")
    # the promise: a loaded model transforms; its iterations capped for time only
    model.set_params(transform_n_iter=min(model.transform_n_iter, 10))
    Y_new = model.transform(X_new)
    assert Y_new.shape == (len(X_new), model.embedding_.shape[1])
    assert np.all(np.isfinite(Y_new))



# ---------------------------------------------------------------------------
# the registry's affinity checks are the builders' own
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", smallvis.list_methods())
def test_affinity_checks_refuse_what_the_builders_refuse(method):
    """``check_affinity_values`` (used on model files) and the builder agree, word for word."""
    m = smallvis.METHODS[method]
    X = _split()[0][:20]
    if m.check_affinity_params is None:  # split_params checks everything there is
        assert set(m.affinity_params) <= {"perplexity", "metric"}
        with pytest.raises(ValueError) as built:
            smallvis.affinities(X, method, metric="cosinus")
        with pytest.raises(ValueError) as checked:  # what a model file's load runs
            m.split_params({"metric": "cosinus"}, 20)
        assert str(checked.value) == str(built.value)
        return
    params = {**m.affinity_params, **({"perplexity": 5.0} if "perplexity" in
                                      m.affinity_params else {})}
    # a default sized for more points than 20 (knnmmds's 30 neighbours) at its limit
    params.update({name: size.limit(20) for name, size in m.sized_params.items()
                   if isinstance(params.get(name), (int, float))
                   and params[name] > size.limit(20)})
    m.check_affinity_values(20, **params)  # the defaults pass
    short = (np.ones((20, 2), dtype=np.int64), np.ones((20, 2)))  # too few columns
    wide = (np.zeros((20, 19), dtype=np.int64), np.ones((20, 19)))  # the point itself
    bads = ({"n_neighbors": 21}, {"n_neighbors": 0}, {"n_neighbors": 4.5},
            {"n_trees": 0}, {"knn_method": "brute force"}, {"knn": short},
            {"knn": wide}, {"knn": "neighbours.npy"}, {"f": 0.0}, {"f": 1.5})
    # each bad value of a parameter the method takes (an unknown one is
    # refused before either check runs)
    tried = [bad for bad in bads if set(bad) <= set(params)]
    assert tried, f"{method} takes none of the parameters this test spoils"
    for bad in tried:
        with pytest.raises((ValueError, TypeError)) as built:
            smallvis.affinities(X, method, **{**params, **bad})
        with pytest.raises((ValueError, TypeError)) as checked:
            m.check_affinity_values(20, **{**params, **bad})
        assert str(checked.value) == str(built.value)


def test_cli_out_of_memory_is_not_an_output_failure(saved, data, tmp_path, monkeypatch,
                                                    capsys):
    """Exit status 1 is kept for outputs that could not be written."""
    monkeypatch.chdir(tmp_path)
    _, X_new = data
    np.savetxt("new.csv", X_new, delimiter=",")
    (tmp_path / "m.npz").write_bytes(saved["umap"])

    def exhausted(self, X):
        raise MemoryError

    monkeypatch.setattr(smallvis.Embedding, "transform", exhausted)
    assert main(["transform", "new.csv", "--model", "m.npz", "--out", "Y_new.csv"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("smallvis: error: out of memory") and len(err.splitlines()) == 1
    assert not (tmp_path / "Y_new.csv").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX special files")
@pytest.mark.parametrize("kind", ["device", "fifo", "directory"])
def test_special_files_are_refused_without_reading(kind, tmp_path):
    """A device that never ends, a pipe whose open would block, a directory."""
    if kind == "device":
        path = "/dev/zero"
    elif kind == "fifo":
        path = tmp_path / "pipe.npz"
        os.mkfifo(path)
    else:
        path = tmp_path
    with pytest.raises(smallvis.ModelFileError, match="not a regular file"):
        smallvis.load_model(path)


def test_a_missing_model_file_is_not_called_a_bad_one(tmp_path):
    """As open() says it: FileNotFoundError, not ModelFileError's "not a smallvis model file"."""
    path = tmp_path / "missing.npz"
    with pytest.raises(FileNotFoundError, match="no such model file") as caught:
        smallvis.load_model(path)
    assert not isinstance(caught.value, smallvis.ModelFileError)
    assert caught.value.filename == str(path)


def test_a_model_fitted_on_precomputed_neighbours_loads(data):
    """``method_params={"knn": ...}`` arrays pass the builder's own ``knn`` check on load."""
    X, X_new = data
    knn = smallvis.inputs.neighbors.nearest_neighbors(X, 10)
    model = smallvis.UMAP(random_state=0, n_iter=30,
                          method_params={"n_neighbors": 8, "knn": knn})
    loaded = _load(_saved(model, X))
    assert all(np.array_equal(a, b) for a, b in zip(loaded.method_params["knn"], knn))
    assert np.array_equal(loaded.transform(X_new), model.transform(X_new))


# ---------------------------------------------------------------------------
# forged iteration counts: refused at load, never a run that does not end
# ---------------------------------------------------------------------------


RUNAWAY_COUNTS = [
    ("umap", ("params", "transform_n_iter"), 10**12),
    ("umap", ("params", "transform_n_iter"), 10**6),
    ("umap_sgd", ("params", "n_epochs"), 10**12),
    ("tsne", ("params", "n_iter"), 10**9),
    ("tsne", ("params", "exaggeration_iter"), 10**9),
    ("tsne", ("params", "momentum_switch_iter"), 10**9),
    ("tsne", ("params", "cost_every"), 10**9),
    ("ncvis_sgd", ("reference", "cost_params", "__dict__", "nu"), 1e7),
]


@pytest.mark.parametrize("name,path,value", RUNAWAY_COUNTS)
def test_a_forged_iteration_count_is_refused_at_load(name, path, value, saved):
    """``transform_n_iter`` 10**12 in the header made ``transform`` run for ever."""
    members = _members(saved[name])
    header = _header(members)
    _set(path, value)(header)
    with pytest.raises(smallvis.ModelFileError, match=path[-1]):
        _load(_archive(_with_header(members, header)))


# ---------------------------------------------------------------------------
# fits made from a kNN graph: saved, they load, and say they place no points
# ---------------------------------------------------------------------------


#: The methods that accept a kNN graph (the registry's list).
GRAPH_METHODS = [name for name, m in smallvis.METHODS.items() if "knn" in m.affinity_params]

NO_PLACEMENT = "a fit made from a kNN graph .* cannot place new points"


def _knn_graph(X, k):
    import scipy.sparse as sp

    idx, dist = smallvis.inputs.neighbors.nearest_neighbors(X, k)
    n = len(X)
    return sp.csr_matrix((dist.ravel(), idx.ravel(), np.arange(0, n * k + 1, k)), shape=(n, n))


def _graph_params(method):
    """Small settings that a 20-NN graph of 60 points serves."""
    affinity = smallvis.METHODS[method].affinity_params
    params = {"metric": "precomputed"}
    params.update({"perplexity": 5.0} if "perplexity" in affinity else {"n_neighbors": 10})
    return params


@pytest.mark.parametrize("method", GRAPH_METHODS)
def test_every_fit_made_from_a_knn_graph_saves_and_loads(method, data):
    """save_model wrote these fits, and load_model refused its own file."""
    X, X_new = data
    G = _knn_graph(X, 20)
    model = smallvis.Embedding(method, random_state=0, n_iter=30, n_epochs=5,
                               method_params=_graph_params(method))
    loaded = _load(_saved(model, G))
    np.testing.assert_array_equal(loaded.embedding_, model.embedding_)
    assert loaded.get_params()["method_params"] == model.get_params()["method_params"]
    assert loaded.n_features_in_ == model.n_features_in_ == len(X)
    for fitted in (model, loaded):
        with pytest.raises(ValueError, match=NO_PLACEMENT) as err:
            fitted.transform(G[:3])
        assert not isinstance(err.value, smallvis.ModelFileError)


def test_a_knn_graph_in_a_model_file_is_checked_as_fit_checks_it(data):
    X, _ = data
    raw = _saved(smallvis.UMAP(random_state=0, n_iter=30, method_params=_graph_params("umap")),
                 _knn_graph(X, 20))
    members = _members(raw)
    values = np.lib.format.read_array(io.BytesIO(members["X:data"]))
    values[0] = -1.0
    members["X:data"] = _npy_bytes(values)
    with pytest.raises(smallvis.ModelFileError, match="non-negative"):
        _load(_archive(members))


def test_cli_fit_of_a_knn_graph_saves_a_model_that_transform_explains(data, tmp_path,
                                                                       monkeypatch, capsys):
    import scipy.sparse as sp

    X, X_new = data
    monkeypatch.chdir(tmp_path)
    sp.save_npz("graph.npz", _knn_graph(X, 20))
    np.savetxt("new.csv", _knn_graph(X, 20)[:3].toarray(), delimiter=",")
    assert main(["embed", "graph.npz", "--method", "umap", "--metric", "precomputed",
                 "--n-neighbors", "10", "--n-epochs", "5", "--random-state", "0",
                 "--save-model", "m.npz", "--quiet"]) == 0
    assert smallvis.load_model("m.npz").embedding_.shape == (len(X), 2)
    capsys.readouterr()
    assert main(["transform", "new.csv", "--model", "m.npz", "--out", "Y_new.csv"]) == 2
    err = capsys.readouterr().err
    assert re.search(NO_PLACEMENT, err) and "not a smallvis model file" not in err
    assert not (tmp_path / "Y_new.csv").exists()
    # whatever the new points' columns: no advice to give other columns
    np.savetxt("three.csv", X_new[:3, :3], delimiter=",")
    assert main(["transform", "three.csv", "--model", "m.npz", "--out", "Y_new.csv"]) == 2
    err = capsys.readouterr().err
    assert re.search(NO_PLACEMENT, err) and "columns" not in err


STRESS_METHODS = [name for name, m in smallvis.METHODS.items()
                  if m.p_family.units == "equivariant" and m.name == name]


@pytest.mark.parametrize("method", STRESS_METHODS)
@pytest.mark.parametrize("metric, scale", [("cosine", 1.0), ("euclidean", 1e-3),
                                           ("euclidean", 1e6)])
def test_a_stress_map_in_any_units_saves_and_loads(method, metric, scale, data):
    # a stress stores one over its mean input distance, which the units set:
    # cosine distances and small data put it above 1, where load_model once
    # refused the file as a normalised P's sum would be
    X, X_new = data
    model = smallvis.Embedding(method, random_state=0, n_iter=20,
                               method_params={"metric": metric})
    loaded = _load(_saved(model, X * scale))
    np.testing.assert_array_equal(loaded.embedding_, model.embedding_)
    np.testing.assert_array_equal(loaded.transform(X_new * scale),
                                  model.transform(X_new * scale))


@pytest.mark.parametrize("method", STRESS_METHODS)
def test_a_stress_of_distances_below_the_normal_doubles_is_refused_at_the_fit(method, data):
    # their mean's reciprocal, the unit a model file stores, would be
    # infinite; one step up, the same data fit and reload
    X, _ = data
    with pytest.raises(ValueError, match="smallest normal double"):
        smallvis.embed(X * 1e-309, method, random_state=0, n_iter=5)
    model = smallvis.Embedding(method, random_state=0, n_iter=5)
    _load(_saved(model, X * 1e-300))


@pytest.mark.parametrize("value", [0.0, -1.0, float("inf"), float("nan"), 1e-310])
def test_a_stress_row_scale_that_is_not_a_positive_normal_number_is_refused(value, data):
    X, _ = data
    members = _members(_saved(smallvis.Embedding("mmds", random_state=0, n_iter=20), X))
    header = _header(members)
    _set(("reference", "row_scale"), value)(header)
    with pytest.raises(smallvis.ModelFileError, match="row_scale"):
        _load(_archive(_with_header(members, header)))
