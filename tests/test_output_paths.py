"""Outputs through links and special files, read-only outputs, exact names.

Whatever writes a file the user named (``--out``, ``--plot``,
``--save-model``, :func:`smallvis.save_model`, :func:`smallvis.plotting.save_plot`)
follows one set of rules:

* a symbolic link stays a link, and what is written is its final target
  (a regular file there is replaced atomically in the target's directory);
* a character device or a FIFO is written into, never replaced by a regular
  file; a block device, a directory, a socket or a link loop is refused
  before any computation;
* a read-only file or directory is refused, for root too;
* the name given is the name written: no extension is added.

The tests run as whatever user runs the suite; as root (as in many
containers), they check that root gets no exemption.  Device nodes are made
in the test's own directory (``os.mknod``, root only), never the system's.
"""

import io
import os
import select
import socket
import stat
import threading
import time

import numpy as np
import pytest

import smallvis
import smallvis.cli as cli
from smallvis.cli import main
from smallvis.plotting import save_plot

from conftest import one_error_line

RUN = ["--method", "tsne", "--fast", "--n-iter", "20", "--perplexity", "5",
       "--random-state", "0", "--quiet"]

#: The three options of ``embed`` that write a file, with a name for each.
OPTIONS = {"--out": "y.csv", "--plot": "y.png", "--save-model": "m.npz"}

#: Leading bytes of each output kind (CSV header, PNG signature, zip archive).
MAGIC = {"--out": b"y1,y2\n", "--plot": b"\x89PNG", "--save-model": b"PK\x03\x04"}


