"""Run every tutorial notebook cell by cell, and check committed notebooks carry no outputs.

The kernel ("python3") must import the smallvis under test: in CI smallvis is
installed into the environment whose ipykernel provides the kernelspec;
locally the kernel inherits ``PYTHONPATH``.
"""

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

TUTORIALS = Path(__file__).resolve().parent.parent / "tutorials"
NOTEBOOKS = sorted(TUTORIALS.glob("*.ipynb"))


def test_tutorials_exist():
    names = [p.name for p in NOTEBOOKS]
    assert len(names) >= 5, names
    readme = (TUTORIALS / "README.md").read_text()
    for name in names:
        assert name in readme, f"{name} is not listed in tutorials/README.md"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_outputs_cleared(path):
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        assert cell.get("outputs", []) == [], f"{path.name}: cell {i} has outputs"
        assert cell.get("execution_count") is None, f"{path.name}: cell {i} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=120,
        resources={"metadata": {"path": str(TUTORIALS)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    for cell in nb.cells:
        if cell.cell_type == "code":
            for out in cell.outputs:
                assert out.output_type != "error", f"{path.name}: {out}"
