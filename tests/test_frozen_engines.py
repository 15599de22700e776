"""Placing new points runs the fit's own engines, with the training rows frozen.

The exact engine (:func:`smallvis.engines.optim.optimize_exact`) with the placement
settings, and the stochastic engine (:func:`smallvis.engines.sgd.optimize_sgd`) on the
problem of :func:`smallvis.engines.sgd.prepare_frozen`, in both twins; and a guard
rail that ``transform.py`` keeps no optimisation loop of its own.
"""

import ast
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import smallvis
from smallvis.backends import _sgd_kernels
from smallvis.backends import reference
from smallvis.registry import METHODS
from smallvis.engines.optim import DivergenceError, OptimizerSettings, optimize_exact
from smallvis.engines.sgd import SgdSpec, optimize_sgd, prepare_frozen
from smallvis.transform import TrainingMap, build_training_map, neighbour_keys, placement_settings

from conftest import example_params, quadratic_problem

LONG = os.environ.get("SMALLVIS_LONG_TESTS", "0") not in ("", "0")
SGD_METHODS = [name for name, m in METHODS.items() if m.sgd is not None]
TRANSFORM_PY = Path(__file__).resolve().parents[1] / "smallvis" / "transform.py"


# ---- the exact engine's placement settings ------------------------------

def test_placement_settings_follow_the_rule_by_hand():
    """Per-row rate, clipped steps, no re-centring, momentum after a quarter."""
    target = np.array([[4.0, -1.0], [0.5, 2.0]])
    rates = np.array([0.5, 0.1])
    Y = np.zeros((2, 2))
    s = placement_settings(n_iter=4, max_step=0.6)
    trace = optimize_exact(Y, quadratic_problem(target)[0], None, s, row_learning_rate=rates)
    assert trace.n_iter == 4 and trace.costs == []  # the cost is never evaluated
    # the rule written out: gains +0.2 on a sign change (sign(0) = 0 differs
    # from any nonzero sign), x0.8 otherwise; momentum 0.5 for it <= 4 // 4
    y, update, gains = np.zeros((2, 2)), np.zeros((2, 2)), np.ones((2, 2))
    for it in range(1, 5):
        grad = y - target
        gains = np.where(np.sign(grad) == np.sign(update), gains * 0.8, gains + 0.2)
        mu = 0.5 if it <= 1 else 0.8
        update = np.clip(mu * update - rates[:, None] * gains * grad, -0.6, 0.6)
        y = y + update
    np.testing.assert_allclose(Y, y, rtol=1e-14, atol=1e-15)
    # not re-centred: the column means are not zero
    assert np.all(np.abs(Y.mean(axis=0)) > 0.1)


def test_placement_refuses_a_gradient_that_is_not_finite_at_once():
    calls = []

    def gradient(Y, learned, exaggerated, out):
        calls.append(1)
        out[...] = np.inf if len(calls) == 3 else 1.0

    with pytest.raises(DivergenceError) as info:
        optimize_exact(np.zeros((3, 2)), gradient, None, placement_settings(10, 1.0),
                       row_learning_rate=np.ones(3))
    assert info.value.iteration == 3
    assert "gradient is not finite" in info.value.reason
    assert len(calls) == 3  # no recovery, no further iteration


def test_placement_needs_one_learning_rate_per_row():
    with pytest.raises(ValueError, match="row_learning_rate"):
        optimize_exact(np.zeros((3, 2)), quadratic_problem(np.ones((3, 2)))[0], None,
                       placement_settings(2, 1.0), row_learning_rate=np.ones(2))


def test_the_fit_keeps_its_settings_by_default():
    """The placement switches default to the fit's behaviour (no clip, re-centred)."""
    s = OptimizerSettings(learning_rate=1.0)
    assert (s.max_step, s.recentre, s.check_collapse, s.check_gradient, s.recover,
            s.cost_every) == (None, True, True, False, True, 50)
    target = np.array([[4.0, -1.0], [0.5, 2.0]])
    Y = np.zeros((2, 2))
    optimize_exact(Y, quadratic_problem(target)[0], lambda Y, L: 0.0,
                   OptimizerSettings(learning_rate=0.1, n_iter=3, tol=0))
    np.testing.assert_allclose(Y.mean(axis=0), 0.0, atol=1e-15)  # re-centred


# ---- the stochastic engine, reference frozen ----------------------------

