"""Saving and loading fitted estimators without pickle.

A model file is a NumPy ``.npz`` archive (:func:`numpy.savez`), read back
member by member and never unpickled, so loading one runs no code:

``header``
    UTF-8 JSON as a ``uint8`` array: the format name and version, the
    estimator class, its constructor parameters, and the fitted settings
    that :mod:`smallvis.transform` needs (method, affinity and cost
    parameters with learned scalars, row scale, seed, backend).
``X``, ``Y``
    The training data and the fitted coordinates, float64.
``X:indptr``, ``X:indices``, ``X:data``
    Instead of ``X``, training data that were sparse (``scipy.sparse``
    without ``pca=``): their canonical CSR arrays (int64 row pointers,
    int64 column indices sorted within each row, float64 values), with the
    header's ``reference.x_format`` ``"csr"``; ``transform`` searches them
    as the fit did.  A fit made from a kNN graph (a sparse ``X`` with
    ``metric="precomputed"``) stores the graph so, checked on load as
    ``fit`` checks it; it loads, and its ``transform`` says that it cannot
    place new points.
``param:<name>``, ``param:<name>:<key>``
    Array-valued parameters (a user ``init`` array, arrays inside
    ``method_params``), referenced from the header.

Everything :meth:`Embedding.transform` reads is stored exactly (float64
arrays; JSON floats round-trip exactly), so a loaded model's ``transform``
is bit-identical to the original's with ``n_threads=1``.  The fit's
``EmbedResult`` (``P``, cost trace) is not stored: ``result_`` is None on a
loaded model.

:func:`load_model` trusts nothing in the file: it reads only the members
above, checks each ``.npy`` header's dtype and shape against the member's
size before reading its data (so memory follows what the file declares and
can hold, :data:`DEFLATE_MAX_RATIO`), and checks every header field by the
rules :func:`smallvis.embed` applies, with the consistency of the whole; any
failure is a :class:`ModelFileError` naming the member or field.

Pickling an estimator also works (the Annoy index is dropped and rebuilt
from the stored data and seed), but unpickling runs code: load pickles only
from sources you trust.  Model files in this format are safe to open.
"""

import io
import json
import math
import os
import stat
import struct
import warnings
import zipfile
import zlib

import numpy as np
import scipy.sparse as sp

from .backends._backend import check_fast
from ._outputs import write_output
from ._validation import (check_coordinate_span, check_data, check_integer, check_number,
                          check_random_state, check_threads)
from .estimator import METHOD_CLASSES, Embedding
from .engines.init import check_init
from .inputs.precomputed import check_graph, is_graph
from .inputs.projection import Projection
from .inputs.sparse_search import SPARSE_METRICS, prepare_sparse
from .registry import get_method
from .plans import make_plan, method_keywords
from .engines.sgd import choose_optimizer
from .transform import UNSTORED_AFFINITY_PARAMS, Reference, check_transform_settings

__all__ = ["save_model", "load_model", "ModelFileError", "FORMAT", "VERSION"]

#: Format name and version written into every header.
FORMAT = "smallvis-model"
VERSION = 1

#: Constructor parameters added since version 1 was defined, with the value
#: a file that lacks them was fitted with (their default then and now).
ADDED_ESTIMATOR_PARAMS = {"late_exaggeration": 1.0, "late_exaggeration_iter": None,
                          "pca": None}


class ModelFileError(ValueError):
    """A file that is not a smallvis model, or is damaged or truncated."""


def _classes():
    return {"Embedding": Embedding, **{c.__name__: c for c in METHOD_CLASSES.values()}}


