"""Input checks shared by the public functions.

Every check raises ``ValueError`` or ``TypeError`` with a message that names
the argument and the allowed range.  The Cython kernels run without bounds
checks, so everything they receive passes through here first.

The checks live in one module per kind of argument, and the package
imports them so that callers write ``from smallvis._validation import
check_integer``:

``arrays``
    array-likes converted to numeric arrays; data and user layouts.
``spans``
    whether squared distances between rows overflow or underflow float64.
``options``
    the option values a user sets: numbers, integers, iteration counts,
    threads, random states, callbacks.
``affinity_checks``
    the structure of a user's ``P`` and of a precomputed kNN pair.
``errors``
    the exception and warning classes, and warnings from the user's line.
"""

from .affinity_checks import (check_affinities, check_built_affinities, check_dense_memory,
                              check_knn_pair)
from .arrays import _as_array, check_data, check_embedding, check_finite, check_real_array
from .errors import (ParameterError, ParameterTypeError, SmallDataWarning, spell_options,
                     warn_from_caller, warn_not_laid_out)
from .options import (MAX_ITERATIONS, MAX_REFINE_ROUNDS, MAX_THREADS, MAX_TRANSFORM_ITERATIONS,
                      check_callback, check_integer, check_iterations, check_number,
                      check_random_state, check_threads)
from .spans import (MAX_SQUARED_DISTANCE, MIN_SQUARED_DISTANCE, check_coordinate_resolution,
                    check_coordinate_span, coordinate_span_overflows, coordinate_span_underflows,
                    power_of_two_rescaling, squared_span_bound, tiny_span_message)
