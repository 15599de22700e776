"""Tests for smallvis.plotting (headless, Agg backend)."""

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from smallvis import plotting  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def embedding():
    rng = np.random.default_rng(0)
    return rng.normal(size=(90, 2)), np.repeat([0, 1, 2], 30)


def test_plot_categorical_labels_gets_legend(embedding):
    Y, labels = embedding
    ax = plotting.plot(Y, labels, title="test")
    assert isinstance(ax, matplotlib.axes.Axes)
    assert ax.get_title() == "test"
    legend = ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == ["0", "1", "2"]
    offsets = ax.collections[0].get_offsets()
    np.testing.assert_allclose(offsets, Y)
    # one colour per class
    colours = ax.collections[0].get_facecolors()
    assert len({tuple(c) for c in colours}) == 3


def test_plot_string_labels_and_no_legend(embedding):
    Y, labels = embedding
    names = np.array(["a", "b", "c"])[labels]
    ax = plotting.plot(Y, names)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == \
        ["a", "b", "c"]
    ax2 = plotting.plot(Y, names, legend=False)
    assert ax2.get_legend() is None


def test_plot_continuous_labels_gets_colorbar(embedding):
    Y, _ = embedding
    ax = plotting.plot(Y, Y[:, 0])
    assert ax.get_legend() is None
    assert len(ax.figure.axes) == 2  # the plot and its colour bar


def test_plot_into_given_axes_without_labels(embedding):
    Y, _ = embedding
    fig, ax = plt.subplots()
    assert plotting.plot(Y, ax=ax, s=5) is ax
    assert ax.get_legend() is None
    assert len(fig.axes) == 1


def test_plot_uses_first_two_columns_and_1d():
    Y3 = np.arange(30.0).reshape(10, 3)
    ax = plotting.plot(Y3)
    np.testing.assert_allclose(ax.collections[0].get_offsets(), Y3[:, :2])
    # the picture says it is a projection of a 3-D map
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("coordinate 1 of 3", "coordinate 2 of 3")
    assert plotting.plot(Y3[:, :2]).get_xlabel() == ""
    ax = plotting.plot(np.arange(10.0))
    assert ax.get_xlabel() == ""
    offsets = np.asarray(ax.collections[0].get_offsets())
    np.testing.assert_allclose(offsets[:, 0], np.arange(10.0))
    np.testing.assert_allclose(offsets[:, 1], 0.0)


def test_a_saved_plot_of_three_coordinates_labels_its_axes(tmp_path, monkeypatch):
    # save_plot closes its figure: keep the axes it drew into
    drawn = []
    real_plot = plotting.plot

    def recording_plot(*args, **kwargs):
        drawn.append(real_plot(*args, **kwargs))
        return drawn[-1]

    monkeypatch.setattr(plotting, "plot", recording_plot)
    plotting.save_plot(np.arange(30.0).reshape(10, 3), tmp_path / "y.png")
    assert drawn[0].get_xlabel() == "coordinate 1 of 3"


def test_a_map_is_drawn_on_one_scale_across_and_up():
    # three round blobs in a row, 40 units wide and 3 tall: stretching each
    # axis to the square would draw them as tall stripes
    rng = np.random.default_rng(0)
    Y = np.concatenate([rng.normal(size=(50, 2)) + [20 * c, 0] for c in range(3)])
    fig, ax = plt.subplots(figsize=(6, 6))
    plotting.plot(Y, np.repeat([0, 1, 2], 50), ax=ax)
    fig.canvas.draw()
    (x0, y0), (x1, y1) = ax.transData.transform([[0, 0], [1, 1]])
    assert abs(x1 - x0) == pytest.approx(abs(y1 - y0), rel=1e-6)
    # the data limits give way, not the axes' box: every point is in view
    lo, hi = np.array([ax.get_xlim()[0], ax.get_ylim()[0]]), \
        np.array([ax.get_xlim()[1], ax.get_ylim()[1]])
    assert np.all(Y >= lo) and np.all(Y <= hi)
    plt.close(fig)


def test_axes_that_share_both_limits_narrow_their_box_instead():
    # matplotlib refuses to move the data limits of axes shared both ways
    Y = np.random.default_rng(1).normal(size=(60, 2)) * [8.0, 1.0]
    fig, axes = plt.subplots(1, 2, sharex=True, sharey=True)
    for ax in axes:
        plotting.plot(Y, ax=ax)
    fig.canvas.draw()
    (x0, y0), (x1, y1) = axes[0].transData.transform([[0, 0], [1, 1]])
    assert abs(x1 - x0) == pytest.approx(abs(y1 - y0), rel=1e-6)
    plt.close(fig)


