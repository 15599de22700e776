"""Progress from the first second: verbose runs announce every stage with its time."""

import io
import re
import time
import warnings

import numpy as np
import pytest

import smallvis
from conftest import perplexity_and_fuzzy_methods
from smallvis import _progress
from smallvis.backends._backend import kernels as select_kernels
from smallvis.inputs.affinities import joint_perplexity_knn
from smallvis.inputs.neighbors import knn_graph, nearest_neighbors


def _stage_lines(err):
    return [line for line in err.splitlines() if line.startswith("smallvis: ")]


def test_verbose_run_announces_each_stage_in_order(capsys):
    X, _ = smallvis.datasets.load("iris")
    smallvis.embed(X, "umap", knn_method="annoy", n_iter=50, random_state=0, verbose=True)
    lines = _stage_lines(capsys.readouterr().err)
    expected = [r"umap, 150 points, exact optimizer", r"kNN: annoy, 14 neighbours of 150",
                r"kNN: 10 trees built in \d+\.\d\ds", r"kNN: 150 queries in \d+\.\d\ds",
                r"kNN: refinement round 1 \(\d+ rows changed\) in \d+\.\d\ds",
                r"kNN: done in", r"calibration: UMAP bandwidths over 15 neighbours",
                r"calibration: done in", r"init: spca", r"init: done in",
                r"optimisation: exact optimizer", r"optimisation: done in"]
    position = 0
    for pattern in expected:  # in this order, other lines may come between
        while not re.search(pattern, lines[position]):
            position += 1
            assert position < len(lines), f"{pattern!r} missing or out of order:\n" + \
                "\n".join(lines)


def test_exact_knn_and_dense_calibration_announce_themselves(capsys):
    X, _ = smallvis.datasets.load("iris")
    smallvis.embed(X, "largevis", n_iter=5, verbose=True)
    smallvis.embed(X, "tsne", n_iter=5, verbose=True)
    err = capsys.readouterr().err
    assert "smallvis: kNN: exact, 149 neighbours of 150 points" in err
    assert "smallvis: calibration: perplexity 50 over 149 neighbours" in err
    assert "smallvis: calibration: perplexity 30 over all 150 points" in err


def test_quiet_by_default_and_after_a_verbose_run(capsys):
    X, _ = smallvis.datasets.load("iris")
    smallvis.embed(X, "umap", n_iter=5)
    assert capsys.readouterr().err == ""
    smallvis.embed(X, "umap", n_iter=5, verbose=True)
    capsys.readouterr()
    nearest_neighbors(X, 5, method="annoy", random_state=0)
    assert capsys.readouterr().err == ""
    with pytest.raises(ValueError):
        smallvis.embed(X, "umap", n_iter=-1, verbose=True)
    nearest_neighbors(X, 5, method="annoy", random_state=0)
    assert capsys.readouterr().err == ""


def test_stage_and_step_are_silent_unless_reporting(capsys):
    with _progress.stage("kNN", "x"):
        _progress.step("kNN", "y", 0.0)
    assert capsys.readouterr().err == ""
    with _progress.reporting():
        with _progress.stage("kNN", "x"):
            _progress.step("kNN", "y", 0.0)
    lines = _stage_lines(capsys.readouterr().err)
    assert lines[0] == "smallvis: kNN: x"
    assert re.fullmatch(r"smallvis: kNN: y in \d+\.\d\ds", lines[1])
    assert re.fullmatch(r"smallvis: kNN: done in \d+\.\d\ds", lines[2])


