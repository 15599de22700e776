"""scikit-learn style estimators: ``Embedding`` and one class per registered method.

>>> import smallvis
>>> X, labels = smallvis.datasets.load("iris")
>>> model = smallvis.Embedding("umap", random_state=0).fit(X[:120])
>>> Y_new = model.transform(X[120:])        # new points, the fitted map fixed

:class:`Embedding` follows scikit-learn's estimator contract (``__init__``
only stores its arguments; ``get_params``/``set_params``; ``fit`` returns
``self`` and sets attributes ending in ``_``; ``fit_transform``;
``transform`` after ``fit``; ``n_features_in_`` and ``feature_names_in_``)
without importing scikit-learn: ``import smallvis`` does not need it, and
:func:`sklearn.base.clone`, ``Pipeline`` and ``check_estimator`` work with it
when it is installed.  Every setting of :func:`smallvis.embed` is a
constructor parameter; method parameters go in ``method_params``.

The per-method classes (``smallvis.TSNE``, ``smallvis.UMAP``, ...) are
defined in :mod:`smallvis.estimators` on :class:`MethodEmbedding`: the same
parameters without ``method``.

``transform`` places new points with :mod:`smallvis.transform` (the method's
own affinity rule and cost, the fitted coordinates fixed).  A fitted
estimator pickles (the Annoy index of a large training set is rebuilt from
the stored data and seed, not pickled); :func:`smallvis.save_model` writes it
to a pickle-free ``.npz`` file.
"""

from collections.abc import Mapping
import inspect
import warnings

import numpy as np
import scipy.sparse as sp

from . import _progress
from .api import CheckedInput, embed
from .plans import EXACT_N_ITER
from .registry import DEFAULT_METHOD, METHODS, get_method
from .exceptions import NotFittedError
from .transform import (TRANSFORM_LEARNING_RATE, TRANSFORM_N_ITER, build_training_map,
                        check_new_points, check_transform_settings)
from .inputs.neighbors import check_fit_input
from ._validation import (ParameterError, SmallDataWarning, _as_array, check_data,
                          check_random_state, spell_options, warn_from_caller)

__all__ = ["Embedding", "MethodEmbedding", "NotFittedError", "method_estimator"]

#: Keywords of :func:`smallvis.embed` that are not constructor parameters (an
#: estimator keeps its ``result_``, P included: transform reads its scale).
_NOT_PARAMS = ("X", "method", "return_result", "keep_affinities", "method_params")


def _embed_defaults():
    sig = inspect.signature(embed)
    return {name: p.default for name, p in sig.parameters.items()
            if p.kind is p.KEYWORD_ONLY and name not in _NOT_PARAMS}


def _feature_names(X):
    """Column names of a DataFrame-like ``X`` (all strings), else None."""
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    names = np.asarray(list(columns), dtype=object)
    if names.size and all(isinstance(c, str) for c in names):
        return names
    return None


def _check_array(X):
    """``X`` as an array, with the checks whose wording scikit-learn's tests expect."""
    if sp.issparse(X):
        return X  # checked by check_fit_input
    arr = _as_array(X, "X")
    if np.iscomplexobj(arr):
        raise ValueError("Complex data not supported: X must be real-valued")
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise ValueError(f"0 feature(s) (shape={arr.shape}) while a minimum of 1 is "
                         "required.")
    return arr


