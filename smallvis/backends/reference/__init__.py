"""Readable, exact NumPy reference kernels.

Every public function here has a Cython twin of the same name and the same
``inspect.signature`` in :mod:`smallvis.backends._kernels`.  The twins are
interchangeable: :func:`smallvis.backends._backend.kernels` picks one module from the
``fast`` flag, and nothing else in the package branches on it.

The kernels are written in one module per job, and this package gathers
their public names (:data:`__all__`, the twin contract):

* :mod:`.calibration`: input affinities row by row (perplexity, smoothed kNN);
* :mod:`.neighbours`: kNN candidates, refinement and union, sparse distances;
* :mod:`.normalised`: the normalised-Q engine and the SNE family's kernels;
* :mod:`.infonce`: the expected InfoNCE loss, row by row;
* :mod:`.pairs`: the pair engine and the kernels of the pair methods;
* :mod:`.fft`: t-SNE with FFT-interpolated repulsion, and the grid's limits;
* :mod:`.transform`: new points against a fixed training map;
* :mod:`.products`: the spectral start's sparse product, whose twins
  agree bit for bit;
* :mod:`.strongest`: each row's strongest entries, the graph of the
  ``"name:K"`` graph inits;
* :mod:`.search_forest`: the projected search's forest, its trees and
  their queries, and the leaf order of the search's rows, whose twins
  agree bit for bit;
* :mod:`.second_input`: costs with a second per-pair input beside ``P``,
  whose two parts run on the engines above;
* :mod:`._helpers`: private array checks and dense helpers they share;
* the stochastic optimizer's twins, from :mod:`smallvis.backends._sgd_reference`.

Conventions shared by both twins
--------------------------------
* The input affinities ``P`` arrive as a CSR triplet ``(indptr, indices,
  data)`` of an ``N x N`` matrix with ``int64`` index arrays and ``float64``
  data.  Here the triplet is turned back into a dense matrix so that every
  formula reads like its derivation in ``docs/theory.md``.
* ``Y`` is a C-contiguous ``float64`` array of shape ``(N, n_components)``.
* Sums run over ordered pairs ``i != j``; costs keep their constant terms.
* ``*_gradient`` functions write into the caller's ``grad`` array and return
  ``None``; ``*_cost`` functions return a float.
* ``n_threads`` is accepted for signature parity and ignored here.

Each method's maths is written once, in its unit (``smallvis/methods/<name>/unit.py``:
its parameters, weight, pair coefficient, cost terms and SGD coefficients,
with the formulas); the engines here read it through the unit's hooks.  The
named kernels of the methods that have them (``umap_cost``,
``tsne_gradient``, ...) are thin wrappers that build the unit from their
arguments; negtsne, like any method added since, has none and runs on the
generic entry points (``pair_cost``, ``normalised_gradient``, ...).

The pair entry points check their arrays (``_check_pair_arrays``, which
the compiled twin calls too); for the other kernels the callers
(:mod:`smallvis.api`, :mod:`smallvis.plans`) validate shapes, dtypes and
index ranges first.
"""

import sys
import types

from ...methods._common import LOG_FLOOR  # noqa: F401  (importable here, beside the kernels)
from .._sgd_reference import (SGD_COEFFICIENTS, SGD_GROUPS, SGD_NOISES,  # noqa: F401
                              SGD_SCHEMES, alias_table, counter_randint, counter_random,
                              counter_uniform, sgd_coefficients, sgd_epochs,
                              sgd_group_coefficients)
from ._helpers import _check_pair_arrays, _squared_distances  # noqa: F401  (the compiled twin, tests)
from .calibration import CALIBRATION_BLOCK, perplexity_rows, smooth_knn_rows
from .neighbours import (knn_candidates, knn_refine, knn_union_count, knn_union_fill,
                         knn_union_forward, knn_union_merge, knn_union_reverse_count,
                         knn_union_reverse_fill, knn_reverse_lists,
                         UNION_DROPPED,
                         sparse_pair_sq_distances, sparse_row_dots, sparse_row_nearest)
from .normalised import (asne_cost, asne_gradient, normalised_cost, normalised_gradient,
                         ssne_cost, ssne_gradient, tsne_cost, tsne_dof_cost,
                         tsne_dof_gradient, tsne_gradient)
from .infonce import infonce_cost, infonce_gradient
from .pairs import (largevis_cost, largevis_exp_cost, largevis_exp_gradient, largevis_gradient,
                    ncvis_cost, ncvis_gradient, pair_cost, pair_gradient, tumap_cost,
                    tumap_gradient, umap_cost, umap_gradient)
from .second_input import (second_input_cost, second_input_gradient,
                           second_input_transform_cost, second_input_transform_gradient)
from .products import csr_matvec
from .strongest import row_strongest
from .search_forest import forest_query, forest_tree, leaf_order
from . import fft
from .fft import (FFTAccuracyWarning, _fft_box_width, _fft_exact_instead,  # noqa: F401
                  _fft_grid, tsne_dof_fft_cost, tsne_dof_fft_gradient,
                  tsne_fft_cost, tsne_fft_gradient)
