"""A model file's structure: its members, header fields and array layouts, checked.

:func:`read_model_file` opens the archive (:mod:`smallvis.model_io.archive`),
reads and checks the header (format, version, exactly the fields the
format defines), refuses members the format does not define, checks the
declared shapes and dtypes of ``X`` (or its CSR arrays), ``Y`` and the
parameter arrays against each other before reading any, and the CSR
arrays' invariants after.  The fields' values are checked when the
estimator is rebuilt (:mod:`smallvis.model_io.rebuild`).
"""

import json
import warnings
import zipfile

import numpy as np
import scipy.sparse as sp

from .archive import (ZIP_ERRORS, Archive, DEFLATE_MAX_RATIO, ModelFileError,
                      check_regular_file, fail, starts_like_npy)
from .encoding import ARRAY_PREFIXES, FORMAT, VERSION, array_keys


#: The header's fields, and those of its ``reference``.
HEADER_FIELDS = ("format", "version", "class", "params", "n_features_in",
                 "feature_names_in", "reference")
REFERENCE_FIELDS = ("method", "affinity_params", "cost_params", "row_scale", "seed",
                    "fast", "optimizer", "projection", "x_format")

#: Reference fields that files written before them lack, with the value
#: those files mean (no ``pca=`` projection, dense training data).
OPTIONAL_REFERENCE_FIELDS = {"projection": None, "x_format": "dense"}

#: Members of every model file (``<key>.npy`` in the archive); the others
#: are the training data's (:data:`DATA_MEMBERS`) and arrays that the header
#: references, with keys starting with :data:`ARRAY_PREFIXES`.
CORE_MEMBERS = ("header", "Y")

#: The members of the training data, by ``reference.x_format``.
DATA_MEMBERS = {"dense": ("X",), "csr": ("X:indptr", "X:indices", "X:data")}

#: Largest header accepted (UTF-8 JSON), in bytes.
MAX_HEADER_BYTES = 64 * 2**20


def check_keys(file, where, mapping, expected):
    """``mapping`` must be a dict with exactly the keys ``expected``."""
    if not isinstance(mapping, dict):
        fail(file, f"header field {where} must be a dict; got {type(mapping).__name__}")
    missing = [k for k in expected if k not in mapping]
    if missing:
        fail(file, f"header field {where} lacks {', '.join(map(repr, missing))}")
    unknown = [k for k in mapping if k not in expected]
    if unknown:
        fail(file, f"header field {where} has unknown field(s) "
                   f"{', '.join(map(repr, unknown))}")


