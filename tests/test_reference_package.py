"""The NumPy reference as a package: one module per job, every kernel written once.

The twin contract itself (names and signatures of ``smallvis.backends.reference``
against the compiled module) is tested in tests/test_twins.py; here, the
package's own promises: each kernel is defined in exactly one module and says
so truthfully (``__module__``), and the FFT grid's limits, defined in one
module, can be set on the package as documented.
"""

import ast
import importlib
import inspect
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from smallvis.backends import reference

PACKAGE_DIR = Path(reference.__file__).parent


def _top_level_functions(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.name for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))]


def test_every_function_is_defined_in_one_module_of_the_package():
    names = Counter(name for path in sorted(PACKAGE_DIR.glob("*.py"))
                    for name in _top_level_functions(path))
    twice = sorted(name for name, count in names.items() if count > 1)
    assert not twice, f"defined in more than one module of the reference: {twice}"


@pytest.mark.parametrize("name", reference.__all__)
def test_a_kernel_s_module_is_the_one_whose_source_defines_it(name):
    # a rewritten __module__ would send a reader (and inspect, and the docs)
    # to a file that does not hold the function
    fn = getattr(reference, name)
    home = importlib.import_module(fn.__module__)
    assert getattr(home, name) is fn
    assert name in _top_level_functions(Path(inspect.getsourcefile(home)))


def test_every_fft_limit_set_on_the_package_is_the_one_the_grid_reads(monkeypatch):
    assert set(reference.FFT_SETTINGS) >= {"FFT_MAX_NODES", "FFT_WIDE_EXACT_MAX_N"}
    assert set(reference.FFT_SETTINGS) <= set(dir(reference))
    for name in reference.FFT_SETTINGS:
        sentinel = object()
        monkeypatch.setattr(reference, name, sentinel)
        assert getattr(reference.fft, name) is sentinel
        assert getattr(reference, name) is sentinel
    monkeypatch.undo()
    # and the other way: one value, whichever name sets it
    monkeypatch.setattr(reference.fft, "FFT_MAX_NODES", 2 ** 12)
    assert reference.FFT_MAX_NODES == 2 ** 12


def test_a_smaller_node_limit_set_on_the_package_coarsens_the_grid(monkeypatch):
    Y = np.random.default_rng(0).uniform(-400.0, 400.0, size=(50, 2))
    _, wide_boxes, _ = reference._fft_grid(Y, 3)
    monkeypatch.setattr(reference, "FFT_MAX_NODES", 2 ** 12)
    _, n_boxes, _ = reference._fft_grid(Y, 3)
    assert (n_boxes * 3) ** 2 <= 2 ** 12 < (wide_boxes * 3) ** 2
