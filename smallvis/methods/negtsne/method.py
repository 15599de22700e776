"""negtsne's registry entry: the kNN graph, ``z_bar="auto"`` and its stochastic form.

Neg-t-SNE (Damrich, Böhm, Hamprecht & Kobak 2023; docs/theory.md §3.10).
"""

from ...engines.sgd import SgdSpec
from ...families import (KNN_DEFAULTS, KNN_GRAPH, KNN_GRAPH_SIZE, check_knn_graph, graph_case,
                         knn_graph_affinities)
from ...method_spec import SGD_ANNOY_TREES, Method, unfloored_auto_learning_rate
from ..._validation import ParameterError, check_number
from ..umap.method import n_epochs
from .unit import NegTSNEUnit

#: ``z_bar="auto"``: the per-pair constant ``c = Z m / (N (N - 1))`` of
#: ``min(AUTO_NEIGHBOURS / (N - 1), 1)``.
AUTO_NEIGHBOURS = 50.0
#: Largest ``negative_sample_rate`` of Neg-t-SNE's stochastic form, where it
#: is a count of negatives drawn per positive sample (as NCVis's ``nu``).
SGD_MAX_NEGATIVES = 1000.0


def auto_z_bar(n_samples, negative_sample_rate=5.0, **cost_params):
    """``z_bar="auto"``: ``Z = min(50 N, N (N - 1)) / m``, i.e. ``c = min(50 / (N - 1), 1)``.

    The paper's normalisation ``Z`` (the model is ``q = phi / Z``) enters the
    cost through ``c = Z m / (N (N - 1))`` (docs/theory.md §3.10):
    ``c = 1`` (``Z = N (N - 1) / m``) is UMAP-like, smaller ``c`` adds
    repulsion.  ``c = 50 / (N - 1)`` (``Z = 10 N`` at ``m = 5``) gives the
    digits a 10-NN accuracy of 0.98, as umap and tsne; below 51 points it
    would ask for more attraction than UMAP's balance, under which a
    complete graph's pairs collapse, so it stops at ``c = 1``.
    """
    n = max(int(n_samples), 2)
    m = check_number(negative_sample_rate, "negative_sample_rate", low=0, low_open=True)
    return min(AUTO_NEIGHBOURS * n, n * (n - 1.0)) / m


def resolve_cost(z_bar, negative_sample_rate):
    z_bar = check_number(z_bar, "z_bar", low=0, low_open=True)
    m = check_number(negative_sample_rate, "negative_sample_rate", low=0, low_open=True)
    return "negtsne", (z_bar, m)


def sgd_params(z_bar, negative_sample_rate):
    """The unit's fields, and ``m`` negatives drawn per positive sample.

    The stochastic loop draws a whole number of negatives, and ``c = Z m xi``
    is built from ``m``: both are the same number only when ``m`` is whole,
    so a fractional ``m`` (which the exact cost takes as it is) is refused
    here rather than rounded in the loop and not in ``c``.
    """
    _, (z_bar, m) = resolve_cost(z_bar, negative_sample_rate)
    if not (m.is_integer() and 1 <= m <= SGD_MAX_NEGATIVES):
        raise ParameterError(
            f"negative_sample_rate of negtsne with optimizer='sgd' is the number of "
            f"negatives drawn per positive sample: a whole number in [1, "
            f"{SGD_MAX_NEGATIVES:g}]; got {negative_sample_rate!r} (the exact "
            f"optimizer takes any positive value)", ("negative_sample_rate",))
    return {"z_bar": z_bar, "m": m, "n_negative": m}


METHOD = Method(
    name="negtsne",
    summary="Neg-t-SNE: negative sampling with a fixed normalisation z_bar, Cauchy weights",
    prefix="negtsne",
    build_affinities=knn_graph_affinities,
    check_affinity_params=check_knn_graph,
    affinity_params={"n_neighbors": 15, **KNN_DEFAULTS},
    sized_params={"n_neighbors": KNN_GRAPH_SIZE},
    cost_params={"z_bar": "auto", "negative_sample_rate": 5.0},
    auto_params={"z_bar": auto_z_bar},
    resolve_cost=resolve_cost,
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    # every edge once per epoch, m uniform negatives that move (§3.10);
    # umap's epoch budget
    sgd=SgdSpec(coefficient="negtsne", scheme="every_edge", noise="uniform_others",
                n_epochs=n_epochs, unit_params=sgd_params,
                n_negative=5, clip=4.0, learning_rate=1.0, move_negatives=True,
                init="spectral", param_defaults={"n_trees": SGD_ANNOY_TREES}),
    pair_units={NegTSNEUnit.kernel: NegTSNEUnit},
    p_family=KNN_GRAPH,
    case_affinities=graph_case("negtsne", KNN_GRAPH_SIZE),
    factor_4_convention=False,
    # z_bar = 50 N / m at iris's N = 150 (the "auto" value) first: the golden case
    examples=({"z_bar": 1500.0}, {"z_bar": 2000.0, "negative_sample_rate": 2.0},
              {"z_bar": 10.0, "negative_sample_rate": 20.0}),
)
