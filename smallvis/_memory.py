"""Give memory back to the operating system: freed heap between stages, consumed pages.

glibc's ``malloc`` serves a request from its heap unless it is larger than
a threshold, and it raises that threshold (up to 32 MB) each time a larger
block is freed.  After the first data-sized array is freed, copies of ``X``
(tens of MB at 70,000 x 50) and other medium-sized arrays come from the
heap; when they are freed the memory stays resident because something
smaller sits above it.  At 70,000 points that is about 80 MB kept through
the calibration and the optimisation, for nothing.  ``malloc_trim(0)``
returns every free page of the heap (glibc >= 2.8), in a few milliseconds.

Elsewhere (macOS, Windows, musl) this does nothing: those allocators return
memory on their own terms.

:func:`release_pages` lets a stage that reads a large array once, front to
back, give up the part it has read while it writes its output (Linux's
``madvise(MADV_DONTNEED)``): the peak is then about the larger of input and
output rather than their sum.
"""

import ctypes
import mmap
import sys

#: Linux's MADV_DONTNEED: the pages are dropped; a later read gives zeros.
_MADV_DONTNEED = 4


_LIBC_FUNCTIONS = {}


def _libc_function(name, argtypes, restype):
    """The C library's function ``name`` on Linux (glibc's, if loaded), or None; looked up once."""
    if name not in _LIBC_FUNCTIONS:
        _LIBC_FUNCTIONS[name] = None
        if sys.platform.startswith("linux"):
            try:
                # the symbols already loaded in the process: the C library's
                function = getattr(ctypes.CDLL(None), name)
            except (OSError, AttributeError):
                return None
            function.argtypes, function.restype = argtypes, restype
            _LIBC_FUNCTIONS[name] = function
    return _LIBC_FUNCTIONS[name]


def _malloc_trim():
    """glibc's ``malloc_trim``, or None where there is none."""
    return _libc_function("malloc_trim", [ctypes.c_size_t], ctypes.c_int)


def release_free_heap():
    """Return the heap's free pages to the OS (glibc only; otherwise a no-op).

    Call it after a stage whose large temporaries have been freed, before
    the next stage allocates: it lowers the resident memory that the next
    stage's peak adds to.  Returns True when glibc's ``malloc_trim`` ran.
    """
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


def _madvise():
    """libc's ``madvise`` on Linux, or None."""
    return _libc_function("madvise", [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int],
                          ctypes.c_int)


def release_pages(a, nbytes):
    """Drop the resident pages that lie wholly in the first ``nbytes`` bytes of ``a``.

    For an array the caller owns and will not read there again: its
    memory stays allocated, and reads of those bytes would give zeros.
    Pages shared with anything outside ``a`` are never touched.  Linux
    only; elsewhere, or for an array that is not C-contiguous, nothing
    happens.  Returns the bytes released.
    """
    advise = _madvise()
    if advise is None or not a.flags.c_contiguous:
        return 0
    base = a.ctypes.data
    first = -(-base // mmap.PAGESIZE) * mmap.PAGESIZE  # first page boundary in a
    last = (base + min(int(nbytes), a.nbytes)) // mmap.PAGESIZE * mmap.PAGESIZE
    if last <= first:
        return 0
    if advise(first, last - first, _MADV_DONTNEED) != 0:
        return 0
    return last - first
