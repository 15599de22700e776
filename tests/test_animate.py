"""Watching a run: smallvis.Recorder, smallvis.animate and ``smallvis embed --animate``."""

import io
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

PIL_Image = pytest.importorskip("PIL.Image")
pytest.importorskip("matplotlib")

import smallvis  # noqa: E402
from smallvis.animation import align_frames  # noqa: E402
from smallvis.cli import main  # noqa: E402
from smallvis.registry import DEFAULT_METHOD, METHODS  # noqa: E402

#: A method of the stochastic optimizer, from the registry.
SGD_METHOD = next(name for name, m in METHODS.items() if m.sgd is not None)

#: Small frames, so that drawing them takes little time.
SMALL = dict(size=1.5, dpi=40)


@pytest.fixture(scope="module")
def data():
    X, y = smallvis.datasets.load("iris")
    return X, y


def _feed(recorder, n_steps, shape=(4, 2)):
    """Call ``recorder`` as an optimizer would, with a layout that encodes its step."""
    for step in range(1, n_steps + 1):
        recorder(step, np.full(shape, float(step)), None)


def _gif(source):
    """The image of a path or of bytes, opened with Pillow."""
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    return PIL_Image.open(io.BytesIO(data))


# --------------------------------------------------------------------------
# recording


def test_frames_are_recorded_at_the_stride_asked_and_end_on_the_last_layout():
    rec = smallvis.Recorder(every=7, n_frames=100)
    _feed(rec, 60)
    assert rec.steps == [7, 14, 21, 28, 35, 42, 49, 56, 60]
    for step, frame in zip(rec.steps, rec.frames):  # copies taken at that step
        assert np.all(frame == step)


def test_recording_a_real_run_keeps_copies_and_its_final_layout(data):
    X, _ = data
    rec = smallvis.Recorder(every=5)
    Y = smallvis.embed(X, method=DEFAULT_METHOD, optimizer="exact", n_iter=40,
                       random_state=0, callback=rec)
    assert rec.steps == list(range(5, 41, 5))
    assert np.array_equal(rec.frames[-1], Y)
    assert not np.array_equal(rec.frames[0], rec.frames[-1])  # not views of the live Y


def test_memory_stays_bounded_over_a_long_run():
    n_frames, n_steps = 16, 10_000
    rec = smallvis.Recorder(every=1, n_frames=n_frames)
    most = 0
    for step in range(1, n_steps + 1):
        rec(step, np.full((3, 2), float(step)), None)
        most = max(most, len(rec), len(rec._layouts) + (rec._last is not None))
    assert most <= n_frames
    assert n_frames // 2 <= len(rec) <= n_frames
    steps = rec.steps
    assert steps[-1] == n_steps
    gaps = np.diff(steps[:-1])
    assert np.all(gaps == rec.every) and steps[0] == rec.every  # evenly spaced, from the start


def test_a_step_seen_again_drops_the_frames_after_it():
    rec = smallvis.Recorder(every=2)
    _feed(rec, 9)
    rec(5, np.zeros((4, 2)), None)  # the exact optimizer's guard went back
    assert rec.steps == [2, 4, 5]


@pytest.mark.parametrize("kwargs,name", [({"every": 0}, "every"), ({"n_frames": 1}, "n_frames"),
                                         ({"every": 1.5}, "every")])
def test_bad_recorder_settings_name_the_parameter(kwargs, name):
    with pytest.raises((ValueError, TypeError), match=name):
        smallvis.Recorder(**kwargs)


def test_recording_changes_no_number_of_an_exact_fit(data):
    X, _ = data
    kw = dict(method=DEFAULT_METHOD, optimizer="exact", n_iter=120, random_state=3)
    plain = smallvis.embed(X, **kw)
    rec = smallvis.Recorder(every=3, n_frames=8)
    recorded = smallvis.embed(X, callback=rec, **kw)
    assert np.array_equal(plain, recorded)
    assert len(rec) >= 4


