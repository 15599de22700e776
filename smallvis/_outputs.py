"""Writing a file the user named, and nothing else.

Every writer of a user-named file (``smallvis embed --out/--plot/--save-model``,
:func:`smallvis.save_model`, :func:`smallvis.plotting.save_plot`) goes through
:func:`write_output`, which follows these rules:

* **Links.**  A symbolic link (or a chain of them) stays a link; what is
  written is its final target.  A dangling link creates its target, in the
  target's directory, which must exist.
* **Regular files** are replaced atomically: the bytes go to a temporary file
  in the target's directory, which is then renamed over the target, so a
  failed or interrupted write leaves the old file whole.  The new file keeps
  the old one's permission bits (and its owner, where the caller may set it).
* **Streams** are written into: character devices such as ``/dev/null`` or
  a terminal, FIFOs, and whatever this process's standard output or error
  is (``--out /dev/stdout > y.csv`` or ``>> log.txt``: the bytes are added
  at the end of the file the shell opened).  The bytes are made in memory
  first and then written in one go, without creating, truncating or
  renaming anything; this process's standard output or error is written
  through its own descriptor, whose file offset the shell shares (``{ echo
  a; smallvis ... --out /dev/stdout; echo b; } > log.txt`` keeps the order).
  Opening a FIFO waits for a reader, so this happens
  only once the bytes are ready, never when the path is checked.
* **Refused**, before anything is computed: a block device, a directory, a
  socket, a link loop, a missing directory, and a read-only file or
  directory.  Read-only is judged by the permission bits as well as by
  :func:`os.access`, which says yes to root whatever the bits say: a file
  that nobody may write (``chmod a-w``) is refused for root too.
"""

import io
import os
import stat
import sys
import tempfile

__all__ = ["check_output", "is_stream", "write_output"]

#: How an output is written (the first item returned by :func:`check_output`).
STREAM, FILE = "stream", "file"

_ANY_WRITE = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
_ANY_SEARCH = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH

#: File types refused as outputs, with the words that name them.
_REFUSED_TYPES = {stat.S_IFBLK: "a block device", stat.S_IFDIR: "a directory",
                  stat.S_IFSOCK: "a socket"}


def _stat_or_none(path, name):
    """``os.stat(path)`` (every link followed), or None if nothing is there."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:  # a link loop, a file used as a directory, ...
        raise ValueError(f"{name} {path!r}: {exc.strerror.lower()}") from None


def _writable_file(path, st):
    """Whether ``path`` may be written, by its permission bits and ``os.access``."""
    return bool(st.st_mode & _ANY_WRITE) and os.access(path, os.W_OK)


def _writable_directory(directory):
    """Whether files may be created and renamed in ``directory`` (bits and access)."""
    mode = os.stat(directory).st_mode
    return (bool(mode & _ANY_WRITE) and bool(mode & _ANY_SEARCH)
            and os.access(directory, os.W_OK | os.X_OK))


def _links_to(path, target):
    """`` (it links to 'target')`` when ``path`` is a link, else ``''``."""
    return f" (it links to {target!r})" if os.path.islink(path) else ""


def is_stream(path):
    """Whether ``path`` is written into rather than replaced (see :func:`check_output`)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return _is_stream(path, st)


def _is_stream(path, st):
    """Whether the file ``st`` of ``path`` is a character device, a FIFO, or a
    regular file that must be written into (:func:`_written_in_place`)."""
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return True
    return stat.S_ISREG(st.st_mode) and _written_in_place(path, st)


def _check_stream(path, st, name):
    if not _writable_file(path, st):
        raise ValueError(f"{name} {path!r} exists and is read-only")
    return STREAM, path


def _check_regular(path, target, st, name):
    """Checks for a regular file (existing or to be created) at real path ``target``."""
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise ValueError(f"{name} {path!r}: directory {directory!r} does not exist"
                         + _links_to(path, target))
    if st is not None and not _writable_file(target, st):
        raise ValueError(f"{name} {path!r} exists and is read-only"
                         + _links_to(path, target))
    if not _writable_directory(directory):
        raise ValueError(f"{name} {path!r}: directory {directory!r} is not writable")
    return FILE, target


def check_output(path, name):
    """Refuse an output that cannot be written safely; say how it will be written.

    Parameters
    ----------
    path : str or os.PathLike
        The output as the user named it.
    name : str
        What the user set, for the messages (``"--out"``, ``"file"``, ...).

    Returns
    -------
    kind : {"stream", "file"}
        "stream": a character device, a FIFO, or this process's standard
        output or error, to be written into.  "file": a regular file
        (existing or new), to be replaced atomically.
    where : str
        For a stream, ``path`` itself (opened as the user named it, so
        ``/dev/stdout`` means this process's standard output); for a file,
        its real path, every link resolved.

    Raises
    ------
    ValueError
        An empty path or one ending in a separator, a block device, a
        directory, a socket, a link loop, a missing or read-only directory,
        or a read-only file.  The message starts with ``name`` and ``path``.
    """
    path = os.fspath(path)
    if not path or path.endswith((os.sep, os.altsep or os.sep)):
        raise ValueError(f"{name} {path!r} is not a file name")
    st = _stat_or_none(path, name)
    if st is None:
        return _check_regular(path, os.path.realpath(path), None, name)
    kind = stat.S_IFMT(st.st_mode)
    if kind in _REFUSED_TYPES:
        raise ValueError(f"{name} {path!r} is {_REFUSED_TYPES[kind]}; outputs are regular "
                         "files, character devices (such as /dev/null) or FIFOs")
    if _is_stream(path, st):
        return _check_stream(path, st, name)
    return _check_regular(path, os.path.realpath(path), st, name)


