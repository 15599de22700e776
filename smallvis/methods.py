"""The method registry: the only table of methods in the package.

``embed``, ``affinities``, ``cost_and_gradient``, the CLI, the docs and the
tests all read :data:`METHODS`.  Adding a method means adding its twin
kernels and one :class:`Method` entry here.
"""

import numbers
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping

from . import affinities as aff
from ._validation import check_number


@dataclass(frozen=True)
class Method:
    """One neighbour-embedding method.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"tsne"``.
    summary : str
        One line for ``list_methods`` and the CLI help.
    kernel : str
        Prefix of the twin kernels: ``<kernel>_cost`` and ``<kernel>_gradient``.
    build_affinities : callable
        ``build_affinities(X, kernels, **affinity_params) -> P``.
    affinity_params : mapping
        Affinity parameters and their defaults (e.g. ``perplexity``).
    cost_params : mapping
        Cost parameters and their defaults, passed to the kernels positionally
        after ``Y`` in this order.
    symmetric : bool
        Whether the cost requires a symmetric ``P``.
    optimizer_defaults : mapping
        Defaults for ``learning_rate`` and ``exaggeration`` of the exact
        optimizer.
    auto_learning_rate : callable
        ``auto_learning_rate(n_samples, exaggeration)``: the value of
        ``learning_rate="auto"``.
    """

    name: str
    summary: str
    kernel: str
    build_affinities: Callable
    affinity_params: Mapping = field(default_factory=dict)
    cost_params: Mapping = field(default_factory=dict)
    symmetric: bool = True
    optimizer_defaults: Mapping = field(default_factory=dict)
    auto_learning_rate: Callable = None

    def cost_function(self, kernels):
        """The ``<kernel>_cost`` function of a kernel module."""
        return getattr(kernels, f"{self.kernel}_cost")

    def gradient_function(self, kernels):
        """The ``<kernel>_gradient`` function of a kernel module."""
        return getattr(kernels, f"{self.kernel}_gradient")

    def split_params(self, params, n_samples):
        """Split user keywords into validated (affinity, cost) dicts.

        Unknown keywords raise ``ValueError`` naming the valid ones.
        """
        known = set(self.affinity_params) | set(self.cost_params)
        unknown = sorted(set(params) - known)
        if unknown:
            valid = ", ".join(sorted(known)) or "none"
            raise ValueError(
                f"unknown parameter(s) {', '.join(map(repr, unknown))} for method "
                f"{self.name!r}; valid method parameters: {valid}"
            )
        affinity = {k: check_param_value(k, params.get(k, v), v)
                    for k, v in self.affinity_params.items()}
        cost = {k: check_param_value(k, params.get(k, v), v)
                for k, v in self.cost_params.items()}
        if "perplexity" in affinity:
            affinity["perplexity"] = check_perplexity(affinity["perplexity"], n_samples)
        return affinity, cost


def check_param_value(name, value, default):
    """Generic check of a method parameter against the type of its default.

    A parameter whose default is a real number must be a finite real number
    (an integer if the default is one); the method-specific range checks
    (e.g. :func:`check_perplexity`) come on top.  Other defaults are not
    checked here.
    """
    if isinstance(default, numbers.Real) and not isinstance(default, bool):
        if value is default:
            return value
        return check_number(value, name, integer=isinstance(default, numbers.Integral))
    return value


def check_perplexity(perplexity, n_samples):
    """Perplexity must lie in ``[1, n_samples - 1]``."""
    if n_samples is None:
        return check_number(perplexity, "perplexity", low=1)
    if n_samples - 1 < 1:
        raise ValueError("perplexity needs at least 2 samples")
    if not isinstance(perplexity, bool) and isinstance(perplexity, (int, float)) \
            and perplexity > n_samples - 1:
        raise ValueError(
            f"perplexity must be at most n_samples - 1 = {n_samples - 1} for "
            f"{n_samples} samples; got {perplexity}"
        )
    return check_number(perplexity, "perplexity", low=1, high=n_samples - 1)


def joint_auto_learning_rate(n_samples, exaggeration):
    """``max(N / exaggeration / 4, 50)``: Belkina et al. (2019), as scikit-learn.

    For a ``P`` that sums to 1 and the true gradient (factor 4 included).
    """
    return max(n_samples / exaggeration / 4.0, 50.0)


def conditional_auto_learning_rate(n_samples, exaggeration):
    """The joint rule divided by N: a conditional ``P`` sums to N, not 1."""
    return joint_auto_learning_rate(n_samples, exaggeration) / n_samples


def _conditional(X, kernels, perplexity):
    return aff.conditional_perplexity(X, perplexity, kernels)[0]


def _joint(X, kernels, perplexity):
    return aff.joint_perplexity(X, perplexity, kernels)



METHODS = MappingProxyType({
    m.name: m
    for m in (
        Method(
            name="asne",
            summary="asymmetric SNE: conditional Gaussian P and Q, KL per row (seed 004)",
            kernel="asne",
            build_affinities=_conditional,
            affinity_params={"perplexity": 30.0},
            symmetric=False,
            optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0},
            auto_learning_rate=conditional_auto_learning_rate,
        ),
        Method(
            name="ssne",
            summary="symmetric SNE: joint Gaussian P and Q, KL(P||Q)",
            kernel="ssne",
            build_affinities=_joint,
            affinity_params={"perplexity": 30.0},
            optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0},
            auto_learning_rate=joint_auto_learning_rate,
        ),
        Method(
            name="tsne",
            summary="t-SNE: joint Gaussian P, Student-t (Cauchy) Q, KL(P||Q)",
            kernel="tsne",
            build_affinities=_joint,
            affinity_params={"perplexity": 30.0},
            optimizer_defaults={"learning_rate": "auto", "exaggeration": 12.0},
            auto_learning_rate=joint_auto_learning_rate,
        ),
    )
})


def get_method(name):
    """Return the registered :class:`Method` called ``name``."""
    if not isinstance(name, str):
        raise TypeError(f"method must be a string; got {name!r}")
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(
            f"unknown method {name!r}; available methods: {', '.join(METHODS)}"
        ) from None