def _read_header(archive):
    """The header's JSON, with its format, version and fields checked."""
    if "header" not in archive.members:
        archive.fail("no header")
    shape, _, dtype, offset = layout = archive.layout("header")
    if dtype != np.uint8 or len(shape) != 1 or shape[0] > MAX_HEADER_BYTES:
        archive.fail(f"member 'header' must be UTF-8 bytes (uint8, 1-D, at most "
                     f"{MAX_HEADER_BYTES} bytes); got {dtype} of shape {shape}")
    try:
        header = json.loads(archive.read("header", layout).tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        archive.fail(f"unreadable header: {exc}")
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        archive.fail("a different format")
    if not _is_int(header.get("version")) or header["version"] != VERSION:
        archive.fail(f"format version {header.get('version')!r}; this smallvis reads "
                     f"version {VERSION}")
    check_keys(archive.file, "(top level)", header, HEADER_FIELDS)
    if isinstance(header.get("reference"), dict):
        header["reference"] = {**OPTIONAL_REFERENCE_FIELDS, **header["reference"]}
    check_keys(archive.file, "reference", header["reference"], REFERENCE_FIELDS)
    x_format = header["reference"]["x_format"]
    if not isinstance(x_format, str) or x_format not in DATA_MEMBERS:
        archive.fail(f"header field reference.x_format must be 'dense' or 'csr'; got "
                     f"{x_format!r}")
    if x_format == "csr" and header["reference"]["projection"] is not None:
        archive.fail("header field reference.x_format is 'csr' but a projection is stored "
                     "(a pca= fit holds its dense scores)")
    if not isinstance(header["params"], dict):
        archive.fail(f"header field params must be a dict; got {header['params']!r}")
    return header


def _referenced(file, header):
    """Every array member the header references."""
    keys = set()
    for where, value in [*((f"params.{k}", v) for k, v in header["params"].items()),
                         ("reference.affinity_params", header["reference"]["affinity_params"]),
                         ("reference.cost_params", header["reference"]["cost_params"]),
                         ("reference.projection", header["reference"]["projection"])]:
        try:
            keys |= array_keys(value, where)
        except ValueError as exc:
            fail(file, f"header field {exc}")
    return keys


def check_members(archive, data, referenced):
    """Refuse a member the format does not define and a missing one, reading none."""
    expected = set(CORE_MEMBERS) | set(data) | set(referenced)
    unknown = sorted(set(archive.members) - expected)
    if unknown:
        archive.fail(f"unknown member(s) {', '.join(map(repr, unknown))}; the format has "
                     f"header, {', '.join(data)}, Y and the arrays its header references")
    missing = [key for key in (*CORE_MEMBERS, *data, *sorted(referenced))
               if key not in archive.members]
    if missing:
        archive.fail(f"missing member(s) {', '.join(map(repr, missing))}")


def _check_layouts(archive, header, referenced):
    """The declared shapes of X (or its CSR arrays), Y and the parameter arrays, before
    any is read."""
    data = DATA_MEMBERS[header["reference"]["x_format"]]
    layouts = {key: archive.layout(key) for key in (*data, "Y", *sorted(referenced))}
    shape, _, dtype, _ = layouts["Y"]
    if dtype.kind != "f" or dtype.itemsize != 8 or len(shape) != 2:
        archive.fail(f"member 'Y' must be a 2-D float64 array; got dtype {dtype}, "
                     f"shape {shape}")
    n_y, width = shape
    n_features = header["n_features_in"]
    if data == ("X",):
        shape, _, dtype, _ = layouts["X"]
        if dtype.kind != "f" or dtype.itemsize != 8 or len(shape) != 2:
            archive.fail(f"member 'X' must be a 2-D float64 array; got dtype {dtype}, "
                         f"shape {shape}")
        n, d = shape
    else:
        n, d = _check_csr_layouts(archive, layouts), n_features
    if n_y != n or n < 2:
        archive.fail(f"X has {n} rows and Y has {n_y}; they must be equal, and at least 2")
    projected = header["reference"]["projection"] is not None  # X holds scores then
    if not _is_int(n_features) or n_features < 1 or (n_features != d and not projected):
        archive.fail(f"header field n_features_in = {n_features!r}, but X has {d} columns")
    n_components = header["params"].get("n_components")
    if not _is_int(n_components) or n_components != width:
        archive.fail(f"header field params.n_components = {n_components!r}, but Y has "
                     f"{width} columns")
    for key in referenced:
        shape, _, dtype, _ = layouts[key]
        if dtype.kind not in "biuf":
            archive.fail(f"member {key!r} has dtype {dtype}; parameter arrays are numeric")
    total = sum(archive.members[key].file_size for key in layouts)
    if total > DEFLATE_MAX_RATIO * archive.size:
        archive.fail(f"its members declare {total} bytes, more than a {archive.size}-byte "
                     "archive can hold")
    return layouts


def _check_csr_layouts(archive, layouts):
    """The declared shapes of a sparse X's CSR arrays; returns its number of rows."""
    for key, kind in (("X:indptr", "i"), ("X:indices", "i"), ("X:data", "f")):
        shape, _, dtype, _ = layouts[key]
        if dtype.kind != kind or dtype.itemsize != 8 or len(shape) != 1:
            archive.fail(f"member {key!r} must be a 1-D {'int64' if kind == 'i' else 'float64'} "
                         f"array; got dtype {dtype}, shape {shape}")
    nnz = layouts["X:indices"][0][0]
    if layouts["X:data"][0][0] != nnz:
        archive.fail(f"members 'X:indices' and 'X:data' must have equal lengths; got {nnz} "
                     f"and {layouts['X:data'][0][0]}")
    return layouts["X:indptr"][0][0] - 1


def _csr_data(indptr, indices, data, n_features):
    """The sparse training data from its stored CSR arrays, every invariant checked.

    Row pointers from 0 to the number of values, non-decreasing; column
    indices in ``[0, n_features)``, strictly increasing within each row
    (sorted, no duplicates); finite values.
    """
    n = indptr.shape[0] - 1
    if indptr[0] != 0 or indptr[-1] != indices.shape[0] or np.any(np.diff(indptr) < 0):
        raise ValueError(f"X:indptr must run from 0 to the {indices.shape[0]} stored values "
                         "without decreasing")
    if indices.size and (indices.min() < 0 or indices.max() >= n_features):
        raise ValueError(f"X:indices must lie in [0, {n_features}) (the model's features)")
    rising = np.diff(indices) > 0
    row_starts = indptr[1:-1][(indptr[1:-1] > 0) & (indptr[1:-1] < indices.shape[0])]
    rising[row_starts - 1] = True  # a new row may start lower
    if not np.all(rising):
        raise ValueError("X:indices must be sorted within each row, without duplicates")
    if not np.all(np.isfinite(data)):
        raise ValueError("X:data contains NaN or infinite values")
    X = sp.csr_matrix((data, indices, indptr), shape=(n, n_features))
    X.has_canonical_format = True
    return X


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def read_model_file(file):
    """``(header, X, Y, arrays)`` of a model file, each member checked before it is read."""
    check_regular_file(file)
    try:
        zf = zipfile.ZipFile(file)
    except ZIP_ERRORS:
        if starts_like_npy(file):
            fail(file, "a single .npy array, not an .npz archive")
        fail(file, "not a readable .npz archive: empty, truncated or another format")
    except OSError as exc:
        fail(file, f"cannot be read: {exc}")
    try:
        with zf:
            archive = Archive(zf, file)
            header = _read_header(archive)
            referenced = _referenced(file, header)
            check_members(archive, DATA_MEMBERS[header["reference"]["x_format"]], referenced)
            layouts = _check_layouts(archive, header, referenced)
            arrays = {key: archive.read(key, layout) for key, layout in layouts.items()}
    except ModelFileError:
        raise
    except ZIP_ERRORS as exc:  # the directory itself unreadable
        fail(file, f"a damaged archive: {exc}")
    except OSError as exc:
        fail(file, f"cannot be read: {exc}")
    if header["reference"]["x_format"] == "csr":
        X = checked(file, "X", _csr_data, *(arrays.pop(f"X:{part}")
                                             for part in ("indptr", "indices", "data")),
                    header["n_features_in"])
    else:
        X = arrays.pop("X").astype(np.float64, copy=False)
    Y = arrays.pop("Y").astype(np.float64, copy=False)
    return header, X, Y, arrays


def checked(file, where, check, *args, **kwargs):
    """``check(*args, **kwargs)``; a failure becomes a :class:`ModelFileError` naming ``where``."""
    try:
        with warnings.catch_warnings():
            # a setting above this machine's cores (n_threads) is lowered when
            # used, with its own warning; loading says nothing
            warnings.simplefilter("ignore")
            return check(*args, **kwargs)
    except ModelFileError:
        raise
    except (ValueError, TypeError, ArithmeticError, RuntimeError, KeyError) as exc:
        fail(file, f"header field {where}: {exc}")