def test_recording_changes_no_number_of_a_stochastic_fit(data):
    X, _ = data
    kw = dict(method=SGD_METHOD, optimizer="sgd", n_epochs=60, random_state=3, n_threads=1)
    plain = smallvis.embed(X, **kw)
    rec = smallvis.Recorder(every=1, n_frames=10)
    recorded = smallvis.embed(X, callback=rec, **kw)
    assert np.array_equal(plain, recorded)
    assert rec.steps[-1] == 60 and len(rec) <= 10
    assert np.array_equal(rec.frames[-1], recorded)


def test_an_estimator_records_through_its_callback(data):
    X, _ = data
    rec = smallvis.Recorder(every=10)
    est = smallvis.Embedding(method=DEFAULT_METHOD, n_iter=30, random_state=0, callback=rec)
    est.fit(X)
    assert rec.steps == [10, 20, 30]
    assert np.array_equal(rec.frames[-1], est.embedding_)


# --------------------------------------------------------------------------
# alignment


def test_alignment_removes_a_planted_rotation_and_reflection():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(30, 2)) * [3.0, 1.0]
    Zc = Z - Z.mean(axis=0)
    frames = []
    for angle, flip in [(0.3, 1), (2.0, -1), (-1.2, 1), (3.0, -1)]:
        c, s = np.cos(angle), np.sin(angle)
        R = np.array([[c, -s], [s, c]]) @ np.diag([1.0, flip])
        frames.append(Z @ R + rng.normal(size=2) * 5)  # turned, flipped and moved
    frames.append(Z)
    for aligned in align_frames(frames):
        np.testing.assert_allclose(aligned, Zc, atol=1e-10)


def test_alignment_does_not_scale():
    Z = np.random.default_rng(1).normal(size=(20, 2))
    small = align_frames([Z * 1e-3, Z])[0]
    np.testing.assert_allclose(np.linalg.norm(small), np.linalg.norm(Z - Z.mean(0)) * 1e-3)


# --------------------------------------------------------------------------
# writing


def test_gif_has_the_frame_count_and_rate_asked_and_nothing_else_is_written(tmp_path):
    rec = smallvis.Recorder(every=1)
    _feed(rec, 12, shape=(5, 2))
    rec(13, np.arange(10.0).reshape(5, 2), None)  # frames with some spread
    path = tmp_path / "run.gif"
    assert smallvis.animate(rec, path=path, fps=5, n_frames=4, **SMALL) == path
    assert os.listdir(tmp_path) == ["run.gif"]
    image = _gif(path)
    assert image.format == "GIF" and image.n_frames == 4
    assert image.info["duration"] == 200


def test_frames_keep_the_square_limits_they_are_given(caplog):
    # plot() draws a map on one scale across and up by moving its data
    # limits; the animation sets square limits itself on a square figure,
    # which that would override (matplotlib says so) and move frame by frame
    rng = np.random.default_rng(3)
    layouts = [rng.normal(size=(40, 2)) * [10.0 + k, 1.0] for k in range(3)]
    with caplog.at_level("WARNING", logger="matplotlib"):
        smallvis.animate(layouts, fps=4, **SMALL)
    assert not [r for r in caplog.records if "Ignoring fixed" in r.getMessage()]


def test_gif_colours_follow_the_labels():
    rng = np.random.default_rng(2)
    layouts = [rng.normal(size=(40, 2)) for _ in range(3)]
    labels = np.repeat([0, 1], 20)
    image = _gif(smallvis.animate(layouts, labels=labels, fps=4, **SMALL))
    pixels = np.asarray(image.convert("RGB")).reshape(-1, 3).astype(int)
    import matplotlib.colors as mcolors

    for colour in ("tab:blue", "tab:orange"):  # the palette of smallvis.plot
        rgb = np.array(mcolors.to_rgb(colour)) * 255
        assert np.min(np.abs(pixels - rgb).sum(axis=1)) < 30, colour


def _box_side(frame):
    """The height and width in pixels of the map's frame: the rows and columns that its
    (grey) axis lines cross from side to side, left of the legend's strip."""
    h, w = frame.shape[:2]
    line = frame.sum(axis=2) < 600
    rows = np.flatnonzero(line.sum(axis=1) > 0.5 * h)
    cols = np.flatnonzero(line.sum(axis=0) > 0.5 * h)
    return np.ptp(rows), np.ptp(cols)


