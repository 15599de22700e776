"""The Cython extension must be compiled and importable: CI fails otherwise."""

import importlib.machinery

import smallvis.backends._graph_products as graph_products
import smallvis.backends._kernels as kernels
import smallvis.backends._search_forest as search_forest
import smallvis.backends._sgd_kernels as sgd_kernels


def test_kernels_are_compiled_extension():
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for module in (kernels, sgd_kernels, graph_products, search_forest):
        assert module.__file__.endswith(suffixes), module.__file__


def test_sgd_twins_are_part_of_the_kernel_module():
    assert kernels.sgd_epochs is sgd_kernels.sgd_epochs
    assert kernels.sgd_epochs.__module__ == "smallvis.backends._kernels"


def test_forest_twins_are_part_of_the_kernel_module():
    for name in ("forest_tree", "forest_query", "leaf_order"):
        assert getattr(kernels, name) is getattr(search_forest, name)
        assert getattr(kernels, name).__module__ == "smallvis.backends._kernels"


def test_graph_twins_are_part_of_the_kernel_module():
    for name in ("csr_matvec", "row_strongest"):
        assert getattr(kernels, name) is getattr(graph_products, name)
        assert getattr(kernels, name).__module__ == "smallvis.backends._kernels"


def test_fast_path_selects_the_extension():
    from smallvis.backends._backend import kernels as select

    assert select(True) is kernels
    assert select(False).__name__ == "smallvis.backends.reference"
