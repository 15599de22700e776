"""A model file's values: their JSON form in the header and back.

Parameter values are written as JSON (:func:`encode`): numbers, strings,
None and booleans as they are, dicts and sequences as tagged objects
(``{"__dict__": ...}``, ``{"__seq__": ..., "tuple": ...}``), arrays as
references (``{"__array__": key}``) to members of their own.  Reading
finds the referenced members (:func:`array_keys`, bounded in depth) and
rebuilds the values (:func:`decode`).
"""

import numpy as np


#: Format name and version written into every header.
FORMAT = "smallvis-model"
VERSION = 1


#: Prefixes of the members that hold parameter arrays (``param:<name>``,
#: ``ref:<key>``).
ARRAY_PREFIXES = ("param:", "ref:")


#: Deepest nesting of values in a header (dicts and sequences in parameters).
MAX_HEADER_DEPTH = 32


def encode(value, key, arrays):
    """A JSON-able form of a parameter value; arrays go to ``arrays``."""
    if isinstance(value, np.ndarray):
        arrays[key] = value
        return {"__array__": key}
    if isinstance(value, np.random.Generator):
        return None  # the fitted seed is stored separately
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict):
        return {"__dict__": {str(k): encode(v, f"{key}:{k}", arrays)
                             for k, v in value.items()}}
    if isinstance(value, (tuple, list)):
        return {"__seq__": [encode(v, f"{key}:{i}", arrays) for i, v in enumerate(value)],
                "tuple": isinstance(value, tuple)}
    raise ValueError(f"cannot save parameter {key.split(':')[1]!r}: a value of type "
                     f"{type(value).__name__} ({value!r}) has no safe file form; set it "
                     "to None (or a plain value) before saving")


def array_keys(value, where, depth=0):
    """The array members a header value references (``{"__array__": key}`` forms)."""
    if depth > MAX_HEADER_DEPTH:
        raise ValueError(f"{where} is nested more than {MAX_HEADER_DEPTH} levels deep")
    if isinstance(value, list):
        return {k for i, v in enumerate(value) for k in array_keys(v, where, depth + 1)}
    if not isinstance(value, dict):
        return set()
    if set(value) == {"__array__"}:
        key = value["__array__"]
        if not isinstance(key, str) or not key.startswith(ARRAY_PREFIXES):
            raise ValueError(f"{where} references the array {key!r}; arrays of parameters "
                             f"are members named {' or '.join(ARRAY_PREFIXES)}...")
        return {key}
    if set(value) == {"__dict__"} and isinstance(value["__dict__"], dict):
        items = value["__dict__"].values()
    elif set(value) in ({"__seq__"}, {"__seq__", "tuple"}) and isinstance(value["__seq__"], list):
        items = value["__seq__"]
    else:
        raise ValueError(f"{where} holds an unknown value form {sorted(value)}")
    return {k for v in items for k in array_keys(v, where, depth + 1)}


def decode(value, arrays):
    """A parameter value from its header form (checked by :func:`array_keys`)."""
    if isinstance(value, list):  # not written by save_model; kept as given
        return [decode(v, arrays) for v in value]
    if not isinstance(value, dict):
        return value
    if "__array__" in value:
        return arrays[value["__array__"]]
    if "__dict__" in value:
        return {k: decode(v, arrays) for k, v in value["__dict__"].items()}
    items = [decode(v, arrays) for v in value["__seq__"]]
    return tuple(items) if value.get("tuple") is True else items
