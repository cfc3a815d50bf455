"""Data-seed sweeps: the chapters run again on freshly simulated benchmarks.

An analysis-seed sweep (:func:`analysis_sweep`, ``compendium sweep
--seeds``) keeps the data and changes the seed of folds, bootstraps and
permutations. A **data-seed sweep** (``compendium sweep --data-seeds``) keeps
every analysis setting and draws the simulated benchmark again: for each
data seed the simulator writes a complete benchmark into its own directory
(``<out>/data-seed-<N>/data``, never over ``data/``), and the chapters run on
it with the same executors as an analysis-seed sweep (a local process pool or
a ``dask.distributed`` client's ``get_executor()``).

How often a *free* claim (one no parameter of ``simulation.yml`` targets)
lands in its band over the data seeds says how firmly the simulation's model
ties it to the paper's other numbers; a *targeted* claim that leaves its band
on the default data seed means the simulator is broken.

``make book`` runs a small sweep (:data:`DEFAULT_DATA_SEEDS` of the
chapters that finish in seconds, :data:`DEFAULT_CHAPTERS`) unless a larger
one is already there; ``make sweep`` runs the full one, which replaces it.
Each run is skipped when its executed notebook is current (the build key
covers the seed's data MANIFEST) and each benchmark when its MANIFEST
matches, so a rebuild with nothing changed redoes nothing.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from concurrent.futures import Executor, Future, as_completed
from pathlib import Path

import pandas as pd

from compendium.analyses.ledger import claims
from compendium.build import runner
from compendium.data.escape import csv_frame

#: Where ``compendium sweep`` writes its executed chapters and ``sweep_claims.csv``.
SWEEP_DIR = runner.BUILD_DIR / "sweep"
SWEEP_CLAIMS = "sweep_claims.csv"

#: Where a data-seed sweep writes its benchmarks, executed chapters and tables.
DATA_SWEEP_DIR = runner.BUILD_DIR / "data-sweep"
#: One row per (data seed, claim), the columns of an analysis-seed sweep (``seed`` is the data seed).
DATA_SWEEP_CLAIMS = "data_sweep_claims.csv"
#: What was run: ``{"kind", "seeds", "chapters"}``.
DATA_SWEEP_INFO = "data_sweep.json"
#: The small sweep of a default build: three data seeds of the chapters that finish in seconds.
DEFAULT_DATA_SEEDS = (0, 1, 2)
DEFAULT_CHAPTERS = ("01_design", "02_reliability")

SMALL, FULL, CUSTOM = "small", "full", "custom"

#: The small analysis-seed sweep of a default build: two analysis seeds besides the book's own, of the
#: chapter that finishes in seconds and draws bootstraps (a few seconds per run on one core).
DEFAULT_ANALYSIS_SEEDS = (1, 2)
DEFAULT_ANALYSIS_CHAPTERS = ("02_reliability",)
#: What an analysis-seed sweep of the default build ran: ``{"kind", "seeds", "chapters"}``.
SWEEP_INFO = "sweep.json"


def data_dir_of(seed: int, out_dir: str | os.PathLike = DATA_SWEEP_DIR) -> Path:
    """The directory of the benchmark simulated with data seed ``seed``."""
    return Path(out_dir) / f"data-seed-{seed}" / "data"


def simulate_seed(seed: int, out_dir: str | os.PathLike = DATA_SWEEP_DIR, parameters=None) -> Path:
    """Simulate the benchmark of one data seed into its own directory, unless it is already there.

    Parameters
    ----------
    seed : int
        The simulation seed (replaces the ``seed`` of ``simulation.yml``).
    out_dir : path-like
        The sweep's directory; the data go to ``out_dir/data-seed-<seed>/data``.
    parameters : path-like, optional
        The simulation parameters (default ``data/simulation.yml``).

    Returns
    -------
    Path
        The data directory.
    """
    from compendium import simulate

    target = data_dir_of(seed, out_dir)
    if target.resolve() == runner.ROOT.joinpath("data").resolve():
        raise ValueError("a data-seed sweep never writes into data/")
    if not simulate.manifest_is_current(target, parameters, seed=seed):
        simulate.simulate(target, parameters=parameters, seed=seed)
    return target


def _submit(pool: Executor, function, args, kwargs) -> Future:
    """``pool.submit(function, ...)``; a chapter or a benchmark that is already current is decided here instead,
    with its future returned done (see :func:`compendium.build.runner.submit_execute`)."""
    if function is runner.execute:
        return runner.submit_execute(pool, *args, **kwargs)
    if function is simulate_seed:
        from compendium import simulate

        seed, out_dir, *rest = args
        target = data_dir_of(seed, out_dir)
        parameters = rest[0] if rest else kwargs.get("parameters")
        if (target.resolve() != runner.ROOT.joinpath("data").resolve()
                and simulate.manifest_is_current(target, parameters, seed=seed)):
            future: Future = Future()
            future.set_result(target)
            return future
    return pool.submit(function, *args, **kwargs)


def _run(pool: Executor, tasks: dict) -> tuple[dict, list[str]]:
    """Submit ``{key: (function, args, kwargs)}`` to ``pool``; results by key and failure messages."""
    futures = {_submit(pool, function, args, kwargs): key for key, (function, args, kwargs) in tasks.items()}
    results, failures = {}, []
    for future in as_completed(futures):
        key = futures[future]
        try:
            results[key] = future.result()
        except (runner.NotebookError, ValueError, OSError) as error:
            failures.append(f"data seed {key[0]}{f' {key[1]}' if len(key) > 1 else ''}: {error}")
    return results, failures


def data_sweep(
    seeds: Iterable[int],
    names: Iterable[str | os.PathLike] | None = None,
    out_dir: str | os.PathLike = DATA_SWEEP_DIR,
    parameters: Mapping | None = None,
    *,
    executor: Executor | None = None,
    incremental: bool = True,
    kind: str = CUSTOM,
) -> pd.DataFrame:
    """Simulate one benchmark per data seed and run the chapters on each.

    Parameters
    ----------
    seeds : iterable of int
        Data seeds.
    names : iterable of str, optional
        Chapters; by default every chapter that records claims
        (:func:`compendium.build.runner.claim_sources`).
    out_dir : path-like
        ``out_dir/data-seed-<N>/`` gets the benchmark (``data/``) and the
        executed chapters; ``out_dir/data_sweep_claims.csv`` one row per
        (data seed, claim) and ``out_dir/data_sweep.json`` what was run.
    parameters : mapping, optional
        Notebook parameters for every run (the analysis seed stays the
        chapters' default unless given here). ``data_dir`` is set per seed.
    executor : concurrent.futures.Executor, optional
        A process pool over the cores by default.
    incremental : bool
        Skip runs whose executed notebook is current.
    kind : str
        ``small`` (the default build's), ``full`` (``make sweep``) or
        ``custom``; recorded for the robustness appendix.

    Returns
    -------
    DataFrame
        The columns of :data:`compendium.analyses.ledger.robustness.SWEEP_COLUMNS`, with
        ``seed`` the data seed.

    Raises
    ------
    compendium.build.runner.NotebookError
        After every task has run, listing each data seed and chapter that failed.
    """
    seeds = list(dict.fromkeys(int(s) for s in seeds))
    if not seeds:
        raise ValueError("data sweep: no data seeds given")
    sources = [runner.resolve_notebook(n) for n in names] if names else runner.claim_sources()
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    parameters = {k: v for k, v in dict(parameters or {}).items() if k != "data_dir"}
    own = executor is None
    pool = executor or runner.process_pool()
    try:
        data, failures = _run(pool, {(seed,): (simulate_seed, (seed, out_dir), {}) for seed in seeds})
        if failures:
            raise runner.NotebookError("\n".join(sorted(failures)))
        tasks = {
            (seed, source.stem): (runner.execute, (source, out_dir / f"data-seed-{seed}",
                                                     {**parameters, "data_dir": str(data[(seed,)])}),
                                  {"incremental": incremental})
            for seed in seeds for source in sources
        }
        results, failures = _run(pool, tasks)
    finally:
        if own:
            pool.shutdown()
    for (seed, name), result in sorted(results.items()):
        print(f"data seed {seed} {name}: {'executed' if result.executed else 'up to date'}", flush=True)
    if failures:
        raise runner.NotebookError("\n".join(sorted(failures)))
    rows = []
    for seed in seeds:
        paths = sorted(results[(seed, s.stem)].path for s in sources)
        for row in claims.ledger(claims.collect(paths)):
            if row["status"] != claims.NOT_RUN:
                rows.append({"seed": seed, "id": row["id"], "section": row["section"], "what": row["what"],
                             "paper": row["paper"], "lo": row["lo"], "hi": row["hi"], "value": row["reproduced"],
                             "status": row["status"], "notebook": row["notebook"], "data": row["data"]})
    from compendium.analyses.ledger.robustness import SWEEP_COLUMNS

    frame = pd.DataFrame(rows, columns=list(SWEEP_COLUMNS))
    _write_atomic(out_dir / DATA_SWEEP_CLAIMS,
                  csv_frame(frame).to_csv(index=False, lineterminator="\n", float_format="%.10g"))
    info = {"kind": kind, "seeds": seeds, "chapters": [s.stem for s in sources]}
    _write_atomic(out_dir / DATA_SWEEP_INFO, json.dumps(info, indent=1) + "\n")
    return frame


def _write_atomic(path: Path, text: str) -> None:
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=f".{path.name}.", delete=False, encoding="utf-8",
                                     newline="") as handle:
        handle.write(text)
    os.chmod(handle.name, 0o644)  # NamedTemporaryFile makes it 0600; the sweep's outputs are for every reader
    os.replace(handle.name, path)


def read_info(out_dir: str | os.PathLike = DATA_SWEEP_DIR) -> dict | None:
    """What the data-seed sweep in ``out_dir`` ran (``kind``, ``seeds``, ``chapters``), or None."""
    path = Path(out_dir) / DATA_SWEEP_INFO
    if not path.exists() or not (Path(out_dir) / DATA_SWEEP_CLAIMS).exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def default_data_sweep(parameters: Mapping | None = None, out_dir: str | os.PathLike = DATA_SWEEP_DIR,
                       *, jobs: int | None = None, executor: Executor | None = None) -> pd.DataFrame | None:
    """The default build's small data-seed sweep, unless a sweep covering it is already there.

    Runs :data:`DEFAULT_DATA_SEEDS` of :data:`DEFAULT_CHAPTERS` when
    ``out_dir`` holds no sweep, or one that does not cover those seeds and
    chapters (a ``make sweep`` covers them and is kept). Incremental: with
    nothing changed, no benchmark is simulated and no chapter executed.
    Skipped (returning None) when the book is built from other data than
    the shipped simulation (a ``data_dir`` parameter). Runs on ``executor``
    when given (the build shares its chapters' pool), else on a pool of
    ``jobs`` workers.
    """
    if parameters and parameters.get("data_dir"):
        return None
    info = read_info(out_dir)
    if info and info.get("kind") != SMALL and set(DEFAULT_DATA_SEEDS) <= set(info.get("seeds", [])) and set(
            DEFAULT_CHAPTERS) <= set(info.get("chapters", [])):
        return None
    if executor is not None:  # shared with the build's chapters (pipeline.build_book)
        return data_sweep(DEFAULT_DATA_SEEDS, DEFAULT_CHAPTERS, out_dir, parameters, executor=executor, kind=SMALL)
    jobs = jobs or min(os.cpu_count() or 1, len(DEFAULT_DATA_SEEDS))
    with runner.process_pool(jobs) as pool:
        return data_sweep(DEFAULT_DATA_SEEDS, DEFAULT_CHAPTERS, out_dir, parameters, executor=pool, kind=SMALL)


def read_data_sweep(out_dir: str | os.PathLike = DATA_SWEEP_DIR) -> pd.DataFrame | None:
    """The table of the data-seed sweep in ``out_dir``, or None when none ran."""
    from compendium.analyses.ledger.robustness import read_sweep

    path = Path(out_dir) / DATA_SWEEP_CLAIMS
    return read_sweep(path) if path.exists() else None


def data_seed_shares(out_dir: str | os.PathLike = DATA_SWEEP_DIR) -> dict[str, float]:
    """Per claim the data-seed sweep computed: the share of data seeds on which it landed in its band."""
    from compendium.analyses.ledger.robustness import spread

    frame = read_data_sweep(out_dir)
    if frame is None or frame.empty:
        return {}
    table = spread(frame)
    return dict(zip(table["id"], table["in_band"].astype(float)))


def summary_key(out_dir: str | os.PathLike = DATA_SWEEP_DIR) -> bytes:
    """What a page that shows the data-seed sweep depends on (its table and what was run)."""
    out_dir = Path(out_dir)
    return b"".join((out_dir / f).read_bytes() if (out_dir / f).exists() else b"-" for f in (DATA_SWEEP_CLAIMS,
                                                                                         DATA_SWEEP_INFO))


# --- analysis-seed sweeps ---------------------------------------------------------------


def parse_seeds(text: str) -> list[int]:
    """Seeds from ``"0-9"``, ``"1,3,5"`` or ``"0-4,10"`` (ranges inclusive), in order, without repeats.

    Examples
    --------
    >>> parse_seeds("0-2,7,1")
    [0, 1, 2, 7]

    Raises
    ------
    ValueError
        Naming the part that is not a seed or a range.
    """
    import re

    seeds: list[int] = []
    for part in (p.strip() for p in str(text).split(",")):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if match is None or (match[2] is not None and int(match[2]) < int(match[1])):
            raise ValueError(f"--seeds: {part!r} is not a seed or a range like 0-9 (in {text!r}); "
                             "seeds are non-negative integers")
        low = int(match[1])
        seeds.extend(range(low, int(match[2] or low) + 1))
    return list(dict.fromkeys(seeds))


def analysis_sweep(
    seeds: Iterable[int],
    names: Iterable[str | os.PathLike] | None = None,
    out_dir: str | os.PathLike = SWEEP_DIR,
    parameters: Mapping | None = None,
    *,
    executor: Executor | None = None,
    incremental: bool = True,
) -> "pd.DataFrame":
    """Execute chapters once per seed and gather every claim each run recorded.

    Each (seed, chapter) pair is one task, ``execute(chapter,
    out_dir/seed-<seed>, {**parameters, "seed": seed})``, submitted to
    ``executor``: by default a process pool over the available cores; a
    ``dask.distributed.Client(...).get_executor()`` spreads the tasks over a
    cluster (its workers must see this repository and the data at the same
    paths). Runs whose executed notebook is current are not repeated.
    Without ``names``, every chapter that records claims runs
    (:func:`claim_sources`).

    Returns
    -------
    DataFrame
        One row per (seed, claim): ``seed, id, section, what, paper, lo, hi,
        value, status, notebook, data``; also written to ``out_dir/sweep_claims.csv``.

    Raises
    ------
    NotebookError
        After every task has run, listing each (seed, chapter) that failed.
    """
    import pandas as pd

    seeds = list(seeds)
    if not seeds:
        raise ValueError("sweep: no seeds given")
    sources = [runner.resolve_notebook(n) for n in names] if names else runner.claim_sources()
    out_dir = Path(out_dir).resolve()
    parameters = dict(parameters or {})
    own = executor is None
    pool = executor or runner.process_pool()
    failures: list[str] = []
    paths: dict[int, list[Path]] = {seed: [] for seed in seeds}
    try:
        futures = {
            runner.submit_execute(pool, source, out_dir / f"seed-{seed}", {**parameters, "seed": seed},
                                  incremental=incremental): (seed, source.stem)
            for seed in seeds
            for source in sources
        }
        for future in as_completed(futures):
            seed, name = futures[future]
            try:
                result = future.result()
            except runner.NotebookError as error:
                failures.append(f"seed {seed}: {error}")
                continue
            paths[seed].append(result.path)
            print(f"seed {seed} {name}: {'executed' if result.executed else 'up to date'}", flush=True)
    finally:
        if own:
            pool.shutdown()
    if failures:
        raise runner.NotebookError("\n".join(sorted(failures)))
    rows = []
    for seed in seeds:
        for row in claims.ledger(claims.collect(sorted(paths[seed]))):
            if row["status"] != "not-run":
                rows.append({"seed": seed, "id": row["id"], "section": row["section"], "what": row["what"],
                             "paper": row["paper"], "lo": row["lo"], "hi": row["hi"], "value": row["reproduced"],
                             "status": row["status"], "notebook": row["notebook"], "data": row["data"]})
    frame = pd.DataFrame(rows, columns=["seed", "id", "section", "what", "paper", "lo", "hi", "value", "status",
                                        "notebook", "data"])
    target = out_dir / SWEEP_CLAIMS
    with tempfile.NamedTemporaryFile("w", dir=out_dir, prefix=".sweep.", suffix=".csv", delete=False,
                                     encoding="utf-8", newline="") as handle:
        csv_frame(frame).to_csv(handle, index=False, lineterminator="\n", float_format="%.10g")
    os.chmod(handle.name, 0o644)  # as _write_atomic: readable by every user, not 0600
    os.replace(handle.name, target)
    return frame


def default_analysis_sweep(parameters: Mapping | None = None, out_dir: str | os.PathLike = SWEEP_DIR,
                           *, executor: Executor | None = None) -> pd.DataFrame | None:
    """The default build's small analysis-seed sweep, unless another analysis-seed sweep is already there.

    Runs :data:`DEFAULT_ANALYSIS_SEEDS` of :data:`DEFAULT_ANALYSIS_CHAPTERS` (so that the robustness
    appendix has an analysis-seed section in every build) and records ``{"kind": "small", ...}`` in
    ``out_dir/sweep.json``. A sweep from ``compendium sweep --seeds`` (``make sweep``; no
    ``sweep.json``, or another kind) is kept, never overwritten. Incremental like every run: with
    nothing changed, no chapter executes. Skipped (None) when the book reads other data than the
    shipped simulation. Runs on ``executor`` when given (the build's pool).
    """
    out_dir = Path(out_dir)
    if parameters and parameters.get("data_dir"):
        return None
    info_path = out_dir / SWEEP_INFO
    info = json.loads(info_path.read_text(encoding="utf-8")) if info_path.exists() else None
    if (out_dir / SWEEP_CLAIMS).exists() and (info is None or info.get("kind") != SMALL):
        return None
    out_dir.mkdir(parents=True, exist_ok=True)
    frame = analysis_sweep(DEFAULT_ANALYSIS_SEEDS, DEFAULT_ANALYSIS_CHAPTERS, out_dir, parameters, executor=executor)
    _write_atomic(info_path, json.dumps({"kind": SMALL, "seeds": list(DEFAULT_ANALYSIS_SEEDS),
                                         "chapters": list(DEFAULT_ANALYSIS_CHAPTERS)}, indent=1) + "\n")
    return frame


def read_analysis_info(out_dir: str | os.PathLike = SWEEP_DIR) -> dict | None:
    """What the analysis-seed sweep in ``out_dir`` ran (``sweep.json``), or None for a hand-run sweep."""
    path = Path(out_dir) / SWEEP_INFO
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
