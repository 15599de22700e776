"""The one place that turns ``fast=`` into a kernel module."""

from . import reference
from ..exceptions import KernelsNotBuiltError

try:  # the compiled twin; its absence is reported when fast=True is asked for
    from . import _kernels
except ImportError as exc:  # pragma: no cover - exercised only on broken installs
    _kernels = None
    _IMPORT_ERROR = exc
else:
    _IMPORT_ERROR = None


def check_fast(fast):
    """``fast`` as a bool; anything but True, False (or 1, 0) is a ``TypeError``."""
    if not isinstance(fast, (bool, int)) or fast not in (True, False):
        raise TypeError(f"fast must be True or False; got {fast!r}")
    return bool(fast)


def kernels(fast):
    """Return the kernel module: Cython if ``fast`` else the NumPy reference.

    Parameters
    ----------
    fast : bool
        Select :mod:`smallvis.backends._kernels` (True) or :mod:`smallvis.backends.reference`.

    Returns
    -------
    module
        A module exposing the twin kernel functions.
    """
    if not check_fast(fast):
        return reference
    if _kernels is None:
        import os

        raise KernelsNotBuiltError(
            "smallvis.backends._kernels (the Cython fast path) is not built in "
            f"{os.path.dirname(__file__)}.  If you installed smallvis with pip, this "
            "is probably the source tree of a clone, imported because Python was "
            "started in the clone's root: start it elsewhere, or build the kernels in "
            "place (python setup.py build_ext --inplace).  Otherwise reinstall "
            "smallvis with C and C++ compilers available.  Meanwhile fast=False (on "
            "the command line --reference) runs the NumPy reference, the same "
            f"numbers much more slowly.  ({_IMPORT_ERROR})"
        )
    return _kernels


def is_fast(kernels):
    """The ``fast`` flag that :func:`kernels` maps to the module ``kernels``."""
    return kernels is not reference
