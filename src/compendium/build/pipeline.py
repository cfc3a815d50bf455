"""Building the book: the chapters, the ledger, the summaries, the tables and the HTML.

The book build runs the chapters into ``book/`` (through :mod:`compendium.build.runner`),
beside the default small data-seed and analysis-seed sweeps (:mod:`compendium.build.sweep`), writes
the claims ledger to ``_build/claims.json``, runs the summary chapters
(robustness across seeds, how the book was built, the ledger) from what the
chapters produced, writes every table to ``_build/tables/<chapter>/<name>.csv``
and then calls ``jupyter-book build`` with execution off and warnings as
errors.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from compendium.analyses.ledger import claims, real_checks
from compendium.build import runner, sweep
from compendium.build.runner import (
    BOOK_DIR,
    BUILD_DIR,
    CLAIMS_FILE,
    LEDGER_NOTEBOOK,
    PROVENANCE_NOTEBOOK,
    ROBUSTNESS_NOTEBOOK,
    ROOT,
    TABLES_DIR,
    NotebookError,
    analysis_sources,
    chapter_sources,
)


# --- the claims table ------------------------------------------------------------------------

#: The claims table the introduction includes (``{include}``), written by every build.
CLAIMS_TABLE_FILE = BUILD_DIR / "claims_table.md"


def write_claims_table(notebooks: Iterable[str | os.PathLike], *, claims_file: Path = CLAIMS_FILE,
                       out: Path = CLAIMS_TABLE_FILE, readme: Path | None = None) -> str:
    """Compute the claims table (:func:`compendium.book.verdicts.table_rows`) from the ledger and the chapters.

    Writes it to ``out`` for the introduction (the sentence on how the checks roll up, then the table) and,
    when ``readme`` is given (a build with the default parameters: the README describes the shipped book),
    between the README's markers. Returns the README's version of the table.
    """
    from compendium.analyses.ledger import paper_checks, sounder
    from compendium.book import verdicts
    from compendium.data._files import write_text_atomic

    paths = [Path(n) for n in notebooks if Path(n).exists()]
    real = claims.read_real_checks(claims_file)
    rows = verdicts.table_rows(real_checks=real, paper_checks=paper_checks.checks(),
                               sounder_rows=sounder.collect(paths))
    sentence = verdicts.rollup(rows, real)
    text = f"{sentence}\n\n{verdicts.table_html(rows)}"
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        write_text_atomic(out, text)
    table = sentence.replace("{ref}`ledger <ledger-real-data>`", "ledger") + "\n\n" + verdicts.table_markdown(rows)
    if readme is not None and verdicts.write_readme(readme, table):
        print(f"claims table: {readme} updated (commit it)", flush=True)
    return table


# --- tables and provenance of executed chapters ------------------------------------------


def collect_tables(notebooks: Iterable[str | os.PathLike]) -> list[dict]:
    """The tables stored in executed notebooks (``report.Outputs.table``), in order.

    Each record has ``notebook``, ``name``, ``cell`` (the execution count of
    the cell that made it) and ``csv`` (the table as CSV text).
    """
    from compendium.book.report import TABLE_MIME

    return [
        {**record, "cell": cell.get("execution_count")} for record, cell in claims.stored_outputs(notebooks, TABLE_MIME)
    ]


def report_repairs(command: str) -> None:
    """Say on the terminal, one line each, which stored results failed their check and were computed again
    inside a chapter's kernel, or could not be stored (:func:`compendium.data.cache.repairs`): never in a page."""
    from compendium.data import cache

    for line in cache.repairs(runner.CACHE_DIR):
        print(f"compendium {command}: {line}", file=sys.stderr, flush=True)


def write_tables(records: Iterable[Mapping], out_dir: str | os.PathLike = TABLES_DIR) -> Path:
    """Write each table to ``out_dir/<notebook>/<name>.csv``, replacing the directory whole.

    The files are written into a temporary sibling directory that replaces
    ``out_dir`` only when every file is written, so a reader never sees a mix
    of two builds.
    """
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        for record in records:
            target = scratch / record["notebook"] / f"{record['name']}.csv"
            target.parent.mkdir(exist_ok=True)
            if target.exists():
                raise ValueError(f"{record['notebook']}: two tables are named {record['name']!r}")
            target.write_text(record["csv"], encoding="utf-8", newline="")
        old = out_dir.with_name(f".{out_dir.name}.old")
        if out_dir.exists():
            shutil.rmtree(old, ignore_errors=True)
            os.replace(out_dir, old)
        os.replace(scratch, out_dir)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out_dir


