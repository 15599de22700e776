"""Loading a model file: the estimator and its training map rebuilt, every field checked.

:func:`load_model` takes the members and header that
:func:`smallvis.model_io.schema.read_model_file` has checked for
structure, and checks every field's value by the rules ``fit`` and
:func:`smallvis.embed` apply (the same functions, called without
fitting) before it builds the estimator and its
:class:`~smallvis.transform.TrainingMap`.
"""

import numpy as np
import scipy.sparse as sp

from ..backends._backend import check_fast
from .._validation import (check_coordinate_span, check_data, check_integer, check_number,
                           check_random_state, check_threads)
from ..estimator import METHOD_CLASSES, Embedding
from ..engines.init import check_init
from ..inputs.precomputed import check_graph, is_graph
from ..inputs.projection import Projection
from ..inputs.sparse_search import SPARSE_METRICS, prepare_sparse
from ..registry import get_method
from ..plans import make_plan, method_keywords
from ..engines.sgd import choose_optimizer
from ..transform import UNSTORED_AFFINITY_PARAMS, TrainingMap, check_transform_settings
from .encoding import decode
from .archive import fail
from .schema import check_keys, checked, read_model_file


#: Constructor parameters added since version 1 was defined, with the value
#: a file that lacks them was fitted with (their default then and now).
ADDED_ESTIMATOR_PARAMS = {"late_exaggeration": 1.0, "late_exaggeration_iter": None,
                          "pca": None}


#: Relative rounding allowed in ``row_scale`` (see :func:`_check_row_scale`).
_ROW_SCALE_ROUNDING = 1e-6


def _classes():
    return {"Embedding": Embedding, **{c.__name__: c for c in METHOD_CLASSES.values()}}


