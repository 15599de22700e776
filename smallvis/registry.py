"""The method registry: it collects the method folders, and names no method itself.

Each method is one folder, ``smallvis/methods/<name>/``, whose ``method.py``
defines its entry ``METHOD`` (a :class:`~smallvis.method_spec.Method`).
:data:`FOLDERS` lists the folders, one line per method; ``embed``,
``affinities``, ``cost_and_gradient``, ``transform``, the sampled cost, the
CLI, the testing kit, the docs and the tests all read :data:`METHODS`, and
no other module of the package names a method (tests/test_registry_only.py).
"""

import importlib
from types import MappingProxyType

# the framework, re-exported for the modules that read it from here
from .families import KNN_ONLY
from .method_spec import (  # noqa: F401  (re-exported)
    KERNEL_FAMILIES, LEARNED_LIMIT, AffinityFamily, Approximation, Confusion, Method, SizedParam,
    check_learned, check_param_value, check_perplexity, is_real_number)

#: The method folders, in the order of ``list_methods``: adding a method is
#: its folder and one line here (CONTRIBUTING.md, "Adding a method").
FOLDERS = (
    "asne",
    "ssne",
    "tsne",
    "largevis",
    "umap",
    "tumap",
    "ncvis",
    "negtsne",
    "infonce",
    "jse",
    "sjse",
    "hlsne",
    "tasne",
    "absne",
    "abssne",
    "tee",
    "cetsne",
    "usne",
    "ntumap",
    "skdtsne",
    "jssne",
    "chsne",
    "trsrsne",
    "mmds",
    "sammon",
    "gmmds",
    "smmds",
    "basne",
    "bssne",
    "btsne",
    "btasne",
    "rklsne",
    "pstsne",
    "dhssne",
    "trmsne",
    "wtsne",
    "wssne",
    "arsrsne",
    "rsrjse",
    "ee",
    "gsne",
    "nerv",
    "rsrnerv",
    "snerv",
    "bnerv",
    "tmsne",
    "knnmmds",
    "ballmmds",
    "bhssne",
)

#: Values of ``gradient=`` that every method accepts.
GRADIENTS = ("auto", "exact")

#: The method of ``embed``, ``affinities``, ``Embedding`` and the CLI when
#: none is given.
DEFAULT_METHOD = "tsne"


def _entries():
    """Each folder's ``METHOD``, checked to carry its folder's name."""
    entries = []
    for folder in FOLDERS:
        entry = importlib.import_module(f"{__package__}.methods.{folder}.method").METHOD
        if entry.name != folder:
            raise ImportError(f"smallvis/methods/{folder}/method.py defines the method "
                              f"{entry.name!r}: a method's name is its folder's")
        entries.append(entry)
    return entries


def knn_only_methods():
    """The names of the methods whose ``P`` is a nearest-neighbour graph at any size."""
    return [name for name, m in METHODS.items() if m.build_affinities in KNN_ONLY]


#: The registry: every method by name, in the order of :data:`FOLDERS`.
METHODS = MappingProxyType({m.name: m for m in _entries()})


def _aliases():
    """``{alias: (Alias, target name)}`` over the entries' ``aliases``, checked to be unique."""
    table = {}
    for m in METHODS.values():
        for alias in m.aliases:
            if alias.name in METHODS or alias.name in table:
                raise ImportError(f"the alias {alias.name!r} of {m.name!r} is taken by "
                                  "another method or alias")
            table[alias.name] = (alias, m.name)
    return table


#: Other names of registered methods (:class:`~smallvis.method_spec.Alias`):
#: ``{alias: (Alias, target method name)}``, from the entries' ``aliases``.
ALIASES = MappingProxyType(_aliases())


def get_method(name):
    """Return the registered :class:`Method` called ``name`` (an alias: its target's)."""
    if not isinstance(name, str):
        raise TypeError(f"method must be a string; got {name!r}")
    if name in ALIASES:
        return METHODS[ALIASES[name][1]]
    try:
        return METHODS[name]
    except KeyError:
        aliases = f"; aliases: {', '.join(ALIASES)}" if ALIASES else ""
        raise ValueError(
            f"unknown method {name!r}; available methods: {', '.join(METHODS)}{aliases}"
        ) from None


def resolve_method(name, params, defaults=True):
    """``(Method, params)`` for the method or alias ``name`` and the user's parameters.

    A registered method's parameters pass as they are; an alias's own
    parameters are checked and mapped onto its target's
    (:meth:`~smallvis.method_spec.Alias.target_params`; ``defaults=False``
    maps only those given).
    """
    m = get_method(name)
    if name in ALIASES:
        params = ALIASES[name][0].target_params(m.name, params, defaults=defaults)
    return m, params


def choose_gradient(method, gradient, n_samples, n_components):
    """Resolve ``gradient`` ("auto", "exact" or an approximation's name).

    Returns ``"exact"`` or the name of one of ``method.approximations``.
    ``"auto"`` takes the exact gradient up to the approximation's
    ``auto_min_n`` points (or in a dimension it does not support), the
    approximation above.

    Raises
    ------
    ValueError
        An unknown name, an approximation the method does not have, or one
        asked for in a dimension it does not support; the message lists what
        exists.
    """
    approximations = method.approximations
    known = GRADIENTS + tuple(approximations)
    if not isinstance(gradient, str) or gradient not in known:
        offered = {name: sorted(m.approximations) for name, m in METHODS.items()
                   if m.approximations}
        elsewhere = "; ".join(f"{', '.join(map(repr, names))} for {name}"
                              for name, names in offered.items())
        raise ValueError(
            f"gradient must be one of {', '.join(map(repr, known))} for method "
            f"{method.name!r}; got {gradient!r}"
            + (f" (approximate gradients: {elsewhere})" if elsewhere else ""))
    if gradient == "exact":
        return gradient
    if gradient == "auto":
        for name, approx in approximations.items():
            if n_components in approx.dimensions and n_samples > approx.auto_min_n:
                return name
        return "exact"
    approx = approximations[gradient]
    if n_components not in approx.dimensions:
        dims = " and ".join(f"{d}-D" for d in approx.dimensions)
        others = [name for name, a in approximations.items() if n_components in a.dimensions]
        raise ValueError(
            f"gradient={gradient!r} supports {dims} output only; got n_components="
            f"{n_components}.  In {n_components}-D {method.name} has "
            + (f"gradient={', '.join(map(repr, others))} or " if others else "only ")
            + "gradient='exact' (O(N^2) per iteration)")
    return gradient
