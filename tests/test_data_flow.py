"""The data flow down the pipeline once: the route of ``X`` through :func:`smallvis.embed`.

:func:`smallvis.embed` runs the stages in order (validate, project,
neighbours and ``P``, start, optimise), each taking what the one before it
produced.  These tests follow the data: a profiler records every call in
the package that receives ``X``, or an array the data stages derived from
it (the checked copy, the projection's scores), as an argument.

The *route* is the sequence of modules that the driver (the module that
defines :func:`smallvis.embed`) hands the data to, with the driver itself
where one of its own helpers receives them, repeats collapsed.  What a
stage does inside (a search calling its kernels) is its own affair and
not on the route; it is checked separately never to hand the data to a
module later in the pipeline than itself (a call back up the layers).

The layers are those of ``tests/test_imports.py`` (``LAYERS``), lowest
first, which read as the pipeline: along the route the layer never goes
down, and the route comes back to a module it has left at most
:data:`MAX_RETURNS` times.  Nothing here names a private function or a
line: only modules, the layers, and what the arrays are.
"""

import sys

import numpy as np
import pytest
import scipy.sparse as sp

import smallvis
from smallvis.registry import METHODS

from test_imports import LAYERS

PACKAGE = "smallvis"

#: Returns to a module already left that the route may make.
MAX_RETURNS = 2


def _short(module):
    """``smallvis.x.y`` -> ``x.y``; None outside the package."""
    if module == PACKAGE:
        return "__init__"
    if module.startswith(PACKAGE + "."):
        return module[len(PACKAGE) + 1:]
    return None


def layer(module):
    """The rank in ``LAYERS`` of a module (its own entry, else its subpackage's)."""
    for name in (module, module.split(".")[0]):
        for rank, members in enumerate(LAYERS):
            if name in members:
                return rank
    raise AssertionError(f"smallvis.{module} is in no layer of tests/test_imports.py::LAYERS")


#: Data stages: modules up to the layer of the projection.  What they return
#: from the data (a checked copy, the scores) is the data, passed on.
DATA_LAYER = layer("inputs.projection")


def _frame_module(frame):
    return _short(frame.f_globals.get("__name__", ""))


def _arguments(frame):
    """The values a call received: its parameters, one level into ``*args``/``**kwargs``."""
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    values = []
    local = frame.f_locals
    for name in code.co_varnames[:count]:
        value = local.get(name)
        values.append(value)
        if isinstance(value, (tuple, list)):
            values.extend(value)
        elif isinstance(value, dict):
            values.extend(value.values())
    return values


class DataRoute:
    """A profiler (``sys.setprofile``) that follows ``X`` and the data derived from it.

    Attributes
    ----------
    stops : list of str
        The route: modules the driver handed the data to (or the driver's
        own helpers that received them), repeats collapsed, starting with
        the driver.
    visits : list of str
        Every module that received the data, inside the stages too, repeats
        collapsed (for the record: a stage's inside is not on the route).
    climbs : list of str
        Calls that handed the data to a module later in the pipeline than
        the caller (``"caller -> callee"``).
    """

    def __init__(self, X, driver):
        self.n = X.shape[0]
        self.tracked = {id(X): X}
        self.driver = driver
        self.receivers = {}
        self.stops = []
        self.visits = []
        self.climbs = []

    def _is_data(self, value):
        return id(value) in self.tracked

    def _adopt(self, value):
        """Keep a data stage's result that is the data again: ``n`` rows of numbers."""
        for item in (value if isinstance(value, tuple) else (value,)):
            if (isinstance(item, np.ndarray) or sp.issparse(item)) and \
                    item.ndim == 2 and item.shape[0] == self.n and \
                    np.issubdtype(item.dtype, np.floating):
                self.tracked[id(item)] = item

    def _caller_module(self, frame):
        back = frame.f_back
        while back is not None:
            module = _frame_module(back)
            if module is not None:
                return module
            back = back.f_back
        return None

    def __call__(self, frame, event, arg):
        module = _frame_module(frame)
        if module is None:
            return
        if event == "call":
            if not any(self._is_data(v) for v in _arguments(frame)):
                return
            self.receivers[frame] = module
            if not self.visits or self.visits[-1] != module:
                self.visits.append(module)
            caller = self._caller_module(frame)
            if caller is None or module == self.driver:
                self._stop(module)
            elif caller == self.driver:
                self._stop(module)
            elif layer(module) > layer(caller):
                self.climbs.append(f"{caller} -> {module}")
        elif event == "return" and frame in self.receivers:
            if layer(self.receivers.pop(frame)) <= DATA_LAYER:
                self._adopt(arg)

    def _stop(self, module):
        if not self.stops or self.stops[-1] != module:
            self.stops.append(module)

    @property
    def returns(self):
        """Stops at a module the route had already left."""
        return [m for i, m in enumerate(self.stops) if m in self.stops[:i]]

    @property
    def descents(self):
        """Steps of the route (after the driver) to an earlier layer of the pipeline."""
        stages = self.stops[1:]
        return [f"{a} -> {b}" for a, b in zip(stages, stages[1:]) if layer(b) < layer(a)]


