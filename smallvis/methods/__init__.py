"""Each method's maths, once per backend: ``<name>.py`` (NumPy) and ``<name>.h`` (C).

A NumPy unit is a ``NamedTuple`` of the method's parameters with its
weight, pair coefficient, cost terms and stochastic coefficients; the C
unit beside it holds the same maths for the compiled kernels.  The list of
methods is :data:`smallvis.registry.METHODS`, which imports the units; this
package imports nothing, so the kernels below the registry can use them.
"""

import importlib
import pkgutil


def unit_classes():
    """Every unit class of this package's modules, in module-name order.

    Discovered, not listed: a unit is a ``NamedTuple`` class defined in
    ``smallvis/methods/<name>.py`` with a ``kernel`` (a pair unit), a
    ``c_unit`` (a unit of the normalised engine), an ``sgd_coefficient``
    (a stochastic loop's coefficients) or an ``sgd_grouped`` (a
    stochastic loop's grouped step).  The engines
    below the registry read their tables from here, so that a new unit needs
    no line in them.

    Returns
    -------
    list of type
    """
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, tuple)
                    and value.__module__ == module.__name__
                    and any(hasattr(value, attr)
                            for attr in ("kernel", "c_unit", "sgd_coefficient",
                                         "sgd_grouped"))):
                found.append(value)
    return found


def units_named(*kernels):
    """``{kernel: unit class}`` of the discovered pair units with these kernel prefixes.

    A registry entry's ``pair_units`` without an import of the unit's module.

    Raises
    ------
    KeyError
        A prefix that no unit of this package has.
    """
    found = {cls.kernel: cls for cls in unit_classes() if hasattr(cls, "kernel")}
    return {kernel: found[kernel] for kernel in kernels}
