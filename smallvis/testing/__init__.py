"""Check your own implementation against smallvis's reference.

For people who write t-SNE, UMAP, LargeVis or NCVis somewhere else (NumPy,
JAX, PyTorch, C++, R, a GPU, a course assignment) and want to know that it
is right:

* :func:`check_gradient` / :func:`assert_gradient`: run your ``fn(P, Y) ->
  (cost, gradient)`` on a battery of cases, compare with the NumPy
  reference and with finite differences of your own cost, and say what is
  wrong (a factor, a sign, the attraction or the repulsion, a known mistake).
* :func:`check_affinities`: the same for your input affinities ``P`` from
  ``X`` (perplexity or smooth-kNN calibration within its tolerance).
* :func:`golden`: frozen cases for every method (X, P, Y, parameters, cost,
  gradient and where the numbers come from), installed with the package.
* :func:`assert_embeddings_close`: compare two embeddings up to translation,
  rotation and reflection (and scale on request).

See ``tutorials/06_check_your_own.ipynb`` and ``docs/stability.md``.
"""

from ._affinities import AffinityReport, check_affinities
from ._align import align_embedding, assert_embeddings_close
from ._cases import GradientCase, default_cases, make_case
from ._golden import golden, golden_methods
from ._gradient import assert_gradient, check_gradient
from ._report import CaseResult, GradientReport

__all__ = [
    "AffinityReport",
    "CaseResult",
    "GradientCase",
    "GradientReport",
    "align_embedding",
    "assert_embeddings_close",
    "assert_gradient",
    "check_affinities",
    "check_gradient",
    "default_cases",
    "golden",
    "golden_methods",
    "make_case",
]
