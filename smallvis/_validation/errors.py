"""The exception and warning classes of bad options, and warnings from the user's line.

:class:`ParameterError` and :class:`ParameterTypeError` carry the names of
the options they are about, so that a front end (the command line) can
write them in its own spelling (:func:`spell_options`);
:func:`warn_from_caller` attributes a warning to the first line outside
the package.
"""

import os
import re
import sys
import warnings

import numpy as np


class ParameterError(ValueError):
    """A bad value of options the user sets; ``options`` names them as keywords.

    Front ends whose options are spelled differently (the command line's
    ``--n-neighbors`` for ``n_neighbors``) rewrite the names with
    :func:`spell_options`.
    """

    def __init__(self, message, options):
        super().__init__(message)
        self.options = tuple(options)


class ParameterTypeError(TypeError):
    """A value of the wrong type for an option the user sets; ``options`` as :class:`ParameterError`.

    So that a front end leads the message with its own spelling of the
    option (``--z-bar: z_bar must be a real number; got 'abc'``), as it does
    for a value out of range.
    """

    def __init__(self, message, options):
        super().__init__(message)
        self.options = tuple(options)


class SmallDataWarning(UserWarning):
    """A default lowered to fit a small data set; ``options`` names what was lowered."""

    def __init__(self, message, options):
        super().__init__(message)
        self.options = tuple(options)


def spell_options(message, options, spell):
    """``message`` with each keyword form ``name=`` of ``options`` written as ``spell(name)``.

    The keyword form is how a message tells the user what to set
    ("pass perplexity= to choose"); the bare name, which says what is
    wrong, stays.  A value written after the keyword (``kernel='exp'``)
    is set off by a space (``--kernel 'exp'``).  Names that ``spell`` maps
    to None stay as they are.
    """
    for name in options:
        text = spell(name)
        if text is not None:
            message = re.sub(rf"(?<![\w-]){re.escape(name)}=(?=(\S?))",
                             lambda match: text + (" " if match.group(1) else ""), message)
    return message


def warn_from_caller(warning):
    """Issue ``warning`` attributed to the first caller outside the smallvis package."""
    # the smallvis package: this module's folder is one of its subpackages
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 2  # stacklevel 2: the caller of this function
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(warning, stacklevel=level)


def warn_not_laid_out(Y, n_steps, steps_option, closeness):
    """Warn (from the user's line) that a run ended before its points spread out.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_components)
        The returned layout.
    n_steps : int
        The run's length.
    steps_option : {"n_iter", "n_epochs"}
        The option that sets it.
    closeness : str
        How close every output weight still is to its value at distance 0.
    """
    widest = float(np.max(np.ptp(Y, axis=0)))
    unit = "iterations" if steps_option == "n_iter" else "epochs"
    warn_from_caller(RuntimeWarning(
        f"after {n_steps} {unit} the embedding still spans only {widest:.3g}: every "
        f"output weight {closeness} its value at distance 0, so the points are not laid "
        f"out; start from a wider init (e.g. init=\"spca\" or \"random\", standard "
        f"deviation 1e-4) or run more {unit} ({steps_option})"))
