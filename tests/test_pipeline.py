"""The build's plumbing: seeds, sweeps (local pool and dask), table CSVs, provenance.

The sweeps here run a tiny chapter written into ``tmp_path`` (a few seconds
per kernel) whose recorded claim depends on the seed, so that the sweep's
gathering, its CSV and its failure report are checked without the cost of
the real chapters.
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from unittest import mock

import nbformat
import pandas as pd
import pytest

from compendium.analyses.ledger import claims, robustness
from compendium.book import report
from compendium.build import pipeline
from compendium.build import runner, sweep

TINY_CHAPTER = '''# %% tags=["parameters"]
seed = 0
fail_on = -1

# %%
from compendium.analyses.ledger import claims
from compendium.book import report
import pandas as pd

if seed == fail_on:
    raise RuntimeError(f"seed {seed} was asked to fail")
ledger = claims.Recorder("00_tiny", data="simulated")
ledger.record("ead.seed_sd_max", 0.001 * seed)
ledger.record("design.n_sentences", 17100)
out = report.Outputs("00_tiny", parameters={"seed": seed})
out.table(pd.DataFrame({"seed": [seed], "half": [seed / 2]}), "seed_table", caption="the seed")
'''


@pytest.fixture
def tiny_chapter(tmp_path):
    source = tmp_path / "00_tiny.py"
    source.write_text(TINY_CHAPTER, encoding="utf-8")
    return source


@pytest.mark.parametrize(
    ("text", "seeds"),
    [
        ("0-3", [0, 1, 2, 3]),
        ("7", [7]),
        ("1,3,5", [1, 3, 5]),
        ("0-2,10,1", [0, 1, 2, 10]),
        (" 4 - 4 ".replace(" ", ""), [4]),
    ],
)
def test_seeds_are_parsed_from_ranges_and_lists(text, seeds):
    assert sweep.parse_seeds(text) == seeds


@pytest.mark.parametrize("text", ["", "a", "3-1", "-2", "1,,2", "1.5"])
def test_bad_seeds_are_refused_with_the_part_named(text):
    with pytest.raises(ValueError, match="is not a seed or a range"):
        sweep.parse_seeds(text)


def _check_sweep(frame, out_dir, seeds):
    assert sorted(frame["seed"].unique()) == seeds
    values = frame[frame["id"] == "ead.seed_sd_max"].set_index("seed")["value"]
    assert values.to_dict() == pytest.approx({s: 0.001 * s for s in seeds})
    assert set(frame["data"]) == {"simulated"}
    on_disk = robustness.read_sweep(out_dir / sweep.SWEEP_CLAIMS)
    assert on_disk[["seed", "id", "value"]].equals(frame[["seed", "id", "value"]].reset_index(drop=True))
    for seed in seeds:
        assert (out_dir / f"seed-{seed}" / "00_tiny.ipynb").exists()


def test_a_sweep_runs_every_seed_through_a_local_process_pool(tiny_chapter, tmp_path):
    out_dir = tmp_path / "sweep"
    with ProcessPoolExecutor(max_workers=2) as pool:
        frame = sweep.analysis_sweep([0, 1, 2], [tiny_chapter], out_dir, executor=pool)
    _check_sweep(frame, out_dir, [0, 1, 2])
    table = robustness.spread(frame)
    moving = table.set_index("id")
    assert bool(moving.loc["ead.seed_sd_max", "seed_dependent"]) and not bool(
        moving.loc["design.n_sentences", "seed_dependent"]
    )
    assert moving.loc["ead.seed_sd_max", "sd"] == pytest.approx(0.001)


def test_a_sweep_runs_on_a_dask_distributed_cluster(tiny_chapter, tmp_path):
    distributed = pytest.importorskip("distributed")
    out_dir = tmp_path / "sweep"
    # distributed's nanny writes its workers' variables (PYTHONHASHSEED=6640, MALLOC_TRIM_THRESHOLD_, the thread
    # counts) into this process's environment before it spawns them, and leaves them there: they are put back,
    # so that the tests that follow in this process (nbval's kernels among them) keep make test's environment.
    with mock.patch.dict(os.environ):
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            with distributed.Client(cluster) as client:
                frame = sweep.analysis_sweep([3, 4], [tiny_chapter], out_dir, executor=client.get_executor())
    _check_sweep(frame, out_dir, [3, 4])


def test_a_failing_seed_is_named_after_the_others_ran(tiny_chapter, tmp_path):
    out_dir = tmp_path / "sweep"
    with pytest.raises(runner.NotebookError, match=r"seed 1: 00_tiny.py: cell \d+ raised RuntimeError: seed 1 was "
                                                   r"asked to fail"):
        sweep.analysis_sweep([0, 1], [tiny_chapter], out_dir, {"fail_on": 1}, executor=ProcessPoolExecutor(1))
    assert (out_dir / "seed-0" / "00_tiny.ipynb").exists()
    assert not (out_dir / sweep.SWEEP_CLAIMS).exists()


def test_tables_are_collected_with_their_cell_and_written_as_csv(tiny_chapter, tmp_path):
    result = runner.execute(tiny_chapter, tmp_path / "book", {"seed": 4})
    records = pipeline.collect_tables([result.path])
    assert [(r["notebook"], r["name"]) for r in records] == [("00_tiny", "seed_table")]
    assert isinstance(records[0]["cell"], int)
    tables = pipeline.write_tables(records, tmp_path / "tables")
    assert (tables / "00_tiny" / "seed_table.csv").read_text(encoding="utf-8") == "seed,half\n4,2\n"
    # Re-writing replaces the directory whole: a table that is gone is gone.
    pipeline.write_tables([], tables)
    assert list(tables.iterdir()) == []


def test_two_tables_with_one_name_are_refused_and_the_old_tables_kept(tmp_path):
    tables = pipeline.write_tables([{"notebook": "a", "name": "t", "csv": "x\n1\n"}], tmp_path / "tables")
    twice = [{"notebook": "a", "name": "t", "csv": "x\n2\n"}] * 2
    with pytest.raises(ValueError, match="two tables are named 't'"):
        pipeline.write_tables(twice, tables)
    assert (tables / "a" / "t.csv").read_text() == "x\n1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["tables"]


def test_table_csv_fixes_line_ends_and_float_digits():
    frame = pd.DataFrame({"a": [1 / 3, 2.0], "b": ["x", "y"]})
    assert report.table_csv(frame) == "a,b\n0.3333333333,x\n2,y\n"
    named = frame.set_index("b")
    assert report.table_csv(named).startswith("b,a\n")


def test_outputs_refuse_bad_and_repeated_names():
    out = report.Outputs("00_tiny")
    with pytest.raises(ValueError, match="lower-case"):
        out._name("Bad Name")
    out._name("fine_name")
    with pytest.raises(ValueError, match="used twice"):
        out._name("fine_name")


def test_provenance_names_every_direct_dependency(tiny_chapter, tmp_path):
    result = runner.execute(tiny_chapter, tmp_path / "book", {"seed": 1})
    meta = pipeline.chapter_provenance([result.path])[0]
    assert meta["notebook"] == "00_tiny" and meta["parameters"] == {"seed": 1}
    pins = {
        line.split("==")[0].lower()
        for line in (runner.ROOT / "requirements.lock").read_text().splitlines()
        if "==" in line
    }
    assert {p.lower() for p in meta["packages"]} <= pins
    assert {"numpy", "pandas", "papermill", "jupyter-book"} <= {p.lower() for p in meta["packages"]}
    assert json.loads(json.dumps(meta)) == meta  # stored as plain JSON in the notebook


def test_spread_counts_seeds_in_band_and_sd_by_hand():
    sweep = pd.DataFrame(
        {"seed": [0, 1, 2, 0, 1, 2], "id": ["a"] * 3 + ["b"] * 3, "section": ["6"] * 6, "what": ["w"] * 6,
         "paper": [0.5] * 3 + [3.0] * 3, "lo": [0.4] * 3 + [3.0] * 3, "hi": [0.6] * 3 + [3.0] * 3,
         "value": [0.45, 0.55, 0.65, 3.0, 3.0, 3.0], "status": ["reproduced"] * 6, "notebook": ["n"] * 6,
         "data": ["simulated"] * 6}
    )
    table = robustness.spread(sweep).set_index("id")
    assert table.loc["a", "sd"] == pytest.approx(0.1)
    assert table.loc["a", "in_band"] == pytest.approx(2 / 3)
    assert table.loc["a", "range"] == pytest.approx(0.2) and bool(table.loc["a", "seed_dependent"])
    assert table.loc["b", "in_band"] == 1 and not bool(table.loc["b", "seed_dependent"])
    positions = robustness.band_position(sweep)
    assert set(positions["id"]) == {"a"}  # a zero-width band has no position
    assert positions["position"].round(6).tolist() == [0.25, 0.75, 1.25]
    book = robustness.beside_book(robustness.spread(sweep), [{"id": "a", "reproduced": 0.5, "status": "reproduced"}])
    assert book.set_index("id").loc["a", "sd_over_band_width"] == pytest.approx(0.5)


def test_a_file_that_is_not_a_sweep_is_named(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("seed,value\n0,1\n")
    with pytest.raises(ValueError, match=r"other.csv: not a sweep table; missing column\(s\) id"):
        robustness.read_sweep(path)


def test_the_robustness_chapter_shows_a_sweep(tiny_chapter, tmp_path):
    sweep_dir = tmp_path / "sweep"
    sweep.analysis_sweep([0, 1], [tiny_chapter], sweep_dir, executor=ProcessPoolExecutor(1))
    claims_file = tmp_path / "claims.json"
    from compendium.analyses.ledger import claims

    claims.write_ledger(claims_file, claims.ledger({}))
    result = runner.execute(runner.ROBUSTNESS_NOTEBOOK, tmp_path / "book",
                              {"sweep_file": str(sweep_dir / sweep.SWEEP_CLAIMS), "claims_file": str(claims_file)})
    cells = nbformat.read(result.path, as_version=4).cells
    text = json.dumps([c.get("outputs", []) for c in cells], default=str)
    assert "2 seeds" in text and "claims_that_move_with_the_seed" in text and "No sweep in this build" not in text


def test_a_sweep_runs_by_default_the_chapters_that_record_claims():
    names = [s.stem for s in runner.claim_sources()]
    assert names[0] == "01_design" and "04_decodability" in names
    assert not set(names) & {"08_audit", "09_system_cards", *runner.SUMMARY_NOTEBOOKS}


def test_a_hung_cell_fails_with_the_chapter_named_instead_of_waiting_forever(tmp_path, monkeypatch):
    source = tmp_path / "00_hang.py"
    source.write_text('# %% tags=["parameters"]\nseed = 0\n\n# %%\nimport time\ntime.sleep(60)\n', encoding="utf-8")
    monkeypatch.setattr(runner, "CELL_TIMEOUT", 2)
    with pytest.raises(runner.NotebookError, match=r"(?s)00_hang.py: CellTimeoutError.*time.sleep\(60\).*nothing was "
                                                   r"written"):
        runner.execute(source, tmp_path / "book")
    assert not (tmp_path / "book" / "00_hang.ipynb").exists()


def test_kernels_talk_over_unix_sockets(tiny_chapter, tmp_path, capfd):
    runner.execute(tiny_chapter, tmp_path / "book", {"seed": 2})
    assert "running over TCP" not in capfd.readouterr().err


def test_a_chapter_stops_its_kernel_without_interrupting_it_and_logs_no_error(tiny_chapter, tmp_path, capfd,
                                                                              monkeypatch):
    """jupyter_client's shutdown interrupts a kernel before killing it; when the kernel handled the SIGINT
    before the kill, the build's log read "ERROR | KeyboardInterrupt caught in kernel" (now and then, so
    the spy checks the cause: no interrupt is sent to a kernel that is being stopped)."""
    from jupyter_client.manager import AsyncKernelManager

    interrupts = []
    original = AsyncKernelManager._async_interrupt_kernel

    async def spy(self):
        interrupts.append(self.shutting_down)
        return await original(self)

    monkeypatch.setattr(AsyncKernelManager, "_async_interrupt_kernel", spy)
    runner.execute(tiny_chapter, tmp_path / "book", {"seed": 2})
    assert interrupts == []
    captured = capfd.readouterr()
    log = [line for line in (captured.out + captured.err).splitlines() if "ERROR" in line or "Traceback" in line]
    assert log == []


def test_chapters_run_side_by_side_in_one_directory_keep_to_their_own_kernels(tmp_path):
    sources = []
    for number in range(4):
        source = tmp_path / f"0{number}_tiny.py"
        source.write_text(TINY_CHAPTER.replace("00_tiny", f"0{number}_tiny"), encoding="utf-8")
        sources.append(source)
    results = runner.execute_many(sources, tmp_path / "book", {"seed": 3}, jobs=4)
    records = pipeline.collect_tables([r.path for r in results])
    assert [r["notebook"] for r in records] == [f"0{n}_tiny" for n in range(4)]
    assert all(r["csv"] == "seed,half\n3,1.5\n" for r in records)


def test_a_chapter_runs_again_only_when_what_it_depends_on_changed(tiny_chapter, tiny_data_dir, tmp_path, monkeypatch):
    book = tmp_path / "book"
    parameters = {"seed": 1, "data_dir": str(tiny_data_dir)}

    def run(**changes):
        return runner.execute(tiny_chapter, book, {**parameters, **changes}, incremental=True).executed

    assert run() is True
    assert run() is False  # nothing changed: the executed notebook is current
    assert run(seed=2) is True  # a parameter
    assert run(seed=2) is False
    manifest = tiny_data_dir / "MANIFEST"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    assert run(seed=2) is True  # the data
    tiny_chapter.write_text(tiny_chapter.read_text(encoding="utf-8") + "\n# %%\nx = 1\n", encoding="utf-8")
    assert run(seed=2) is True  # the source
    monkeypatch.setattr(runner, "_module_bytes", lambda: b"another version of the module")
    assert run(seed=2) is True  # the helper module
    assert run(seed=2) is False


ENV_CHAPTER = '''# %% tags=["parameters"]
seed = 0

# %%
import os
import numpy as np
import pandas as pd
from compendium.book import report
names = ["OMP_NUM_THREADS", "PYTHONHASHSEED", "COMPENDIUM_CACHE"]
values = [os.environ.get(n, "unset") for n in names]
# What numpy does, not only what the environment says: a forked kernel's numpy was imported by its server.
names.append("numpy huge-page advice")
values.append(str(np._core.multiarray._get_madvise_hugepage()))
report.Outputs("00_env", parameters={"seed": seed}).table(
    pd.DataFrame({"name": names, "value": values}), "env", caption="env")
'''


def test_the_kernel_gets_its_environment_and_the_callers_is_left_alone(tmp_path, monkeypatch):
    for name in ("OMP_NUM_THREADS", "PYTHONHASHSEED", "COMPENDIUM_CACHE", "NUMPY_MADVISE_HUGEPAGE"):
        monkeypatch.delenv(name, raising=False)
    before = dict(pipeline.os.environ)
    source = tmp_path / "00_env.py"
    source.write_text(ENV_CHAPTER, encoding="utf-8")
    result = runner.execute(source, tmp_path / "book")
    assert dict(pipeline.os.environ) == before
    csv = pipeline.collect_tables([result.path])[0]["csv"]
    assert csv == (f"name,value\nOMP_NUM_THREADS,1\nPYTHONHASHSEED,0\nCOMPENDIUM_CACHE,{runner.CACHE_DIR.resolve()}\n"
                   "numpy huge-page advice,False\n")


def test_the_build_key_reads_every_module_of_the_package():
    """The key must see the module's source as installed (an editable install gives a MultiplexedPath)."""
    from importlib import resources

    text = runner._module_bytes()
    def walk(folder, prefix=""):
        for entry in folder.iterdir():
            if entry.is_dir() and entry.name not in ("templates", "__pycache__"):
                yield from walk(entry, prefix + entry.name + "/")
            elif entry.name.endswith(".py"):
                yield prefix + entry.name

    names = sorted(walk(resources.files("compendium")))
    assert len(names) > 40 and "stats/agreement.py" in names and "analyses/ead/core.py" in names
    for name in names:
        assert name.encode() in text, f"{name} is not part of the build key"
    assert b"def build_key(" in text and b"def _module_bytes(" in text


