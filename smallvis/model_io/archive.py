"""A hardened reader of ``.npz`` archives: members read only after their sizes are checked.

A model file is a zip archive of ``.npy`` members.  Nothing in it is
trusted: each member's ``.npy`` header (dtype, shape) is read first and
checked against the zip directory's sizes and against what deflate can
produce (:data:`DEFLATE_MAX_RATIO`), so the memory a read allocates follows
what the file declares and can hold; the data are then read in bounded
chunks, with their CRC checked.  Every failure of the file is a
:class:`ModelFileError` naming the member; a path that names no file is
a ``FileNotFoundError``, as ``open`` gives.
"""

import errno
import io
import math
import os
import stat
import struct
import zipfile
import zlib

import numpy as np


class ModelFileError(ValueError):
    """A file that is not a smallvis model, or is damaged or truncated."""


#: Deflate expands its input at most 1032-fold (zlib's technical details);
#: a member that declares more is lying about its size.
DEFLATE_MAX_RATIO = 1032

#: Uncompressed bytes per read of a member's data.
_READ_CHUNK = 2**22


def _name(file):
    if isinstance(file, (str, bytes, os.PathLike)):
        return os.fsdecode(file)
    return getattr(file, "name", "the file")


def fail(file, why):
    raise ModelFileError(f"{_name(file)!r} is not a smallvis model file ({why}); model files "
                         "are written by smallvis.save_model or `smallvis embed --save-model`")


#: The first bytes of every ``.npy`` file.
NPY_MAGIC = b"\x93NUMPY"


def starts_like_npy(file):
    """Whether ``file`` begins with the ``.npy`` magic string (a path or a seekable file)."""
    try:
        if isinstance(file, (str, os.PathLike)):
            with open(file, "rb") as fh:
                return fh.read(len(NPY_MAGIC)) == NPY_MAGIC
        position = file.tell()
        try:
            return file.read(len(NPY_MAGIC)) == NPY_MAGIC
        finally:
            file.seek(position)
    except (OSError, AttributeError, ValueError):
        return False


#: What reading a damaged zip archive can raise (zipfile and zlib do not
#: wrap their errors): a bad structure, a bad CRC, a truncated stream, an
#: unsupported or encrypted member, offsets out of range.
ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError,
               RuntimeError, OverflowError, struct.error, UnicodeDecodeError)


class Archive:
    """The members of a model file, read one at a time and only after checks.

    Parameters
    ----------
    zf : zipfile.ZipFile
    file : str, path or file
        For messages.
    """

    def __init__(self, zf, file):
        self.zf, self.file = zf, file
        self.size = zf.fp.seek(0, io.SEEK_END)
        self.members = {}
        for info in zf.infolist():
            name = info.filename
            if not name.endswith(".npy") or info.is_dir():
                self.fail(f"a member {name!r} that is not an .npy array")
            key = name[:-len(".npy")]
            if key in self.members:
                self.fail(f"the member {key!r} appears twice")
            self.members[key] = info

    def fail(self, why):
        fail(self.file, why)

    def layout(self, key):
        """``(shape, fortran_order, dtype, offset)`` from the member's ``.npy`` header.

        Checked against the zip directory: a stored or deflated, unencrypted
        member whose declared uncompressed size is exactly the array's, and
        that deflate could produce from its compressed size.  No data is read.
        """
        info = self.members[key]
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            self.fail(f"member {key!r}: compression method {info.compress_type}; model files "
                      "use stored or deflated members")
        if info.flag_bits & 0x1:
            self.fail(f"member {key!r} is encrypted")
        self._check_sizes(key, info)
        try:
            with self.zf.open(info) as fh:
                version = np.lib.format.read_magic(fh)
                if version == (1, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
                elif version == (2, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
                else:
                    raise ValueError(f"unsupported .npy version {version}")
                offset = fh.tell()
        except ZIP_ERRORS + (SyntaxError,) as exc:
            self.fail(f"member {key!r} has no readable .npy header: {exc}")
        if any(size < 0 for size in shape):
            self.fail(f"member {key!r} declares a negative dimension in shape {shape}")
        if dtype.kind not in "biuf" or dtype.fields is not None or dtype.subdtype is not None:
            self.fail(f"member {key!r} has dtype {dtype}; model files hold plain numeric arrays")
        declared = offset + math.prod(shape) * dtype.itemsize
        if declared != info.file_size:
            self.fail(f"member {key!r} declares shape {shape} of {dtype} ({declared} bytes "
                      f"with its header) but holds {info.file_size} bytes")
        return shape, fortran, dtype, offset

    def _check_sizes(self, key, info):
        """The zip directory's sizes of a member: within the archive, and possible."""
        if info.compress_size > self.size:
            self.fail(f"member {key!r} claims {info.compress_size} bytes in a "
                      f"{self.size}-byte archive")
        if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
            self.fail(f"member {key!r} is stored uncompressed in {info.compress_size} bytes "
                      f"but declares {info.file_size}")
        if info.file_size > DEFLATE_MAX_RATIO * info.compress_size + 1024:
            self.fail(f"member {key!r} declares {info.file_size} bytes, more than deflate "
                      f"can expand its {info.compress_size} compressed bytes to")

    def read(self, key, layout):
        """The member's array, read in chunks into one allocation of the declared size."""
        shape, fortran, dtype, offset = layout
        data = np.empty(math.prod(shape), dtype=dtype)
        raw = data.view(np.uint8)
        try:
            with self.zf.open(self.members[key]) as fh:
                fh.read(offset)
                done = 0
                while done < raw.size:
                    chunk = fh.read(min(_READ_CHUNK, raw.size - done))
                    if not chunk:
                        raise EOFError(f"{raw.size - done} bytes missing")
                    raw[done:done + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
                    done += len(chunk)
                fh.read(1)  # at the end: zipfile checks the CRC
        except ZIP_ERRORS as exc:
            self.fail(f"member {key!r} is damaged: {exc}")
        return data.reshape(shape, order="F" if fortran else "C")


def check_regular_file(file):
    """A path must name a regular file: a device or a pipe could be read forever."""
    if not isinstance(file, (str, bytes, os.PathLike)):
        return  # a file object: the caller's
    try:
        mode = os.stat(file).st_mode
    except FileNotFoundError:
        # a missing file is not a bad model file: the error open() gives
        raise FileNotFoundError(errno.ENOENT, "no such model file", os.fsdecode(file)) from None
    except OSError as exc:
        fail(file, f"cannot be read: {exc}")
    if not stat.S_ISREG(mode):
        fail(file, "not a regular file (a directory, device, pipe or socket)")