def test_warnings_still_point_at_the_caller():
    X = np.vstack([np.zeros((20, 2)), np.ones((20, 2)) * 50]) + \
        np.random.default_rng(0).normal(scale=0.1, size=(40, 2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        smallvis.embed(X, "umap", n_neighbors=5, init="spectral", n_iter=2, verbose=True)
    assert any(w.filename == __file__ for w in caught), [(w.filename, str(w.message))
                                                         for w in caught]


def test_slow_exact_iterations_get_a_heartbeat(capsys):
    """Between cost evaluations (every 50 iterations) a slow run still reports."""
    beat = _progress.Heartbeat(100, None, seconds=0.0)
    assert beat(1, None, None) is False
    beat(50, None, 1.0)  # a cost evaluation: the optimizer printed its own line
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and re.match(r"iter +1/100  elapsed +\d+\.\d\ds  ETA", lines[0])
    calls = []
    beat = _progress.Heartbeat(10, lambda *args: calls.append(args) or True, seconds=1e9)
    assert beat(3, "Y", None) is True and calls == [(3, "Y", None)]
    assert capsys.readouterr().err == ""


def test_verbose_exact_run_is_the_same_run():
    X, _ = smallvis.datasets.load("iris")
    runs = [smallvis.embed(X, "tsne", n_iter=60, random_state=2, verbose=verbose)
            for verbose in (False, True)]
    np.testing.assert_array_equal(runs[0], runs[1])


STOCHASTIC = [name for name, m in smallvis.METHODS.items() if m.sgd is not None]


@pytest.mark.parametrize("method", STOCHASTIC)
@pytest.mark.parametrize("fast", [False, True])
def test_verbose_stochastic_run_prints_estimates_and_is_the_same_run(method, fast, capsys):
    # the epoch lines estimate the cost with the learned scalars the method
    # has (NCVis's Q; none for the others): a verbose run must neither fail
    # nor move a bit of the map (on 20 points of each iris species: the
    # NumPy loop runs each edge in Python)
    X, _ = smallvis.datasets.load("iris")
    X = X[np.argsort(np.arange(len(X)) % 50, kind="stable")[:60]]
    runs = [smallvis.embed(X, method, optimizer="sgd", n_epochs=4, fast=fast,
                           random_state=3, verbose=verbose)
            for verbose in (False, True)]
    lines = [line for line in capsys.readouterr().err.splitlines() if "est. cost" in line]
    assert lines and all(np.isfinite(float(line.split("est. cost")[1].split()[0]))
                         for line in lines)
    np.testing.assert_array_equal(runs[0], runs[1])


def test_verbose_stochastic_run_calls_the_kernel_once_per_line(monkeypatch, capsys):
    # every kernel call reads all edges to set up (about 2 ms at 70,000
    # points, 150 neighbours): the epoch lines need no call per epoch, only
    # one per line (and one more where largevis's early phase ends inside a
    # line's epochs: here at 6 of 40); a user's callback still gets every epoch
    from smallvis.engines import sgd as sgd_engine
    calls = []
    original = sgd_engine.optimize_sgd

    def counting(Y, kernels, prob, seed, **kw):
        class Counted:
            def __getattr__(self, name):
                return getattr(kernels, name)

            def sgd_epochs(self, *args):
                calls.append(args[3:5])
                return kernels.sgd_epochs(*args)
        return original(Y, Counted(), prob, seed, **kw)

    monkeypatch.setattr(sgd_engine, "optimize_sgd", counting)
    X, _ = smallvis.datasets.load("iris")
    quiet = smallvis.embed(X, "largevis", optimizer="sgd", n_epochs=40, fast=True,
                           random_state=1, early_epochs=6)
    calls.clear()
    loud = smallvis.embed(X, "largevis", optimizer="sgd", n_epochs=40, fast=True,
                          random_state=1, verbose=True, early_epochs=6)
    lines = [line for line in capsys.readouterr().err.splitlines() if "est. cost" in line]
    blocks = [(0, 4), (4, 6), (6, 8)] + [(e, e + 4) for e in range(8, 40, 4)]
    assert len(lines) == 10 and calls == blocks
    np.testing.assert_array_equal(quiet, loud)
    calls.clear()
    seen = []
    smallvis.embed(X, "largevis", optimizer="sgd", n_epochs=40, fast=True, random_state=1,
                   verbose=True,
                   callback=lambda epoch, Y, cost: seen.append(epoch))
    assert seen == list(range(1, 41)) and len(calls) == 40
    with pytest.raises(ValueError, match="callback_every"):
        original(np.zeros((3, 2)), None, None, 0, callback_every=0)


# ---- progress inside long stages ---------------------------------------------

class _FakeClock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_counter_prints_when_due_with_counts_and_eta():
    clock, out = _FakeClock(), io.StringIO()
    with _progress.reporting(stream=out):
        progress = _progress.counter("kNN", "queries", 70_000, clock=clock)
    for seconds, rows in [(1.0, 10_000), (2.5, 10_000), (3.0, 3_000), (4.4, 1_000),
                          (5.0, 11_000), (6.5, 35_000)]:
        clock.now = 100.0 + seconds
        progress.advance(rows)
    # a line is due 1.25 s after the last one (2 s minus the slack a chunk of
    # work needs): at 2.5 s, 4.4 s and 6.5 s; the ETA is at the mean rate
    assert out.getvalue().splitlines() == [
        "smallvis: kNN: queries 20,000/70,000 (28%), 2.5s, ETA 6.2s",
        "smallvis: kNN: queries 24,000/70,000 (34%), 4.4s, ETA 8.4s",
        "smallvis: kNN: queries 70,000/70,000 (100%), 6.5s, ETA 0.0s"]


def test_counter_spans_cover_the_rows_and_adapt_to_the_rate():
    clock, out = _FakeClock(), io.StringIO()
    with _progress.reporting(stream=out):
        progress = _progress.counter("calibration", "rows", 50_000, clock=clock)
    spans = []
    for start, stop in progress.spans(first=4096, multiple=4096):
        spans.append((start, stop))
        clock.now += (stop - start) * 1e-4  # 0.41 s per 4096 rows
    assert spans[0] == (0, 4096) and spans[-1][1] == 50_000
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert all((stop - start) % 4096 == 0 for start, stop in spans[:-1])
    lines = out.getvalue().splitlines()  # 0.41 s chunks, 5 s: due at 1.64, 3.28, 4.92 s
    assert [line.split(", ")[1] for line in lines] == ["1.6s", "3.3s", "4.9s"]
    assert lines[0].startswith("smallvis: calibration: rows 16,384/50,000 (32%)")
    assert progress.done == 50_000


def test_counter_spans_stay_few_when_each_call_has_a_fixed_cost():
    # a call that takes a second whatever its span (a kernel's setup over
    # every point): the spans shrink to no fewer rows than a 32nd of the pass
    clock = _FakeClock()
    with _progress.reporting(stream=io.StringIO()):
        progress = _progress.counter("kNN", "rows", 1_000_000, clock=clock)
    spans = []
    for start, stop in progress.spans(first=1024, multiple=8):
        spans.append((start, stop))
        clock.now += 1.0
    assert spans[-1][1] == 1_000_000 and len(spans) <= _progress._MOST_SPANS
    assert all(stop - start >= 1_000_000 // _progress._MOST_SPANS for start, stop in spans[:-1])
    assert all((stop - start) % 8 == 0 for start, stop in spans[:-1])


def test_counter_and_ticking_are_silent_unless_reporting(capsys):
    progress = _progress.counter("kNN", "queries", 5000, seconds=0.0)
    progress.advance(5000)
    assert list(progress.spans(first=10)) == [(0, 5000)]  # one call, as unreported
    with _progress.ticking("kNN", "building", estimate=1.0, seconds=0.01):
        time.sleep(0.05)
    assert capsys.readouterr().err == ""


def test_ticking_reports_a_long_call_from_a_background_thread():
    out = io.StringIO()
    with _progress.reporting(stream=out):
        with _progress.ticking("kNN", "building 10 trees", estimate=100.0, seconds=0.02):
            time.sleep(0.15)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 2
    assert all(re.fullmatch(r"smallvis: kNN: building 10 trees, \d+\.\ds, ETA \d+\.\ds", line)
               for line in lines)


def _verbose_every_chunk(monkeypatch, call):
    """``call()`` with reporting on and a line due after every chunk; (result, lines)."""
    monkeypatch.setattr(_progress, "EVERY_SECONDS", 0.0)
    out = io.StringIO()
    with _progress.reporting(stream=out):
        result = call()
    return result, out.getvalue().splitlines()


@pytest.mark.parametrize("n_threads", [1, 2])
def test_knn_graph_and_p_are_the_same_bits_with_progress_on(monkeypatch, n_threads):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(9000, 12))
    X[::3] += 4.0

    def graph():
        return knn_graph(X, 15, method="annoy", random_state=1, n_threads=n_threads, fast=True)

    def affinities():
        return joint_perplexity_knn(X, 10, select_kernels(True), knn_method="annoy",
                                    random_state=1, n_threads=n_threads)

    quiet = graph()
    loud, lines = _verbose_every_chunk(monkeypatch, graph)
    np.testing.assert_array_equal(quiet[0], loud[0])
    np.testing.assert_array_equal(quiet[1], loud[1])
    text = "\n".join(lines)
    for what in ("queries", "candidate distances", "refinement round 1, rows",
                 "rows added to the forest"):
        assert re.search(rf"kNN: {what} [\d,]+/9,000 \(\d+%\), \d+\.\ds, ETA ", text), what
    P_quiet = affinities()
    P_loud, lines = _verbose_every_chunk(monkeypatch, affinities)
    assert any(re.match(r"smallvis: calibration: rows 4,096/9,000", line) for line in lines)
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(P_quiet, name), getattr(P_loud, name))


@pytest.mark.parametrize("fast", [False, True])
def test_knn_kernels_by_row_chunks_match_one_call(fast):
    """``start``/``stop`` of the twins ``knn_candidates`` and ``knn_refine``."""
    kernels = select_kernels(fast)
    rng = np.random.default_rng(5)
    n, k = 300, 6
    X = rng.normal(size=(n, 4))
    cand = rng.integers(-1, n, size=(n, 12)).astype(np.int32)
    whole = [np.empty((n, k), dtype=np.int32), np.empty((n, k))]
    parts = [np.empty((n, k), dtype=np.int32), np.empty((n, k))]
    short = kernels.knn_candidates(X, cand, *whole, 2)
    short_parts = sum(kernels.knn_candidates(X, cand, *parts, 2, 0, start, stop)
                      for start, stop in [(0, 7), (7, 200), (200, n)])
    assert short == short_parts
    for a, b in zip(whole, parts):
        np.testing.assert_array_equal(a, b)
    flags = np.full((n, k), 3, dtype=np.uint8)
    outs = [[np.empty((n, k), dtype=np.int32), np.empty((n, k)),
             np.empty((n, k), dtype=np.uint8)] for _ in range(2)]
    changed = kernels.knn_refine(X, *whole, flags, 4, *outs[0], 2)
    changed_parts = sum(kernels.knn_refine(X, *whole, flags, 4, *outs[1], 2, 0, start, stop)
                        for start, stop in [(0, 100), (100, 101), (101, n)])
    assert changed == changed_parts > 0
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def test_quiet_command_line_prints_nothing(tmp_path, capsys, monkeypatch):
    from smallvis.cli import main

    monkeypatch.setattr(_progress, "EVERY_SECONDS", 0.0)
    out = tmp_path / "y.csv"
    assert main(["embed", "iris", "--method", "largevis", "--fast", "--n-iter", "20",
                 "--knn-method", "annoy", "--quiet", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_exact_search_reports_its_blocks_with_the_same_graph(monkeypatch):
    X = np.random.default_rng(4).normal(size=(3000, 8))
    quiet = knn_graph(X, 10, method="exact")
    loud, lines = _verbose_every_chunk(monkeypatch, lambda: knn_graph(X, 10, method="exact"))
    np.testing.assert_array_equal(quiet[0], loud[0])
    np.testing.assert_array_equal(quiet[1], loud[1])
    assert any(re.match(r"smallvis: kNN: exact rows [\d,]+/3,000 \(\d+%\)", line)
               for line in lines)


# ---- the stages that reported only their end: UMAP calibration, sparse search,
# new points ---------------------------------------------------------------------

@pytest.mark.parametrize("fast", [False, True])
def test_smooth_knn_kernels_by_row_chunks_match_one_call(fast):
    """``start``/``stop`` of the twins ``smooth_knn_rows``: the floor's mean stays global."""
    kernels = select_kernels(fast)
    rng = np.random.default_rng(6)
    dist = np.sort(rng.exponential(size=(200, 8)), axis=1)
    dist[:, 0] = 0.0
    dist[50:60, 1:] = 0.0  # rows of duplicates: rho = 0, sigma floored by the global mean
    outs = [[np.zeros(200), np.zeros(200)] for _ in range(2)]
    failed = kernels.smooth_knn_rows(dist, 3.0, 1.0, 1e-5, 64, 1e-3, *outs[0])
    failed_parts = sum(kernels.smooth_knn_rows(dist, 3.0, 1.0, 1e-5, 64, 1e-3, *outs[1],
                                               start, stop)
                       for start, stop in [(0, 55), (55, 56), (56, 200)])
    assert failed == failed_parts == 10  # the duplicates' rows cannot reach the target
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    # a row's floor with rho = 0 is 1e-3 of the mean over every row, not its chunk's
    assert outs[1][0][55] == pytest.approx(1e-3 * dist.mean(), rel=1e-12)


def test_umap_bandwidths_report_rows_with_the_same_bits(monkeypatch):
    from smallvis.inputs.affinities import smooth_knn_distances

    rng = np.random.default_rng(7)
    dist = np.sort(rng.exponential(size=(9000, 14)), axis=1)
    kernels = select_kernels(True)
    quiet = smooth_knn_distances(dist, kernels)
    loud, lines = _verbose_every_chunk(monkeypatch, lambda: smooth_knn_distances(dist, kernels))
    for a, b in zip(quiet, loud):
        np.testing.assert_array_equal(a, b)
    assert any(re.match(r"smallvis: calibration: rows 4,096/9,000 \(45%\), \d+\.\ds, ETA ",
                        line) for line in lines), lines


def _text_like(n, d, rng):
    """Sparse rows of a few words each, in a few topics (structure the search can find)."""
    topic = rng.integers(0, 4, size=n)
    cols = (topic[:, None] * (d // 4) + rng.integers(0, d // 4, size=(n, 6))).ravel()
    rows = np.repeat(np.arange(n), 6)
    import scipy.sparse as sp

    return sp.csr_matrix((rng.random(n * 6) + 0.5, (rows, cols)), shape=(n, d))


def test_projected_sparse_search_reports_its_loops_with_the_same_graph(monkeypatch):
    from smallvis.inputs.neighbors import KNNIndex

    rng = np.random.default_rng(8)
    X = _text_like(2600, 48, rng)  # more rows than a first chunk (2048)
    X_new = _text_like(600, 48, rng)

    def search():
        index = KNNIndex(X, method="annoy", metric="cosine", random_state=3, fast=True)
        return index.neighbors(6), index.query(X_new, 6)

    quiet = search()
    loud, lines = _verbose_every_chunk(monkeypatch, search)
    for a, b in zip(quiet, loud):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    text = "\n".join(lines)
    for what, total in [("subspace iteration products", "11"), ("exact distances", "2,600"),
                        ("exact refinement round 1, rows", "2,600"),
                        ("exact distances of new points", "600"),
                        ("new points' exact refinement round 1, rows", "600")]:
        assert re.search(rf"kNN: {what} [\d,]+/{total} \(\d+%\), \d+\.\ds, ETA ", text), what
    assert re.search(r"kNN: exact refinement round 1 in \d+\.\d\ds", text)


@pytest.mark.parametrize("method", ["annoy", "exact"])
def test_new_points_queries_report_with_the_same_neighbours(monkeypatch, method):
    from smallvis.inputs.neighbors import KNNIndex

    rng = np.random.default_rng(9)
    X = rng.normal(size=(3000, 6))
    X[::2] += 3.0
    X_new = rng.normal(size=(2500, 6))
    index = KNNIndex(X, method=method, random_state=4, fast=True)
    index.neighbors(10)  # the graph the refinement of new points reads

    quiet = index.query(X_new, 10)
    loud, lines = _verbose_every_chunk(monkeypatch, lambda: index.query(X_new, 10))
    np.testing.assert_array_equal(quiet[0], loud[0])
    np.testing.assert_array_equal(quiet[1], loud[1])
    text = "\n".join(lines)
    assert f"smallvis: kNN: {method}, 10 neighbours of 2500 new points among 3000" in text
    steps = (["queries of new points", "candidate distances of new points",
              "new points' refinement round 1, rows"] if method == "annoy"
             else ["exact rows of new points"])
    for what in steps:
        assert re.search(rf"kNN: {what} [\d,]+/2,500 \(\d+%\), \d+\.\ds, ETA ", text), what


@pytest.mark.parametrize("method", perplexity_and_fuzzy_methods())
def test_verbose_transform_reports_each_stage_and_places_the_same(monkeypatch, capsys, method):
    X, _ = smallvis.datasets.load("iris")
    monkeypatch.setattr(_progress, "EVERY_SECONDS", 0.0)  # a line whenever one can come
    placed = []
    for verbose in (False, True):
        model = smallvis.Embedding(method, n_iter=30, random_state=0, verbose=False)
        model.fit(X[:120])
        model.set_params(verbose=verbose)
        placed.append(model.transform(X[120:]))
    np.testing.assert_array_equal(placed[0], placed[1])
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"smallvis: transform: 30 new points into the {method} map of 120 points"
    text = "\n".join(lines)
    assert "smallvis: kNN: exact, " in text
    assert re.search(r"smallvis: calibration: rows of new points [\d,]+/30 \(\d+%\)", text)
    assert re.search(r"smallvis: optimisation: done in \d+\.\d\ds", text)
    assert re.search(r"^iter +\d+/100  elapsed", text, re.M)  # the exact form's heartbeat


def test_quiet_transform_prints_nothing(tmp_path, capsys, monkeypatch):
    from smallvis.cli import main

    monkeypatch.setattr(_progress, "EVERY_SECONDS", 0.0)
    monkeypatch.chdir(tmp_path)
    X, _ = smallvis.datasets.load("iris")
    np.savetxt("train.csv", X[:120], delimiter=",")
    np.savetxt("new.csv", X[120:], delimiter=",")
    assert main(["embed", "train.csv", "--method", "umap", "--fast", "--n-iter", "20",
                 "--quiet", "--save-model", "m.npz"]) == 0
    assert main(["transform", "new.csv", "--model", "m.npz", "--out", "y.csv",
                 "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    smallvis.load_model("m.npz").transform(X[120:])  # verbose=False: silent too
    assert capsys.readouterr().err == ""
    assert main(["transform", "new.csv", "--model", "m.npz", "--out", "y2.csv"]) == 0
    err = capsys.readouterr().err
    assert "smallvis: transform: 30 new points" in err and "placed 30 new points" in err