def _encode(value, key, arrays):
    """A JSON-able form of a parameter value; arrays go to ``arrays``."""
    if isinstance(value, np.ndarray):
        arrays[key] = value
        return {"__array__": key}
    if isinstance(value, np.random.Generator):
        return None  # the fitted seed is stored separately
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict):
        return {"__dict__": {str(k): _encode(v, f"{key}:{k}", arrays)
                             for k, v in value.items()}}
    if isinstance(value, (tuple, list)):
        return {"__seq__": [_encode(v, f"{key}:{i}", arrays) for i, v in enumerate(value)],
                "tuple": isinstance(value, tuple)}
    raise ValueError(f"cannot save parameter {key.split(':')[1]!r}: a value of type "
                     f"{type(value).__name__} ({value!r}) has no safe file form; set it "
                     "to None (or a plain value) before saving")


def save_model(model, file):
    """Write a fitted estimator to ``file`` (a path or a binary file object).

    A path is written under exactly that name (no ``.npz`` is added), by the
    rules of every smallvis output (:mod:`smallvis._outputs`): a regular
    file is replaced atomically, so a failed write leaves the old one whole;
    a link stays a link and its final target is written; a character device
    or FIFO is written into, never replaced.

    Parameters
    ----------
    model : Embedding
        Fitted (any of the per-method classes too).
    file : str, path or binary file
        Conventionally with the extension ``.npz``; :func:`load_model` reads
        any name.

    Raises
    ------
    NotFittedError
        ``model`` has not been fitted.
    TypeError
        ``file`` is a file object open in text mode, or neither a path nor
        a file object.
    ValueError
        A parameter with no safe file form (e.g. a ``callback`` function);
        or ``file`` is a read-only file (for root too), in a missing or
        read-only directory, a directory, a block device, a socket or a
        link loop (nothing is written).
    OSError
        The write failed (e.g. a full disk); a file that stood there is
        untouched.
    """
    if not isinstance(model, Embedding):
        raise TypeError(f"save_model needs a smallvis Embedding; got {type(model).__name__}")
    model._check_is_fitted("save_model")
    _check_binary_target(file)
    ref = model.reference_
    arrays = {}
    params = {name: _encode(value, f"param:{name}", arrays)
              for name, value in model.get_params().items() if name != "callback"}
    if model.callback is not None:
        raise ValueError("cannot save a model with a callback function; set "
                         "callback=None before saving (it is used only during fit)")
    header = {
        "format": FORMAT, "version": VERSION, "class": type(model).__name__,
        "params": params,
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": (None if getattr(model, "feature_names_in_", None) is None
                             else [str(c) for c in model.feature_names_in_]),
        "reference": {
            "method": ref.method,
            "affinity_params": _encode(ref.affinity_params, "ref:affinity", arrays),
            "cost_params": _encode(ref.cost_params, "ref:cost", arrays),
            "row_scale": float(ref.row_scale), "seed": int(ref.seed), "fast": bool(ref.fast),
            "optimizer": str(ref.optimizer),
            "projection": _encode(None if ref.projection is None else {
                "components": ref.projection.components,
                "mean": ref.projection.mean}, "ref:projection", arrays),
            "x_format": "csr" if sp.issparse(ref.X) else "dense",
        },
    }
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    _write_archive(file, header=blob, Y=ref.Y, **_data_members(ref.X), **arrays)


def _data_members(X):
    """The members holding the training data: ``X``, or a sparse X's CSR arrays."""
    if not sp.issparse(X):
        return {"X": X}
    C = sp.csr_matrix(X)  # canonical already (checked at fit)
    return {"X:indptr": C.indptr.astype(np.int64), "X:indices": C.indices.astype(np.int64),
            "X:data": C.data.astype(np.float64)}


def _check_binary_target(file):
    """Refuse a ``file`` for :func:`save_model` that is neither a path nor a
    file object open for writing bytes (a text-mode file)."""
    if isinstance(file, (str, os.PathLike)):
        return
    if isinstance(file, io.TextIOBase):
        raise TypeError("save_model: file is open in text mode; open it in binary mode "
                        "(open(path, 'wb')) or pass the path")
    writable = getattr(file, "writable", None)
    if not callable(getattr(file, "write", None)) or (callable(writable) and not writable()):
        raise TypeError("save_model: file must be a path or a binary file object open "
                        f"for writing; got {type(file).__name__}")