from .transform import (asne_transform_cost, asne_transform_gradient, infonce_transform_cost,
                        infonce_transform_gradient, largevis_exp_transform_cost,
                        largevis_exp_transform_gradient, largevis_transform_cost,
                        largevis_transform_gradient, ncvis_transform_cost,
                        ncvis_transform_gradient, normalised_column_transform_cost,
                        normalised_column_transform_gradient, normalised_transform_cost,
                        normalised_transform_gradient, pair_transform_cost,
                        pair_transform_gradient, ssne_transform_cost, ssne_transform_gradient,
                        tsne_dof_transform_cost, tsne_dof_transform_gradient,
                        tsne_transform_cost, tsne_transform_gradient, tumap_transform_cost,
                        tumap_transform_gradient, umap_transform_cost, umap_transform_gradient)

#: Largest memory (bytes) the NumPy path may plan for: 2 GiB.  The reference
#: kernels build dense N x N matrices, so the wrappers in :mod:`smallvis.api`
#: refuse sizes whose estimate ``DENSE_ARRAYS * N**2 * 8`` exceeds this
#: (N above 4096) before allocating anything.  Raise it deliberately
#: (``smallvis.backends.reference.MAX_DENSE_BYTES = ...``) on a machine with more memory.
MAX_DENSE_BYTES = 2 * 1024**3

#: Dense N x N float64 arrays alive at the peak of an ``embed`` call on this
#: path (measured with tracemalloc: the dense P, its CSR copy and kernel
#: triplet, the exaggerated copy and up to 8 temporaries inside a kernel).
DENSE_ARRAYS = 16

#: The twin contract: every name here has a twin of the same name and
#: ``inspect.signature`` in :mod:`smallvis.backends._kernels`.
__all__ = [
    "perplexity_rows",
    "largevis_cost",
    "largevis_gradient",
    "largevis_exp_cost",
    "largevis_exp_gradient",
    "umap_cost",
    "umap_gradient",
    "tumap_cost",
    "tumap_gradient",
    "ncvis_cost",
    "ncvis_gradient",
    "pair_cost",
    "pair_gradient",
    "normalised_cost",
    "normalised_gradient",
    "smooth_knn_rows",
    "asne_cost",
    "asne_gradient",
    "ssne_cost",
    "ssne_gradient",
    "tsne_cost",
    "tsne_gradient",
    "tsne_dof_cost",
    "tsne_dof_gradient",
    "infonce_cost",
    "infonce_gradient",
    "alias_table",
    "counter_random",
    "counter_randint",
    "counter_uniform",
    "sgd_coefficients",
    "sgd_group_coefficients",
    "sgd_epochs",
    "csr_matvec",
    "row_strongest",
    "forest_tree",
    "forest_query",
    "leaf_order",
    "knn_refine",
    "knn_candidates",
    "knn_union_count",
    "knn_union_fill",
    "knn_union_forward",
    "knn_union_merge",
    "knn_union_reverse_count",
    "knn_union_reverse_fill",
    "knn_reverse_lists",
    "sparse_pair_sq_distances",
    "sparse_row_dots",
    "sparse_row_nearest",
    "tsne_fft_cost",
    "tsne_fft_gradient",
    "tsne_dof_fft_cost",
    "tsne_dof_fft_gradient",
    "normalised_transform_cost",
    "normalised_transform_gradient",
    "normalised_column_transform_cost",
    "normalised_column_transform_gradient",
    "asne_transform_cost",
    "asne_transform_gradient",
    "ssne_transform_cost",
    "ssne_transform_gradient",
    "tsne_transform_cost",
    "tsne_transform_gradient",
    "tsne_dof_transform_cost",
    "tsne_dof_transform_gradient",
    "infonce_transform_cost",
    "infonce_transform_gradient",
    "pair_transform_cost",
    "pair_transform_gradient",
    "largevis_transform_cost",
    "largevis_transform_gradient",
    "largevis_exp_transform_cost",
    "largevis_exp_transform_gradient",
    "umap_transform_cost",
    "umap_transform_gradient",
    "tumap_transform_cost",
    "tumap_transform_gradient",
    "ncvis_transform_cost",
    "ncvis_transform_gradient",
    "second_input_cost",
    "second_input_gradient",
    "second_input_transform_cost",
    "second_input_transform_gradient",
]


#: The limits of the FFT grid a user may change, by assignment on this
#: package (``smallvis.backends.reference.FFT_MAX_NODES = 2 ** 22``): the
#: ``FFT_*`` names of :mod:`.fft`, where they are defined and documented and
#: whose grid rule both twins call.
FFT_SETTINGS = tuple(name for name in vars(fft) if name.startswith("FFT_"))


def _setting_of(module, name):
    """A property that reads and assigns ``module.<name>``, the one copy the kernels read."""
    return property(lambda self: getattr(module, name),
                    lambda self, value: setattr(module, name, value),
                    doc=f"``{module.__name__}.{name}``, read and set from here.")


class _ReferencePackage(types.ModuleType):
    """This package's type: its FFT settings are views of the ones :mod:`.fft` reads.

    A copy of each setting here would let ``reference.FFT_MAX_NODES = ...``
    change a value that no kernel reads; a view keeps one value, set from
    either name.
    """

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(FFT_SETTINGS))


for _name in FFT_SETTINGS:
    setattr(_ReferencePackage, _name, _setting_of(fft, _name))
del _name
sys.modules[__name__].__class__ = _ReferencePackage
