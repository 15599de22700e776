"""Each method's maths, once per backend: ``<name>.py`` (NumPy) and ``<name>.h`` (C).

A NumPy unit is a ``NamedTuple`` of the method's parameters with its
weight, pair coefficient, cost terms and stochastic coefficients; the C
unit beside it holds the same maths for the compiled kernels.  The list of
methods is :data:`smallvis.registry.METHODS`, which imports the units; this
package imports nothing, so the kernels below the registry can use them.
"""
