"""basne's registry entry: asne's conditional P, each row's output Gaussian of its P's precision."""

import numbers

import numpy as np

from ..._validation import ParameterError
from ...families import (CONDITIONAL, PERPLEXITY_SIZE, conditional_affinities_and_bandwidths,
                         conditional_case)
from ...method_spec import FROM_INPUT, Method, conditional_auto_learning_rate
from .unit import BASNEUnit


def check_bandwidth(bandwidth):
    """``bandwidth``: ``"input"``, a positive finite number, or a 1-D array of them.

    The array's length (one per point) is checked where the points are known
    (:func:`smallvis.methods._common.row_bandwidths`).
    """
    if isinstance(bandwidth, str):
        if bandwidth != FROM_INPUT:
            raise ParameterError(f"bandwidth must be {FROM_INPUT!r}, a positive number or an "
                                 f"array of one per point; got {bandwidth!r}", ("bandwidth",))
        return bandwidth
    if isinstance(bandwidth, (bool, np.bool_)) or not isinstance(
            bandwidth, (numbers.Real, np.ndarray, list, tuple)):
        raise TypeError(f"bandwidth must be {FROM_INPUT!r}, a positive number or an array "
                        f"of one per point; got {bandwidth!r}")
    try:
        values = np.asarray(bandwidth, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"bandwidth must be a positive number or an array of them; got "
                        f"{bandwidth!r}") from None
    if values.ndim > 1 or not np.all(np.isfinite(values) & (values > 0.0)):
        raise ParameterError("bandwidth must be a finite positive number, or a 1-D array "
                             "of them (one per point)", ("bandwidth",))
    return float(values) if values.ndim == 0 else values


def resolve_cost(bandwidth=FROM_INPUT):
    """The kernel prefix and its argument: ``("basne", (bandwidth,))``.

    ``"input"`` (not yet taken from the calibration) is passed on as it is.
    """
    return "basne", (check_bandwidth(bandwidth),)


METHOD = Method(
    name="basne",
    summary="bandwidth asne: conditional Gaussian P and Q, each row's Q of its P's precision",
    prefix="basne",
    build_affinities=conditional_affinities_and_bandwidths,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"bandwidth": FROM_INPUT},
    resolve_cost=resolve_cost,
    input_params=("bandwidth",),
    symmetric=False,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=conditional_auto_learning_rate,
    p_family=CONDITIONAL,
    normalised_units={"basne": BASNEUnit},
    case_affinities=conditional_case("basne"),
    constant_term="entropy",
    factor_4_convention=False,
    examples=({"bandwidth": 0.5}, {"bandwidth": 1.0}, {"bandwidth": 2.0}),
)