def _frozen_case(n_new, n_ref, k, seed, n_epochs=12):
    """A random placement problem: reference layout, new points, their rows of P."""
    rng = np.random.default_rng(seed)
    Y_train = rng.normal(size=(n_ref, 2)) * 3.0
    cols = np.sort(np.array([rng.choice(n_ref, k, replace=False) for _ in range(n_new)]),
                   axis=1)
    vals = rng.uniform(0.05, 1.0, size=(n_new, k))
    P = sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, n_new * k + 1, k)),
                      shape=(n_new, n_ref))
    start = Y_train[cols].mean(axis=1) + rng.normal(size=(n_new, 2)) * 0.1
    return P, np.ascontiguousarray(np.vstack([start, Y_train])), n_epochs


#: Coefficient parameters of each stochastic method (typical values).
_UNIT_PARAMS = {"umap": {"a": 1.58, "b": 0.9, "eps": 0.001},
                  "tumap": {"eps": 0.001},
                  "largevis": {"gamma": 1.0, "eps": 0.1},
                  "ncvis": {"a": 1.58, "b": 0.9, "n_negative": 5}}
#: A stochastic method without a hand-written row: its first registry
#: example's parameters, through its entry's own ``unit_params``.
_UNIT_PARAMS.update({name: m.sgd.unit_params(**example_params(name, 40)[0])
                       for name, m in METHODS.items()
                       if m.sgd is not None and name not in _UNIT_PARAMS})


def _run_frozen(name, P, layout, n_epochs, kernels, q=0.0):
    spec = METHODS[name].sgd
    n_new = P.shape[0]
    keys = neighbour_keys(P.indices.reshape(n_new, -1))
    problem = prepare_frozen(spec, P, n_epochs, _UNIT_PARAMS[name], keys, q=q)
    out = layout.copy()
    optimize_sgd(out, kernels, problem, 7, n_threads=1)
    return out


@pytest.mark.parametrize("name", SGD_METHODS)
def test_frozen_rows_never_move_and_the_twins_agree_bitwise(name):
    P, layout, n_epochs = _frozen_case(n_new=6, n_ref=40, k=5, seed=3)
    fast = _run_frozen(name, P, layout, n_epochs, _sgd_kernels)
    slow = _run_frozen(name, P, layout, n_epochs, reference)
    assert np.array_equal(fast[6:], layout[6:])  # the training points did not move
    assert np.array_equal(slow[6:], layout[6:])
    assert not np.array_equal(fast[:6], layout[:6])  # the new points did
    assert np.array_equal(fast, slow)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("name", SGD_METHODS)
def test_edges_too_weak_to_be_sampled_change_nothing(name):
    """An edge whose period exceeds the epochs is never due: dropped, silently.

    Row 0 gets a last entry 1e-320 times its largest (the period overflows
    to inf), row 1 one a hundredth of largest / n_epochs.  The placement is
    the one without those entries, bit for bit, and no warning is raised.
    """
    P, layout, n_epochs = _frozen_case(n_new=3, n_ref=40, k=4, seed=5)
    # two more training points, after every neighbour: the weak entries come
    # last in their rows, so the other entries keep their places (and keys)
    layout = np.vstack([layout, [[5.0, 5.0], [-5.0, 5.0]]])
    dense = np.hstack([P.toarray(), np.zeros((3, 2))])
    weak = dense.copy()
    weak[0, 40] = dense[0].max() * 1e-320
    weak[1, 41] = dense[1].max() / n_epochs / 100
    spec, keys = METHODS[name].sgd, np.array([3, 1, 4], dtype=np.int64)
    placed = []
    for matrix in (dense, weak):
        problem = prepare_frozen(spec, sp.csr_matrix(matrix), n_epochs,
                                 _UNIT_PARAMS[name], keys)
        out = layout.copy()
        optimize_sgd(out, _sgd_kernels, problem, 7, n_threads=1)
        placed.append(out)
    assert sp.csr_matrix(weak).nnz == P.nnz + 2
    assert np.array_equal(placed[0], placed[1])
    assert not np.array_equal(placed[0][:3], layout[:3])


@settings(max_examples=40 if LONG else 6, deadline=None, derandomize=True)
@given(name=st.sampled_from(SGD_METHODS), seed=st.integers(0, 2**16),
       cut=st.integers(1, 6))
def test_a_new_point_moves_as_it_would_alone(name, seed, cut):
    """A point's path depends on its own edges only: not on the batch around it."""
    P, layout, n_epochs = _frozen_case(n_new=7, n_ref=30, k=4, seed=seed)
    whole = _run_frozen(name, P, layout, n_epochs, _sgd_kernels)
    order = np.r_[cut:7, :cut]  # another batch: the points from cut on, then the rest
    part = _run_frozen(name, P[order[:4]], np.vstack([layout[order[:4]], layout[7:]]),
                       n_epochs, _sgd_kernels)
    assert np.array_equal(part[:4], whole[order[:4]])


