"""The methods: the registry and, per method, its maths once per backend.

``registry`` holds :class:`~smallvis.registry.Method` and
:data:`~smallvis.registry.METHODS`, the only list of methods; every
other part of the package reads it.  This package imports nothing, so the
engines can use a method's units without loading the registry.
"""
