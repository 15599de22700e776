"""Writing a fitted estimator as a model file (:func:`save_model`)."""

import io
import json
import os

import numpy as np
import scipy.sparse as sp

from .._outputs import write_output
from ..estimator import Embedding
from .encoding import FORMAT, VERSION, encode


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
    ref = model.training_map_
    arrays = {}
    params = {name: encode(value, f"param:{name}", arrays)
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
        # the training map; the key keeps its name so that files of every version
        # share one format
        "reference": {
            "method": ref.method,
            "affinity_params": encode(ref.affinity_params, "ref:affinity", arrays),
            "cost_params": encode(ref.cost_params, "ref:cost", arrays),
            "row_scale": float(ref.row_scale), "seed": int(ref.seed), "fast": bool(ref.fast),
            "optimizer": str(ref.optimizer),
            "projection": encode(None if ref.projection is None else {
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