def test_one_point_against_one_reference_point_by_hand():
    """tumap's Cauchy coefficients, clip 4, linear decay: the steps written out.

    With one reference point every negative is that point, so the run is
    deterministic: per epoch an attraction, then umap-learn's negatives
    (4 in the first epoch, where the first is due at 1/5, then 5).
    """
    spec = METHODS["tumap"].sgd
    P = sp.csr_matrix(np.array([[1.0]]))
    layout = np.array([[1.5, -0.5], [0.0, 0.0]])
    E = 3
    problem = prepare_frozen(spec, P, E, {}, np.array([11], dtype=np.int64))
    out = layout.copy()
    optimize_sgd(out, _sgd_kernels, problem, 0, n_threads=1)
    y, r = [1.5, -0.5], [0.0, 0.0]

    def move(c, alpha):
        for d in range(2):
            y[d] += alpha * max(-4.0, min(4.0, c * (y[d] - r[d])))

    for epoch, negatives in zip(range(E), (4, 5, 5)):
        alpha = 1.0 * (1.0 - epoch / E)
        move(-2.0 / (1.0 + (y[0] ** 2 + y[1] ** 2)), alpha)
        for _ in range(negatives):
            d2 = y[0] ** 2 + y[1] ** 2
            move(2.0 / (d2 * (1.0 + d2)), alpha)
    assert out[1].tolist() == [0.0, 0.0]
    np.testing.assert_allclose(out[0], y, rtol=1e-13)


def test_the_frozen_problem_reads_the_methods_spec():
    """Clip, learning rate and decay come from the registry's spec (ncvis: quadratic)."""
    spec = METHODS["ncvis"].sgd
    P, _, _ = _frozen_case(n_new=2, n_ref=10, k=3, seed=0)
    problem = prepare_frozen(spec, P, 4, {"a": 1.0, "b": 1.0}, np.array([1, 2]), q=0.3)
    assert problem.clip == spec.clip and problem.clip_after_step == spec.clip_after_step
    np.testing.assert_allclose(problem.alphas, spec.learning_rate
                               * (1.0 - (np.arange(4) / 4.0) ** 2))
    assert problem.q[0] == 0.3 and problem.q_learning_rate == 0.0
    assert problem.n_free == 2 and problem.noise == "reference"
    other = SgdSpec(coefficient="cauchy", scheme="alias", noise="degree",
                    n_epochs=lambda n: 5, unit_params=lambda **k: {}, clip=2.5,
                    learning_rate=0.25, min_learning_rate=0.5)
    problem = prepare_frozen(other, P, 4, {}, np.array([1, 2]))
    assert problem.clip == 2.5
    np.testing.assert_allclose(problem.alphas, [0.25, 0.1875, 0.125, 0.125])


@pytest.fixture(scope="module")
def small_tsne_reference():
    X, _ = smallvis.datasets.load("iris")
    result = smallvis.embed(X[:60], method="tsne", fast=True, random_state=1, n_iter=20,
                            perplexity=10, return_result=True)
    return build_training_map("tsne", X[:60], result, seed=1), X[60:63]


@pytest.mark.parametrize("scale", [1e200, 1e155])
def test_an_exact_placement_that_leaves_float64_is_refused(small_tsne_reference, scale):
    """The engine's checks (finite gradient, coordinate span) become a ValueError."""
    ref, X_new = small_tsne_reference
    wide = TrainingMap(method=ref.method, X=ref.X, Y=ref.Y * scale,
                     affinity_params=ref.affinity_params, cost_params=ref.cost_params,
                     row_scale=ref.row_scale, seed=ref.seed, optimizer="exact")
    with pytest.raises(ValueError, match="tsne transform: .* at iteration 1; .*too wide"):
        wide.transform(X_new, n_iter=5)


# ---- transform.py keeps no loop of its own ------------------------------

#: Names whose call inside a loop would be an optimisation loop.
_OPTIMISER_CALLS = ("gradient", "coefficient", "sgd_", "grad_fn", "counter_")


def _called_names(node):
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        func = call.func
        yield func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def test_transform_py_has_no_optimisation_loop_of_its_own():
    tree = ast.parse(TRANSFORM_PY.read_text())
    for loop in (n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While))):
        for name in _called_names(loop):
            assert not any(part in name for part in _OPTIMISER_CALLS), (
                f"transform.py line {loop.lineno}: a loop calls {name}")
    called = set(_called_names(tree))
    assert {"optimize_exact", "optimize_sgd", "prepare_frozen"} <= called
    # no step arithmetic of its own either: no gains, momentum or learning-rate decay
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert not names & {"gains", "update", "mu", "alpha"}
