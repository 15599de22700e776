"""Exception classes of smallvis's public interface that belong to no single stage.

An exception raised by one stage only is defined beside the code that raises
it (e.g. :class:`smallvis.DivergenceError` in the optimizer); one that several
modules raise, or that users catch without caring which stage raised it,
lives here, so that every module can import it without importing another
stage.  :class:`NotFittedError` is re-exported from :mod:`smallvis`;
:class:`KernelsNotBuiltError` is raised on asking for ``fast=True``.
"""

__all__ = ["KernelsNotBuiltError", "NotFittedError"]


class NotFittedError(ValueError, AttributeError):
    """An estimator was used (``transform``, ``save_model``, a fitted attribute) before ``fit``.

    A ``ValueError`` and an ``AttributeError``, as scikit-learn's own
    ``NotFittedError``, so that code written for scikit-learn's estimators
    catches it.
    """


class KernelsNotBuiltError(ImportError):
    """``fast=True`` was asked for, and the compiled kernels are not built.

    An ``ImportError``; its message says how to build them, and that
    ``fast=False`` (``--reference`` on the command line) runs the NumPy
    reference meanwhile.
    """