@pytest.fixture
def no_embedding(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("embed() ran although the command should have been refused")
    monkeypatch.setattr(cli, "embed", refuse)


@pytest.fixture(scope="module")
def model():
    X, _ = smallvis.datasets.load("iris")
    return smallvis.TSNE(random_state=0, n_iter=20, perplexity=5, fast=True).fit(X[:40])



def _null_device(path):
    """A character device node like /dev/null (1, 3), made in the test's directory."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")
    os.chmod(path, 0o666)
    return path


def _kind(path):
    return stat.S_IFMT(os.lstat(path).st_mode)


def _read_all(fd):
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _drain(fd):
    """Everything written into a FIFO opened for reading (non-blocking) as ``fd``,
    until its writer closes it."""
    chunks, seen_writer = [], False
    while True:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if chunk:
            chunks.append(chunk)
            seen_writer = True
        elif seen_writer:
            return b"".join(chunks)
        else:  # no writer has opened it yet
            time.sleep(0.05)


# -- special files: written into, never replaced --------------------------------


@pytest.mark.parametrize("option", list(OPTIONS))
def test_a_link_to_a_character_device_is_written_into_not_replaced(
        tmp_path, monkeypatch, option):
    monkeypatch.chdir(tmp_path)
    _null_device("nul")
    name = OPTIONS[option]
    os.symlink("nul", name)
    assert main(["embed", "iris", option, name, *RUN]) == 0
    assert _kind("nul") == stat.S_IFCHR and os.stat("nul").st_rdev == os.makedev(1, 3)
    assert _kind(name) == stat.S_IFLNK and os.readlink(name) == "nul"
    assert sorted(os.listdir()) == sorted(["nul", name])  # no temporary left


@pytest.mark.parametrize("option", list(OPTIONS))
def test_a_fifo_output_receives_the_bytes_and_stays_a_fifo(tmp_path, monkeypatch, option):
    monkeypatch.chdir(tmp_path)
    os.mkfifo("pipe")
    name = OPTIONS[option]
    os.symlink("pipe", name)  # the extension is the link's; a bare FIFO is tested below
    reader = os.open("pipe", os.O_RDONLY | os.O_NONBLOCK)
    received = []
    drain = threading.Thread(target=lambda: received.append(_drain(reader)), daemon=True)
    drain.start()
    try:
        assert main(["embed", "iris", option, name, *RUN]) == 0
    finally:
        drain.join(timeout=30)
        os.close(reader)
    assert _kind("pipe") == stat.S_IFIFO and _kind(name) == stat.S_IFLNK
    assert received and received[0].startswith(MAGIC[option])
    if option == "--out":
        Y = np.loadtxt(io.BytesIO(received[0]), delimiter=",", skiprows=1)
        assert Y.shape == (150, 2)
    if option == "--save-model":
        loaded = smallvis.load_model(io.BytesIO(received[0]))
        assert loaded.embedding_.shape == (150, 2)


def test_a_bare_fifo_or_device_without_an_extension_gets_the_default_format(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkfifo("coords")
    reader = os.open("coords", os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert main(["embed", "iris", "--out", "coords", *RUN]) == 0
        data = _read_all(reader)
    finally:
        os.close(reader)
    assert _kind("coords") == stat.S_IFIFO
    assert np.loadtxt(io.BytesIO(data), delimiter=",", skiprows=1).shape == (150, 2)
    _null_device("sink")
    assert main(["embed", "iris", "--plot", "sink", "--save-model", "sink", *RUN]) == 0
    assert _kind("sink") == stat.S_IFCHR
    assert sorted(os.listdir()) == ["coords", "sink"]


def test_checking_a_fifo_output_does_not_wait_for_a_reader(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    os.mkfifo("y.csv")  # nobody reads it: opening it for writing would block
    status = []
    run = threading.Thread(target=lambda: status.append(
        main(["embed", "no_such_input.csv", "--out", "y.csv"])), daemon=True)
    run.start()
    run.join(timeout=30)
    assert status == [2]
    one_error_line(capsys, "no_such_input.csv")
    assert _kind("y.csv") == stat.S_IFIFO


def test_out_dev_stdout_writes_to_standard_output(capfd):
    assert main(["embed", "iris", "--out", "/dev/stdout", *RUN]) == 0
    out = capfd.readouterr().out
    assert np.loadtxt(io.StringIO(out), delimiter=",", skiprows=1).shape == (150, 2)


@pytest.mark.parametrize("before", [b"", b"a log line\n"])
def test_dev_stdout_redirected_to_a_file_is_appended_to_not_replaced(tmp_path, before):
    """``--out /dev/stdout > y.csv`` (``before`` empty) or ``>> log.txt``."""
    target = tmp_path / "y.csv"
    target.write_bytes(before)
    saved = os.dup(1)
    fd = os.open(target, os.O_WRONLY | os.O_APPEND)
    try:
        os.dup2(fd, 1)
        status = main(["embed", "iris", "--out", "/dev/stdout", *RUN])
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(fd)
    assert status == 0
    data = target.read_bytes()
    assert data.startswith(before + b"y1,y2\n")
    assert np.loadtxt(io.BytesIO(data[len(before):]), delimiter=",",
                      skiprows=1).shape == (150, 2)
    assert os.listdir(tmp_path) == ["y.csv"]


def test_two_outputs_into_one_character_device_are_allowed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _null_device("nul")
    os.symlink("nul", "a.csv")
    os.symlink("nul", "b.png")
    assert main(["embed", "iris", "--out", "a.csv", "--plot", "b.png", *RUN]) == 0
    assert _kind("nul") == stat.S_IFCHR


def _block_device(path):
    try:
        os.mknod(path, stat.S_IFBLK | 0o666, os.makedev(7, 0))
    except PermissionError:
        pytest.skip("making a device node needs root")


def _socket(path):
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(path)
    return sock


@pytest.mark.parametrize("kind,needle", [("block", "is a block device"),
                                         ("directory", "is a directory"),
                                         ("socket", "is a socket"),
                                         ("loop", "symbolic links")])
@pytest.mark.parametrize("option", list(OPTIONS))
def test_block_devices_directories_sockets_and_link_loops_are_refused_before_work(
        tmp_path, monkeypatch, capsys, no_embedding, kind, needle, option):
    monkeypatch.chdir(tmp_path)
    sock = None
    if kind == "block":
        _block_device("thing")
    elif kind == "directory":
        os.mkdir("thing")
    elif kind == "socket":
        sock = _socket("thing")
    else:
        os.symlink("other", "thing")
        os.symlink("thing", "other")
    name = OPTIONS[option]
    os.symlink("thing", name)
    try:
        assert main(["embed", "iris", option, name, *RUN]) == 2
    finally:
        if sock is not None:
            sock.close()
    one_error_line(capsys, option, repr(name), needle)
    assert _kind(name) == stat.S_IFLNK
    if kind == "block":
        assert _kind("thing") == stat.S_IFBLK


def test_transform_outputs_follow_the_same_rules(tmp_path, monkeypatch, capsys, model):
    monkeypatch.chdir(tmp_path)
    smallvis.save_model(model, "m.npz")
    _null_device("nul")
    os.symlink("nul", "sink.csv")
    (tmp_path / "ro.png").write_bytes(b"precious")
    os.chmod("ro.png", 0o444)
    command = ["transform", "iris", "--model", "m.npz", "--out", "sink.csv", "--quiet"]
    assert main(command + ["--plot", "ro.png"]) == 2
    one_error_line(capsys, "--plot", "read-only")
    assert (tmp_path / "ro.png").read_bytes() == b"precious"
    os.symlink("nul", "sink.png")
    assert main(command + ["--plot", "sink.png"]) == 0
    assert _kind("nul") == stat.S_IFCHR
    assert sorted(os.listdir()) == ["m.npz", "nul", "ro.png", "sink.csv", "sink.png"]


# -- read-only outputs, for root too ----------------------------------------------


@pytest.mark.parametrize("mode", [0o444, 0o400, 0o555])
@pytest.mark.parametrize("option", list(OPTIONS))
def test_a_read_only_output_is_refused_even_for_root(tmp_path, monkeypatch, capsys,
                                                     no_embedding, option, mode):
    monkeypatch.chdir(tmp_path)
    name = OPTIONS[option]
    (tmp_path / name).write_bytes(b"precious")
    os.chmod(name, mode)
    assert main(["embed", "iris", option, name, *RUN]) == 2
    one_error_line(capsys, option, repr(name), "read-only")
    assert (tmp_path / name).read_bytes() == b"precious"


@pytest.mark.parametrize("option", list(OPTIONS))
def test_a_link_to_a_read_only_file_is_refused(tmp_path, monkeypatch, capsys,
                                               no_embedding, option):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep").write_bytes(b"precious")
    os.chmod("keep", 0o444)
    name = OPTIONS[option]
    os.symlink("keep", name)
    assert main(["embed", "iris", option, name, *RUN]) == 2
    one_error_line(capsys, option, "read-only")
    assert (tmp_path / "keep").read_bytes() == b"precious"


@pytest.mark.parametrize("option", list(OPTIONS))
def test_a_read_only_directory_is_refused_even_for_root(tmp_path, monkeypatch, capsys,
                                                        no_embedding, option):
    monkeypatch.chdir(tmp_path)
    os.mkdir("locked")
    os.chmod("locked", 0o555)
    try:
        assert main(["embed", "iris", option, f"locked/{OPTIONS[option]}", *RUN]) == 2
        one_error_line(capsys, option, "is not writable")
        assert os.listdir("locked") == []
    finally:
        os.chmod("locked", 0o755)


# -- links to regular files -------------------------------------------------------------


def test_a_chain_of_links_replaces_the_final_target_and_stays_a_chain(tmp_path,
                                                                       monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("results")
    (tmp_path / "results" / "real.csv").write_text("old\n" * 100)
    os.chmod("results/real.csv", 0o640)
    os.symlink("results/real.csv", "hop.csv")
    os.symlink("hop.csv", "y.csv")
    assert main(["embed", "iris", "--out", "y.csv", *RUN]) == 0
    assert _kind("y.csv") == stat.S_IFLNK and _kind("hop.csv") == stat.S_IFLNK
    assert np.loadtxt("results/real.csv", delimiter=",", skiprows=1).shape == (150, 2)
    assert os.stat("results/real.csv").st_mode & 0o777 == 0o640
    assert sorted(os.listdir()) == ["hop.csv", "results", "y.csv"]
    assert os.listdir("results") == ["real.csv"]


def test_root_replacing_a_users_file_keeps_its_owner_and_mode(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    out = tmp_path / "y.csv"
    out.write_text("old\n")
    os.chown(out, 4321, 4321)
    out.chmod(0o604)
    assert main(["embed", "iris", "--out", str(out), *RUN]) == 0
    st = out.stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (4321, 4321, 0o604)
    assert np.loadtxt(out, delimiter=",", skiprows=1).shape == (150, 2)


def test_a_dangling_link_creates_its_target(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("results")
    os.symlink("results/new.csv", "y.csv")
    assert main(["embed", "iris", "--out", "y.csv", *RUN]) == 0
    assert _kind("y.csv") == stat.S_IFLNK
    assert np.loadtxt("results/new.csv", delimiter=",", skiprows=1).shape == (150, 2)


def test_a_link_into_a_missing_directory_is_refused_before_work(tmp_path, monkeypatch,
                                                                capsys, no_embedding):
    monkeypatch.chdir(tmp_path)
    os.symlink("nowhere/new.csv", "y.csv")
    assert main(["embed", "iris", "--out", "y.csv", *RUN]) == 2
    one_error_line(capsys, "--out", "does not exist")
    assert os.listdir() == ["y.csv"]


@pytest.mark.parametrize("spelling", ["chain", "input_is_a_link"])
def test_an_output_that_links_to_an_input_is_refused(tmp_path, monkeypatch, capsys,
                                                     no_embedding, spelling):
    monkeypatch.chdir(tmp_path)
    np.save("data.npy", np.ones((20, 3)))
    before = (tmp_path / "data.npy").read_bytes()
    if spelling == "chain":  # out -> hop -> data.npy
        os.symlink("data.npy", "hop.npy")
        os.symlink("hop.npy", "y.npy")
        source, out = "data.npy", "y.npy"
    else:  # the input is named through a link, the output is the file itself
        os.symlink("data.npy", "in.npy")
        source, out = "in.npy", "data.npy"
    assert main(["embed", source, "--out", out, *RUN]) == 2
    one_error_line(capsys, "--out", "is the input file")
    assert (tmp_path / "data.npy").read_bytes() == before


# -- save_model writes exactly the name given, by the same rules ------------------------


@pytest.mark.parametrize("name", ["results", "model.bin", "model.NPZ", "m.npz"])
def test_save_model_writes_exactly_the_name_given(tmp_path, monkeypatch, model, name):
    monkeypatch.chdir(tmp_path)
    for other in ("results.npz", "model.bin.npz", "model.NPZ.npz", "m.npz.npz"):
        (tmp_path / other).write_bytes(b"the user's own file")
    smallvis.save_model(model, name)
    assert (tmp_path / name).read_bytes()[:4] == b"PK\x03\x04"
    for other in ("results.npz", "model.bin.npz", "model.NPZ.npz", "m.npz.npz"):
        assert (tmp_path / other).read_bytes() == b"the user's own file"
    assert sorted(os.listdir()) == sorted({name, "results.npz", "model.bin.npz",
                                           "model.NPZ.npz", "m.npz.npz"})
    loaded = smallvis.load_model(name)
    assert np.array_equal(loaded.embedding_, model.embedding_)


def test_save_model_through_a_path_object_and_an_open_file(tmp_path, model):
    smallvis.save_model(model, tmp_path / "results")
    with open(tmp_path / "opened", "wb") as fh:
        smallvis.save_model(model, fh)
    assert sorted(os.listdir(tmp_path)) == ["opened", "results"]
    for name in ("opened", "results"):
        assert np.array_equal(smallvis.load_model(tmp_path / name).embedding_,
                              model.embedding_)


def test_save_model_keeps_the_link_and_special_file_rules(tmp_path, monkeypatch, model):
    monkeypatch.chdir(tmp_path)
    _null_device("nul")
    os.symlink("nul", "sink.npz")
    smallvis.save_model(model, "sink.npz")
    assert _kind("nul") == stat.S_IFCHR and _kind("sink.npz") == stat.S_IFLNK
    (tmp_path / "ro.npz").write_bytes(b"precious")
    os.chmod("ro.npz", 0o444)
    with pytest.raises(ValueError, match=r"file 'ro.npz' exists and is read-only"):
        smallvis.save_model(model, "ro.npz")
    assert (tmp_path / "ro.npz").read_bytes() == b"precious"
    _block_device("disk")
    with pytest.raises(ValueError, match="is a block device"):
        smallvis.save_model(model, "disk")
    assert _kind("disk") == stat.S_IFBLK


@pytest.mark.parametrize("name", ["", "new_dir/", "."])
def test_save_model_refuses_a_name_that_is_no_file(tmp_path, monkeypatch, model, name):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"^file '.*' (is not a file name|is a directory)"):
        smallvis.save_model(model, name)
    assert os.listdir() == []


def test_save_model_failing_halfway_leaves_the_old_file(tmp_path, monkeypatch, model):
    (tmp_path / "m.npz").write_bytes(b"the good old model")

    def savez(file, **arrays):
        file.write(b"half a model")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(np, "savez", savez)
    with pytest.raises(OSError, match="No space"):
        smallvis.save_model(model, tmp_path / "m.npz")
    assert (tmp_path / "m.npz").read_bytes() == b"the good old model"
    assert os.listdir(tmp_path) == ["m.npz"]


# -- save_plot: the same rules --------------------------------------------------------


def test_save_plot_follows_the_same_rules(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Y = np.random.default_rng(0).normal(size=(30, 2))
    (tmp_path / "ro.png").write_bytes(b"precious")
    os.chmod("ro.png", 0o444)
    with pytest.raises(ValueError, match=r"path 'ro.png' exists and is read-only"):
        save_plot(Y, "ro.png")
    assert (tmp_path / "ro.png").read_bytes() == b"precious"
    (tmp_path / "real.png").write_bytes(b"old")
    os.symlink("real.png", "y.png")
    assert save_plot(Y, "y.png") == "y.png"
    assert _kind("y.png") == stat.S_IFLNK
    assert (tmp_path / "real.png").read_bytes()[:4] == b"\x89PNG"
    _null_device("nul")
    os.symlink("nul", "sink.svg")
    save_plot(Y, "sink.svg")
    assert _kind("nul") == stat.S_IFCHR


def test_save_plot_failing_halfway_leaves_the_old_file(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    def savefig(self, fname, **kwargs):
        if isinstance(fname, (str, os.PathLike)):
            with open(fname, "wb") as fh:
                fh.write(b"half a picture")
        else:
            fname.write(b"half a picture")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(Figure, "savefig", savefig)
    (tmp_path / "y.png").write_bytes(b"the good old plot")
    with pytest.raises(OSError, match="No space"):
        save_plot(np.zeros((5, 2)) + np.arange(5)[:, None], tmp_path / "y.png")
    assert (tmp_path / "y.png").read_bytes() == b"the good old plot"
    assert os.listdir(tmp_path) == ["y.png"]


def test_a_new_output_gets_the_umask_bits_without_touching_the_umask(tmp_path, monkeypatch):
    """The mode of a new output is 0666 minus the umask, read without setting it
    (setting and restoring it races with other threads)."""
    from smallvis import _outputs
    old = os.umask(0o027)
    try:
        def no_umask(mask):
            raise AssertionError("the process umask was changed")
        monkeypatch.setattr(_outputs.os, "umask", no_umask)
        target = tmp_path / "new.bin"
        _outputs.write_output(target, lambda f: f.write(b"x"))
        monkeypatch.undo()
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