def chapter_provenance(notebooks: Iterable[str | os.PathLike]) -> list[dict]:
    """The provenance each executed chapter carries in its metadata (see :func:`provenance`)."""
    import nbformat

    rows = []
    for path in notebooks:
        path = Path(path)
        if path.exists():
            meta = nbformat.read(path, as_version=4).metadata.get("compendium", {})
            rows.append({"notebook": path.stem, **meta})
    return rows


def _summary_key(name: str, chapters: list[Path]) -> bytes:
    """What a summary chapter reads besides its source: the inputs its page is made from."""
    if name == LEDGER_NOTEBOOK:
        from compendium.analyses.ledger.sounder import collect as collect_sounder

        beside = collect_sounder(p for p in chapters if p.exists()).to_json(orient="records").encode()
        return (CLAIMS_FILE.read_bytes() if CLAIMS_FILE.exists() else b"") + beside
    if name == PROVENANCE_NOTEBOOK:
        tables = [{k: r[k] for k in ("notebook", "name", "cell", "csv")} for r in collect_tables(chapters)]
        return json.dumps([chapter_provenance(chapters), tables], sort_keys=True).encode()
    if name == ROBUSTNESS_NOTEBOOK:
        sweep_file = sweep.SWEEP_DIR / sweep.SWEEP_CLAIMS
        return (
            (sweep_file.read_bytes() if sweep_file.exists() else b"no sweep")
            + (
                (sweep.SWEEP_DIR / sweep.SWEEP_INFO).read_bytes()
                if (sweep.SWEEP_DIR / sweep.SWEEP_INFO).exists()
                else b""
            )
            + sweep.summary_key()
            + (CLAIMS_FILE.read_bytes() if CLAIMS_FILE.exists() else b"")
        )
    return b""


def _paper_checks() -> None:
    """Compute :func:`compendium.analyses.ledger.paper_checks.checks` once in this process (it keeps the result)."""
    from compendium.analyses.ledger import paper_checks

    paper_checks.checks()


def build_book(parameters: Mapping | None = None, *, html: bool = True, incremental: bool = True) -> Path:
    """Execute every chapter into ``book/``, write the ledger and the tables, build the HTML.

    Chapters whose inputs have not changed since their last execution are
    not executed again (see :func:`build_key`); the others run concurrently,
    beside the small data-seed sweep. The summary chapters
    (:data:`~compendium.build.runner.SUMMARY_NOTEBOOKS`) follow, each re-executed
    only when what it summarises changed: the build's provenance as soon as
    the chapters are done, the ledger and robustness appendices side by side
    once the sweeps are done and the ledger is written.

    Returns
    -------
    Path
        ``_build/html/index.html``.
    """
    from compendium.data import inputs
    from compendium.data.benchmark import load_benchmark

    parameters = dict(parameters or {})
    # Bad data fails here, once, with the loader's message, before any kernel starts; tables that pass are
    # stored where the chapters' kernels look first (runner.kernel_environment), so that none parses them again.
    load_benchmark(parameters.get("data_dir"), store=runner.CACHE_DIR)
    # The other inputs, every file against its MANIFEST, on every build: an edited file stops it here, even
    # when every chapter would otherwise be up to date (compendium.data.inputs).
    inputs.verify_inputs()
    sources = chapter_sources()
    analyses = analysis_sources()

    present = {s.stem for s in sources}
    executed = [BOOK_DIR / f"{s.stem}.ipynb" for s in analyses]

    def summarise(name: str):
        return runner.submit_execute(pool, name, BOOK_DIR, {}, incremental=incremental,
                                     extra_key=_summary_key(name, executed))

    # One pool for the chapters and the data-seed sweep: the chapters are queued first, and the sweep's
    # simulations and runs fill the worker that would otherwise wait for chapter 4.
    with runner.process_pool() as pool:
        summaries = {}
        with ThreadPoolExecutor(3) as side:
            # The paper's checks against itself read only its printed numbers; the ledger's summary needs them.
            # Computed here while the chapters run, they are not on the step between the chapters and the summaries.
            checked = side.submit(_paper_checks)
            chapters = runner.submit(pool, analyses, BOOK_DIR, parameters, incremental)
            swept = side.submit(sweep.default_data_sweep, parameters, executor=pool)
            # The small analysis-seed sweep (two seeds of a chapter of seconds) shares the same pool.
            seeds = side.submit(sweep.default_analysis_sweep, parameters, executor=pool)
            failures = []
            try:
                runner.gather(chapters)
            except NotebookError as error:
                failures.append(str(error))
            else:
                # The build's provenance reads the chapters only: it runs while the sweeps finish.
                if PROVENANCE_NOTEBOOK in present:
                    summaries[summarise(PROVENANCE_NOTEBOOK)] = len(summaries)
            for wait in (swept.result, seeds.result):  # all finish; every failure is named
                try:
                    wait()
                except NotebookError as error:
                    failures.append(str(error))
            if failures:  # (a provenance chapter already running finishes as the pool closes)
                raise NotebookError("\n".join(failures))
            checked.result()
        rows = claims.ledger(claims.collect(executed), data_seed_share=sweep.data_seed_shares())
        claims.write_ledger(CLAIMS_FILE, rows, real_checks.collect(executed))
        print(claims.summary_line(rows), flush=True)
        write_claims_table(executed, readme=ROOT / "README.md" if not parameters else None)
        # The other summaries read the chapters, the ledger and the sweeps, not one another: they run side by
        # side, the ledger (the longest) queued first.
        for name in (LEDGER_NOTEBOOK, ROBUSTNESS_NOTEBOOK):
            if name in present:
                summaries[summarise(name)] = len(summaries)
        runner.gather(summaries)
    every = [BOOK_DIR / f"{s.stem}.ipynb" for s in sources]
    write_tables(collect_tables(p for p in every if p.exists()))
    print(f"tables written to {TABLES_DIR}", flush=True)
    report_repairs("build")
    if html:
        build_html()
    return BUILD_DIR / "html" / "index.html"