def test_a_build_names_both_a_failed_chapter_and_a_failed_data_seed(monkeypatch):
    """The chapters and the data-seed sweep run side by side; when both fail, the error names both."""
    from compendium.build import sweep

    def chapters_fail(futures):
        raise runner.NotebookError("03_length.py: cell 4 raised ValueError: bad")

    def sweep_fails(parameters, executor=None):
        raise runner.NotebookError("data seed 1 01_design: cell 2 raised KeyError: 'x'")

    monkeypatch.setattr(runner, "submit", lambda *args, **kwargs: {})
    monkeypatch.setattr(runner, "gather", chapters_fail)
    monkeypatch.setattr(sweep, "default_data_sweep", sweep_fails)
    monkeypatch.setattr(sweep, "default_analysis_sweep", lambda parameters, executor=None: None)  # not the book's
    with pytest.raises(runner.NotebookError) as raised:
        pipeline.build_book(html=False)
    assert "03_length.py: cell 4" in str(raised.value) and "data seed 1 01_design" in str(raised.value)


def test_the_provenance_runs_once_the_chapters_are_done_and_the_other_summaries_after_the_ledger(monkeypatch):
    """build_book's order: 98_build (it reads the chapters only) is queued while the sweeps still run; the ledger
    is written once they are done; 99_ledger and 97_robustness, which read it, are queued after it."""
    import threading
    from concurrent.futures import Future

    from compendium.analyses.ledger import real_checks

    events = []
    provenance_queued = threading.Event()

    def submit_execute(pool, source, out_dir, parameters, *, incremental, extra_key=b""):
        events.append(f"queued {Path(source).stem}")
        if Path(source).stem == runner.PROVENANCE_NOTEBOOK:
            provenance_queued.set()
        future = Future()
        future.set_result(runner.RunResult(Path(source).stem, Path(source), {}))
        return future

    def gather(futures):
        if not futures:  # the chapters (runner.submit queues none here)
            events.append("chapters done")
        for future in futures:
            future.result()

    def data_sweep(parameters, executor=None):
        assert provenance_queued.wait(30), "98_build was not queued while the sweep ran"
        events.append("sweeps done")

    monkeypatch.setattr(runner, "submit", lambda *args, **kwargs: {})
    monkeypatch.setattr(runner, "submit_execute", submit_execute)
    monkeypatch.setattr(runner, "gather", gather)
    monkeypatch.setattr(sweep, "default_data_sweep", data_sweep)
    monkeypatch.setattr(sweep, "default_analysis_sweep", lambda parameters, executor=None: None)
    monkeypatch.setattr(pipeline, "_summary_key", lambda name, chapters: b"")
    monkeypatch.setattr(claims, "collect", lambda chapters: [])
    monkeypatch.setattr(claims, "ledger", lambda rows, data_seed_share=None: [])
    monkeypatch.setattr(claims, "write_ledger", lambda path, rows, checks=None: events.append("ledger written"))
    monkeypatch.setattr(claims, "summary_line", lambda rows: "")
    monkeypatch.setattr(real_checks, "collect", lambda chapters: [])
    monkeypatch.setattr(pipeline, "collect_tables", lambda paths: [])
    monkeypatch.setattr(pipeline, "write_tables", lambda tables: None)
    pipeline.build_book(html=False)
    assert events == ["chapters done", f"queued {runner.PROVENANCE_NOTEBOOK}", "sweeps done", "ledger written",
                      f"queued {runner.LEDGER_NOTEBOOK}", f"queued {runner.ROBUSTNESS_NOTEBOOK}"]