def test_a_legend_stays_put_beside_a_square_map():
    """Categories' legend sits in a strip right of the map, the same in every frame
    (inside, its best place moved as the points did), and the map keeps a square box."""
    from PIL import ImageSequence

    from smallvis.animation import LEGEND_STRIP

    rng = np.random.default_rng(4)
    layouts = [rng.normal(size=(60, 2)) * (1 + k) + [3 * k, 0] for k in range(4)]
    labels = np.repeat(["a", "b", "c"], 20)
    image = _gif(smallvis.animate(layouts, labels=labels, fps=4, size=3.0, dpi=50))
    frames = [np.asarray(f.convert("RGB")).astype(int) for f in ImageSequence.Iterator(image)]
    height, width = frames[0].shape[:2]
    assert width == pytest.approx(LEGEND_STRIP * height, abs=2)
    strip = slice(int(width * 0.8), width)  # right of the map's box
    # the same up to each frame's own palette (a GIF's 256 colours): a legend
    # that moved would put a marker where another frame has white
    assert all(np.abs(f[:, strip] - frames[0][:, strip]).sum(axis=2).max() < 120
               for f in frames[1:])
    assert np.any(frames[0][:, strip] < 200)  # the legend is drawn there
    side_down, side_across = _box_side(frames[-1])
    assert side_down > 0.8 * height
    assert side_down == pytest.approx(side_across, abs=2)


def test_a_long_legend_widens_the_strip_instead_of_being_cut():
    from PIL import ImageSequence

    rng = np.random.default_rng(5)
    layouts = [rng.normal(size=(40, 2)) for _ in range(2)]
    labels = np.repeat(["a", "a category with a long name indeed"], 20)
    image = _gif(smallvis.animate(layouts, labels=labels, fps=4, size=3.0, dpi=50))
    frame = np.asarray(next(ImageSequence.Iterator(image)).convert("RGB")).astype(int)
    height, width = frame.shape[:2]
    assert width > 1.5 * height
    assert np.all(frame[:, -3:] > 240)  # white at the right edge: no text cut there
    side_down, side_across = _box_side(frame)
    assert side_down == pytest.approx(side_across, abs=2)


def test_points_of_missing_labels_and_the_others_both_move():
    """plot draws the NaN labels' points as a grey scatter first: every scatter follows
    the frames (the coloured points stood still at the first frame)."""
    import matplotlib.colors as mcolors
    from PIL import ImageSequence

    rng = np.random.default_rng(6)
    start = rng.normal(size=(40, 2)) * 0.3
    layouts = [start, start + [10.0, 0.0]]  # everything moves right
    labels = np.r_[np.full(10, np.nan), np.zeros(30)]
    # neither turned onto the last frame (which would undo the move) nor zoomed
    image = _gif(smallvis.animate(layouts, labels=labels, fps=4, align=False, zoom=False,
                                  size=3.0, dpi=50, title=""))
    last = np.asarray(list(ImageSequence.Iterator(image))[-1].convert("RGB")).astype(int)
    blue = np.array(mcolors.to_rgb("tab:blue")) * 255
    columns = np.flatnonzero((np.abs(last - blue).sum(axis=2) < 40).any(axis=0))
    assert columns.size and columns.min() > 0.45 * last.shape[1]


@pytest.mark.parametrize("kwargs,match", [
    ({"fps": 0}, "fps"), ({"fps": -2}, "fps"), ({"fps": float("nan")}, "fps"),
    ({"fps": 60}, "fps"),  # faster than a GIF plays
    ({"n_frames": 1}, "n_frames"),
])
def test_bad_arguments_name_the_parameter(tmp_path, kwargs, match):
    path = tmp_path / "run.gif"
    with pytest.raises(ValueError, match=match):
        smallvis.animate([np.eye(2), np.eye(2)], path=path, **kwargs)
    assert not path.exists()


def test_a_bad_fps_type_is_a_type_error():
    with pytest.raises(TypeError, match="fps"):
        smallvis.animate([np.eye(2), np.eye(2)], fps="10")


def test_an_unknown_extension_is_refused(tmp_path):
    path = tmp_path / "run.png"
    with pytest.raises(ValueError, match=r"path .*run\.png.*\.gif or \.mp4"):
        smallvis.animate([np.eye(2), np.eye(2)], path=path)
    assert not path.exists()


