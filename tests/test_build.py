"""The Cython extension must be compiled and importable: CI fails otherwise."""

import importlib.machinery

import smallvis._kernels as kernels


def test_kernels_are_compiled_extension():
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    assert kernels.__file__.endswith(suffixes), kernels.__file__


def test_fast_path_selects_the_extension():
    from smallvis._backend import kernels as select

    assert select(True) is kernels
    assert select(False).__name__ == "smallvis.reference"
