"""Execute the tutorial notebooks and write rendered Markdown copies with their figures.

Usage (from the root of a clone, with smallvis importable, e.g. after
``pip install ".[test]"``)::

    python tools/render_tutorials.py            # every notebook in tutorials/
    python tools/render_tutorials.py 03_one_family

For each ``tutorials/NAME.ipynb`` this writes ``docs/tutorials/NAME.md`` and
its figures as PNG files in ``docs/tutorials/NAME/``, so that a reader can
see every result without running anything.  The committed notebooks stay
output-free.  Each copy records, in its first line, the SHA-256 of its
notebook's cells (:func:`source_hash`); ``tests/test_tutorials.py`` fails
when a notebook changed after its copy was rendered.  Figures are written
at a modest resolution to keep the repository small.
"""

import base64
import copy
import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ROOT / "tutorials"
RENDERED = ROOT / "docs" / "tutorials"

#: Resolution of the rendered figures (dots per inch).
FIGURE_DPI = 60

_SETUP = f"""\
import matplotlib.pyplot as plt
%config InlineBackend.figure_formats = ["png"]
plt.rcParams["figure.dpi"] = {FIGURE_DPI}
"""


def source_hash(nb):
    """SHA-256 of a notebook's cell types and sources (outputs and metadata ignored)."""
    cells = [(cell.cell_type, cell.source.replace("\r\n", "\n")) for cell in nb.cells]
    return hashlib.sha256(json.dumps(cells).encode("utf-8")).hexdigest()


def _markdown_links(text):
    """Links written relative to tutorials/, rewritten for docs/tutorials/."""
    text = text.replace("](../docs/", "](../")
    return re.sub(r"\]\((\d\d_[\w-]+)\.ipynb\)", r"](\1.md)", text)


def _package_paths(text):
    """A warning's ``/any/where/smallvis/api.py:345:`` as ``smallvis/api.py:345:``: the
    machine's directories say nothing to a reader."""
    return re.sub(r"(?m)^\S*/(smallvis/[\w/]+\.py:\d+:)", r"\1", text)


def _text_block(text):
    text = _package_paths(text).rstrip("\n")
    return f"```text\n{text}\n```\n" if text else ""


def render(path):
    """Execute ``path`` and write its Markdown copy; return the copy's path."""
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    digest = source_hash(nb)
    run = copy.deepcopy(nb)
    run.cells.insert(0, nbformat.v4.new_code_cell(_SETUP))
    nbclient.NotebookClient(run, kernel_name="python3", timeout=600,
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    figures = RENDERED / path.stem
    shutil.rmtree(figures, ignore_errors=True)
    parts = [f"<!-- Rendered from tutorials/{path.name} by tools/render_tutorials.py; "
             f"do not edit. notebook-sha256: {digest} -->\n",
             f"*A rendered copy of [`tutorials/{path.name}`](../../tutorials/{path.name}), "
             "with its outputs. Open the notebook in Jupyter to run it yourself.*\n"]
    n_figures = 0
    for cell in run.cells[1:]:
        if cell.cell_type == "markdown":
            parts.append(_markdown_links(cell.source) + "\n")
            continue
        if cell.cell_type != "code":
            continue
        parts.append(f"```python\n{cell.source.rstrip()}\n```\n")
        stream = ""  # consecutive printed text goes into one block
        for out in cell.outputs:
            if out.output_type == "stream":
                stream += out.text
                continue
            parts.append(_text_block(stream))
            stream = ""
            if out.output_type in ("display_data", "execute_result"):
                if "image/png" in out.data:
                    n_figures += 1
                    figures.mkdir(parents=True, exist_ok=True)
                    name = f"figure_{n_figures}.png"
                    (figures / name).write_bytes(base64.b64decode(out.data["image/png"]))
                    parts.append(f"![figure {n_figures}]({path.stem}/{name})\n")
                elif "text/plain" in out.data:
                    parts.append(_text_block(out.data["text/plain"]))
            elif out.output_type == "error":
                raise RuntimeError(f"{path.name}: {out.ename}: {out.evalue}")
        parts.append(_text_block(stream))
    target = RENDERED / f"{path.stem}.md"
    target.write_text("\n".join(parts), encoding="utf-8")
    return target


def main(names):
    RENDERED.mkdir(parents=True, exist_ok=True)
    paths = [TUTORIALS / f"{name}.ipynb" for name in names] if names else \
        sorted(TUTORIALS.glob("*.ipynb"))
    for path in paths:
        print(f"rendering {path.name} ...", flush=True)
        print(f"  -> {render(path).relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