#: What the HTML is made from (files, or folders taken whole), besides the installed packages, which
#: ``requirements.lock`` stands for: Jupyter Book, Sphinx and the theme render these and nothing else.
HTML_INPUTS = ("_config.yml", "_toc.yml", "book", "assets", "package-lock.json", "requirements.lock",
               "_build/claims_table.md")
#: The key of the inputs the HTML in ``_build/html`` was last built from (:func:`build_html`).
HTML_STAMP = "html-inputs.sha256"


def html_key(root: Path = ROOT) -> str:
    """SHA-256 of every file of :data:`HTML_INPUTS` under ``root``, with its path."""
    import hashlib

    hasher = hashlib.sha256()
    for name in HTML_INPUTS:
        path = root / name
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path] if path.is_file() else []
        for file in files:
            hasher.update(file.relative_to(root).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return hasher.hexdigest()


def build_html(root: Path = ROOT) -> Path:
    """Run ``jupyter-book build`` (execution off, warnings are errors), unless the HTML is current.

    It is current when ``_build/html`` holds a page for every page of the book and was built from inputs
    with the same :func:`html_key` (recorded in ``_build/`` + :data:`HTML_STAMP` after each successful
    build): a build with nothing new then skips Jupyter Book's start, its environment and its checks.
    """
    html = root / "_build" / "html"
    stamp = root / "_build" / HTML_STAMP
    key = html_key(root)
    pages = [html / "index.html"] + [html / "book" / f"{p.stem}.html" for p in sorted((root / "book").glob("*"))
                                     if p.suffix in (".md", ".ipynb")]
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == key and all(p.is_file() for p in pages):
        print("HTML up to date", flush=True)
        return html / "index.html"
    stamp.unlink(missing_ok=True)
    jupyter_book = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or "jupyter-book"
    command = [jupyter_book, "build", str(root), "--builder", "html", "--warningiserror", "--keep-going"]
    print("building the HTML book", flush=True)
    completed = subprocess.run(command, cwd=root, check=False)
    if completed.returncode != 0:
        raise NotebookError(f"jupyter-book build failed (exit {completed.returncode}); see the warnings above")
    _refresh_static(root / "assets", html / "_static")
    stamp.write_text(key + "\n", encoding="utf-8")
    return html / "index.html"


def _refresh_static(assets: Path, static: Path) -> None:
    """Copy the book's own assets into ``_static`` where they differ.

    Sphinx copies ``html_static_path`` only when it writes a page: a build in which only a style sheet changed
    (no page out of date) would keep serving the old one.
    """
    for source in sorted(p for p in assets.rglob("*") if p.is_file()):
        target = static / source.relative_to(assets)
        if not target.is_file() or target.read_bytes() != source.read_bytes():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
