"""pstsne's registry entry: t-SNE's joint P, the held normaliser and its reset rule."""

import math

import numpy as np

from ...families import JOINT, PERPLEXITY_SIZE, joint_affinities, joint_case
from ...method_spec import LearnedRule, Method, unfloored_auto_learning_rate
from .unit import PSTSNEUnit


def starting_q(n_samples, **others):
    r"""R smallvis's start :math:`Z = N^2`: ``Q = 2 log N``."""
    return 2.0 * math.log(n_samples)


def reset_normaliser(objective, Y, learned):
    r"""R smallvis's reset, :math:`Z \leftarrow \sum_{i \ne j} w_{ij}`: the new ``Q = log Z``.

    The gradient kernel's derivative in :math:`Q` at the true ``P`` is
    :math:`\sum (p - q) = \sum p - e^{-Q} \sum w`, so
    :math:`\log \sum w = Q + \log(\sum p - \partial C / \partial Q)`: the
    sum comes from the twin kernels of the run's backend.
    """
    dq = objective.gradient(Y, learned, np.empty_like(Y))
    total_q = float(np.sum(objective.triplet[2])) - float(dq)
    return (float(learned[0]) + math.log(total_q),)


METHOD = Method(
    name="pstsne",
    summary="pseudo-separable t-SNE (R smallvis): t-SNE with its normaliser Z held, "
            "reset to sum w once per epoch",
    prefix="pstsne",
    build_affinities=joint_affinities,
    affinity_params={"perplexity": 30.0, "metric": "euclidean"},
    sized_params={"perplexity": PERPLEXITY_SIZE},
    cost_params={"Q": "auto"},
    auto_params={"Q": starting_q},
    learned=("Q",),
    learned_rule=LearnedRule(update=reset_normaliser,
                             summary="Z = sum of the output weights, every epoch"),
    # R smallvis's exaggeration (none): the start Z = N^2 already weakens
    # the repulsion for the first epoch
    optimizer_defaults={"learning_rate": "auto", "exaggeration": 1.0, "init": "spca"},
    auto_learning_rate=unfloored_auto_learning_rate,
    p_family=JOINT,
    pair_units={"pstsne": PSTSNEUnit},
    case_affinities=joint_case("ssne", "tsne"),
    constant_term="entropy",
    examples=({}, {"Q": 0.5}),
)
