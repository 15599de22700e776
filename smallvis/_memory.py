"""Give freed heap memory back to the operating system between stages.

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
"""

import ctypes
import sys

_LIBC = None


def _malloc_trim():
    """glibc's ``malloc_trim``, or None where there is none."""
    global _LIBC
    if _LIBC is None:
        _LIBC = False
        if sys.platform.startswith("linux"):
            try:
                # the symbols already loaded in the process: glibc's, if any
                trim = ctypes.CDLL(None).malloc_trim
            except (OSError, AttributeError):
                return None
            trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
            _LIBC = trim
    return _LIBC or None


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
