"""Golden cases: frozen inputs and outputs of every method, installed with the package.

A method's golden case lives in its folder, ``smallvis/methods/<name>/``:
``golden.json`` (its parameters, cost and provenance) and ``golden.npz``
(its arrays: ``Y``, ``gradient`` and, when the case has a ``P`` of its own,
that ``P``).  The inputs several cases share (iris, the jittered iris and
R smallvis's ``P`` of them) are ``smallvis/testing/golden/inputs.npz``.  All
are package data.  For the six methods of the R package smallvis, ``X``,
``P`` and ``Y`` are R smallvis's own (the fixtures of
``tests/data/rsmallvis`` in the repository); the cost and gradient are
smallvis's exact reference at that ``P`` and ``Y`` and were checked
independently against R smallvis's reported cost, scikit-learn's t-SNE
gradient and finite differences (see ``checks`` in each case and
``docs/stability.md``).
"""

import json
from functools import lru_cache
from importlib import resources

import numpy as np
import scipy.sparse as sp

from .. import methods as _methods
from ..registry import get_method

__all__ = ["golden", "golden_methods"]

#: A case's files, in its method's folder.
CASE_FILES = ("golden.json", "golden.npz")

#: The shared inputs, in this package's folder ``golden/``.
INPUTS_FILE = "inputs.npz"


def case_package(method):
    """The package whose folder holds the golden case of ``method``: its method folder.

    The one map from a method to where its case lives; the golden script
    (``tests/data/golden/make_golden.py``) writes there through it too.  A
    registry entry's name is its folder's (the registry checks it on import).

    Parameters
    ----------
    method : str
        A name from :func:`smallvis.list_methods`.

    Returns
    -------
    str
        The dotted name, ``smallvis.methods.<name>``.
    """
    return f"{_methods.__name__}.{get_method(method).name}"


def _read_npz(resource):
    with resource.open("rb") as fh:
        with np.load(fh) as npz:
            return {k: npz[k] for k in npz.files}


@lru_cache(maxsize=1)
def _inputs():
    return _read_npz(resources.files(__package__) / "golden" / INPUTS_FILE)


@lru_cache(maxsize=None)
def _case(name):
    """``(record, arrays)`` of the case of the registered method ``name``, or None."""
    folder = resources.files(case_package(name))
    record_file, arrays_file = (folder / f for f in CASE_FILES)
    if not record_file.is_file():
        return None
    with record_file.open("r", encoding="utf-8") as fh:
        record = json.load(fh)
    return record, _read_npz(arrays_file)


def _matrix(case, arrays):
    """The case's ``P``: its own when its arrays hold it, else the shared input of its data.

    A case whose ``P`` is bit for bit another case's (two methods with the
    same affinities of the same data) names that case in ``P_case`` and
    reads the ``P`` from its arrays, so that the package ships it once.  A
    symmetric ``P`` with a zero diagonal is stored as its upper triangle
    (``{key}__upper``, row by row), half the bytes.
    """
    if case.get("P_case"):
        arrays = _case(case["P_case"])[1]
    key = case["P"]
    if not any(k in arrays for k in (key, f"{key}__data", f"{key}__upper")):
        arrays, key = _inputs(), f"{case['data']}__{key}"
    if key in arrays:
        return arrays[key].copy()
    if f"{key}__upper" in arrays:
        # a symmetric P with a zero diagonal, stored as its upper triangle
        upper = arrays[f"{key}__upper"]
        n = int(round((1 + np.sqrt(1 + 8 * len(upper))) / 2))
        P = np.zeros((n, n))
        P[np.triu_indices(n, 1)] = upper
        return P + P.T
    data, indices, indptr = (arrays[f"{key}__{part}"] for part in ("data", "indices", "indptr"))
    n = len(indptr) - 1
    return sp.csr_matrix((data, indices, indptr), shape=(n, n)).toarray()


def golden_methods():
    """Methods that have a golden case (all registered methods).

    Returns
    -------
    list of str
    """
    from ..api import list_methods

    return [m for m in list_methods() if _case(m) is not None]


def golden(method):
    """The golden case of ``method``: frozen inputs, cost, gradient and provenance.

    ``smallvis.cost_and_gradient(method, g["P"], g["Y"], **g["params"])``
    reproduces ``g["cost"]`` and ``g["gradient"]`` to 1e-10 relative, and
    ``smallvis.affinities(g["X"], method, **g["affinity_params"])`` reproduces
    ``g["P"]`` to about 1e-12 of its largest entry.  These numbers are frozen:
    a release that changes them says so in its changelog
    (``docs/stability.md``).

    Parameters
    ----------
    method : str
        A name from :func:`smallvis.list_methods`.

    Returns
    -------
    dict
        ``method``; ``X`` (ndarray (n, d), the data ``P`` comes from);
        ``P`` (dense ndarray (n, n)); ``Y`` (ndarray (n, 2)); ``params``
        (cost parameters, with ``a`` and ``b`` given explicitly; for ncvis
        including the learned ``Q``); ``affinity_params`` (parameters of
        :func:`smallvis.affinities` that give ``P`` from ``X``); ``cost``
        (float); ``gradient`` (ndarray (n, 2)); ``learned_gradient``
        (``{"Q": dcost/dQ}`` for ncvis, else empty); ``source`` (the
        programs and versions that produced the numbers); ``checks``
        (independent values they were compared with).  Arrays are fresh
        copies.

    Examples
    --------
    >>> import numpy as np, smallvis
    >>> from smallvis.testing import golden
    >>> g = golden("tsne")
    >>> cost, grad = smallvis.cost_and_gradient("tsne", g["P"], g["Y"], **g["params"])
    >>> bool(np.isclose(cost, g["cost"], rtol=1e-10))
    True
    """
    m = get_method(method)
    found = _case(m.name)
    if found is None:
        raise ValueError(f"no golden case for {m.name!r} (no smallvis/methods/{m.name}/"
                         f"{CASE_FILES[0]}); available: {', '.join(golden_methods())}")
    case, arrays = found
    return {
        "method": m.name,
        "X": _inputs()[f"{case['data']}__X"].copy(),
        "P": _matrix(case, arrays),
        "Y": arrays["Y"].copy(),
        "params": dict(case["params"]),
        "affinity_params": dict(case["affinity_params"]),
        "cost": float(case["cost"]),
        "gradient": arrays["gradient"].copy(),
        "learned_gradient": dict(case["learned_gradient"]),
        "source": case["source"],
        "checks": dict(case["checks"]),
    }
