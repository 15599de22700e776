"""The output weight curve ``1 / (1 + a d^(2b))`` of the methods that share it.

Its ``a`` and ``b`` are given or fitted to ``spread`` and ``min_dist``
(McInnes, Healy & Melville 2018, arXiv:1802.03426); the methods whose cost
parameters hold them read them here, and so does the check of a finished
map for merged points (:mod:`smallvis.api`).
"""

from functools import lru_cache

from ._validation import ParameterError, check_number
from .inputs import affinities as aff


@lru_cache(maxsize=32)
def _fitted_ab(spread, min_dist):
    return aff.fit_curve_ab(spread, min_dist)


#: Largest exponent b accepted.  Fits give 0.79 to 1.93; d^(2b) with a
#: larger b overflows float64 already at moderate distances (b = 200:
#: d > 6), where the kernels' limits are not computed.
MAX_CURVE_B = 10.0


def output_curve(a=None, b=None, spread=1.0, min_dist=0.1):
    """The curve's ``(a, b)``: given directly, or fitted to ``spread`` and ``min_dist``.

    Fitted by :func:`smallvis.inputs.affinities.fit_curve_ab`: least squares of
    ``1 / (1 + a x^(2b))`` against 1 below ``min_dist`` and
    ``exp(-(x - min_dist) / spread)`` above.
    """
    if (a is None) != (b is None):
        raise ParameterError("give both a and b, or neither (then spread and min_dist set "
                             "them)", ("a", "b"))
    if a is not None:
        return (check_number(a, "a", low=0, low_open=True),
                check_number(b, "b", low=0, low_open=True, high=MAX_CURVE_B))
    spread = check_number(spread, "spread", low=0, low_open=True)
    min_dist = check_number(min_dist, "min_dist", low=0)
    if min_dist > spread:
        raise ParameterError(f"min_dist must be at most spread = {spread:g}; got {min_dist:g}",
                             ("min_dist", "spread"))
    return _fitted_ab(spread, min_dist)
