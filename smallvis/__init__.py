"""smallvis: neighbour-embedding methods with an exact NumPy reference and a
Cython fast path that agree to rounding.

Quick start
-----------
>>> import smallvis
>>> X, labels = smallvis.datasets.load("iris")
>>> Y = smallvis.embed(X, method="tsne", fast=True, random_state=0)

See :func:`list_methods` for the methods and ``METHODS`` for their parameters.
``smallvis.reference`` is the readable NumPy kernels (``fast=False``;
:mod:`smallvis.backends.reference`), formulas in their docstrings.
"""

import importlib as _importlib

from . import datasets, metrics
from .backends import reference
from .backends._backend import kernels
from .api import EmbedResult, affinities, cost_and_gradient, embed, list_methods
from .estimator import Embedding
from .estimator import METHOD_CLASSES as _METHOD_CLASSES
from .estimators import *  # noqa: F401,F403  (TSNE, UMAP, ...: its public names are the classes)
from .exceptions import NotFittedError
from .model_io import ModelFileError, load_model, save_model
from .registry import METHODS as _METHODS
from .engines.optim import DivergenceError
from ._validation import SmallDataWarning
from .plotting import plot, plot_costs, plot_every, save_plot
from .animation import Recorder, animate
from ._threads import default_threads

#: The module :mod:`smallvis.inputs.affinities` (perplexity calibration, UMAP and
#: NCVis graphs), under a name that the function ``smallvis.affinities`` does
#: not hide.
input_affinities = _importlib.import_module(".inputs.affinities", __name__)

#: Every method by name, read-only: its :class:`~smallvis.registry.Method`
#: entry (summary, parameters and their defaults, units, optimizers), which
#: every part of the package reads.
METHODS = _METHODS

__version__ = "0.1.0"

__all__ = [
    "METHODS",
    "DivergenceError",
    "EmbedResult",
    "Recorder",
    "Embedding",
    "ModelFileError",
    "NotFittedError",
    "SmallDataWarning",
    "affinities",
    "animate",
    "cost_and_gradient",
    "datasets",
    "default_threads",
    "embed",
    "input_affinities",
    "kernels",
    "list_methods",
    "load_model",
    "metrics",
    "plot",
    "plot_costs",
    "plot_every",
    "reference",
    "save_model",
    "save_plot",
]
__all__ += [_cls.__name__ for _cls in _METHOD_CLASSES.values()]


def __getattr__(name):
    """A missing name; a method's estimator asked for in another case is named."""
    # the classes are the methods' names in capitals (LARGEVIS, NCVIS,
    # TUMAP), which a reader of the papers writes LargeVis, NCVis, t-UMAP
    for method, cls in _METHOD_CLASSES.items():
        if name.lower() in (cls.__name__.lower(), method):
            raise AttributeError(f"module 'smallvis' has no attribute {name!r}; the estimator "
                                 f"of method {method!r} is smallvis.{cls.__name__}")
    raise AttributeError(f"module 'smallvis' has no attribute {name!r}")