def test_a_saved_map_s_legend_of_missing_labels_leaves_the_colour_bar_clear():
    # continuous labels with NaNs: a colour bar and a "no label" legend,
    # which save_plot moved onto the bar, to the right of the map
    rng = np.random.default_rng(4)
    labels = rng.normal(size=150)
    labels[::10] = np.nan
    for n_columns in (2, 3):
        fig, ax = plt.subplots(figsize=(6, 6))
        plotting.plot(rng.normal(size=(150, n_columns)), labels, ax=ax)
        plotting.legend_outside(ax)
        fig.canvas.draw()
        bar = [other for other in fig.axes if other is not ax]
        assert len(bar) == 1
        legend = ax.get_legend().get_window_extent()
        assert not legend.overlaps(bar[0].get_window_extent())
        assert not legend.overlaps(ax.get_window_extent())
        plt.close(fig)


def test_plot_bad_inputs(embedding):
    Y, labels = embedding
    with pytest.raises(ValueError, match="labels must be a 1-D array"):
        plotting.plot(Y, labels[:10])
    with pytest.raises(ValueError, match="Y must have shape"):
        plotting.plot(np.zeros((2, 3, 4)))
    with pytest.raises(ValueError, match="legend must be"):
        plotting.plot(Y, labels, legend="yes")


def test_save_plot_writes_png(tmp_path, embedding):
    Y, labels = embedding
    path = tmp_path / "embedding.png"
    before = plt.get_fignums()
    assert plotting.save_plot(Y, path, labels=labels, title="x") == path
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 1000
    assert plt.get_fignums() == before  # figure closed


def test_plot_every_draws_at_multiples(embedding):
    Y, labels = embedding
    callback = plotting.plot_every(3, labels=labels)
    results = [callback(it, Y + it, None if it % 2 else float(it))
               for it in range(1, 11)]
    assert results == [None] * 10
    assert callback.iterations == [3, 6, 9]
    assert len(callback.figures) == 3
    titles = [fig.axes[0].get_title() for fig in callback.figures]
    assert titles[0] == "iteration 3"
    assert titles[1].startswith("iteration 6, cost 6")
    # figures are not left open in pyplot
    assert plt.get_fignums() == []
    # but can still be saved
    callback.figures[0].savefig(io.BytesIO(), format="png")