def _written_in_place(path, st):
    """Whether the regular file ``st`` (of ``path``) must be written into, not
    replaced: it is this process's standard output or error (``--out
    /dev/stdout > y.csv``, where a rename would detach the shell's descriptor
    and, with ``>>``, drop what the file held), or ``path`` goes through a
    link only the kernel resolves (/proc/self/fd/N into a deleted file), so
    there is no directory to rename in."""
    return _fd_of(st) is not None or _resolved_only_by_kernel(path, st)


def _fd_of(st):
    """1 or 2 if ``st`` is the file this process's standard output or error
    writes to, else None."""
    for fd in (1, 2):
        try:
            if os.path.samestat(os.fstat(fd), st):
                return fd
        except OSError:  # that descriptor is closed
            pass
    return None


def _resolved_only_by_kernel(path, st):
    """Whether the file ``st`` of ``path`` is not the one its textual real path
    names (a link such as /proc/self/fd/N into a deleted file)."""
    try:
        return not os.path.samestat(os.stat(os.path.realpath(path)), st)
    except OSError:
        return True


def write_output(path, write, name="file"):
    """Write a user-named output by ``write(binary_file)``, by the module's rules.

    Parameters
    ----------
    path : str or os.PathLike
        The output as the user named it; checked again by :func:`check_output`.
    write : callable
        Called once with a binary file object to write into (seekable).
    name : str, default="file"
        What the user set, for error messages.

    Raises
    ------
    ValueError
        From :func:`check_output`; nothing was written.
    OSError
        The write failed; a regular file that stood there is untouched.
    """
    kind, where = check_output(path, name)
    if kind == STREAM:
        _write_into_stream(where, write)
    else:
        _replace_atomically(where, write)


def _write_into_stream(path, write):
    """Make the bytes in memory, then write them into the device or FIFO.

    The stream is opened without ``O_CREAT`` or ``O_TRUNC`` (so a path that
    changed meanwhile is not created or truncated), and in append mode (so
    ``/dev/stdout`` redirected to a file adds to it rather than overwriting
    from its start).
    """
    buffer = io.BytesIO()
    write(buffer)
    standard = _standard_descriptor(path)
    if standard is not None:
        _write_to_descriptor(standard, buffer.getbuffer())
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "wb") as stream:
        stream.write(buffer.getbuffer())


def _standard_descriptor(path):
    """1 or 2 if ``path`` is the file this process's standard output or error
    writes to, else None."""
    try:
        return _fd_of(os.stat(path))
    except OSError:
        return None


def _write_to_descriptor(fd, data):
    """Write ``data`` through the descriptor ``fd`` (1 or 2) itself.

    A file the shell opened with ``>`` has one offset, shared by everything
    that writes through the shell's descriptor; a new descriptor opened on
    ``/dev/stdout`` would have its own and be overwritten by what comes
    after.  Python's own buffered ``sys.stdout`` and ``sys.stderr`` are
    flushed first, so the bytes come in the order they were made.
    """
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _umask_from_proc():
    """The process umask as Linux reports it (``Umask:`` in /proc/self/status), or None."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return None


def _umask_by_setting():
    """The process umask by setting it and restoring it (not thread-safe: once, at import)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


#: Where the system does not report the umask, the one at import.
_IMPORT_UMASK = _umask_from_proc()
if _IMPORT_UMASK is None:
    _IMPORT_UMASK = _umask_by_setting()


def _default_mode():
    """The permission bits of a new file: 0666 minus the umask.

    The umask is read, never set (setting and restoring it would race with
    other threads creating files); where the system does not report it, the
    umask at import is used.
    """
    umask = _umask_from_proc()
    return 0o666 & ~(_IMPORT_UMASK if umask is None else umask)


def _take_over_metadata(tmp, target):
    """Give ``tmp`` the owner (where allowed) and permission bits of ``target``,
    or the default bits if there is no ``target`` yet."""
    try:
        old = os.stat(target)
    except FileNotFoundError:
        os.chmod(tmp, _default_mode())
        return
    if hasattr(os, "chown"):
        try:
            os.chown(tmp, old.st_uid, old.st_gid)  # root replacing a user's file
        except OSError:  # not allowed for an ordinary user: keep our own
            pass
    os.chmod(tmp, old.st_mode & 0o7777)  # after chown, which may clear set-id bits


def _replace_atomically(target, write):
    """Write into a temporary file next to ``target``, then rename it over ``target``.

    Readers see the old file or the complete new one, never a truncated one.
    On any error (or Ctrl-C) the temporary file is removed and ``target`` is
    untouched.
    """
    directory, base = os.path.split(target)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{base}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        _take_over_metadata(tmp, target)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
