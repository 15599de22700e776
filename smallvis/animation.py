"""Watching a run: record the layouts an optimizer passes through, then animate them.

:class:`Recorder` is an optimisation callback (``embed(..., callback=rec)``,
or an estimator's ``callback=``): it keeps a copy of every ``every``-th
layout, of the exact optimizer's iterations and of the stochastic
optimizer's epochs alike, and the last layout the run reached.  It only
reads ``Y``, so the fit's numbers are those of a run without it, bit for
bit.  It never holds more than ``n_frames`` layouts: when it is full it
drops every other frame and doubles its stride, so a run of any length ends
with between half and all of ``n_frames`` frames, evenly spaced.

:func:`animate` turns the frames into a GIF (with Pillow, which matplotlib
needs anyway) or an MP4 (with the ``ffmpeg`` program, when it is on the
``PATH``).  Before drawing, each frame is turned onto the last one
(:func:`align_frames`) so that the picture does not spin or flip; colours
follow the labels as in :func:`smallvis.plot`.  Only the file the user
named is written, by the rules of every smallvis output
(:mod:`smallvis._outputs`).
"""

import io
import math
import os
import shutil
import subprocess

import numpy as np

from ._outputs import check_output, is_stream, write_output
from ._validation import check_integer
from .plotting import _as_embedding, _typed, legend_outside, plot

__all__ = ["Recorder", "align_frames", "animate", "check_animation", "ANIMATION_FORMATS"]

#: Formats :func:`animate` writes, chosen by the file's extension.
ANIMATION_FORMATS = ("gif", "mp4")

#: A GIF stores each frame's delay in hundredths of a second, and viewers
#: slow delays under two hundredths down to a tenth of a second: faster
#: than this many frames per second does not play as asked.
GIF_MAX_FPS = 50


class Recorder:
    """Optimisation callback that keeps every ``every``-th layout of a run.

    Pass it as ``callback=`` to :func:`smallvis.embed` or an estimator; it
    is called as ``recorder(step, Y, cost)`` (``step``: the exact
    optimizer's iteration, or the stochastic optimizer's epoch) and keeps a
    copy of ``Y`` at the steps that are multiples of its stride, and of the
    last layout seen, so that the final layout is always the last frame.
    It never asks the optimizer to stop.

    Memory stays bounded: at most ``n_frames`` layouts are kept.  When the
    store is full and another frame is due, every other frame is dropped
    and the stride doubles, so a long run keeps between half and all of
    ``n_frames`` layouts, evenly spaced over the whole run.

    When the exact optimizer's divergence guard sends the run back to an
    earlier iteration, the frames recorded after it are dropped: the frames
    follow the run that produced the result.

    Parameters
    ----------
    every : int, default=1
        Keep the layouts of the steps that are multiples of ``every`` (at
        the start; the stride doubles when the store fills).
    n_frames : int, default=100
        Most layouts kept; at least 2.

    Attributes
    ----------
    every : int
        The current stride.
    n_frames : int

    Examples
    --------
    >>> import smallvis
    >>> X, y = smallvis.datasets.load("iris")
    >>> rec = smallvis.Recorder(every=10)
    >>> Y = smallvis.embed(X, method="tsne", n_iter=300, callback=rec, random_state=0)
    >>> len(rec), rec.steps[-1]
    (30, 300)
    """

    def __init__(self, every=1, n_frames=100):
        self.every = check_integer(every, "every", low=1)
        self.n_frames = check_integer(n_frames, "n_frames", low=2)
        self._steps, self._layouts = [], []
        self._last_step, self._last = None, None

    def __call__(self, step, Y, cost=None):
        step = int(step)
        # a step seen again: the run went back (the exact optimizer's guard)
        while self._steps and self._steps[-1] >= step:
            self._steps.pop()
            self._layouts.pop()
        if step % self.every == 0:
            # one place stays free for the last layout of a run that ends between strides
            if len(self._steps) >= self.n_frames - 1:
                self._thin()
            if step % self.every == 0:
                self._steps.append(step)
                self._layouts.append(np.array(Y, dtype=np.float64, copy=True))
                self._last_step = None
                return False
        if self._last is None or self._last.shape != np.shape(Y):
            self._last = np.array(Y, dtype=np.float64, copy=True)
        else:
            np.copyto(self._last, Y)  # no allocation per step
        self._last_step = step
        return False

    def _thin(self):
        """Keep the frames at multiples of twice the stride, and double it."""
        self.every *= 2
        keep = [k for k, s in enumerate(self._steps) if s % self.every == 0]
        self._steps = [self._steps[k] for k in keep]
        self._layouts = [self._layouts[k] for k in keep]

    @property
    def steps(self):
        """list of int: the step (iteration or epoch) of each frame."""
        tail = [] if self._last_step is None else [self._last_step]
        return self._steps + tail

    @property
    def frames(self):
        """list of ndarray: the layouts kept, in the order of :attr:`steps`."""
        tail = [] if self._last_step is None else [self._last.copy()]
        return self._layouts + tail

    def __len__(self):
        return len(self._steps) + (self._last_step is not None)

    def __repr__(self):
        return f"Recorder(every={self.every}, n_frames={self.n_frames}, recorded={len(self)})"