def _write_archive(file, **arrays):
    """``np.savez`` into ``file``, a binary file object or a path written as named
    (given a path, NumPy itself would add ``.npz`` and write in place)."""
    if isinstance(file, (str, os.PathLike)):
        write_output(file, lambda fh: np.savez(fh, **arrays), "file")
    else:
        np.savez(file, **arrays)


# ---------------------------------------------------------------------------
# loading: the archive read lazily, every field checked before the model is built
# ---------------------------------------------------------------------------

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
ARRAY_PREFIXES = ("param:", "ref:")

#: Largest header accepted (UTF-8 JSON), in bytes.
MAX_HEADER_BYTES = 64 * 2**20

#: Deepest nesting of values in a header (dicts and sequences in parameters).
MAX_HEADER_DEPTH = 32

#: Deflate expands its input at most 1032-fold (zlib's technical details);
#: a member that declares more is lying about its size.
DEFLATE_MAX_RATIO = 1032

#: Uncompressed bytes per read of a member's data.
_READ_CHUNK = 2**22

#: Relative rounding allowed in ``row_scale`` (see :func:`_check_row_scale`).
_ROW_SCALE_ROUNDING = 1e-6


def _name(file):
    if isinstance(file, (str, bytes, os.PathLike)):
        return os.fsdecode(file)
    return getattr(file, "name", "the file")


def _fail(file, why):
    raise ModelFileError(f"{_name(file)!r} is not a smallvis model file ({why}); model files "
                         "are written by smallvis.save_model or `smallvis embed --save-model`")


def _starts_like_npy(file):
    """Whether ``file`` begins with the ``.npy`` magic string (a path or a seekable file)."""
    try:
        if isinstance(file, (str, os.PathLike)):
            with open(file, "rb") as fh:
                return fh.read(6) == b"\x93NUMPY"
        position = file.tell()
        try:
            return file.read(6) == b"\x93NUMPY"
        finally:
            file.seek(position)
    except (OSError, AttributeError, ValueError):
        return False


#: What reading a damaged zip archive can raise (zipfile and zlib do not
#: wrap their errors): a bad structure, a bad CRC, a truncated stream, an
#: unsupported or encrypted member, offsets out of range.
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError,
               RuntimeError, OverflowError, struct.error, UnicodeDecodeError)


