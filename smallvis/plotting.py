"""Plotting helpers for embeddings, built on matplotlib.

``matplotlib.pyplot`` is imported inside the functions only, so importing
this module neither requires matplotlib nor selects a backend.  For headless
use (scripts, CI), select the Agg backend yourself, e.g. with
``matplotlib.use("Agg")`` or the ``MPLBACKEND=Agg`` environment variable.
"""

import re

import numpy as np

from ._outputs import is_stream, write_output
from ._validation import check_finite, check_integer, check_real_array

__all__ = ["plot", "plot_every", "PlotEvery", "plot_costs", "save_plot"]

#: Most distinct numeric labels drawn as categories (more: a colour scale), and
#: most categories given a legend by default.
MAX_CATEGORIES = 20
_MAX_CATEGORIES = MAX_CATEGORIES

#: Step between the colours of consecutive categories beyond
#: :data:`MAX_CATEGORIES`, as a fraction of the colour map: the golden ratio's
#: fractional part, so that categories next to each other in sorted order
#: (``"cell_10"``, ``"cell_11"``) get far-apart colours.
_COLOUR_STRIDE = (5 ** 0.5 - 1) / 2


def _as_embedding(Y):
    """Return `Y` as a finite float array of shape (n, 2) ready for scatter.

    Refused like the data of :func:`smallvis.embed`: anything but real
    numbers (``TypeError``) and NaN or infinite values, in any column
    (``ValueError``); and a shape other than (n,) or (n, n_components).
    """
    arr = check_real_array(Y, "Y")
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] < 1:
        raise ValueError(
            f"Y must have shape (n_samples,) or (n_samples, n_components), "
            f"got shape {arr.shape}"
        )
    if arr.shape[0] == 0:
        raise ValueError("Y must contain at least one point")
    arr = check_finite(arr.astype(np.float64), "Y")
    if arr.shape[1] == 1:
        return np.column_stack([arr[:, 0], np.zeros(arr.shape[0])])
    return arr[:, :2]


def _default_size(n):
    """Marker area that keeps large plots readable."""
    return float(np.clip(4000.0 / n, 1.0, 30.0))


def _is_categorical(labels):
    """Text labels, and integer or boolean labels with few values, are classes."""
    if labels.dtype.kind in "US":
        return True
    if labels.dtype.kind in "biu":
        return np.unique(labels).size <= _MAX_CATEGORIES
    return False


def _typed(labels):
    """An object array of labels as the array its values make (text, integers,
    floats or booleans), so that it is plotted as those values are; others as given."""
    if labels.dtype.kind != "O" or labels.ndim != 1:
        return labels
    try:
        typed = np.array(labels.tolist())
    except (TypeError, ValueError):
        return labels
    return typed if typed.shape == labels.shape else labels


#: Colour and legend text of the points whose label is missing (NaN).
_MISSING_COLOUR = "0.7"
_MISSING_TEXT = "no label (NaN)"


def _whole_numbers(values):
    """Float labels that are all whole numbers as int64 (e.g. a pandas integer
    column with missing values, read as floats); others as given."""
    if (values.dtype.kind == "f" and values.size
            and np.all(np.abs(values) < 2.0 ** 53) and np.all(values == np.round(values))):
        return values.astype(np.int64)
    return values


def _natural_key(text):
    """Sort key that orders the numbers inside text by value: "type 2" before "type 10"."""
    # the odd parts of the split are the runs of decimal digits, which int()
    # reads in any script (a superscript "2" is a digit, not a decimal one)
    return [(0, int(part), "") if k % 2 else (1, 0, part)
            for k, part in enumerate(re.split(r"(\d+)", text))]


def _classes(labels):
    """The distinct labels, in the legend's order, and each point's index into them.

    Text is ordered with the numbers inside it by value (``"cluster 2"``
    before ``"cluster 10"``); other labels by value.
    """
    classes, codes = np.unique(labels, return_inverse=True)
    codes = codes.reshape(-1)
    if labels.dtype.kind in "US":
        order = sorted(range(classes.size), key=lambda k: _natural_key(str(classes[k])))
        rank = np.empty(classes.size, dtype=np.intp)
        rank[order] = np.arange(classes.size)
        classes, codes = classes[order], rank[codes]
    return classes, codes