def _check_data(X, Y):
    """The stored arrays: finite; the squared distances between rows of ``Y`` too.

    A sparse ``X`` was checked when it was read
    (:func:`smallvis.model_io.schema.read_model_file`).
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
    """``row_scale`` as :func:`smallvis.transform.build_training_map` stores it.

    1 for fuzzy memberships, one over the distance unit for a stress, else
    ``sum(P) / n_samples``.

    A normalised ``P`` sums to 1 (``asne``'s conditional one to
    ``n_samples``), so the value lies in ``[1 / n_samples, 1]`` up to
    rounding (:func:`smallvis.transform.build_training_map`).  A stress
    of input distances stores one over their mean
    (:func:`smallvis.families.distance_unit`), which the data's units set:
    any positive normal number.
    """
    row_scale = check_number(row_scale, "row_scale", low=0, low_open=True)
    if method.p_family.units == "equivariant":
        if not np.finfo(np.float64).tiny <= row_scale < np.inf:
            raise ValueError(f"row_scale must be a positive normal number for "
                             f"{method.name}; got {row_scale!r}")
        return row_scale
    if method.fuzzy and row_scale != 1.0:
        raise ValueError(f"row_scale must be 1 for {method.name} (fuzzy memberships are "
                         f"not scaled); got {row_scale!r}")
    low = (1.0 - _ROW_SCALE_ROUNDING) / n_samples
    high = 1.0 + _ROW_SCALE_ROUNDING
    if not low <= row_scale <= high:
        raise ValueError(f"row_scale must be sum(P) / n_samples, in [1/{n_samples}, 1]; "
                         f"got {row_scale!r}")
    return row_scale


def _check_training_map(file, r, model, X, Y, arrays, n_features):
    """The :class:`TrainingMap` of the header's ``reference``, every field checked."""
    method = checked(file, "reference.method", get_method, r["method"])
    if method.name != model._method_name():
        fail(file, f"header field reference.method = {method.name!r}, but the estimator's "
                   f"method is {model._method_name()!r}")
    n = X.shape[0]
    optimizer = r["optimizer"]
    if optimizer not in ("exact", "sgd"):
        fail(file, f"header field reference.optimizer must be 'exact' or 'sgd' (the one "
                   f"that ran); got {optimizer!r}")
    checked(file, "reference.optimizer", choose_optimizer, method, optimizer, n)
    stored = [k for k in method.affinity_params if k not in UNSTORED_AFFINITY_PARAMS]
    affinity = checked(file, "reference.affinity_params", _decode_params,
                       r["affinity_params"], stored, arrays)
    cost = checked(file, "reference.cost_params", _decode_params, r["cost_params"],
                   list(method.cost_params), arrays)
    affinity, cost = checked(file, "reference", method.split_params, {**affinity, **cost}, n)
    checked(file, "reference.affinity_params", method.check_affinity_values, n, **affinity)
    if optimizer == "sgd":
        checked(file, "reference.cost_params", method.sgd.unit_params, **cost)
    affinity = {k: v for k, v in affinity.items() if k in stored}
    if is_graph(X, affinity.get("metric")):  # a fit made from a kNN graph: the graph
        checked(file, "X", check_graph, X)
    elif sp.issparse(X) and affinity.get("metric") not in SPARSE_METRICS:
        fail(file, f"header field reference.affinity_params: sparse X takes metric in "
                   f"{', '.join(map(repr, SPARSE_METRICS))} (or 'precomputed' for a kNN "
                   f"graph); got {affinity.get('metric')!r}")
    if sp.issparse(X) and affinity.get("metric") == "cosine":
        checked(file, "X", prepare_sparse, X, "cosine")  # no all-zero row
    return TrainingMap(
        method=method.name, X=X if sp.issparse(X) else np.ascontiguousarray(X),
        Y=np.ascontiguousarray(Y),
        affinity_params=affinity, cost_params=cost,
        row_scale=checked(file, "reference.row_scale", _check_row_scale, r["row_scale"],
                          method, n),
        seed=checked(file, "reference.seed", check_integer, r["seed"], "seed", low=0),
        fast=checked(file, "reference.fast", check_fast, r["fast"]),
        optimizer=optimizer,
        projection=checked(file, "reference.projection", _check_projection,
                           decode(r["projection"], arrays), X.shape[1],
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
    return {k: decode(params[k], arrays) for k in names}


def _build_estimator(file, header, arrays):
    """The estimator of the header's class and parameters (not yet checked)."""
    classes = _classes()
    cls_name = header["class"]
    if not isinstance(cls_name, str) or cls_name not in classes:
        fail(file, f"header field class = {cls_name!r}; expected one of "
                   f"{', '.join(classes)}")
    cls = classes[cls_name]
    # save_model refuses a callback, so none is stored
    names = [n for n in cls._get_param_names() if n != "callback"]
    params = header["params"]
    if isinstance(params, dict):  # a file from before a parameter existed: its default
        params = {**{k: v for k, v in ADDED_ESTIMATOR_PARAMS.items() if k in names},
                  **params}
    check_keys(file, "params", params, names)
    return cls(**{k: decode(v, arrays) for k, v in params.items()})


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
    ``n_features_in`` columns, the training map's parameters are exactly those
    of its method, the estimator's method is the training map's.

    Parameters
    ----------
    file : str, path or binary file

    Returns
    -------
    Embedding
        Fitted: ``embedding_``, ``n_features_in_``, ``training_map_`` (and
        ``feature_names_in_`` if it was fitted with names); ``result_`` is None.

    Raises
    ------
    FileNotFoundError
        No file of that name.
    ModelFileError
        (a ``ValueError``) The file is not an ``.npz`` archive, is truncated
        or damaged, is not a smallvis model of a version this smallvis reads,
        or holds a field that fails its check; the message names the member
        or header field.
    """
    header, X, Y, arrays = read_model_file(file)
    checked(file, "X, Y", _check_data, X, Y)
    model = _build_estimator(file, header, arrays)
    checked(file, "params", _check_estimator, model, X.shape[0])
    n_features = header["n_features_in"]  # X's columns unless a projection maps them
    # the header keeps the training map under its key "reference": a file format name
    training_map = _check_training_map(file, header["reference"], model, X, Y, arrays,
                                       n_features)
    names = checked(file, "feature_names_in", _check_feature_names,
                    header["feature_names_in"], n_features)
    if names is not None:
        model.feature_names_in_ = names
    model.n_features_in_ = n_features
    model.embedding_ = training_map.Y
    model.result_ = None
    model.training_map_ = training_map
    return model
