"""smallvis: neighbour-embedding methods with an exact NumPy reference and a
Cython fast path that agree to rounding.

Quick start
-----------
>>> import smallvis
>>> X, labels = smallvis.datasets.load("iris")
>>> Y = smallvis.embed(X, method="tsne", fast=True, random_state=0)

See :func:`list_methods` for the methods and ``METHODS`` for their parameters.
"""

from . import datasets, metrics
from .api import EmbedResult, affinities, cost_and_gradient, embed, list_methods
from .methods import METHODS
from .optim import DivergenceError
from .plotting import plot, plot_costs, plot_every

__version__ = "0.1.0"

__all__ = [
    "METHODS",
    "DivergenceError",
    "EmbedResult",
    "affinities",
    "cost_and_gradient",
    "datasets",
    "embed",
    "list_methods",
    "metrics",
    "plot",
    "plot_costs",
    "plot_every",
]
