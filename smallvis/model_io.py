"""Saving and loading fitted estimators without pickle.

A model file is a NumPy ``.npz`` archive (:func:`numpy.savez`, read back
with ``allow_pickle=False``, so loading one runs no code):

``header``
    UTF-8 JSON as a ``uint8`` array: the format name and version, the
    estimator class, its constructor parameters, and the fitted settings
    that :mod:`smallvis.transform` needs (method, affinity and cost
    parameters with learned scalars, row scale, seed, backend).
``X``, ``Y``
    The training data and the fitted coordinates, float64.
``param:<name>``, ``param:<name>:<key>``
    Array-valued parameters (a user ``init`` array, arrays inside
    ``method_params``), referenced from the header.

Everything :meth:`Embedding.transform` reads is stored exactly (float64
arrays; JSON floats round-trip exactly), so a loaded model's ``transform``
is bit-identical to the original's with ``n_threads=1``.  The fit's
``EmbedResult`` (``P``, cost trace) is not stored: ``result_`` is None on a
loaded model.

Pickling an estimator also works (the Annoy index is dropped and rebuilt
from the stored data and seed), but unpickling runs code: load pickles only
from sources you trust.  Model files in this format are safe to open.
"""

import json
import os
import zipfile

import numpy as np

from ._outputs import write_output
from .estimator import METHOD_CLASSES, Embedding
from .transform import Reference

__all__ = ["save_model", "load_model", "ModelFileError", "FORMAT", "VERSION"]

#: Format name and version written into every header.
FORMAT = "smallvis-model"
VERSION = 1


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


def _decode(value, arrays):
    if isinstance(value, dict):
        if "__array__" in value:
            return arrays[value["__array__"]]
        if "__dict__" in value:
            return {k: _decode(v, arrays) for k, v in value["__dict__"].items()}
        if "__seq__" in value:
            items = [_decode(v, arrays) for v in value["__seq__"]]
            return tuple(items) if value.get("tuple") else items
        raise ModelFileError("model header holds an unknown value form")
    return value


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
    model._check_is_fitted()
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
        },
    }
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    _write_archive(file, header=blob, X=ref.X, Y=ref.Y, **arrays)


def _write_archive(file, **arrays):
    """``np.savez`` into ``file``, a binary file object or a path written as named
    (given a path, NumPy itself would add ``.npz`` and write in place)."""
    if isinstance(file, (str, os.PathLike)):
        write_output(file, lambda fh: np.savez(fh, **arrays), "file")
    else:
        np.savez(file, **arrays)


def _fail(file, why):
    name = file if isinstance(file, str) else getattr(file, "name", "the file")
    raise ModelFileError(f"{name!r} is not a smallvis model file ({why}); model files are "
                         "written by smallvis.save_model or `smallvis embed --save-model`")


def load_model(file):
    """Read an estimator written by :func:`save_model`.

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
        or damaged, or is not a smallvis model of a version this smallvis reads.
    """
    try:
        archive = np.load(file, allow_pickle=False)
        if not hasattr(archive, "files"):
            _fail(file, "a single .npy array, not an .npz archive")
        with archive:
            contents = {k: archive[k] for k in archive.files}
    except ModelFileError:
        raise
    except (ValueError, EOFError, zipfile.BadZipFile, KeyError):
        # (NumPy's own message may suggest allow_pickle: not for a model file)
        _fail(file, "not a readable .npz archive: empty, truncated or another format")
    except OSError as exc:
        _fail(file, f"cannot be read: {exc}")
    if "header" not in contents:
        _fail(file, "no header")
    try:
        header = json.loads(contents["header"].tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        _fail(file, f"unreadable header: {exc}")
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        _fail(file, "a different format")
    if header.get("version") != VERSION:
        _fail(file, f"format version {header.get('version')!r}; this smallvis reads "
                    f"version {VERSION}")
    try:
        cls = _classes()[header["class"]]
        arrays = {k: v for k, v in contents.items() if k not in ("header", "X", "Y")}
        params = {k: _decode(v, arrays) for k, v in header["params"].items()}
        r = header["reference"]
        X, Y = contents["X"], contents["Y"]
        n_features = int(header["n_features_in"])
        if X.dtype != np.float64 or Y.dtype != np.float64 or X.ndim != 2 or Y.ndim != 2 \
                or X.shape[0] != Y.shape[0] or X.shape[1] != n_features or X.shape[0] < 2:
            _fail(file, "inconsistent arrays")
        if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Y))):
            _fail(file, "non-finite data")
        reference = Reference(
            method=str(r["method"]), X=np.ascontiguousarray(X), Y=np.ascontiguousarray(Y),
            affinity_params=_decode(r["affinity_params"], arrays),
            cost_params=_decode(r["cost_params"], arrays),
            row_scale=float(r["row_scale"]), seed=int(r["seed"]), fast=bool(r["fast"]),
            optimizer=str(r["optimizer"]))
        model = cls(**params)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        _fail(file, f"damaged header: {type(exc).__name__}: {exc}")
    names = header.get("feature_names_in")
    if names is not None:
        model.feature_names_in_ = np.asarray(names, dtype=object)
    model.n_features_in_ = n_features
    model.embedding_ = reference.Y
    model.result_ = None
    model.reference_ = reference
    return model
