"""Golden cases: frozen inputs and outputs of every method, installed with the package.

The files ``golden/golden.npz`` (arrays) and ``golden/golden.json``
(parameters, costs, provenance) are package data.  For the six methods of
the R package smallvis, ``X``, ``P`` and ``Y`` are R smallvis's own (the
fixtures of ``tests/data/rsmallvis`` in the repository); the cost and
gradient are smallvis's exact reference at that ``P`` and ``Y`` and were
checked independently against R smallvis's reported cost, scikit-learn's
t-SNE gradient and finite differences (see ``checks`` in each case and
``docs/stability.md``).
"""

import json
from functools import lru_cache
from importlib import resources

import numpy as np
import scipy.sparse as sp

from ..registry import get_method

__all__ = ["golden", "golden_methods"]


def _files():
    return resources.files(__package__) / "golden"


@lru_cache(maxsize=1)
def _load():
    root = _files()
    with (root / "golden.json").open("r", encoding="utf-8") as fh:
        meta = json.load(fh)
    with (root / "golden.npz").open("rb") as fh:
        with np.load(fh) as npz:
            arrays = {k: npz[k] for k in npz.files}
    return meta, arrays


def _matrix(arrays, key):
    if key in arrays:
        return arrays[key].copy()
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

    cases = _load()[0]["cases"]
    return [m for m in list_methods() if m in cases]


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
    meta, arrays = _load()
    if m.name not in meta["cases"]:
        raise ValueError(f"no golden case for {m.name!r}; available: {', '.join(meta['cases'])}")
    case = meta["cases"][m.name]
    data = case["data"]
    return {
        "method": m.name,
        "X": arrays[f"{data}__X"].copy(),
        "P": _matrix(arrays, f"{data}__{case['P']}"),
        "Y": arrays[f"{m.name}__Y"].copy(),
        "params": dict(case["params"]),
        "affinity_params": dict(case["affinity_params"]),
        "cost": float(case["cost"]),
        "gradient": arrays[f"{m.name}__gradient"].copy(),
        "learned_gradient": dict(case["learned_gradient"]),
        "source": case["source"],
        "checks": dict(case["checks"]),
    }
