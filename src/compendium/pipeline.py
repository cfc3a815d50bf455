"""Executing the chapters with papermill and building the book.

Each chapter is a paired jupytext source ``notebooks/NN_topic.py``. To run
one, the source is converted to a notebook, executed by papermill with the
given parameters into a temporary file, and moved to the output directory
only when every cell succeeded, so a failing run never replaces a good
executed notebook. The book build runs the chapters into ``book/``, writes
the claims ledger to ``_build/claims.json``, runs the ledger chapter last,
and then calls ``jupyter-book build`` with execution off and warnings as
errors.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat
import papermill

from . import claims

#: The repository root (this file is src/compendium/pipeline.py).
ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS_DIR = ROOT / "notebooks"
BOOK_DIR = ROOT / "book"
BUILD_DIR = ROOT / "_build"
CLAIMS_FILE = BUILD_DIR / "claims.json"

#: The ledger chapter runs after every other chapter, from the aggregate they produce.
LEDGER_NOTEBOOK = "99_ledger"

#: Environment of the kernels: one BLAS thread and a fixed hash seed, so that
#: floating-point reductions and set/dict iteration cannot vary between runs.
KERNEL_ENVIRONMENT = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONHASHSEED": "0",
    "MPLBACKEND": "agg",
}


class NotebookError(RuntimeError):
    """A chapter failed; the message names the notebook, the cell and the error."""


@dataclass(frozen=True)
class RunResult:
    """What one chapter run produced."""

    notebook: str
    path: Path
    parameters: dict


def chapter_sources(notebooks_dir: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The jupytext sources of all chapters, in book order (the ledger last)."""
    return sorted(notebooks_dir.glob("[0-9][0-9]_*.py"))


def resolve_notebook(name: str | os.PathLike, notebooks_dir: Path = NOTEBOOKS_DIR) -> Path:
    """Find a chapter source from its name (``01_design``), file name or path.

    Raises
    ------
    FileNotFoundError
        Naming the chapters that exist.
    """
    candidate = Path(name)
    if candidate.suffix in {".py", ".ipynb"} and candidate.exists():
        return candidate.with_suffix(".py").resolve()
    stem = candidate.stem
    for source in chapter_sources(notebooks_dir):
        if source.stem == stem or source.stem.split("_", 1)[-1] == stem or source.stem.startswith(f"{stem}_"):
            return source
    known = ", ".join(s.stem for s in chapter_sources(notebooks_dir))
    raise FileNotFoundError(f"no chapter named {str(name)!r}; the chapters are: {known}")


def _failing_cell(nb: nbformat.NotebookNode) -> tuple[int, str, str]:
    """Index, source and error of the first cell that raised in an executed notebook."""
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    for number, cell in enumerate(code_cells, start=1):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                return number, cell.source, f"{output.get('ename')}: {output.get('evalue')}"
    return 0, "", "unknown error"


def execute(
    source: str | os.PathLike,
    out_dir: str | os.PathLike = BOOK_DIR,
    parameters: Mapping | None = None,
    *,
    kernel_name: str = "python3",
) -> RunResult:
    """Execute one chapter with papermill into ``out_dir/<name>.ipynb``.

    Parameters
    ----------
    source : path-like
        The chapter's jupytext source, or its name.
    out_dir : path-like
        Where the executed notebook goes (``book/`` for the book).
    parameters : mapping, optional
        Values injected after the ``parameters`` cell.
    kernel_name : str
        The Jupyter kernel to run.

    Returns
    -------
    RunResult

    Raises
    ------
    NotebookError
        If a cell raised; the previous executed notebook in ``out_dir`` is
        left as it was.
    """
    source = resolve_notebook(source)
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    parameters = dict(parameters or {})
    notebook = jupytext.read(source)
    notebook.metadata["kernelspec"] = {"name": kernel_name, "display_name": "Python 3", "language": "python"}
    target = out_dir / f"{source.stem}.ipynb"
    with tempfile.TemporaryDirectory(prefix=f".{source.stem}.", dir=out_dir) as scratch:
        scratch = Path(scratch)
        unexecuted = scratch / "input.ipynb"
        executed = scratch / target.name
        nbformat.write(notebook, unexecuted)
        env_before = {k: os.environ.get(k) for k in KERNEL_ENVIRONMENT}
        os.environ.update(KERNEL_ENVIRONMENT)
        try:
            papermill.execute_notebook(
                str(unexecuted),
                str(executed),
                parameters=parameters,
                kernel_name=kernel_name,
                cwd=str(out_dir),
                progress_bar=False,
                report_mode=False,
            )
        except papermill.PapermillExecutionError as error:
            raise NotebookError(
                f"{source.name}: cell {error.exec_count} raised {error.ename}: {error.evalue}\n"
                f"(the previous {target.relative_to(out_dir.parent) if target.exists() else target.name} is unchanged)"
            ) from None
        finally:
            for key, value in env_before.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        os.replace(executed, target)
    return RunResult(source.stem, target, parameters)


def run(
    names: Iterable[str | os.PathLike],
    out_dir: str | os.PathLike = BOOK_DIR,
    parameters: Mapping | None = None,
    *,
    claims_file: str | os.PathLike | None = None,
) -> list[RunResult]:
    """Execute several chapters, then write the claims they recorded.

    The ledger written to ``claims_file`` (``out_dir/claims.json`` unless
    given) lists every registry id; ids the chapters did not record are
    ``not-run``.
    """
    out_dir = Path(out_dir)
    results = [execute(name, out_dir, parameters) for name in names]
    rows = claims.ledger(claims.collect(r.path for r in results))
    claims.write_ledger(claims_file or out_dir / "claims.json", rows)
    return results


def build_book(parameters: Mapping | None = None, *, html: bool = True) -> Path:
    """Execute every chapter into ``book/``, write the ledger and build the HTML.

    Returns
    -------
    Path
        ``_build/html/index.html``.
    """
    sources = chapter_sources()
    chapters = [s for s in sources if s.stem != LEDGER_NOTEBOOK]
    for source in chapters:
        print(f"executing {source.name}", flush=True)
        execute(source, BOOK_DIR, parameters)
    rows = claims.ledger(claims.collect(BOOK_DIR / f"{s.stem}.ipynb" for s in chapters))
    claims.write_ledger(CLAIMS_FILE, rows)
    counts = claims.summary(rows)
    print("claims: " + ", ".join(f"{k} {v}" for k, v in counts.items()), flush=True)
    if any(s.stem == LEDGER_NOTEBOOK for s in sources):
        print(f"executing {LEDGER_NOTEBOOK}.py", flush=True)
        execute(LEDGER_NOTEBOOK, BOOK_DIR, {"claims_file": str(CLAIMS_FILE)})
    if html:
        build_html()
    return BUILD_DIR / "html" / "index.html"


def build_html(root: Path = ROOT) -> Path:
    """Run ``jupyter-book build`` (execution off, warnings are errors)."""
    jupyter_book = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or "jupyter-book"
    command = [jupyter_book, "build", str(root), "--builder", "html", "--warningiserror", "--keep-going"]
    print("building the HTML book", flush=True)
    completed = subprocess.run(command, cwd=root, check=False)
    if completed.returncode != 0:
        raise NotebookError(f"jupyter-book build failed (exit {completed.returncode}); see the warnings above")
    return root / "_build" / "html" / "index.html"