def trace_embed(X, **kwargs):
    """``(route, result)``: :func:`smallvis.embed` on ``X`` under a :class:`DataRoute`."""
    route = DataRoute(X, _short(smallvis.embed.__module__))
    previous = sys.getprofile()
    sys.setprofile(route)
    try:
        result = smallvis.embed(X, **kwargs)
    finally:
        sys.setprofile(previous)
    return route, result


def _blobs(n=60, d=6, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 6.0, size=(3, d))
    return centres[np.arange(n) % 3] + rng.normal(size=(n, d))


def _counts(n=60, d=40, seed=0):
    """Sparse non-negative data in three groups (each group has its own columns)."""
    rng = np.random.default_rng(seed)
    dense = rng.poisson(0.3, size=(n, d)).astype(float)
    for g in range(3):
        dense[np.arange(n) % 3 == g, g * 10:(g + 1) * 10] += rng.poisson(3.0, size=(n // 3, 10))
    return sp.csr_matrix(dense)


def _stochastic_methods():
    return [name for name, m in METHODS.items() if m.sgd is not None]


def _describe(route):
    return (f"route {' -> '.join(route.stops)}; returns {route.returns}; "
            f"steps back {route.descents}; climbs {route.climbs}")


def _check(route):
    assert route.stops and route.stops[0] == route.driver, _describe(route)
    assert not route.descents, _describe(route)
    assert len(route.returns) <= MAX_RETURNS, _describe(route)
    assert not route.climbs, _describe(route)


def _short_run(name, optimizer):
    return dict(method=name, optimizer=optimizer, fast=True, random_state=0, n_iter=5,
                n_epochs=3)


#: Every method with the exact optimizer, and with the stochastic one where it has it.
RUNS = [(name, "exact") for name in METHODS] + [(name, "sgd") for name in _stochastic_methods()]


@pytest.mark.parametrize("name,optimizer", RUNS)
def test_every_method_route_flows_down_once(name, optimizer):
    route, _ = trace_embed(_blobs(), **_short_run(name, optimizer))
    _check(route)


@pytest.mark.parametrize("inputs", [
    dict(pca=3),
    dict(init="pca"),
    dict(init="spectral"),
    dict(init=np.random.default_rng(1).normal(size=(60, 2))),
], ids=["pca", "init-pca", "init-spectral", "init-array"])
def test_dense_inputs_route_flows_down_once(inputs):
    name = _stochastic_methods()[0]
    route, _ = trace_embed(_blobs(), **_short_run(name, "sgd"), **inputs)
    _check(route)


@pytest.mark.parametrize("pca", [None, 4])
def test_sparse_route_flows_down_once(pca):
    name = _stochastic_methods()[0]
    route, _ = trace_embed(_counts(), **_short_run(name, "sgd"), metric="cosine", pca=pca)
    _check(route)


def test_precomputed_route_flows_down_once():
    from scipy.spatial.distance import cdist

    X = _blobs()
    D = cdist(X, X)
    name = _stochastic_methods()[0]
    route, _ = trace_embed(D, **_short_run(name, "sgd"), metric="precomputed")
    _check(route)
    graph = sp.csr_matrix(D)  # every pair a neighbour: enough for any method
    route, _ = trace_embed(graph, **_short_run(name, "sgd"), metric="precomputed")
    _check(route)


def test_route_sees_a_step_back_and_a_return():
    """The checks above can fail: a step to an earlier layer and a return are counted."""
    route = DataRoute(np.zeros((3, 2)), "api")
    for module in ("api", "inputs.projection", "registry", "engines.init", "api"):
        route._stop(module)
    assert route.descents == ["registry -> engines.init"]
    assert route.returns == ["api"]


class BuilderArguments:
    """A profiler that keeps the arrays each call of one function received, by identity."""

    def __init__(self, function):
        self.code = function.__code__
        self.received = []

    def __call__(self, frame, event, arg):
        if event == "call" and frame.f_code is self.code:
            self.received.extend(v for v in _arguments(frame)
                                 if isinstance(v, np.ndarray) or sp.issparse(v))


def _fit_watching_the_builder(model, X):
    """``model.fit(X)``, with the arrays that the method's ``P`` builder received."""
    watch = BuilderArguments(METHODS[model.method].build_affinities)
    previous = sys.getprofile()
    sys.setprofile(watch)
    try:
        model.fit(X)
    finally:
        sys.setprofile(previous)
    return watch.received


def test_estimator_hands_its_checked_data_on_unchecked_again():
    # sparse data: each check makes a canonical copy, so a second check
    # would hand P's builder another matrix than the one the model keeps
    name = _stochastic_methods()[0]
    model = smallvis.Embedding(name, optimizer="sgd", n_epochs=3, random_state=0,
                               method_params={"metric": "cosine"})
    received = _fit_watching_the_builder(model, _counts())
    assert any(array is model.training_map_.X for array in received)


@pytest.mark.parametrize("data", [_blobs, _counts], ids=["dense", "sparse"])
def test_transform_keeps_the_scores_the_fit_ran_on(data):
    # with pca= the neighbour search of the fit ran in the scores: the
    # reference for new points holds those, not the training data projected again
    name = _stochastic_methods()[0]
    model = smallvis.Embedding(name, optimizer="sgd", n_epochs=3, random_state=0, pca=4,
                               method_params={"metric": "cosine"})
    received = _fit_watching_the_builder(model, data())
    assert any(array is model.training_map_.X for array in received)