def _centred(F):
    return F - F.mean(axis=0)


def align_frames(frames, reference=None):
    """Turn each layout onto a reference layout by a rotation or reflection.

    Each frame is centred, then multiplied by the orthogonal matrix
    :math:`R` that minimises :math:`\\lVert F R - Z \\rVert_F`, where
    :math:`Z` is the centred reference (orthogonal Procrustes:
    :math:`R = U V^\\top` from the SVD :math:`F^\\top Z = U S V^\\top`).
    The frame is not scaled: its size is the run's.

    The reference defaults to the last frame, the layout the run returns,
    so the animation ends on the picture the user already has.  Each frame
    is turned onto that one frame rather than onto its predecessor, so that
    small errors of consecutive alignments cannot add up to a drift over a
    long run.

    Parameters
    ----------
    frames : sequence of array-like of shape (n_samples, n_components)
    reference : array-like of shape (n_samples, n_components), optional
        Default: ``frames[-1]``.

    Returns
    -------
    list of ndarray
        The centred, turned frames.
    """
    frames = [np.asarray(F, dtype=np.float64) for F in frames]
    Z = _centred(frames[-1] if reference is None else np.asarray(reference, dtype=np.float64))
    aligned = []
    for F in frames:
        if F.shape != Z.shape:
            raise ValueError(f"frames must all have the reference's shape {Z.shape}; "
                             f"got {F.shape}")
        Fc = _centred(F)
        U, _, Vt = np.linalg.svd(Fc.T @ Z)
        aligned.append(Fc @ (U @ Vt))
    return aligned


def _check_fps(fps, name="fps"):
    ok = (isinstance(fps, (int, float, np.integer, np.floating)) and not isinstance(fps, bool))
    if not ok:
        raise TypeError(f"{name} must be a number of frames per second; got {fps!r}")
    if not (math.isfinite(fps) and fps > 0):
        raise ValueError(f"{name} must be a positive number of frames per second; "
                         f"got {fps!r}")
    return float(fps)


def _animation_format(path, format, name="path"):
    """The format to write: ``format``, else the extension of ``path``
    (a stream without one, such as /dev/stdout, is a GIF)."""
    if format is None:
        if path is None:
            return "gif"
        ext = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
        if not ext and is_stream(path):
            ext = "gif"
        if ext not in ANIMATION_FORMATS:
            raise ValueError(f"{name} {os.fspath(path)!r}: unknown animation format "
                             f"{'.' + ext if ext else '(no extension)'!r}; name a .gif or "
                             ".mp4 file (or pass format='gif' or 'mp4')")
        return ext
    format = str(format).lower().lstrip(".")
    if format not in ANIMATION_FORMATS:
        raise ValueError(f"format must be 'gif' or 'mp4'; got {format!r}")
    return format