def test_mp4_without_ffmpeg_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    path = tmp_path / "run.mp4"
    with pytest.raises(ValueError, match=r"path .*run\.mp4.*ffmpeg"):
        smallvis.animate([np.eye(2), np.eye(2)], path=path)
    assert not path.exists()


def test_mp4_frames_go_to_ffmpeg_and_its_output_to_the_file(tmp_path, monkeypatch):
    """A stand-in ffmpeg that answers with the number of bytes it was sent."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "ffmpeg"
    fake.write_text(f"#!{sys.executable}\nimport sys\n"
                    "sys.stdout.write(str(len(sys.stdin.buffer.read())))\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(bin_dir))
    out = tmp_path / "out"
    out.mkdir()
    path = out / "run.mp4"
    smallvis.animate([np.eye(2), 2 * np.eye(2), 3 * np.eye(2)], path=path, size=1.0, dpi=40)
    assert int(path.read_text()) == 3 * 40 * 40 * 3  # three RGB frames of 40 x 40 pixels
    assert os.listdir(out) == ["run.mp4"]


def test_too_few_frames_are_refused():
    with pytest.raises(ValueError, match="at least 2"):
        smallvis.animate([np.eye(2)])


# --------------------------------------------------------------------------
# command line


def test_cli_animate_writes_the_gif(tmp_path, capsys):
    path = tmp_path / "run.gif"
    code = main(["embed", "iris", "--n-iter", "40", "--random-state", "0", "--quiet",
                 "--animate", str(path), "--animate-frames", "5", "--animate-fps", "4"])
    assert code == 0, capsys.readouterr().err
    assert os.listdir(tmp_path) == ["run.gif"]
    image = _gif(path)
    assert image.n_frames == 5 and image.info["duration"] == 250


@pytest.mark.parametrize("options,flag", [
    (["--animate-fps", "0"], "--animate-fps"),
    (["--animate-frames", "1"], "--animate-frames"),
])
def test_cli_bad_animate_options_are_named(tmp_path, capsys, options, flag):
    path = tmp_path / "run.gif"
    code = main(["embed", "iris", "--n-iter", "5", "--quiet", "--animate", str(path),
                 *options])
    assert code == 2
    assert capsys.readouterr().err.startswith(f"smallvis: error: {flag} ")
    assert not path.exists()


def test_cli_refuses_an_unknown_extension_and_mp4_without_ffmpeg(tmp_path, capsys, monkeypatch):
    code = main(["embed", "iris", "--n-iter", "5", "--quiet", "--animate",
                 str(tmp_path / "run.png")])
    assert code == 2 and "--animate" in capsys.readouterr().err
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    code = main(["embed", "iris", "--n-iter", "5", "--quiet", "--animate",
                 str(tmp_path / "run.mp4")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("smallvis: error: --animate ") and "ffmpeg" in err
    assert os.listdir(tmp_path) == []


def test_cli_refuses_to_animate_over_the_input(tmp_path, capsys):
    data = tmp_path / "x.gif"
    np.savetxt(tmp_path / "x.csv", np.random.default_rng(0).normal(size=(30, 3)),
               delimiter=",")
    os.replace(tmp_path / "x.csv", data)  # an input that happens to end in .gif
    before = data.read_bytes()
    code = main(["embed", str(data), "--n-iter", "5", "--quiet", "--animate", str(data)])
    assert code == 2 and "input" in capsys.readouterr().err
    assert data.read_bytes() == before


def test_ctrl_c_with_save_partial_animates_the_run_so_far(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(smallvis.__file__)), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "smallvis.cli", "embed", "digits", "--n-iter", "100000",
         "--random-state", "0", "--save-partial", "--animate", "run.gif",
         "--animate-frames", "3"],
        cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if line.startswith("iter"):
            proc.send_signal(signal.SIGINT)
            break
    err = "".join(lines) + proc.communicate(timeout=120)[1]
    assert proc.returncode == 130, err
    assert "animation -> run.gif" in err and "Traceback" not in err, err
    assert os.listdir(tmp_path) == ["run.gif"]
    assert _gif(tmp_path / "run.gif").n_frames >= 2
