"""The C side's list of method units, written from the method folders.

The C preprocessor cannot discover the method folders, so a build step
writes ``smallvis/methods/_units_list.h`` from them: the ``#include`` of
each folder's ``unit.h`` and the three X-macro lists of ``units.h``,

* ``SMALLVIS_NORMALISED_UNITS(X)``, lines ``X(name, MATHS)``;
* ``SMALLVIS_ROW_UNITS(X)``, lines ``X(name)``;
* ``SMALLVIS_PAIR_UNITS(X)``, lines ``X(name, ROW_2D, SGD)``.

Each unit declares its own line in its ``unit.h``, as a comment the compiler
ignores, one per unit of the file::

    /* smallvis unit: pair NAME ROW_2D SGD */
    /* smallvis unit: normalised NAME MATHS */
    /* smallvis unit: row NAME */

(``methods/units.h`` explains the kinds and their arguments).  The order is
fixed: the folders in the order of :data:`smallvis.registry.FOLDERS`, the
units of one file in file order.  The engines find a unit by its name, so
the order changes no number; it is fixed so that the file is reproducible.

``setup.py`` loads this module by its path, before the package can be
imported (the build needs no compiled extension and no installed
dependency), so it imports nothing but the standard library;
``tests/test_c_units.py`` checks that the file is current.
"""

import ast
import re
from pathlib import Path

#: The methods package: the folders and ``units.h``.
METHODS_DIR = Path(__file__).resolve().parent / "methods"
#: The generated header's name, in :data:`METHODS_DIR`.
HEADER = "_units_list.h"
#: Each kind of unit: its X-macro and the names of its line's arguments.
KINDS = {
    "normalised": ("SMALLVIS_NORMALISED_UNITS", ("MATHS",)),
    "row": ("SMALLVIS_ROW_UNITS", ()),
    "pair": ("SMALLVIS_PAIR_UNITS", ("ROW_2D", "SGD")),
}
#: A declaration line of a ``unit.h``.
DECLARATION = re.compile(r"^\s*/\*\s*smallvis unit:(?P<words>[^*]*)\*/\s*$", re.M)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*\Z")


def registry_folders(methods_dir=METHODS_DIR):
    """The registry's ``FOLDERS``, read from ``registry.py``'s source text.

    Parameters
    ----------
    methods_dir : path-like
        The ``smallvis/methods`` directory; ``registry.py`` is its parent's.

    Returns
    -------
    tuple of str
    """
    path = Path(methods_dir).parent / "registry.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "FOLDERS"):
            return tuple(ast.literal_eval(node.value))
    raise ValueError(f"{path} has no module-level FOLDERS = (...) tuple")


def declared_units(path):
    """The units a ``unit.h`` declares, in file order.

    Parameters
    ----------
    path : path-like
        A method folder's ``unit.h``.

    Returns
    -------
    list of tuple
        ``(kind, name, arguments)`` per declaration line, ``kind`` a key of
        :data:`KINDS` and ``arguments`` a tuple of identifiers.

    Raises
    ------
    ValueError
        A declaration of an unknown kind, with the wrong number of
        arguments, or with a word that is not a C identifier.
    """
    path = Path(path)
    found = []
    for match in DECLARATION.finditer(path.read_text(encoding="utf-8")):
        words = match.group("words").split()
        line = match.group(0).strip()
        if not words or words[0] not in KINDS:
            raise ValueError(f"{path}: {line!r} declares no known kind of unit; the kinds are "
                             f"{', '.join(KINDS)}")
        kind, rest = words[0], words[1:]
        arguments = KINDS[kind][1]
        if len(rest) != 1 + len(arguments):
            raise ValueError(f"{path}: {line!r}: a {kind} unit is declared as "
                             f"'/* smallvis unit: {' '.join((kind, 'NAME') + arguments)} */'")
        bad = [word for word in rest if not _IDENTIFIER.match(word)]
        if bad:
            raise ValueError(f"{path}: {line!r}: {', '.join(bad)} is not a C identifier")
        found.append((kind, rest[0], tuple(rest[1:])))
    return found


def collect(methods_dir=METHODS_DIR):
    """Every folder's units, in the registry's folder order.

    Parameters
    ----------
    methods_dir : path-like
        The ``smallvis/methods`` directory.

    Returns
    -------
    list of tuple
        ``(folder, [(kind, name, arguments), ...])`` per folder with a
        ``unit.h``.

    Raises
    ------
    ValueError
        A folder with a ``unit.h`` that the registry does not list, a
        ``unit.h`` that declares no unit, or a unit declared twice.
    """
    methods_dir = Path(methods_dir)
    folders = registry_folders(methods_dir)
    with_unit = {path.parent.name for path in methods_dir.glob("*/unit.h")}
    unlisted = sorted(with_unit - set(folders))
    if unlisted:
        raise ValueError(f"smallvis/methods/{unlisted[0]}/unit.h belongs to no method: add "
                         f"{unlisted[0]!r} to FOLDERS in smallvis/registry.py")
    result, seen = [], {}
    for folder in (f for f in folders if f in with_unit):
        path = methods_dir / folder / "unit.h"
        units = declared_units(path)
        if not units:
            raise ValueError(f"{path} declares no unit: add a line such as "
                             f"'/* smallvis unit: pair {folder} FUSED PLAIN */' (see units.h)")
        for _, name, _ in units:
            if name in seen:
                raise ValueError(f"the unit {name!r} is declared in both {seen[name]} and {path}")
            seen[name] = path
        result.append((folder, units))
    return result


def render(methods_dir=METHODS_DIR):
    """The text of ``_units_list.h`` for the folders of ``methods_dir``.

    Parameters
    ----------
    methods_dir : path-like
        The ``smallvis/methods`` directory.

    Returns
    -------
    str
    """
    folders = collect(methods_dir)
    out = ["/* Generated by smallvis/_units_list.py from the 'smallvis unit:'",
           " * comments of each methods/<method>/unit.h, in the order of",
           " * smallvis.registry.FOLDERS: do not edit (methods/units.h explains the",
           " * lists).  Every build writes it again. */",
           "#ifndef SMALLVIS_METHODS_UNITS_LIST_H",
           "#define SMALLVIS_METHODS_UNITS_LIST_H",
           ""]
    out += [f'#include "{folder}/unit.h"' for folder, _ in folders]
    for kind, (macro, _) in KINDS.items():
        lines = [f"X({', '.join((name,) + arguments)})"
                 for _, units in folders for k, name, arguments in units if k == kind]
        out += ["", f"#define {macro}(X)" + "".join(f" \\\n    {line}" for line in lines)]
    out += ["", "#endif /* SMALLVIS_METHODS_UNITS_LIST_H */", ""]
    return "\n".join(out)


def write(methods_dir=METHODS_DIR, out_dir=None):
    """Write ``_units_list.h``, touching it only when its text changes.

    An unchanged file keeps its time stamp, so that a build does not
    recompile the extensions for nothing.

    Parameters
    ----------
    methods_dir : path-like
        The ``smallvis/methods`` directory the folders are read from.
    out_dir : path-like, optional
        Where to write the header; ``methods_dir`` by default.

    Returns
    -------
    pathlib.Path
        The header's path.
    """
    text = render(methods_dir)
    path = Path(out_dir if out_dir is not None else methods_dir) / HEADER
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write())