def check_animation(path, fps=10, n_frames=None, format=None, *, names=None):
    """Check what :func:`animate` would be asked, before a run spends any time.

    Parameters
    ----------
    path, fps, n_frames, format
        As for :func:`animate`.
    names : dict, optional
        What the user set for ``path``, ``fps`` and ``n_frames``, for the
        messages (the command line's ``--animate``, ...); default: those
        keywords.

    Returns
    -------
    format : {"gif", "mp4"}

    Raises
    ------
    ValueError, TypeError
        ``fps`` not a positive number (or above :data:`GIF_MAX_FPS` for a
        GIF), ``n_frames`` below 2, an unknown extension or format, an MP4
        without the ``ffmpeg`` program, or an output that cannot be written
        (:func:`smallvis._outputs.check_output`).
    """
    names = {"path": "path", "fps": "fps", "n_frames": "n_frames", **(names or {})}
    fps = _check_fps(fps, names["fps"])
    if n_frames is not None:
        check_integer(n_frames, names["n_frames"], low=2)
    name = names["path"]
    format = _animation_format(path, format, name)
    if format == "gif" and fps > GIF_MAX_FPS:
        raise ValueError(f"{names['fps']} must be at most {GIF_MAX_FPS} for a GIF (its delays are "
                         f"hundredths of a second); got {fps:g}; write an .mp4 for more")
    if format == "mp4" and shutil.which("ffmpeg") is None:
        where = f"{name} {os.fspath(path)!r}" if path is not None else "format 'mp4'"
        raise ValueError(f"{where}: writing MP4 needs the ffmpeg program, which is not on "
                         "the PATH; install ffmpeg, or write a .gif")
    if path is not None:
        check_output(path, name)
    return format


def _pick(count, n_frames):
    """Indices of ``n_frames`` of ``count`` frames, evenly spaced, first and last included."""
    if n_frames is None or n_frames >= count:
        return np.arange(count)
    # spacing of at least 1, so that rounding keeps the indices distinct
    return np.round(np.linspace(0, count - 1, n_frames)).astype(int)


#: Least width of an animation with a legend, in units of its height: the
#: map's square box and, right of it, the legend's strip (wider when the
#: legend needs it).
LEGEND_STRIP = 1.3


def _legend_beside(fig, ax, canvas, size):
    """Move the legend of ``ax`` to a strip right of a square map of ``size`` inches.

    Inside the map, the legend's best place moves from frame to frame as the
    points do, and it covers some of them.  The strip is
    :data:`LEGEND_STRIP` times the height, or as wide as the legend needs.
    """
    legend_outside(ax)  # as a saved plot places it
    legend = ax.get_legend()
    left, bottom, side = 0.05 * size, 0.04 * size, 0.88 * size  # the map's box, inches
    width = size * LEGEND_STRIP
    for _ in range(2):  # the legend's width, measured where it is drawn
        fig.set_size_inches(width, size)
        ax.set_position([left / width, bottom / size, side / width, side / size])
        canvas.draw()
        right = legend.get_window_extent().x1 / fig.dpi + 0.05 * size
        width = max(size * LEGEND_STRIP, right)


def _scatter_rows(labels, n):
    """The rows of each scatter that :func:`smallvis.plot` draws, in its order.

    The points of missing (NaN) labels are one grey scatter, drawn first;
    the others are one scatter after it.
    """
    if labels is None:
        return [np.arange(n)]
    labels = _typed(np.asarray(labels))  # as plot reads them
    missing = np.isnan(labels) if labels.dtype.kind in "fc" else np.zeros(n, dtype=bool)
    return [rows for rows in (np.flatnonzero(missing), np.flatnonzero(~missing)) if rows.size]


