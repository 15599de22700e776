"""The plotting functions refuse coordinates they cannot draw, and
``save_plot`` writes a special file without an extension in its first format."""

import os
import stat
import threading

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from smallvis import plotting  # noqa: E402

GOOD = np.arange(10.0).reshape(5, 2)

NOT_FINITE = [np.nan, np.inf, -np.inf]


def _with(value, where=(2, 1)):
    Y = GOOD.copy()
    Y[where] = value
    return Y


@pytest.mark.parametrize("value", NOT_FINITE)
def test_save_plot_refuses_coordinates_that_are_not_finite(value, tmp_path):
    out = tmp_path / "nan.png"
    with pytest.raises(ValueError, match=r"Y contains 1 NaN or infinite"):
        plotting.save_plot(_with(value), out)
    with pytest.raises(ValueError, match=r"Y contains 10 NaN or infinite"):
        plotting.save_plot(np.full((5, 2), np.nan), out)
    assert not out.exists()


@pytest.mark.parametrize("value", NOT_FINITE)
def test_plot_refuses_coordinates_that_are_not_finite(value):
    with pytest.raises(ValueError, match=r"Y contains 1 NaN or infinite"):
        plotting.plot(_with(value, where=(0, 0)))
    with pytest.raises(ValueError, match=r"Y contains 1 NaN or infinite"):
        plotting.plot(np.array([1.0, value, 3.0]))  # a 1-D embedding


def test_a_third_column_that_is_not_plotted_must_still_be_finite():
    with pytest.raises(ValueError, match=r"Y contains 1 NaN or infinite"):
        plotting.plot(np.column_stack([GOOD, [0, 0, np.nan, 0, 0]]))


def test_plot_every_refuses_coordinates_that_are_not_finite():
    callback = plotting.plot_every(1, display=False)
    with pytest.raises(ValueError, match=r"Y contains 1 NaN or infinite"):
        callback(0, _with(np.nan))


@pytest.mark.parametrize("Y,word", [
    (np.zeros((2, 2, 2)), "shape"),
    (np.float64(3.0), "shape"),
    (np.zeros((5, 0)), "shape"),
    (np.array([[1 + 1j, 2.0]]), "real"),
    (np.array([["a", "b"]]), "numeric"),
])
def test_plot_refuses_what_is_no_embedding(Y, word):
    with pytest.raises((ValueError, TypeError), match=word):
        plotting.plot(Y)


def _read_all(path, into):
    with open(path, "rb") as fh:
        into.append(fh.read())


def test_save_plot_writes_a_fifo_without_extension_as_png(tmp_path):
    fifo = tmp_path / "plotpipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=_read_all, args=(fifo, got), daemon=True)
    reader.start()
    try:
        plotting.save_plot(GOOD, str(fifo))
    finally:
        reader.join(timeout=30)
    assert got[0].startswith(b"\x89PNG")


def test_save_plot_writes_a_link_to_dev_null_without_extension(tmp_path):
    link = tmp_path / "nulldev"
    link.symlink_to(os.devnull)
    assert plotting.save_plot(GOOD, link) == link
    assert os.path.islink(link)


def test_save_plot_writes_a_character_device_without_extension(tmp_path):
    device = tmp_path / "nulldev"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # as /dev/null
    except (PermissionError, OSError):
        pytest.skip("creating a device needs privileges")
    plotting.save_plot(GOOD, device)
    assert stat.S_ISCHR(os.stat(device).st_mode)


def test_a_regular_file_without_extension_still_needs_a_format(tmp_path):
    with pytest.raises(ValueError, match="plot format must be one of png, pdf, svg"):
        plotting.save_plot(GOOD, tmp_path / "noext")
    assert not (tmp_path / "noext").exists()
    plotting.save_plot(GOOD, tmp_path / "noext", format="svg")
    assert b"<svg" in (tmp_path / "noext").read_bytes()[:500]
