"""The methods, one folder each: ``smallvis/methods/<name>/``.

A method's folder holds everything that is that method's:

``__init__.py``
    its documentation page (the module docstring: what it is, its formulas,
    its references); it imports nothing.
``unit.py`` and ``unit.h``
    its maths, once per backend: the NumPy unit, a ``NamedTuple`` of the
    method's parameters with its weight, pair coefficient, cost terms and
    stochastic coefficients, and the C unit with the same maths for the
    compiled kernels.  Units import nothing of the package but
    :mod:`smallvis.methods._common`, so the kernels below the registry can
    use them.
``method.py``
    its registry entry ``METHOD`` (:class:`smallvis.method_spec.Method`) and
    the rules only it uses: parameters and defaults, "auto" values, its
    stochastic schedule, its testing-kit recipe.

:data:`smallvis.registry.METHODS` collects the folders; this package's
own modules (``_common.py``, ``common.h``, ``units.h``) are shared by all.
"""

import importlib
import importlib.util
import pkgutil


def unit_classes():
    """Every unit class of this package's modules, in module-name order.

    Discovered, not listed: a unit is a ``NamedTuple`` class defined in
    ``smallvis/methods/<name>/unit.py`` with a ``kernel`` (a pair unit), a
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
        name = f"{__name__}.{info.name}.unit"
        if info.name.startswith("_") or not info.ispkg or importlib.util.find_spec(name) is None:
            continue
        module = importlib.import_module(name)
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