def _square_limits(XY, margin=0.05):
    """Square axis limits around ``XY`` (aspect kept on a square figure)."""
    low, high = XY.min(axis=0), XY.max(axis=0)
    centre = (low + high) / 2
    half = max(float(np.max(high - low)) / 2 * (1 + margin), np.finfo(float).tiny)
    return (centre[0] - half, centre[0] + half), (centre[1] - half, centre[1] + half)


def _render(frames, steps, labels, title, zoom, size, dpi):
    """Each frame drawn into an RGB array (height, width, 3) of uint8."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(size, size), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    plot(frames[0], labels=labels, ax=ax, title="")
    # the square limits below keep the aspect on a square box; plot's own
    # equal aspect would move them frame by frame
    ax.set_aspect("auto")
    if ax.get_legend() is not None:
        _legend_beside(fig, ax, canvas, size)
    # plot draws the points of missing labels first, in grey, then the others
    scatters = list(zip(ax.collections, _scatter_rows(labels, len(frames[0]))))
    overall = _square_limits(np.vstack(frames))
    images = []
    for XY, step in zip(frames, steps):
        for points, rows in scatters:
            points.set_offsets(XY[rows])
        xlim, ylim = _square_limits(XY) if zoom else overall
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_title(title.format(step=step))
        canvas.draw()
        images.append(np.asarray(canvas.buffer_rgba())[:, :, :3].copy())
    return images


def _gif_bytes(images, fps, fh):
    from PIL import Image

    pictures = [Image.fromarray(image) for image in images]
    pictures[0].save(fh, format="GIF", save_all=True, append_images=pictures[1:],
                     duration=round(1000 / fps), loop=0)


def _mp4_bytes(images, fps):
    """The MP4 of ``images``, made by ffmpeg from a pipe into a pipe (no file)."""
    height, width = images[0].shape[:2]
    command = [shutil.which("ffmpeg") or "ffmpeg", "-loglevel", "error", "-f", "rawvideo",
               "-pix_fmt", "rgb24", "-s", f"{width}x{height}", "-r", f"{fps:g}", "-i", "-",
               # the common players need even sizes and 4:2:0 colour
               "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p",
               # a fragmented MP4 can be written to a pipe, which cannot seek
               "-movflags", "frag_keyframe+empty_moov", "-f", "mp4", "-"]
    done = subprocess.run(command, input=b"".join(image.tobytes() for image in images),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
        message = " ".join(done.stderr.decode(errors="replace").split())
        raise OSError(f"ffmpeg failed (status {done.returncode}): {message}")
    return done.stdout


def _as_frames(frames, steps):
    """The layouts and their steps from a :class:`Recorder` or a sequence of arrays."""
    if isinstance(frames, Recorder):
        layouts, recorded = frames.frames, frames.steps
        steps = recorded if steps is None else steps
    else:
        if isinstance(frames, np.ndarray) and frames.ndim != 3:
            raise ValueError(f"frames must be a Recorder, a sequence of layouts or an array "
                             f"of shape (n_frames, n_samples, n_components); got shape "
                             f"{frames.shape}")
        layouts = list(frames)
    if len(layouts) < 2:
        raise ValueError(f"frames: an animation needs at least 2 layouts; got {len(layouts)}")
    layouts = [_as_embedding(F) for F in layouts]
    if any(F.shape != layouts[-1].shape for F in layouts):
        raise ValueError("frames must all have the same number of points")
    steps = list(range(len(layouts))) if steps is None else list(steps)
    if len(steps) != len(layouts):
        raise ValueError(f"steps must have one entry per frame ({len(layouts)}); "
                         f"got {len(steps)}")
    return layouts, steps


def animate(frames, labels=None, path=None, *, fps=10, n_frames=None, format=None,
            steps=None, title="step {step}", align=True, zoom=True, size=5.0, dpi=80):
    """Write the layouts of a run as an animated GIF or MP4.

    Parameters
    ----------
    frames : Recorder, or sequence of array-like of shape (n_samples, n_components)
        The layouts, in order: a :class:`Recorder` that watched a run, or
        arrays (an array of shape (n_frames, n_samples, n_components)
        too).  The first two columns are drawn.
    labels : array-like of shape (n_samples,), optional
        Colours, as in :func:`smallvis.plot` (categories get a legend).
    path : str or os.PathLike, optional
        The file to write, by the rules of every smallvis output
        (:mod:`smallvis._outputs`: a regular file is replaced atomically,
        a link's target is written, a character device or FIFO is written
        into).  Nothing else is written.  None: the bytes are returned.
    fps : float, default=10
        Frames per second; at most :data:`GIF_MAX_FPS` for a GIF.
    n_frames : int, optional
        Most frames in the animation, at least 2: that many frames evenly
        spaced over the recorded ones, the first and last included.
        Default: all of them.
    format : {"gif", "mp4"}, optional
        Default: the extension of ``path`` (a stream without one, such as
        /dev/stdout, and ``path=None`` give a GIF).  MP4 needs the
        ``ffmpeg`` program on the ``PATH``.
    steps : sequence of int, optional
        The step of each frame, for the titles.  Default: a Recorder's
        steps, else the frames' positions.
    title : str, default="step {step}"
        Title of each frame; ``{step}`` is replaced by its step (e.g.
        ``"t-SNE, iteration {step}"``).
    align : bool, default=True
        Turn each frame onto the last one (:func:`align_frames`) so that
        the map does not spin or flip from frame to frame.
    zoom : bool, default=True
        Fit the view to each frame, so a small early layout fills the
        picture as the final one does; False: one view for all frames,
        which shows the layout growing.
    size : float, default=5.0
        Height of a frame, in inches, and its width; with categorical
        labels, :data:`LEGEND_STRIP` times as wide, the legend right of the
        square map, where it stays put and covers no point.
    dpi : float, default=80
        Pixels per inch.

    Returns
    -------
    str, os.PathLike or bytes
        ``path``, or the file's bytes when ``path`` is None.

    Raises
    ------
    ValueError
        ``fps`` not positive (or above :data:`GIF_MAX_FPS` for a GIF),
        ``n_frames`` below 2, an unknown extension or format, an MP4 without
        ffmpeg, fewer than 2 frames, frames of different sizes or with NaN,
        labels of the wrong length, or an output that cannot be written.
        All are checked before anything is drawn.
    TypeError
        ``fps`` or ``n_frames`` of the wrong type.

    Examples
    --------
    >>> rec = smallvis.Recorder(every=5)
    >>> Y = smallvis.embed(X, method="tsne", callback=rec)
    >>> smallvis.animate(rec, labels=y, path="tsne.gif", fps=15)  # doctest: +SKIP
    """
    format = check_animation(path, fps, n_frames, format)
    fps = float(fps)
    layouts, steps = _as_frames(frames, steps)
    if labels is not None:
        labels = np.asarray(labels)
        if labels.ndim != 1 or labels.shape[0] != layouts[0].shape[0]:
            raise ValueError(f"labels must be a 1-D array with one value per point "
                             f"({layouts[0].shape[0]}); got shape {labels.shape}")
    if align:
        layouts = align_frames(layouts)
    keep = _pick(len(layouts), n_frames)
    images = _render([layouts[k] for k in keep], [steps[k] for k in keep], labels,
                     str(title), bool(zoom), float(size), float(dpi))
    if format == "gif":
        def write(fh):
            _gif_bytes(images, fps, fh)
    else:
        data = _mp4_bytes(images, fps)

        def write(fh):
            fh.write(data)
    if path is None:
        buffer = io.BytesIO()
        write(buffer)
        return buffer.getvalue()
    write_output(path, write, "path")
    return path