class Embedding:
    """A neighbour embedding as a scikit-learn estimator.

    Parameters
    ----------
    method : str, default="tsne"
        A name from :func:`smallvis.list_methods`.
    n_components : int, default=2
    fast : bool, default=True
        Cython kernels (True) or the NumPy reference (False), as
        :func:`smallvis.embed`.
    optimizer, gradient, init, perplexity, n_iter, n_epochs, learning_rate,
    exaggeration, exaggeration_iter, late_exaggeration, late_exaggeration_iter,
    momentum, final_momentum,
    momentum_switch_iter, min_gain, tol, cost_every, random_state,
    n_threads, verbose, callback, pca
        As :func:`smallvis.embed` (same defaults); ``transform`` applies the
        fit's ``pca`` projection to new points, and with ``verbose``
        reports its stages (neighbours, calibration, optimisation) as the
        fit does.
    method_params : dict, optional
        The method's parameters (``smallvis.METHODS[method]``), e.g.
        ``{"n_neighbors": 30, "min_dist": 0.3}`` for umap.
    transform_n_iter : int, default=100
        Iterations of :meth:`transform`'s optimisation, or epochs after a
        stochastic fit (0: each new point at the ``P``-weighted mean of its
        neighbours).
    transform_learning_rate : float, default=0.5
        :meth:`transform`'s step, relative to ``1 / sum_j p_sj`` per point;
        after a stochastic fit (``optimizer="sgd"``), the factor
        ``transform_learning_rate / 0.5`` on the method's own SGD rate.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
        The fitted coordinates.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names (a DataFrame).
    result_ : EmbedResult
        Everything the fit produced (``P``, costs, timings, learned scalars);
        None on a model loaded with :func:`smallvis.load_model`.
    training_map_ : smallvis.transform.TrainingMap
        What :meth:`transform` places new points against.
    reference_ : smallvis.transform.TrainingMap
        The old name of ``training_map_``, kept for compatibility: read
        only, the same object.
    """

    def __init__(self, method=DEFAULT_METHOD, *, n_components=2, fast=True, optimizer="auto",
                 gradient="auto", init=None, perplexity=None, n_iter=EXACT_N_ITER, n_epochs=None,
                 learning_rate=None, exaggeration=None, exaggeration_iter=250,
                 late_exaggeration=1.0, late_exaggeration_iter=None, momentum=0.5,
                 final_momentum=0.8, momentum_switch_iter=250, min_gain=0.01, tol=1e-7,
                 cost_every=50, random_state=None, n_threads=None, verbose=False, callback=None,
                 method_params=None, transform_n_iter=TRANSFORM_N_ITER,
                 transform_learning_rate=TRANSFORM_LEARNING_RATE, pca=None):
        self.method = method
        self.pca = pca
        self.n_components = n_components
        self.fast = fast
        self.optimizer = optimizer
        self.gradient = gradient
        self.init = init
        self.perplexity = perplexity
        self.n_iter = n_iter
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.exaggeration = exaggeration
        self.exaggeration_iter = exaggeration_iter
        self.late_exaggeration = late_exaggeration
        self.late_exaggeration_iter = late_exaggeration_iter
        self.momentum = momentum
        self.final_momentum = final_momentum
        self.momentum_switch_iter = momentum_switch_iter
        self.min_gain = min_gain
        self.tol = tol
        self.cost_every = cost_every
        self.random_state = random_state
        self.n_threads = n_threads
        self.verbose = verbose
        self.callback = callback
        self.method_params = method_params
        self.transform_n_iter = transform_n_iter
        self.transform_learning_rate = transform_learning_rate

    # ---- parameters (scikit-learn's protocol) ---------------------------

    @classmethod
    def _get_param_names(cls):
        sig = inspect.signature(cls.__init__)
        return sorted(p.name for p in sig.parameters.values()
                      if p.name != "self" and p.kind is not p.VAR_KEYWORD)

    def get_params(self, deep=True):
        """The constructor parameters and their current values."""
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params):
        """Set constructor parameters; returns ``self``.  Unknown names raise ``ValueError``."""
        valid = self._get_param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; "
                                 f"valid parameters: {', '.join(valid)}")
            setattr(self, name, value)
        return self

    def __repr__(self):
        defaults = {p.name: p.default
                    for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = []
        for name, value in self.get_params().items():
            default = defaults.get(name)
            same = value is default or (
                not isinstance(value, np.ndarray) and not isinstance(default, np.ndarray)
                and type(value) is type(default) and value == default)
            if not same:
                changed.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    def _method_name(self):
        return self.method

    # ---- scikit-learn tags (read only by scikit-learn) ------------------

    def __sklearn_tags__(self):
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    transformer_tags=TransformerTags(), input_tags=InputTags(sparse=True))

    @property
    def reference_(self):
        """The old name of ``training_map_``, kept for compatibility (read only)."""
        try:
            return self.__dict__["training_map_"]
        except KeyError:
            # AttributeError keeps hasattr(model, "reference_") False when unfitted
            raise AttributeError(f"{type(self).__name__!r} object has no attribute "
                                 "'reference_' (not fitted)") from None

    def __setstate__(self, state):
        # pickles of the previous version keep the training map under its old name
        state = dict(state)
        if "reference_" in state:
            state.setdefault("training_map_", state.pop("reference_"))
        self.__dict__.update(state)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "training_map_")

    # ---- fit -------------------------------------------------------------

    def _check_fit_data(self, X):
        if X is None:
            # smallvis.embed takes X=None beside knn= or affinities=; an
            # estimator keeps its training input for transform, so it needs one
            raise ValueError(
                "X is None: an estimator fits training data, which transform needs; to fit a "
                "kNN graph, pass it as X (a sparse matrix of distances) with "
                "method_params={'metric': 'precomputed'}, or call smallvis.embed(None, "
                "method, knn=...) for the coordinates alone")
        arr = _check_array(X)
        if arr.ndim == 2 and arr.shape[0] < 2:
            raise ValueError(f"n_samples = {arr.shape[0]}: an embedding needs at least 2 "
                             "samples (got one sample or none)")
        # the metric decides what X is: a kNN graph is checked as stored, before
        # any conversion could add a pair stored twice
        params = self.method_params
        metric = params.get("metric") if isinstance(params, Mapping) else None
        return check_fit_input(arr, metric, n_threads=self.n_threads)

    def _embed_keywords(self):
        """``(settings, method_params)``: the keywords ``fit`` gives :func:`smallvis.embed`.

        Every setting but ``random_state``; ``perplexity`` may come from
        ``method_params`` (not from both).
        """
        settings = {name: getattr(self, name) for name in _embed_defaults()
                    if name != "random_state"}
        method_params = dict(self.method_params or {})
        if "perplexity" in method_params:
            if settings["perplexity"] is not None:
                raise ValueError("perplexity is given twice: as a parameter and in "
                                 "method_params; give it once")
            settings["perplexity"] = method_params.pop("perplexity")
        return settings, method_params

    def fit(self, X, y=None):
        """Embed ``X``; returns ``self``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
            Accepted for compatibility with scikit-learn pipelines.

        Returns
        -------
        self
        """
        names = _feature_names(X)
        X = self._check_fit_data(X)  # the data first: NaN before any parameter
        method = get_method(self._method_name())
        check_transform_settings(self.transform_n_iter, self.transform_learning_rate,
                                 prefix="transform_")
        rng = check_random_state(self.random_state)
        if isinstance(self.random_state, (int, np.integer)) and not isinstance(
                self.random_state, bool):
            seed = int(self.random_state)
            fit_state = seed
        else:
            seed = int(rng.integers(2**31 - 1))
            fit_state = rng
        settings, method_params = self._embed_keywords()
        # the name as given: an alias maps its own parameters onto its target's
        result = self._embed_in_estimator_terms(CheckedInput(X), self._method_name(),
                                                random_state=fit_state,
                                                return_result=True, **settings,
                                                **method_params)
        return self._set_fitted(X, result, seed, names)

    def _option_text(self, keyword):
        """How the user sets ``keyword`` on this estimator."""
        if keyword in self._get_param_names():
            return f"{keyword}="
        return f"method_params={{{keyword!r}: ...}}"

    def _embed_in_estimator_terms(self, *args, **kwargs):
        """:func:`smallvis.embed`, its messages naming the estimator's parameters.

        ``pass n_neighbors= to ...`` becomes ``pass method_params={'n_neighbors':
        ...} to ...`` in a parameter error or a small-data warning; other
        warnings pass through unchanged.
        """
        caught = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                return embed(*args, **kwargs)
        except ParameterError as exc:
            raise ParameterError(spell_options(str(exc), exc.options, self._option_text),
                                 exc.options) from None
        finally:  # outside the recording, so that they reach the caller
            self._reissue(caught)

    def _reissue(self, caught):
        for w in caught:
            if isinstance(w.message, SmallDataWarning):
                text = spell_options(str(w.message), w.message.options, self._option_text)
                warn_from_caller(SmallDataWarning(text, w.message.options))
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno,
                                       source=w.source)

    def _set_fitted(self, X, result, seed, names=None):
        """Set the fitted state from training data and the ``EmbedResult`` of its fit."""
        Xf = X if sp.issparse(X) else np.ascontiguousarray(X, dtype=np.float64)
        training_map = build_training_map(result.method, Xf, result, seed=seed, fast=self.fast)
        # set the fitted state only once everything has succeeded
        self.__dict__.pop("feature_names_in_", None)
        if names is not None:
            self.feature_names_in_ = names
        self.n_features_in_ = Xf.shape[1]
        self.embedding_ = result.Y
        self.result_ = result
        self.training_map_ = training_map
        return self

    def fit_transform(self, X, y=None):
        """Fit ``X`` and return its coordinates (a copy of ``embedding_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
            Accepted for compatibility with scikit-learn pipelines.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        return self.fit(X, y).embedding_.copy()

    # ---- transform -------------------------------------------------------

    def _check_is_fitted(self, action="transform(X_new)"):
        """Raise :class:`NotFittedError` before ``action`` on an unfitted estimator."""
        if not hasattr(self, "training_map_"):
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet: call fit(X) "
                f"before {action}"
            )

    def _check_feature_names(self, X):
        names = _feature_names(X)
        fitted = getattr(self, "feature_names_in_", None)
        cls = type(self).__name__
        if fitted is None and names is not None:
            warnings.warn(f"X has feature names, but {cls} was fitted without feature names",
                          UserWarning, stacklevel=3)
        elif fitted is not None and names is None:
            warnings.warn(f"X does not have valid feature names, but {cls} was fitted with "
                          "feature names", UserWarning, stacklevel=3)
        elif fitted is not None and (len(names) != len(fitted) or np.any(names != fitted)):
            # scikit-learn's words first (its checks match them), then the fix
            reorder = ("\nThe same columns in another order: pass "
                       "X[model.feature_names_in_] to put them in the fitted order"
                       if sorted(map(str, names)) == sorted(map(str, fitted)) else "")
            raise ValueError(
                "The feature names should match those that were passed during fit.\n"
                f"Fitted: {list(fitted)}\nGot: {list(names)}{reorder}"
            )

    def transform(self, X):
        """Place new points into the fitted embedding (which does not move).

        Each new point is placed against the training points only: new points
        do not repel each other, so a point lands where it would if it came
        alone (theory §6).

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)
            Finite values, the training data's number of features.

        Returns
        -------
        ndarray of shape (n_new, n_components)

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        ValueError
            A fit made from a kNN graph (it has no data to place new points
            against); wrong number of features, NaN or infinite values, no
            rows, not 2-D.  The fitted state is unchanged.
        """
        self._check_is_fitted()
        self.training_map_.check_places_new_points()  # before any check of X
        progress = _progress.begin(bool(self.verbose))  # noqa: F841 (on while held)
        self._check_feature_names(X)
        arr = _check_array(X)
        if arr.ndim == 2 and arr.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {arr.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input"
            )
        X = check_new_points(arr, self.n_features_in_, name="X",
                             sparse=self.training_map_.takes_sparse())
        return self.training_map_.transform(X, n_iter=self.transform_n_iter,
                                         learning_rate=self.transform_learning_rate,
                                         n_threads=self.n_threads)


def fitted_from_result(X, result, *, seed, feature_names=None, **params):
    """A fitted :class:`Embedding` from a finished :func:`smallvis.embed` run.

    For callers that ran ``embed(X, ..., return_result=True)`` themselves
    (the command line): ``params`` are the constructor parameters the run
    used, ``seed`` seeds the transform's Annoy index, ``feature_names`` (the
    columns' names, e.g. a CSV header) become ``feature_names_in_``.
    """
    model = Embedding(result.method, **params)
    names = None if feature_names is None else np.asarray(
        [str(n) for n in feature_names], dtype=object)
    return model._set_fitted(X, result, int(seed), names)


def _unknown_arguments_message(class_name, unknown, method_param_names):
    """The TypeError text for constructor keywords ``unknown``.

    Method parameters (``metric``, ``n_neighbors``, ...) are not constructor
    parameters: the message shows the ``method_params`` spelling for them.
    """
    message = (f"{class_name}() got unexpected keyword argument(s) "
               f"{', '.join(sorted(unknown))}")
    movable = sorted(set(unknown) & method_param_names)
    if movable:
        spelled = ", ".join(f"{key!r}: ..." for key in movable)
        message += (f"; {', '.join(movable)} "
                    f"{'is a method parameter' if len(movable) == 1 else 'are method parameters'}"
                    f": pass method_params={{{spelled}}}")
    return message


def estimator_class_name(method):
    """The public name of the estimator class of the registered ``method``: upper case.

    The one rule that ties a class of :mod:`smallvis.estimators` to its
    registry entry, so that the class statement spells no method name as a
    string.
    """
    return method.upper()


#: The estimator class of each registered method, ``{method name: class}``;
#: :func:`method_estimator` fills it as :mod:`smallvis.estimators` defines
#: the classes.
METHOD_CLASSES = {}


class MethodEmbedding(Embedding):
    """:class:`Embedding` with ``method`` fixed by the class (``smallvis.TSNE``, ...).

    The base of the per-method classes of :mod:`smallvis.estimators`: the
    parameters of :class:`Embedding` but ``method``, which
    :func:`method_estimator` sets from the class's name.  A constructor
    keyword that is a method parameter (``metric``, ``n_neighbors``, ...)
    is refused with a ``TypeError`` that shows its ``method_params``
    spelling.
    """

    #: The registry name of the method, set by :func:`method_estimator`.
    _method = None

    def __init__(self, **params):
        defaults = _method_class_defaults()
        unknown = set(params) - set(defaults)
        if unknown:
            entry = METHODS[self._method]
            raise TypeError(_unknown_arguments_message(
                type(self).__name__, unknown,
                set(entry.affinity_params) | set(entry.cost_params)))
        for key, default in defaults.items():
            setattr(self, key, params.get(key, default))

    def _method_name(self):
        return self._method


def _method_class_defaults():
    """``{name: default}`` of :class:`Embedding`'s parameters but ``method``."""
    return {p.name: p.default
            for p in inspect.signature(MethodEmbedding.__init__).parameters.values()
            if p.name != "self"}


