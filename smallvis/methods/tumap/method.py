"""tumap's registry entry: umap's fuzzy graph and stochastic loop with ``a = b = 1``."""

from ...engines.sgd import SgdSpec
from ...families import FUZZY_GRAPH_SIZE, graph_case
from ...method_spec import Method, eps_smooths
from ..._validation import check_number
from ..umap.method import FUZZY_METHOD, SGD, SGD_GAMMA
from .unit import TUMAPUnit


def resolve_cost(eps):
    return "tumap", (check_number(eps, "eps", low=0),)


def sgd_params(eps):
    return {"gamma": SGD_GAMMA, "eps": check_number(eps, "eps", low=0)}


METHOD = Method(
    name="tumap",
    summary="t-UMAP: UMAP with a = b = 1 (Cauchy weights)",
    prefix="tumap",
    cost_params={"eps": 0.001},
    resolve_cost=resolve_cost,
    # umap's loop with a = b = 1, written as the Cauchy coefficient:
    # the same numbers as d^(2b) = exp(b log d^2) with b = 1, without
    # the exp and log
    sgd=SgdSpec(unit_params=sgd_params, **{**SGD, "coefficient": "cauchy"}),
    **FUZZY_METHOD,
    pair_units={TUMAPUnit.kernel: TUMAPUnit},
    exact_gradient=eps_smooths,
    case_affinities=graph_case("tumap", FUZZY_GRAPH_SIZE),
    known_mistakes=("repulsion_without_1_minus_v_cauchy",),
)