class _Archive:
    """The members of a model file, read one at a time and only after checks.

    Parameters
    ----------
    zf : zipfile.ZipFile
    file : str, path or file
        For messages.
    """

    def __init__(self, zf, file):
        self.zf, self.file = zf, file
        self.size = zf.fp.seek(0, io.SEEK_END)
        self.members = {}
        for info in zf.infolist():
            name = info.filename
            if not name.endswith(".npy") or info.is_dir():
                self.fail(f"a member {name!r} that is not an .npy array")
            key = name[:-len(".npy")]
            if key in self.members:
                self.fail(f"the member {key!r} appears twice")
            self.members[key] = info

    def fail(self, why):
        _fail(self.file, why)

    def check_members(self, data, referenced):
        """Refuse a member the format does not define and a missing one, reading none."""
        expected = set(CORE_MEMBERS) | set(data) | set(referenced)
        unknown = sorted(set(self.members) - expected)
        if unknown:
            self.fail(f"unknown member(s) {', '.join(map(repr, unknown))}; the format has "
                      f"header, {', '.join(data)}, Y and the arrays its header references")
        missing = [key for key in (*CORE_MEMBERS, *data, *sorted(referenced))
                   if key not in self.members]
        if missing:
            self.fail(f"missing member(s) {', '.join(map(repr, missing))}")

    def layout(self, key):
        """``(shape, fortran_order, dtype, offset)`` from the member's ``.npy`` header.

        Checked against the zip directory: a stored or deflated, unencrypted
        member whose declared uncompressed size is exactly the array's, and
        that deflate could produce from its compressed size.  No data is read.
        """
        info = self.members[key]
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            self.fail(f"member {key!r}: compression method {info.compress_type}; model files "
                      "use stored or deflated members")
        if info.flag_bits & 0x1:
            self.fail(f"member {key!r} is encrypted")
        self._check_sizes(key, info)
        try:
            with self.zf.open(info) as fh:
                version = np.lib.format.read_magic(fh)
                if version == (1, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
                elif version == (2, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
                else:
                    raise ValueError(f"unsupported .npy version {version}")
                offset = fh.tell()
        except _ZIP_ERRORS + (SyntaxError,) as exc:
            self.fail(f"member {key!r} has no readable .npy header: {exc}")
        if any(size < 0 for size in shape):
            self.fail(f"member {key!r} declares a negative dimension in shape {shape}")
        if dtype.kind not in "biuf" or dtype.fields is not None or dtype.subdtype is not None:
            self.fail(f"member {key!r} has dtype {dtype}; model files hold plain numeric arrays")
        declared = offset + math.prod(shape) * dtype.itemsize
        if declared != info.file_size:
            self.fail(f"member {key!r} declares shape {shape} of {dtype} ({declared} bytes "
                      f"with its header) but holds {info.file_size} bytes")
        return shape, fortran, dtype, offset

    def _check_sizes(self, key, info):
        """The zip directory's sizes of a member: within the archive, and possible."""
        if info.compress_size > self.size:
            self.fail(f"member {key!r} claims {info.compress_size} bytes in a "
                      f"{self.size}-byte archive")
        if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
            self.fail(f"member {key!r} is stored uncompressed in {info.compress_size} bytes "
                      f"but declares {info.file_size}")
        if info.file_size > DEFLATE_MAX_RATIO * info.compress_size + 1024:
            self.fail(f"member {key!r} declares {info.file_size} bytes, more than deflate "
                      f"can expand its {info.compress_size} compressed bytes to")

    def read(self, key, layout):
        """The member's array, read in chunks into one allocation of the declared size."""
        shape, fortran, dtype, offset = layout
        data = np.empty(math.prod(shape), dtype=dtype)
        raw = data.view(np.uint8)
        try:
            with self.zf.open(self.members[key]) as fh:
                fh.read(offset)
                done = 0
                while done < raw.size:
                    chunk = fh.read(min(_READ_CHUNK, raw.size - done))
                    if not chunk:
                        raise EOFError(f"{raw.size - done} bytes missing")
                    raw[done:done + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
                    done += len(chunk)
                fh.read(1)  # at the end: zipfile checks the CRC
        except _ZIP_ERRORS as exc:
            self.fail(f"member {key!r} is damaged: {exc}")
        return data.reshape(shape, order="F" if fortran else "C")


def _check_keys(file, where, mapping, expected):
    """``mapping`` must be a dict with exactly the keys ``expected``."""
    if not isinstance(mapping, dict):
        _fail(file, f"header field {where} must be a dict; got {type(mapping).__name__}")
    missing = [k for k in expected if k not in mapping]
    if missing:
        _fail(file, f"header field {where} lacks {', '.join(map(repr, missing))}")
    unknown = [k for k in mapping if k not in expected]
    if unknown:
        _fail(file, f"header field {where} has unknown field(s) "
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
    _check_keys(archive.file, "(top level)", header, HEADER_FIELDS)
    if isinstance(header.get("reference"), dict):
        header["reference"] = {**OPTIONAL_REFERENCE_FIELDS, **header["reference"]}
    _check_keys(archive.file, "reference", header["reference"], REFERENCE_FIELDS)
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


def _array_keys(value, where, depth=0):
    """The array members a header value references (``{"__array__": key}`` forms)."""
    if depth > MAX_HEADER_DEPTH:
        raise ValueError(f"{where} is nested more than {MAX_HEADER_DEPTH} levels deep")
    if isinstance(value, list):
        return {k for i, v in enumerate(value) for k in _array_keys(v, where, depth + 1)}
    if not isinstance(value, dict):
        return set()
    if set(value) == {"__array__"}:
        key = value["__array__"]
        if not isinstance(key, str) or not key.startswith(ARRAY_PREFIXES):
            raise ValueError(f"{where} references the array {key!r}; arrays of parameters "
                             f"are members named {' or '.join(ARRAY_PREFIXES)}...")
        return {key}
    if set(value) == {"__dict__"} and isinstance(value["__dict__"], dict):
        items = value["__dict__"].values()
    elif set(value) in ({"__seq__"}, {"__seq__", "tuple"}) and isinstance(value["__seq__"], list):
        items = value["__seq__"]
    else:
        raise ValueError(f"{where} holds an unknown value form {sorted(value)}")
    return {k for v in items for k in _array_keys(v, where, depth + 1)}


def _decode(value, arrays):
    """A parameter value from its header form (checked by :func:`_array_keys`)."""
    if isinstance(value, list):  # not written by save_model; kept as given
        return [_decode(v, arrays) for v in value]
    if not isinstance(value, dict):
        return value
    if "__array__" in value:
        return arrays[value["__array__"]]
    if "__dict__" in value:
        return {k: _decode(v, arrays) for k, v in value["__dict__"].items()}
    items = [_decode(v, arrays) for v in value["__seq__"]]
    return tuple(items) if value.get("tuple") is True else items


def _referenced(file, header):
    """Every array member the header references."""
    keys = set()
    for where, value in [*((f"params.{k}", v) for k, v in header["params"].items()),
                         ("reference.affinity_params", header["reference"]["affinity_params"]),
                         ("reference.cost_params", header["reference"]["cost_params"]),
                         ("reference.projection", header["reference"]["projection"])]:
        try:
            keys |= _array_keys(value, where)
        except ValueError as exc:
            _fail(file, f"header field {exc}")
    return keys


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


def _check_regular_file(file):
    """A path must name a regular file: a device or a pipe could be read forever."""
    if not isinstance(file, (str, bytes, os.PathLike)):
        return  # a file object: the caller's
    try:
        mode = os.stat(file).st_mode
    except OSError as exc:
        _fail(file, f"cannot be read: {exc}")
    if not stat.S_ISREG(mode):
        _fail(file, "not a regular file (a directory, device, pipe or socket)")


def _read_model_file(file):
    """``(header, X, Y, arrays)`` of a model file, each member checked before it is read."""
    _check_regular_file(file)
    try:
        zf = zipfile.ZipFile(file)
    except _ZIP_ERRORS:
        if _starts_like_npy(file):
            _fail(file, "a single .npy array, not an .npz archive")
        _fail(file, "not a readable .npz archive: empty, truncated or another format")
    except OSError as exc:
        _fail(file, f"cannot be read: {exc}")
    try:
        with zf:
            archive = _Archive(zf, file)
            header = _read_header(archive)
            referenced = _referenced(file, header)
            archive.check_members(DATA_MEMBERS[header["reference"]["x_format"]], referenced)
            layouts = _check_layouts(archive, header, referenced)
            arrays = {key: archive.read(key, layout) for key, layout in layouts.items()}
    except ModelFileError:
        raise
    except _ZIP_ERRORS as exc:  # the directory itself unreadable
        _fail(file, f"a damaged archive: {exc}")
    except OSError as exc:
        _fail(file, f"cannot be read: {exc}")
    if header["reference"]["x_format"] == "csr":
        X = _checked(file, "X", _csr_data, *(arrays.pop(f"X:{part}")
                                             for part in ("indptr", "indices", "data")),
                     header["n_features_in"])
    else:
        X = arrays.pop("X").astype(np.float64, copy=False)
    Y = arrays.pop("Y").astype(np.float64, copy=False)
    return header, X, Y, arrays


def _checked(file, where, check, *args, **kwargs):
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
        _fail(file, f"header field {where}: {exc}")


def _check_data(X, Y):
    """The stored arrays: finite; the squared distances between rows of ``Y`` too.

    A sparse ``X`` was checked when it was read (:func:`_csr_data`).
    """
    if not sp.issparse(X):
        check_data(X, "X")
    check_coordinate_span(check_data(Y, "Y"), "Y")


def _check_verbose(verbose):
    if not isinstance(verbose, (bool, np.bool_)):
        raise TypeError(f"verbose must be True or False; got {verbose!r}")


def _check_estimator(model, n_samples):
    """Every constructor parameter, by the checks ``fit`` applies to ``n_samples`` points.

    The same functions as :func:`smallvis.embed` and its plan, called
    without fitting: the method, ``fast``, ``n_components``, ``n_threads``,
    ``random_state``, the optimizer's settings and the method's parameters
    (:func:`smallvis.plans.make_plan`), the affinity parameters against
    ``n_samples`` (the registry's ``check_affinity_params``), ``init`` and
    the transform's settings.
    """
    m = get_method(model._method_name())
    settings, method_params = model._embed_keywords()
    check_fast(settings["fast"])
    n_components = check_integer(settings["n_components"], "n_components", low=1)
    check_threads(settings["n_threads"])
    check_random_state(model.random_state)
    _check_verbose(settings["verbose"])
    plan = make_plan(
        m, n_samples, settings["optimizer"],
        method_keywords(m, settings["perplexity"], method_params),
        init=settings["init"], learning_rate=settings["learning_rate"],
        n_epochs=settings["n_epochs"], gradient=settings["gradient"],
        n_components=n_components, n_iter=settings["n_iter"],
        exaggeration=settings["exaggeration"], exaggeration_iter=settings["exaggeration_iter"],
        late_exaggeration=settings["late_exaggeration"],
        late_exaggeration_iter=settings["late_exaggeration_iter"],
        momentum=settings["momentum"], final_momentum=settings["final_momentum"],
        momentum_switch_iter=settings["momentum_switch_iter"], min_gain=settings["min_gain"],
        tol=settings["tol"], cost_every=settings["cost_every"])
    given = set(method_params) | ({"perplexity"} if settings["perplexity"] is not None
                                  else set())
    affinity = m.fit_sizes(plan.affinity_params, given=given, n_samples=n_samples)
    if m.check_affinity_params is not None:
        m.check_affinity_params(n_samples, **affinity)
    check_init(plan.init, n_samples, n_components)
    check_transform_settings(model.transform_n_iter, model.transform_learning_rate,
                             prefix="transform_")


def _check_row_scale(row_scale, method, n_samples):
    """``row_scale``: 1 for fuzzy memberships, else ``sum(P) / n_samples``.

    A normalised ``P`` sums to 1 (``asne``'s conditional one to
    ``n_samples``), so the value lies in ``[1 / n_samples, 1]`` up to
    rounding (:func:`smallvis.transform.build_reference`).
    """
    row_scale = check_number(row_scale, "row_scale", low=0, low_open=True)
    if method.fuzzy and row_scale != 1.0:
        raise ValueError(f"row_scale must be 1 for {method.name} (fuzzy memberships are "
                         f"not scaled); got {row_scale!r}")
    low = (1.0 - _ROW_SCALE_ROUNDING) / n_samples
    high = 1.0 + _ROW_SCALE_ROUNDING
    if not low <= row_scale <= high:
        raise ValueError(f"row_scale must be sum(P) / n_samples, in [1/{n_samples}, 1]; "
                         f"got {row_scale!r}")
    return row_scale


def _check_reference(file, r, model, X, Y, arrays, n_features):
    """The :class:`Reference` of the header's ``reference``, every field checked."""
    method = _checked(file, "reference.method", get_method, r["method"])
    if method.name != model._method_name():
        _fail(file, f"header field reference.method = {method.name!r}, but the estimator's "
                    f"method is {model._method_name()!r}")
    n = X.shape[0]
    optimizer = r["optimizer"]
    if optimizer not in ("exact", "sgd"):
        _fail(file, f"header field reference.optimizer must be 'exact' or 'sgd' (the one "
                    f"that ran); got {optimizer!r}")
    _checked(file, "reference.optimizer", choose_optimizer, method, optimizer, n)
    stored = [k for k in method.affinity_params if k not in UNSTORED_AFFINITY_PARAMS]
    affinity = _checked(file, "reference.affinity_params", _decode_params,
                        r["affinity_params"], stored, arrays)
    cost = _checked(file, "reference.cost_params", _decode_params, r["cost_params"],
                    list(method.cost_params), arrays)
    affinity, cost = _checked(file, "reference", method.split_params, {**affinity, **cost}, n)
    _checked(file, "reference.affinity_params", method.check_affinity_values, n, **affinity)
    if optimizer == "sgd":
        _checked(file, "reference.cost_params", method.sgd.kernel_params, **cost)
    affinity = {k: v for k, v in affinity.items() if k in stored}
    if is_graph(X, affinity.get("metric")):  # a fit made from a kNN graph: the graph
        _checked(file, "X", check_graph, X)
    elif sp.issparse(X) and affinity.get("metric") not in SPARSE_METRICS:
        _fail(file, f"header field reference.affinity_params: sparse X takes metric in "
                    f"{', '.join(map(repr, SPARSE_METRICS))} (or 'precomputed' for a kNN "
                    f"graph); got {affinity.get('metric')!r}")
    if sp.issparse(X) and affinity.get("metric") == "cosine":
        _checked(file, "X", prepare_sparse, X, "cosine")  # no all-zero row
    return Reference(
        method=method.name, X=X if sp.issparse(X) else np.ascontiguousarray(X),
        Y=np.ascontiguousarray(Y),
        affinity_params=affinity, cost_params=cost,
        row_scale=_checked(file, "reference.row_scale", _check_row_scale, r["row_scale"],
                           method, n),
        seed=_checked(file, "reference.seed", check_integer, r["seed"], "seed", low=0),
        fast=_checked(file, "reference.fast", check_fast, r["fast"]),
        optimizer=optimizer,
        projection=_checked(file, "reference.projection", _check_projection,
                            _decode(r["projection"], arrays), X.shape[1],
                            n_features))


#: Method parameters (affinity and cost) added after the first model files,
#: with the value that every earlier file ran with (a file without them loads
#: with it): the Euclidean metric, tsne's Cauchy kernel (``dof = 1``) and
#: largevis without an early phase (``early_gamma=None``, ``early_epochs=0``).
ADDED_METHOD_PARAMS = {"metric": "euclidean", "dof": 1.0, "early_gamma": None,
                       "early_epochs": 0}


def _check_projection(value, n_scores, n_features):
    """The stored ``pca=`` projection: None, or components (n_scores, n_features) and a mean."""
    if value is None:
        if n_scores != n_features:
            raise ValueError(f"X has {n_scores} columns but the model takes {n_features} "
                             "features, and there is no projection between them")
        return None
    if not (isinstance(value, dict) and set(value) == {"components", "mean"}):
        raise TypeError("must be None or a dict of components and mean")
    components, mean = value["components"], value["mean"]
    if not isinstance(components, np.ndarray) or components.shape != (n_scores, n_features):
        raise ValueError(f"components must have shape (X's {n_scores} columns, "
                         f"{n_features} features)")
    components = check_data(components.astype(np.float64), "components", min_rows=1)
    if mean is not None:
        if not isinstance(mean, np.ndarray) or mean.shape != (n_features,):
            raise ValueError(f"mean must be None or have shape ({n_features},)")
        mean = check_data(mean.astype(np.float64)[None, :], "mean", min_rows=1)[0]
    return Projection(components, mean)


def _decode_params(value, names, arrays):
    """A header's parameter dict (``{"__dict__": ...}``) with exactly the keys ``names``."""
    if not (isinstance(value, dict) and set(value) == {"__dict__"}
            and isinstance(value["__dict__"], dict)):
        raise TypeError(f"must be a dict of parameters; got {value!r}")
    params = value["__dict__"]
    # files written before a parameter existed ran with its default
    params = {**{k: v for k, v in ADDED_METHOD_PARAMS.items() if k in names}, **params}
    missing = [k for k in names if k not in params]
    unknown = [k for k in params if k not in names]
    if missing or unknown:
        raise KeyError(f"missing {missing or 'none'}, unknown {unknown or 'none'}; the "
                       f"method's are {', '.join(names)}")
    return {k: _decode(params[k], arrays) for k in names}


def _build_estimator(file, header, arrays):
    """The estimator of the header's class and parameters (not yet checked)."""
    classes = _classes()
    cls_name = header["class"]
    if not isinstance(cls_name, str) or cls_name not in classes:
        _fail(file, f"header field class = {cls_name!r}; expected one of "
                    f"{', '.join(classes)}")
    cls = classes[cls_name]
    # save_model refuses a callback, so none is stored
    names = [n for n in cls._get_param_names() if n != "callback"]
    params = header["params"]
    if isinstance(params, dict):  # a file from before a parameter existed: its default
        params = {**{k: v for k, v in ADDED_ESTIMATOR_PARAMS.items() if k in names},
                  **params}
    _check_keys(file, "params", params, names)
    return cls(**{k: _decode(v, arrays) for k, v in params.items()})


def _check_feature_names(names, n_features):
    if names is None:
        return None
    if not (isinstance(names, list) and len(names) == n_features
            and all(isinstance(c, str) for c in names)):
        raise ValueError(f"feature_names_in must be None or {n_features} strings, one per "
                         f"column of X; got {names!r}")
    return np.asarray(names, dtype=object)


def load_model(file):
    """Read an estimator written by :func:`save_model`.

    Nothing is trusted: the archive's members are checked against the
    format before any is read (only ``header``, ``X``, ``Y`` and the arrays
    the header references, each ``.npy`` header's dtype and shape against
    the member's size, which is read in bounded chunks; nothing is
    unpickled), and every header field by the rules that ``fit`` and
    :func:`smallvis.embed` apply, plus the consistency of the whole: ``Y``
    has ``n_components`` columns and as many rows as ``X``, ``X`` has
    ``n_features_in`` columns, the reference's parameters are exactly those
    of its method, the estimator's method is the reference's.

    Parameters
    ----------
    file : str, path or binary file

    Returns
    -------
    Embedding
        Fitted: ``embedding_``, ``n_features_in_``, ``reference_`` (and
        ``feature_names_in_`` if it was fitted with names); ``result_`` is None.

    Raises
    ------
    ModelFileError
        (a ``ValueError``) The file is not an ``.npz`` archive, is truncated
        or damaged, is not a smallvis model of a version this smallvis reads,
        or holds a field that fails its check; the message names the member
        or header field.
    """
    header, X, Y, arrays = _read_model_file(file)
    _checked(file, "X, Y", _check_data, X, Y)
    model = _build_estimator(file, header, arrays)
    _checked(file, "params", _check_estimator, model, X.shape[0])
    n_features = header["n_features_in"]  # X's columns unless a projection maps them
    reference = _check_reference(file, header["reference"], model, X, Y, arrays, n_features)
    names = _checked(file, "feature_names_in", _check_feature_names,
                     header["feature_names_in"], n_features)
    if names is not None:
        model.feature_names_in_ = names
    model.n_features_in_ = n_features
    model.embedding_ = reference.Y
    model.result_ = None
    model.reference_ = reference
    return model
