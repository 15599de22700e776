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
can hold, :data:`~smallvis.model_io.archive.DEFLATE_MAX_RATIO`), and checks
every header field by the rules :func:`smallvis.embed` applies, with the
consistency of the whole; any failure is a :class:`ModelFileError` naming the member or field.

Pickling an estimator also works (the Annoy index is dropped and rebuilt
from the stored data and seed), but unpickling runs code: load pickles only
from sources you trust.  Model files in this format are safe to open.

The modules, one job each: ``archive`` reads the zip archive member by
member, only after checking each member's declared size; ``encoding``
turns parameter values into their JSON form and back; ``schema`` checks
the file's structure (members, header fields, array layouts); ``rebuild``
checks every field's value and builds the estimator (:func:`load_model`);
``save`` writes a model (:func:`save_model`).
"""

from .archive import ModelFileError
from .encoding import FORMAT, VERSION
from .rebuild import load_model
from .save import save_model

__all__ = ["save_model", "load_model", "ModelFileError", "FORMAT", "VERSION"]
