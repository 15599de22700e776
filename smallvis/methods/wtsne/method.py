"""wtsne's registry entry: the joint P and its degrees, the Cauchy Q weighted by them over all pairs."""

import numbers

import numpy as np

from ..._validation import ParameterError
from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities_and_degrees, joint_case
from ...method_spec import FROM_INPUT, Method, unfloored_auto_learning_rate
from .unit import WTSNEUnit


def check_importance(importance):
    """``importance``: ``"input"``, a positive finite number, or a 1-D array of them.

    The array's length (one per point) is checked where the points are known
    (:func:`smallvis.methods._common.pair_importances`).
    """
    why = f"importance must be {FROM_INPUT!r}, a positive number or an array of one per point"
    if isinstance(importance, str):
        if importance != FROM_INPUT:
            raise ParameterError(f"{why}; got {importance!r}", ("importance",))
        return importance
    if isinstance(importance, (bool, np.bool_)) or not isinstance(
            importance, (numbers.Real, np.ndarray, list, tuple)):
        raise TypeError(f"{why}; got {importance!r}")
    try:
        values = np.asarray(importance, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{why}; got {importance!r}") from None
    if values.ndim > 1 or not np.all(np.isfinite(values) & (values > 0.0)):
        raise ParameterError("importance must be a finite positive number, or a 1-D array "
                             "of them (one per point)", ("importance",))
    return float(values) if values.ndim == 0 else values


def resolve_cost(importance=FROM_INPUT):
    """The kernel prefix and its argument: ``("wtsne", (importance,))``.

    ``"input"`` left here (a ``P`` given as it is) stands for the degrees of
    the ``P`` the engine is given (:data:`smallvis.methods._common.DEGREES_OF_P`).
    """
    return "wtsne", (check_importance(importance),)


METHOD = Method(
    name="wtsne",
    summary="weighted t-SNE: joint Gaussian P, Cauchy Q times the degrees m_i m_j, KL(P||Q)",
    prefix="wtsne",
    build_affinities=joint_affinities_and_degrees,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"importance": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("importance",),
    pair_inputs=("importance",),
    # R smallvis's exaggeration (none), as btsne: under t-SNE's 12 the short
    # runs on small data spread within a few steps and the twins' runs part
    # (docs/experiments.md, 2026-12-02)
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=JOINT,
    normalised_units={"wtsne": WTSNEUnit},
    case_affinities=joint_case("ssne", "tsne"),
    constant_term="entropy",
    examples=({"importance": FROM_INPUT}, {"importance": 1.0}),
)