def test_the_longest_chapter_is_queued_first_and_results_keep_the_source_order(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    queued = []

    def fake_execute(source, out_dir, parameters, *, incremental, extra_key=b""):
        queued.append(Path(source).stem)
        return runner.RunResult(Path(source).stem, Path(source), {})

    monkeypatch.setattr(runner, "execute", fake_execute)
    sources = [
        Path(f"notebooks/{name}.py") for name in ("01_design", "02_reliability", "04_decodability", "05_geometry")
    ]
    with ThreadPoolExecutor(1) as pool:  # one worker runs them in the order they were queued
        futures = runner.submit(pool, sources, Path("book"), {}, False)
        order = [futures[f] for f in futures]
        results = runner.gather(futures)
    assert [r.notebook for r in results] == [s.stem for s in sources]
    assert queued[0] == "04_decodability" and queued[1:] == ["01_design", "02_reliability", "05_geometry"]
    assert sorted(order) == [0, 1, 2, 3] and order[0] == 2  # each future keeps its chapter's place in the book


def test_a_current_chapter_is_decided_without_a_worker(tmp_path):
    """An incremental run whose executed notebook carries the chapter's build key never reaches the pool (so a
    build with nothing to run starts no worker process); a stale one, or a non-incremental run, does."""

    class NoPool:
        def __init__(self):
            self.submitted = []

        def submit(self, function, source, *args, **kwargs):
            self.submitted.append(Path(source).stem)
            raise AssertionError("submitted")

    source = runner.resolve_notebook("02_reliability")
    parameters = {"seed": 3}
    (tmp_path / "02_reliability.ipynb").write_text(json.dumps(
        {"cells": [], "metadata": {"compendium": {"build_key": runner.build_key(source, parameters)}},
         "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    pool = NoPool()
    done = runner.submit_execute(pool, source, tmp_path, parameters, incremental=True)
    assert done.done() and done.result().executed is False and done.result().path == tmp_path / "02_reliability.ipynb"
    assert pool.submitted == []
    for stale in ({"seed": 4}, parameters):  # another key; or the same key, not incremental
        with pytest.raises(AssertionError, match="submitted"):
            runner.submit_execute(pool, source, tmp_path, stale, incremental=stale is not parameters)
    assert pool.submitted == ["02_reliability", "02_reliability"]
    (tmp_path / "02_reliability.ipynb").write_text("{not json", encoding="utf-8")
    assert runner.current_result(source, tmp_path, parameters) is None


def test_the_package_is_compiled_before_workers_start(monkeypatch, tmp_path):
    """``process_pool`` writes the package's bytecode first (``runner.compile_package``), so that workers and
    kernels do not compile every module again where ``PYTHONDONTWRITEBYTECODE`` is set; an unwritable
    package is left alone."""
    import compileall
    import importlib.util

    import compendium

    package = Path(compendium.__file__).resolve().parent
    runner.compile_package()
    stale = [p for p in package.rglob("*.py") if not Path(importlib.util.cache_from_source(str(p))).exists()]
    assert not stale, stale[:3]
    compiled = []
    monkeypatch.setattr(compileall, "compile_dir", lambda path, **kw: compiled.append(Path(path)))
    runner.process_pool(1).shutdown()
    assert compiled == [package]
    monkeypatch.setattr(runner.os, "access", lambda path, mode: False)
    runner.compile_package()
    assert compiled == [package]


def test_the_html_is_built_again_only_when_what_it_is_made_from_changed(tmp_path, monkeypatch):
    """build_html runs Jupyter Book when the book's pages, configuration, assets or locked packages changed, or
    a page of the book is missing from _build/html, and skips it otherwise."""
    root = tmp_path / "repo"
    (root / "book").mkdir(parents=True)
    (root / "assets").mkdir()
    for name, text in {"_config.yml": "title: t\n", "_toc.yml": "root: book/intro\n", "book/intro.md": "# intro\n",
                       "book/01_a.ipynb": "{}", "assets/x.css": "a {}", "requirements.lock": "x==1\n"}.items():
        (root / name).write_text(text, encoding="utf-8")
    runs = []

    def fake_jupyter_book(command, cwd, check):
        runs.append(command)
        html = root / "_build" / "html"
        (html / "book").mkdir(parents=True, exist_ok=True)
        for page in ("index", "book/intro", "book/01_a"):
            (html / f"{page}.html").write_text("<html></html>", encoding="utf-8")
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(pipeline.subprocess, "run", fake_jupyter_book)
    pipeline.build_html(root)
    pipeline.build_html(root)
    assert len(runs) == 1  # nothing changed
    (root / "book" / "01_a.ipynb").write_text('{"cells": []}', encoding="utf-8")
    pipeline.build_html(root)
    assert len(runs) == 2  # a page changed
    (root / "requirements.lock").write_text("x==2\n", encoding="utf-8")
    pipeline.build_html(root)
    assert len(runs) == 3  # the packages changed
    (root / "_build" / "html" / "book" / "intro.html").unlink()
    pipeline.build_html(root)
    pipeline.build_html(root)
    assert len(runs) == 4  # a page was missing; then nothing changed