def _indexes_palette(classes, colormap):
    """Whether integer ``classes`` can pick their colours from ``colormap`` by value.

    True for integer (or boolean) labels from 0 to below the number of
    entries of a small qualitative map (tab10 for digits 0 to 9).
    """
    return (classes.dtype.kind in "biu" and classes.size > 0
            and colormap.N <= _MAX_CATEGORIES
            and int(classes.min()) >= 0 and int(classes.max()) < colormap.N)


def _many_colours(colormap, n):
    """``n`` colours of ``colormap``, consecutive ones far apart."""
    return colormap(np.mod(np.arange(n) * _COLOUR_STRIDE, 1.0))


def plot(Y, labels=None, ax=None, title=None, s=None, cmap=None,
         legend="auto"):
    """Scatter plot of an embedding.

    The first two columns of `Y` are plotted, on one scale across and up
    (a map three times as wide as it is tall is drawn so: the data limits
    widen, or the axes' box narrows where they share both limits with other
    axes; to set limits of your own afterwards, call
    ``ax.set_aspect("auto")`` first); with more than two, the axes are
    labelled as coordinates 1 and 2 of them.  A 1-D embedding (shape
    ``(n,)`` or ``(n, 1)``) is plotted along the x axis with every y
    coordinate set to zero.

    The figure is drawn, not shown: in a script, call
    ``matplotlib.pyplot.show()`` or ``savefig`` yourself (or use
    :func:`save_plot`); a notebook shows it at the end of the cell.

    Text labels, and integer or boolean labels with at most 20 distinct
    values (floats that are all whole numbers count as integers), are
    treated as categories: each gets its own colour and, by
    default when there are at most 20, an entry in a legend.  Beyond 20
    categories (text labels only) the colours are spread over a colour map
    so that categories next to each other in sorted order differ, and some
    colours are necessarily close.  Text labels are sorted with the numbers
    inside them by value (``"type 2"`` before ``"type 10"``).  Integer labels
    that index the qualitative map take its entry of their value (tab10
    for labels from 0 to 9; tab20, chosen for 11 to 20 classes, for labels
    from 0 to 19), so that digits 0 to 9 keep their colours in a plot of
    some of them (new points, a sample); other categories take the entries
    in their sorted order.  Any other labels (floats, or integers with
    many values) are treated as continuous and shown with a colour bar.
    Points whose label is NaN (missing) are drawn in grey, under the others,
    with a legend entry of their own.

    Parameters
    ----------
    Y : array-like of shape (n_samples, n_components) or (n_samples,)
        Embedding coordinates.
    labels : array-like of shape (n_samples,), default=None
        Values used to colour the points.  None draws all points in one
        colour.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw into.  None creates a new figure and axes.
    title : str, default=None
        Axes title.
    s : float or array-like of shape (n_samples,), default=None
        Marker area in points^2.  None picks a size that decreases with the
        number of points (between 1 and 30).
    cmap : str or matplotlib.colors.Colormap, default=None
        Colour map.  None uses ``"tab10"`` for up to 10 categories,
        ``"tab20"`` for up to 20, ``"turbo"`` for more and ``"viridis"`` for
        continuous labels.
    legend : {"auto", True, False}, default="auto"
        Whether to draw a legend for categorical labels.  ``"auto"`` draws
        one for at most 20 categories, True for any number, False never.  The
        colour bar for continuous labels is drawn unless `legend` is False.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn into.

    Raises
    ------
    ValueError
        If `Y` has the wrong shape or holds NaN or infinite values (in any
        column), `labels` has the wrong length or `legend` is not one of the
        accepted values.
    TypeError
        If `Y` holds anything but real numbers.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    if not (legend == "auto" or legend is True or legend is False):
        raise ValueError(
            f"legend must be 'auto', True or False, got {legend!r}"
        )
    XY = _as_embedding(Y)
    n = XY.shape[0]
    n_columns = np.shape(Y)[1] if np.ndim(Y) == 2 else 1
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 6))
    if s is None:
        s = _default_size(n)

    if labels is None:
        ax.scatter(XY[:, 0], XY[:, 1], s=s, c="C0", linewidths=0)
    else:
        labels = _typed(np.asarray(labels))
        if labels.ndim != 1 or labels.shape[0] != n:
            raise ValueError(
                f"labels must be a 1-D array with one value per point "
                f"({n}), got shape {labels.shape}"
            )
        missing = (np.isnan(labels) if labels.dtype.kind in "fc"
                   else np.zeros(n, dtype=bool))
        entries = []  # the legend's, drawn at the end (unless legend is False)
        if missing.any():
            # matplotlib would leave NaN-coloured points out of the picture
            sizes = np.broadcast_to(np.asarray(s, dtype=np.float64), (n,))
            ax.scatter(XY[missing, 0], XY[missing, 1], s=sizes[missing],
                       c=_MISSING_COLOUR, linewidths=0)
            entries.append((_MISSING_COLOUR, _MISSING_TEXT))
            XY, labels, s = XY[~missing], labels[~missing], sizes[~missing]
        labels = _whole_numbers(labels)
        if not labels.size:
            pass  # every label missing: the grey points alone
        elif _is_categorical(labels):
            classes, codes = _classes(labels)
            n_classes = classes.size
            if cmap is None:
                cmap = ("tab10" if n_classes <= 10 else "tab20"
                        if n_classes <= _MAX_CATEGORIES else "turbo")
            colormap = plt.get_cmap(cmap)
            if _indexes_palette(classes, colormap):
                # integer labels that index the qualitative map: each colour
                # follows its label's value, so that a class keeps its colour
                # in a plot of some of the classes (new points placed by
                # transform, a sample)
                palette = colormap(classes.astype(np.intp))
            elif n_classes <= colormap.N <= _MAX_CATEGORIES:
                # small qualitative map (tab10, Set1, ...): one entry each
                palette = colormap(np.arange(n_classes))
            elif n_classes <= _MAX_CATEGORIES:
                # continuous map: evenly spaced colours
                palette = colormap(np.linspace(0.0, 1.0, n_classes))
            else:
                palette = _many_colours(colormap, n_classes)
            # one scatter call keeps the drawing order of the points
            ax.scatter(XY[:, 0], XY[:, 1], s=s, c=palette[codes],
                       linewidths=0)
            if legend is True or (legend == "auto" and n_classes <= _MAX_CATEGORIES):
                entries[:0] = [(palette[i], str(cls)) for i, cls in enumerate(classes)]
        else:
            try:
                values = labels.astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"labels must be text, integers, booleans or real numbers; "
                    f"got dtype {labels.dtype}"
                ) from None
            sc = ax.scatter(XY[:, 0], XY[:, 1], s=s, c=values,
                            cmap=cmap or "viridis", linewidths=0)
            if legend is not False:
                ax.figure.colorbar(sc, ax=ax)
        if entries and legend is not False:
            ax.legend(handles=[Line2D([], [], linestyle="none", marker="o", markersize=6,
                                      markerfacecolor=colour, markeredgewidth=0, label=text)
                               for colour, text in entries],
                      loc="best", fontsize="small", frameon=False)

    if title is not None:
        ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
    if n_columns >= 2:
        # a map's distances are what it shows: one unit is as long across as
        # up, and the axes keep their box (the data limits give way); axes
        # that share both limits with others cannot move them, so their box
        # gives way instead
        shared = (len(ax.get_shared_x_axes().get_siblings(ax)) > 1
                  and len(ax.get_shared_y_axes().get_siblings(ax)) > 1)
        ax.set_aspect("equal", adjustable="box" if shared else "datalim")
    if n_columns > 2:
        # a map of more dimensions shows a projection: say which, on the picture
        ax.set_xlabel(f"coordinate 1 of {n_columns}")
        ax.set_ylabel(f"coordinate 2 of {n_columns}")
    return ax


def plot_costs(itercosts, iterations=None, ax=None):
    """Plot the cost of an optimisation against the iteration number.

    Parameters
    ----------
    itercosts : mapping or array-like
        Either a mapping ``{iteration: cost}``, an array of shape
        ``(n_records, 2)`` whose columns are iteration and cost, or a 1-D
        sequence of costs.  Entries whose cost is None or NaN (iterations
        where the cost was not computed) are skipped.
    iterations : array-like of shape (n_records,), default=None
        Iteration numbers for a 1-D `itercosts`.  None numbers the entries
        0, 1, 2, ...  Must be None if `itercosts` already holds iterations.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw into.  None creates a new figure and axes.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn into.

    Raises
    ------
    ValueError
        If the shapes of `itercosts` and `iterations` do not fit.
    """
    import matplotlib.pyplot as plt

    if hasattr(itercosts, "items"):
        if iterations is not None:
            raise ValueError(
                "iterations must be None when itercosts is a mapping"
            )
        pairs = sorted(itercosts.items())
        its = [it for it, _ in pairs]
        costs = [c for _, c in pairs]
    else:
        # with a float dtype, None entries become NaN
        arr = np.asarray(itercosts, dtype=np.float64)
        if arr.ndim == 2 and arr.shape[1] == 2:
            if iterations is not None:
                raise ValueError(
                    "iterations must be None when itercosts has an "
                    "iteration column"
                )
            its, costs = arr[:, 0], arr[:, 1]
        elif arr.ndim == 1:
            costs = arr
            its = np.arange(arr.size) if iterations is None else iterations
        else:
            raise ValueError(
                f"itercosts must be a mapping, a 1-D sequence or an array of "
                f"shape (n_records, 2), got shape {arr.shape}"
            )
    its = np.asarray(its, dtype=np.float64).reshape(-1)
    costs = np.asarray(costs, dtype=np.float64).reshape(-1)
    if its.shape != costs.shape:
        raise ValueError(
            f"iterations must have one entry per cost ({costs.size}), got "
            f"{its.size}"
        )
    keep = np.isfinite(costs)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    ax.plot(its[keep], costs[keep], marker=".")
    ax.set_xlabel("iteration")
    ax.set_ylabel("cost")
    return ax


class PlotEvery:
    """Optimisation callback that draws the embedding every few iterations.

    Create it with :func:`plot_every`.  The optimiser calls it as
    ``callback(iteration, Y, cost)``; on iterations that are multiples of
    `n` it draws `Y` with :func:`plot` (title: iteration and, when known, the
    cost).  In a running IPython/Jupyter session the new figure replaces the
    previous output via ``IPython.display.clear_output`` and ``display``;
    elsewhere the figures are kept in :attr:`figures`.  The call always
    returns None, so it never asks the optimiser to stop.

    Parameters
    ----------
    n : int
        Draw when ``iteration % n == 0``.
    labels : array-like of shape (n_samples,), default=None
        Labels to colour the points by, as in :func:`plot`.
    display : {"auto", True, False}, default="auto"
        ``"auto"`` displays in a notebook when IPython is importable and an
        IPython shell is running, and otherwise keeps the figures.  True
        always uses IPython's display; False always keeps the figures.
    **plot_kwargs
        Further keyword arguments for :func:`plot` (e.g. ``s``, ``cmap``).

    Attributes
    ----------
    figures : list of matplotlib.figure.Figure
        Figures drawn so far when not displaying in a notebook.  They are
        closed in pyplot (so they do not pile up as open windows) but can
        still be saved with ``fig.savefig``.
    iterations : list of int
        Iterations at which a plot was drawn.
    """

    def __init__(self, n, labels=None, display="auto", **plot_kwargs):
        n = check_integer(n, "n", low=1)
        if not (display == "auto" or display is True or display is False):
            raise ValueError(
                f"display must be 'auto', True or False, got {display!r}"
            )
        self.n = int(n)
        self.labels = labels
        self.display = display
        self.plot_kwargs = plot_kwargs
        self.figures = []
        self.iterations = []

    def _use_ipython(self):
        if self.display is False:
            return False
        try:
            from IPython import get_ipython
        except ImportError:
            if self.display is True:
                raise ImportError(
                    "display=True needs IPython, which is not installed"
                ) from None
            return False
        return self.display is True or get_ipython() is not None

    def __call__(self, iteration, Y, cost=None):
        if iteration % self.n != 0:
            return None
        import matplotlib.pyplot as plt

        title = f"iteration {iteration}"
        if cost is not None:
            title += f", cost {float(cost):.4g}"
        fig, ax = plt.subplots(figsize=(6, 6))
        plot(Y, labels=self.labels, ax=ax, title=title, **self.plot_kwargs)
        self.iterations.append(int(iteration))
        if self._use_ipython():
            from IPython.display import clear_output, display

            clear_output(wait=True)
            display(fig)
            plt.close(fig)
        else:
            plt.close(fig)
            self.figures.append(fig)
        return None

    def __repr__(self):
        return f"PlotEvery(n={self.n})"


def plot_every(n, labels=None, **kwargs):
    """Make a callback that plots the embedding every `n` iterations.

    Use as ``embed(..., callback=plot_every(50))``.  See :class:`PlotEvery`.

    Parameters
    ----------
    n : int
        Plot on iterations that are multiples of `n`.
    labels : array-like of shape (n_samples,), default=None
        Labels to colour the points by.
    **kwargs
        Passed to :class:`PlotEvery` (``display``) and on to :func:`plot`.

    Returns
    -------
    PlotEvery
        Callable ``callback(iteration, Y, cost)`` returning None.
    """
    return PlotEvery(n, labels=labels, **kwargs)


#: Formats :func:`save_plot` writes (chosen by the file's extension).
PLOT_FORMATS = ("png", "pdf", "svg", "jpg", "jpeg")


def _plot_format(path, format):
    """The format :func:`save_plot` writes: ``format``, else the extension of
    ``path``, else (a character device or FIFO without one, as the command
    line's ``--plot``) the first of :data:`PLOT_FORMATS`."""
    import os

    if not isinstance(path, (str, os.PathLike)) and not hasattr(path, "write"):
        raise TypeError(f"path must be a file name or a writable file object; got "
                        f"{type(path).__name__} (save_plot's order is Y, path, labels=...: "
                        f"plot's is Y, labels)")
    if format is None:
        if not isinstance(path, (str, os.PathLike)):
            raise ValueError("format is needed when path is a file object")
        format = os.path.splitext(os.fspath(path))[1].lstrip(".")
        if not format and is_stream(path):
            format = PLOT_FORMATS[0]
    format = str(format).lower()
    if format not in PLOT_FORMATS:
        raise ValueError(f"plot format must be one of {', '.join(PLOT_FORMATS)} (taken "
                         f"from the file extension); got {format!r}")
    return format


def legend_outside(ax):
    """Move the legend of ``ax``, if any, to the right of the axes (below them beside a colour bar).

    A saved figure (``bbox_inches="tight"``) grows to hold it, so that no
    label, however long, covers points of the map.  Continuous labels put
    their colour bar to the right, where the legend of their missing
    values would cover it: that legend goes under the map instead.
    """
    legend = ax.get_legend()
    if legend is None:
        return
    beside_bar = any(getattr(c, "colorbar", None) is not None for c in ax.collections)
    if beside_bar:
        # under the axis label, if the map has one (more than two coordinates)
        anchor = (0.0, -0.1 if ax.get_xlabel() else -0.02)
    else:
        anchor = (1.01, 1.0)
    ax.legend(handles=legend.legend_handles, labels=[t.get_text() for t in legend.get_texts()],
              loc="upper left", bbox_to_anchor=anchor, borderaxespad=0.0,
              fontsize="small", frameon=False)


def save_plot(Y, path, labels=None, title=None, format=None):
    """Plot an embedding and write it to a PNG, PDF, SVG or JPEG file.

    Parameters
    ----------
    Y : array-like of shape (n_samples, n_components) or (n_samples,)
        Embedding coordinates.
    path : str, os.PathLike or binary file object
        Output file.  A path is written by the rules of every smallvis
        output (:mod:`smallvis._outputs`): a regular file is replaced
        atomically, a link's final target is written and the link stays, a
        character device or FIFO is written into.
    labels : array-like of shape (n_samples,), default=None
        Labels to colour the points by, as in :func:`plot`.
    title : str, default=None
        Plot title.
    format : {"png", "pdf", "svg", "jpg", "jpeg"}, optional
        Default: from the extension of ``path``; for a character device or
        FIFO without one (``/dev/stdout``), png.  Required for a file object.

    Returns
    -------
    str, os.PathLike or file object
        `path`, unchanged.

    Raises
    ------
    ValueError
        ``Y`` holds NaN or infinite values or has the wrong shape.  A format
        (or extension) other than png, pdf, svg, jpg or jpeg; or ``path`` is a
        read-only file (for root too), in a missing or read-only directory,
        a directory, a block device, a socket or a link loop.
    TypeError
        ``path`` is neither a file name nor a writable file object (for
        example the labels, given where ``plot`` takes them).
    """
    import os

    import matplotlib.pyplot as plt

    format = _plot_format(path, format)
    _as_embedding(Y)  # refused before anything is drawn or written
    fig, ax = plt.subplots(figsize=(6, 6))
    try:
        plot(Y, labels=labels, ax=ax, title=title)
        legend_outside(ax)
        if isinstance(path, (str, os.PathLike)):
            write_output(path, lambda fh: fig.savefig(fh, format=format, dpi=100,
                                                      bbox_inches="tight"), "path")
        else:
            fig.savefig(path, format=format, dpi=100, bbox_inches="tight")
    finally:
        plt.close(fig)
    return path