def test_plot_every_validates_n():
    with pytest.raises(ValueError, match=r"n must be in \[1, inf\)"):
        plotting.plot_every(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        plotting.plot_every(2.5)


def test_plot_costs_formats():
    ax = plotting.plot_costs({50: 3.0, 100: 2.0, 150: None, 200: 1.5})
    x, y = ax.lines[0].get_data()
    np.testing.assert_allclose(x, [50, 100, 200])
    np.testing.assert_allclose(y, [3.0, 2.0, 1.5])
    assert ax.get_xlabel() == "iteration"

    ax = plotting.plot_costs([3.0, 2.0, 1.0], iterations=[10, 20, 30])
    np.testing.assert_allclose(ax.lines[0].get_data()[0], [10, 20, 30])

    ax = plotting.plot_costs(np.array([[1, 5.0], [2, 4.0]]))
    np.testing.assert_allclose(ax.lines[0].get_data()[1], [5.0, 4.0])

    with pytest.raises(ValueError, match="iterations must have one entry"):
        plotting.plot_costs([3.0, 2.0], iterations=[1, 2, 3])


def test_text_labels_are_listed_with_their_numbers_in_order():
    """The legend reads "type 2" before "type 10", and each point keeps its own colour."""
    import matplotlib.pyplot as plt

    labels = np.array(["type 10", "type 2", "b", "type 1", "a", "type 2"])
    Y = np.arange(12.0).reshape(6, 2)
    ax = plotting.plot(Y, labels=labels)
    try:
        entries = [t.get_text() for t in ax.get_legend().get_texts()]
        assert entries == ["a", "b", "type 1", "type 2", "type 10"]
        handles = {t.get_text(): h.get_markerfacecolor()
                   for t, h in zip(ax.get_legend().get_texts(), ax.get_legend().legend_handles)}
        faces = ax.collections[0].get_facecolors()
        for label, face in zip(labels, faces):
            np.testing.assert_allclose(face, handles[label])
    finally:
        plt.close(ax.figure)


def test_labels_with_digits_that_are_not_decimal_are_sorted_as_text():
    """A superscript two is a digit to str.isdigit but no number to int()."""
    import matplotlib.pyplot as plt

    ax = plotting.plot(np.arange(12.0).reshape(6, 2),
                       labels=np.array(["10\u00b2", "a", "10\u00b2", "x 3", "a", "x 12"]))
    try:
        assert [t.get_text() for t in ax.get_legend().get_texts()] == [
            "10\u00b2", "a", "x 3", "x 12"]
    finally:
        plt.close(ax.figure)


def test_numbers_held_as_objects_are_plotted_as_their_values():
    """An object array (a pandas column of mixed origin) is plotted as the array its
    values make: 30 floats get a colour bar, a few integers a legend."""
    import matplotlib.pyplot as plt

    values = np.array([k / 7 for k in range(30)], dtype=object)
    ax = plotting.plot(np.random.default_rng(0).normal(size=(30, 2)), labels=values)
    try:
        assert ax.get_legend() is None and len(ax.figure.axes) == 2
    finally:
        plt.close(ax.figure)
    ax = plotting.plot(np.arange(12.0).reshape(6, 2),
                       labels=np.array([0, 1, 2, 0, 1, 2], dtype=object))
    try:
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["0", "1", "2"]
    finally:
        plt.close(ax.figure)


def test_a_saved_plot_keeps_its_legend_off_the_points(tmp_path, monkeypatch):
    """However long the labels, the legend of a saved plot sits right of the axes."""
    drawn = {}
    real_close = plt.close

    def close(fig):
        fig.canvas.draw()
        ax = fig.axes[0]
        drawn["axes"] = ax.get_window_extent()
        drawn["legend"] = ax.get_legend().get_window_extent()
        real_close(fig)

    monkeypatch.setattr(plt, "close", close)
    labels = np.array([f"a rather long name for cell type {k % 12}" for k in range(60)])
    plotting.save_plot(np.random.default_rng(0).normal(size=(60, 2)), tmp_path / "p.png",
                       labels=labels)
    assert drawn["legend"].x0 >= drawn["axes"].x1


def test_points_without_a_label_are_drawn_in_grey_with_their_own_entry(embedding):
    Y, labels = embedding
    scores = Y[:, 0].copy()
    scores[:30] = np.nan  # a whole group has no value
    ax = plotting.plot(Y, scores)
    drawn = np.concatenate([c.get_offsets() for c in ax.collections])
    assert len(drawn) == len(Y)  # matplotlib alone would drop the 30
    np.testing.assert_allclose(ax.collections[0].get_offsets(), Y[:30])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["no label (NaN)"]
    assert len(ax.figure.axes) == 2  # the colour bar of the others
    classes = labels.astype(float)
    classes[:5] = np.nan
    ax = plotting.plot(Y, classes)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == \
        ["0", "1", "2", "no label (NaN)"]
    ax = plotting.plot(Y, np.full(len(Y), np.nan))
    assert len(ax.collections[0].get_offsets()) == len(Y)


def test_float_labels_that_are_whole_numbers_are_classes(embedding):
    Y, labels = embedding
    ax = plotting.plot(Y, labels.astype(float) + 1.0)  # a pandas integer column as floats
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["1", "2", "3"]
    assert len(ax.figure.axes) == 1  # no colour bar
    ax = plotting.plot(Y, labels + 0.5)
    assert ax.get_legend() is None and len(ax.figure.axes) == 2


def test_save_plot_with_labels_where_the_path_goes_is_told_the_order(tmp_path, embedding):
    Y, labels = embedding
    with pytest.raises(TypeError, match="save_plot's order is Y, path, labels"):
        plotting.save_plot(Y, labels, str(tmp_path / "map.png"))


def _colour_of(ax, labels, label):
    colours = ax.collections[0].get_facecolors()
    return tuple(colours[np.flatnonzero(np.asarray(labels) == label)[0]])


def test_a_digit_class_keeps_its_colour_in_a_plot_of_some_classes():
    # the fitted map's plot has all ten digits; new points placed by
    # transform (or a sample) may hold only some of them
    rng = np.random.default_rng(1)
    every = np.arange(100) % 10
    some = np.array([3, 7, 3, 7, 9])
    full = plotting.plot(rng.normal(size=(100, 2)), every)
    part = plotting.plot(rng.normal(size=(5, 2)), some)
    tab10 = plt.get_cmap("tab10")
    for label in (3, 7, 9):
        assert _colour_of(part, some, label) == _colour_of(full, every, label)
        assert _colour_of(part, some, label) == tuple(tab10(label))


def test_labels_that_do_not_index_the_map_take_its_entries_in_order():
    # 1 to 10: ten classes, but 10 is not an entry of tab10; text as before
    tab10 = plt.get_cmap("tab10")
    for labels in (np.arange(20) % 10 + 1, np.array(list("abcdefghij") * 2)):
        ax = plotting.plot(np.random.default_rng(2).normal(size=(20, 2)), labels)
        ordered = sorted(set(labels.tolist()))
        assert [_colour_of(ax, labels, v) for v in ordered] == \
            [tuple(tab10(k)) for k in range(10)]