# Embedding's signature without ``method``, for scikit-learn's get_params,
# help() and the completions of an interactive session
MethodEmbedding.__init__.__signature__ = inspect.signature(Embedding.__init__).replace(
    parameters=[p for p in inspect.signature(Embedding.__init__).parameters.values()
                if p.name != "method"])


def method_estimator(cls):
    """Class decorator: bind ``cls`` to the registered method that its name spells.

    ``cls.__name__`` must be :func:`estimator_class_name` of a registry
    entry; the entry's one-line summary leads the docstring, and the class
    becomes that method's entry of :data:`METHOD_CLASSES`.

    Raises
    ------
    TypeError
        ``cls`` is not a subclass of :class:`MethodEmbedding`.
    ValueError
        No registered method has that class name, or the method has a class
        already.
    """
    if not (isinstance(cls, type) and issubclass(cls, MethodEmbedding)):
        raise TypeError(f"method_estimator: {cls!r} is not a subclass of MethodEmbedding")
    by_class_name = {estimator_class_name(name): name for name in METHODS}
    name = by_class_name.get(cls.__name__)
    if name is None:
        raise ValueError(f"method_estimator: no registered method has the estimator class "
                         f"name {cls.__name__!r}; the names are "
                         f"{', '.join(sorted(by_class_name))}")
    if name in METHOD_CLASSES:
        raise ValueError(f"method_estimator: the method {name!r} has a class already, "
                         f"{METHOD_CLASSES[name].__qualname__}")
    cls._method = name
    m = METHODS[name]
    params = ", ".join(f"``{k}={v!r}``" for k, v in {**m.affinity_params,
                                                       **m.cost_params}.items()) or "none"
    cls.__doc__ = (
        f"{m.summary}.\n\n    {inspect.cleandoc(cls.__doc__ or '')}\n\n"
        f"    The method's parameters (``method_params=``"
        + (", or ``perplexity=``" if "perplexity" in m.affinity_params else "")
        + f") and their defaults: {params}.  A default of None, here or in the signature "
        "(``learning_rate``, ``n_epochs``, ``exaggeration``, ...), is chosen for the data by "
        f"the method's own rule: :doc:`its page </_generated/methods/{name}>`.\n")
    METHOD_CLASSES[name] = cls
    return cls
