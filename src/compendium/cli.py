"""The ``compendium`` command line: simulate the data, run chapters, build the book.

Examples
--------
Regenerate the simulated data only when it is missing or stale::

    compendium simulate --if-needed

Re-run chapter 1 with another seed without touching the book::

    compendium run 01_design --seed 7 --out /tmp/rerun

Point a chapter at another data directory (the real release, say)::

    compendium run 01_design --data-dir /path/to/release --out /tmp/real

Execute every chapter over seeds 0-9 (into _build/sweep) for the robustness
chapter, then rebuild the book to show it::

    compendium sweep --seeds 0-9 && compendium build

Spread a sweep over a running dask.distributed scheduler::

    compendium sweep --seeds 0-99 --scheduler tcp://scheduler:8786

Draw the simulated benchmark again for data seeds 0-9 (each into its own
directory under _build/data-sweep, never over data/) and run the chapters on
each::

    compendium sweep --data-seeds 0-9
    compendium sweep --data-seeds 0-1 01_design --out /tmp/data-sweep

Build the whole book::

    compendium build
"""

from __future__ import annotations

import argparse
import errno
import sys
from pathlib import Path

import yaml

from compendium.data.paths import install_hint
from compendium.stats import _workers


def _parameters(args: argparse.Namespace) -> dict:
    parameters: dict = {}
    for name, value in args.parameter or []:
        parameters[name] = yaml.safe_load(value)
    if args.seed is not None:
        parameters["seed"] = args.seed
    if args.data_dir is not None:
        parameters["data_dir"] = str(Path(args.data_dir).resolve())
    return parameters


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, help="the analysis seed (bootstraps, cross-validation)")
    parser.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        metavar=("NAME", "VALUE"),
        help="set a notebook parameter; VALUE is read as YAML (2000, [A1, A2], true)",
    )
    parser.add_argument("--data-dir", help="read the benchmark from this directory instead of data/")


def _simulate(args: argparse.Namespace) -> int:
    from compendium import simulate
    from compendium.data.benchmark import resolve_data_dir

    out = Path(args.out) if args.out else resolve_data_dir(None)
    parameters = Path(args.parameters) if args.parameters else out / "simulation.yml"
    if not parameters.exists():
        parameters = resolve_data_dir(None) / "simulation.yml"
    if args.if_needed and args.seed is None and simulate.manifest_is_current(out, parameters):
        print(f"{out}: simulated data is current (MANIFEST verified)")
        return 0
    path = simulate.simulate(out, parameters=parameters, seed=args.seed)
    print(f"simulated benchmark written to {path} (see {path / 'MANIFEST'})")
    return 0


def _checked(args: argparse.Namespace, chapters: list[str], command: str) -> dict | None:
    """The run's parameters, checked against the chapters' declarations (:mod:`compendium.build.parameters`);
    None, after saying why on stderr, when one is refused. Warnings go to stderr too."""
    from compendium.build import parameters

    try:
        checked, warnings = parameters.check(chapters, _parameters(args))
    except parameters.ParameterError as error:
        print(f"compendium {command}: {error}; nothing was run or written", file=sys.stderr)
        return None
    for warning in warnings:
        print(f"compendium {command}: warning: {warning}", file=sys.stderr)
    return checked


def _rerun_folder() -> Path:
    """A new folder under _build/reruns/ for a run with other settings than the book's."""
    import time

    from compendium.build import runner

    base = runner.BUILD_DIR / "reruns"
    base.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1000):
        folder = base / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
    raise RuntimeError(f"no free rerun folder under {base}")


def _has_distributed(command: str) -> bool:
    """Whether dask.distributed is here for ``--scheduler``; if not, say which extra brings it."""
    from importlib.util import find_spec

    if find_spec("distributed") is None:
        print(f"compendium {command}: --scheduler needs dask.distributed: {install_hint('cluster')}", file=sys.stderr)
        return False
    return True


def _with_progress(work):
    """Run ``work()`` with the kernels' bootstrap progress printed on stderr (:mod:`compendium.stats.progress`)."""
    import os
    import tempfile
    import threading

    from compendium.stats import progress

    with tempfile.TemporaryDirectory(prefix="compendium-progress-") as folder:
        path = Path(folder) / "progress.jsonl"
        previous = os.environ.get(progress.ENV)
        os.environ[progress.ENV] = str(path)  # the kernels inherit this process's environment
        stop = threading.Event()
        thread = progress.follow(path, stop)
        try:
            return work()
        finally:
            stop.set()
            thread.join()
            if previous is None:
                os.environ.pop(progress.ENV, None)
            else:
                os.environ[progress.ENV] = previous


def _run(args: argparse.Namespace) -> int:
    from compendium.build import parameters, pipeline, runner

    names = [runner.resolve_notebook(n).stem for n in args.notebooks] if args.notebooks else \
        [s.stem for s in runner.analysis_sources()]
    if args.help:
        print(args.run_parser.format_help())
        print("\n\n".join(parameters.describe(name) for name in names))
        return 0
    checked = _checked(args, names, "run")
    if checked is None:
        return 2
    if args.out:
        out, claims_file = Path(args.out), Path(args.out) / "claims.json"
    elif parameters.is_books_own(names, checked):  # the book's own settings: re-run into the book
        out, claims_file = runner.BOOK_DIR, runner.CLAIMS_FILE
    else:  # other settings never overwrite the book: a new folder, compared with the book below
        out = _rerun_folder()
        claims_file = out / "claims.json"
        print(f"these settings are not the book's: the run goes to {out} (the book is not touched)")
    results = _with_progress(lambda: runner.run(names, out, checked, claims_file=claims_file))
    for result in results:
        print(f"executed {result.notebook} -> {result.path}")
    pipeline.report_repairs("run")
    print(f"claims recorded in {claims_file}")
    if out.resolve() != runner.BOOK_DIR.resolve() and runner.CLAIMS_FILE.exists():
        from compendium.analyses.ledger import claims
        from compendium.build import rerun

        comparison = rerun.compare_run(claims.read_ledger(runner.CLAIMS_FILE), claims.read_ledger(claims_file),
                                       runner.TABLES_DIR, pipeline.collect_tables(r.path for r in results),
                                       rtol=args.rtol,
                                       notebooks={r.notebook: (runner.BOOK_DIR / r.path.name, r.path) for r in results})
        print("\n".join(comparison.lines()))
        written = comparison.write(out)
        print("written: " + ", ".join(str(p) for p in written.values()))
    return 0


def _build(args: argparse.Namespace) -> int:
    from compendium.build import pipeline, runner

    checked = _checked(args, [s.stem for s in runner.chapter_sources()], "build")
    if checked is None:
        return 2
    index = pipeline.build_book(checked, html=not args.no_html)
    print(f"book: {index}")
    return 0


def _sweep(args: argparse.Namespace) -> int:
    from compendium.build import runner, sweep

    try:
        seeds = sweep.parse_seeds(args.seeds if args.seeds is not None else args.data_seeds)
    except ValueError as error:
        message = str(error) if args.seeds is not None else str(error).replace("--seeds:", "--data-seeds:")
        print(f"compendium sweep: {message}", file=sys.stderr)
        return 2
    if args.data_seeds is not None and args.data_dir is not None:
        print("compendium sweep: --data-seeds simulates its own data for each seed; it takes no --data-dir",
              file=sys.stderr)
        return 2
    chapters = [runner.resolve_notebook(n).stem for n in args.notebooks] if args.notebooks else \
        [s.stem for s in runner.claim_sources()]
    if _checked(args, chapters, "sweep") is None:
        return 2
    executor, client = None, None
    if args.scheduler:
        if not _has_distributed("sweep"):
            return 1
        client, executor = _workers.dask_executor(args.scheduler)
    elif args.jobs:
        executor = runner.process_pool(args.jobs)
    if args.data_seeds is not None:
        from compendium.build import sweep

        out = Path(args.out) if args.out else sweep.DATA_SWEEP_DIR
        kind = sweep.CUSTOM if args.notebooks else sweep.FULL
        run, default_out, table, unit = (
            lambda: sweep.data_sweep(seeds, args.notebooks or None, out, _parameters(args), executor=executor,
                                     kind=kind), sweep.DATA_SWEEP_DIR, sweep.DATA_SWEEP_CLAIMS, "data seeds")
    else:
        out = Path(args.out) if args.out else sweep.SWEEP_DIR
        run, default_out, table, unit = (
            lambda: sweep.analysis_sweep(seeds, args.notebooks or None, out, _parameters(args), executor=executor),
            sweep.SWEEP_DIR, sweep.SWEEP_CLAIMS, "seeds")
    try:
        frame = run()
    finally:
        if client is not None:
            client.close()
        elif executor is not None:
            executor.shutdown()
    from compendium.build import pipeline

    pipeline.report_repairs("sweep")
    print(f"{frame['id'].nunique()} claims over {len(seeds)} {unit if len(seeds) != 1 else unit[:-1]} written to "
          f"{out / table}")
    if out.resolve() == default_out.resolve():
        print("run `compendium build` (or `make book`) to show them in the chapter 'Robustness across seeds'")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from compendium.build import bench

    bench.run_benchmarks(sections=[part.strip() for part in args.sections.split(",")])
    return 0


def _audit_can_run(args: argparse.Namespace) -> bool:
    """What the chosen outputs need, before anything is read: a kernel for the HTML report, statsmodels for
    --lengths, dask.distributed for --scheduler. Says what to install when one is missing."""
    from importlib.util import find_spec

    if args.scheduler and not _has_distributed("audit"):
        return False
    if args.lengths and find_spec("statsmodels") is None:
        print("compendium audit: --lengths fits a mixed model of rating on length with statsmodels, which the "
              f"light install leaves out: {install_hint('lengths')}.", file=sys.stderr)
        return False
    if args.notebook:
        if args.format == "json":
            print("compendium audit: --notebook executes the report's notebook, which --format json does not "
                  "write", file=sys.stderr)
            return False
        absent = [name for name in ("papermill", "nbformat", "ipykernel") if find_spec(name) is None]
        if absent:
            print(f"compendium audit: --notebook runs the report's notebook in a Jupyter kernel, which needs "
                  f"{', '.join(absent)}: install the book's stack ({install_hint('book')}), or leave out "
                  "--notebook: the report is then written here, without a kernel.", file=sys.stderr)
            return False
    return True


#: The rated audit's column convention (the pairwise and label audits': compendium.data.pairwise's).
RATED_COLUMNS = {"item": "item", "system": "system", "rater": "rater", "rating": "rating"}


def _columns(path: Path, defaults: dict, given: dict, recognised: tuple | None = None) -> dict:
    """Each role's column: the one given, else the default, else the common name the table uses for it
    (:func:`compendium.data.names.recognise`), said on stderr; two candidates are refused (a DataError)."""
    from compendium.data import judgements, names

    recognised = tuple(defaults) if recognised is None else recognised
    try:
        present = judgements.table_columns(path)
    except Exception:  # noqa: BLE001 - an unreadable file is the reader's to report, with its own message
        present = []
    wanted = {role: defaults[role] for role in recognised}
    roles, found = names.recognise(present, wanted, {r: given.get(r) for r in recognised}, source=str(path))
    for role, column in found.items():
        print(f"compendium audit: reading {column!r} as the {role.replace('_', ' ')} column (the default is "
              f"{defaults[role]!r}; --{role.replace('_', '-')} names it)", file=sys.stderr)
    return {role: roles.get(role) or given.get(role) or default for role, default in defaults.items()}


def _audit(args: argparse.Namespace) -> int:
    """``compendium audit``: check the paths and the table, then audit it here (:func:`_audit_here`) or run the
    report's notebook on it (``--notebook``, :func:`_audit_in_kernel`); every output is staged and moved into
    place only when all are written (:mod:`compendium.audit.outputs`)."""
    from compendium.audit import core as audit
    from compendium.audit import outputs

    given = [name for name, value in (("a ratings file", args.ratings), ("--pairwise", args.pairwise),
                                      ("--labels", args.labels)) if value]
    if len(given) != 1:
        print("compendium audit: give one table: a ratings file, --pairwise FILE or --labels FILE"
              + (f" (given: {', '.join(given)})" if given else ""), file=sys.stderr)
        return 2
    if args.pairwise or args.labels:
        return _audit_categorical(args)
    if args.codes or args.pair:
        print("compendium audit: --codes and --pair apply to --pairwise, not to a ratings file", file=sys.stderr)
        return 2
    if args.tool and (args.wide or args.wide_pattern or args.rater or args.missing or args.notebook):
        print(f"compendium audit: --from {args.tool} reads the export's own layout: --wide, --wide-pattern, "
              "--rater, --missing and --notebook do not apply (--item, --system and --rating name its fields)",
              file=sys.stderr)
        return 2
    if not _audit_can_run(args):
        return 1
    ratings = Path(args.ratings).resolve()
    lengths = Path(args.lengths).resolve() if args.lengths else None
    # Paths first: an output that is an input, or a file where a folder goes, is refused before anything is read.
    try:
        plan = outputs.plan_outputs(args.out, args.json, {"the ratings file": ratings, "--lengths": lengths})
    except outputs.OutputError as error:
        print(f"compendium audit: {error}", file=sys.stderr)
        return 2
    # Bad input fails here, with the DataError's message, before anything is computed or a kernel starts.
    missing = args.missing if args.missing else None
    wide = {"raters": [name.strip() for name in args.wide.split(",") if name.strip()] if args.wide else None,
            "rater_pattern": args.wide_pattern}
    study, columns = _read_rated(args, ratings, missing, wide)  # read and checked once
    design, judgements = study.design, study.judgements
    if not design.complete:
        print(f"compendium audit: warning: {design.describe()} Alpha, the REML variance components, G, the "
              "decision study, the REML system test and leave-one-rater-out are reported, G with its interval; the "
              "classical ANOVA F tests and the ICC need the complete design and are null in audit.json, "
              "each with its reason.", file=sys.stderr)
    lengths_table = None
    if lengths is not None:
        lengths_table = audit.read_lengths(lengths, item=columns["item"], system=columns["system"],
                                           length=args.length, judgements=judgements, rating=columns["rating"])
    inputs = {"ratings": ratings, "lengths": lengths, "columns": columns, "missing": missing, "wide": wide}
    with outputs.Staging(plan) as staging:
        if args.notebook:
            study = judgements = lengths_table = None  # the kernel reads the file again: drop the parsed tables
            summary, notebook = _audit_in_kernel(args, staging, inputs), plan.out / f"{audit.NOTEBOOK}.ipynb"
        else:  # computed and written here, from the one study read above
            summary, notebook = _audit_here(args, staging, study, lengths_table, inputs), None
        staging.commit()
    _print_written(audit.summary_lines(summary), report=plan.out / "audit.html" if args.format == "html" else None,
                   summary=plan.summary_json, checklist=plan.out / "checklist.csv", notebook=notebook)
    return 0


def _read_rated(args: argparse.Namespace, ratings: Path, missing, wide: dict):
    """The rated study, read and checked once, and the column of each role: from a table (one convention in
    every mode; a table without a default column is read by the common name it has) or from an annotation
    tool's export (``--from``, :mod:`compendium.data.exports`)."""
    from compendium.audit import core as audit

    if args.tool:
        from compendium.audit.study import Study
        from compendium.data import exports

        frame, found = exports.read_export(ratings, args.tool, item=args.item, system=args.system, answer=args.rating)
        _say_found(found)
        return (Study.from_frame(exports.judgements(frame), **RATED_COLUMNS, source=str(ratings), checked=True),
                dict(RATED_COLUMNS))
    wide_mode = bool(args.wide or args.wide_pattern)
    columns = _columns(ratings, RATED_COLUMNS, {"item": args.item, "system": args.system, "rater": args.rater,
                                                "rating": args.rating},
                       recognised=("item", "system") if wide_mode else tuple(RATED_COLUMNS))
    return audit.read_study(ratings, **columns, missing=missing, **wide), columns


def _say_found(found: dict) -> None:
    """What an export was read as, on stderr: one line per role."""
    for role, what in found.items():
        if role == "left out":
            print(f"compendium audit: left out: {what}", file=sys.stderr)
        else:
            print(f"compendium audit: reading {what} as the {role}", file=sys.stderr)


def _audit_here(args: argparse.Namespace, staging, study, lengths_table, inputs: dict) -> dict:
    """The rated audit computed in this process; its page (unless --format json) rendered from the same result,
    and refused unless inert, before anything is written into ``staging``. Returns the summary."""
    from compendium.audit import core as audit
    from compendium.audit import page
    from compendium.data._files import write_text_atomic

    # long steps (bootstraps, the REML Hessian, leave-one-rater-out) print their progress on stderr
    result = _with_progress(lambda: audit.run_audit(
        study, lengths_table, seed=args.seed, n_boot=args.n_boot, n_boot_g=args.n_boot_g,
        g_interval=args.g_interval, length=args.length, higher_is_better=not args.lower_is_better,
        level=args.level, scheduler=args.scheduler, coverage=args.coverage))
    text = None
    if args.format == "html":
        wide = inputs["wide"]
        text = page.render(page.Report.from_file(
            result, inputs["ratings"], inputs["lengths"], seed=args.seed, n_boot=args.n_boot,
            g_interval=args.g_interval, n_boot_g=args.n_boot_g if args.g_interval == "bootstrap" else None,
            higher_is_better=not args.lower_is_better, level=args.level, missing=inputs["missing"],
            wide_raters=wide["raters"], wide_pattern=wide["rater_pattern"], **inputs["columns"]))
    audit.write_json(result.summary, staging.json)
    audit.write_checklist(result.summary, staging.path / "checklist.csv")
    if text is not None:
        write_text_atomic(staging.path / "audit.html", text)
    return result.summary


def _audit_in_kernel(args: argparse.Namespace, staging, inputs: dict) -> dict:
    """``--notebook``: the report's notebook executed with papermill on the file in one kernel, rendered as the
    page; the summary read back from the JSON the kernel wrote. Returns the summary."""
    import json
    from importlib import resources

    from compendium.audit import core as audit
    from compendium.build import runner

    missing, wide = inputs["missing"], inputs["wide"]
    parameters = {
        "seed": args.seed,
        "ratings_path": str(inputs["ratings"]),
        "lengths_path": str(inputs["lengths"]) if inputs["lengths"] is not None else None,
        **inputs["columns"],
        "length": args.length,
        "n_boot": args.n_boot,
        "n_boot_g": args.n_boot_g,
        "g_interval": args.g_interval,
        "higher_is_better": not args.lower_is_better,
        "level": args.level,
        "wide_raters": wide["raters"],
        "wide_pattern": wide["rater_pattern"],
        # relative to the kernel's working folder: the staging folder now, the report folder for a rerun
        "summary_json": staging.json.name,
        "missing": list(missing) if missing else None,
        "scheduler": args.scheduler,
        "coverage": args.coverage,
    }
    with resources.as_file(audit.TEMPLATE) as template:
        result = _with_progress(lambda: runner.execute(template, staging.path, parameters,
                                                       fork_kernel=False))  # one kernel: nothing to share
    audit.render_html(result.path, staging.path / "audit.html")
    summary = json.loads(staging.json.read_text(encoding="utf-8"))
    audit.write_checklist(summary, staging.path / "checklist.csv")
    return summary


def _print_written(lines, *, summary, checklist, report=None, notebook=None) -> None:
    """The audit's terminal summary, then where each output was written."""
    for line in lines:
        print(line)
    if report is not None:
        print(f"report:   {report}")
    print(f"summary:  {summary} (JSON, with the checklist)")
    print(f"checklist: {checklist}")
    if notebook is not None:
        print(f"notebook: {notebook}")


def _audit_categorical(args: argparse.Namespace) -> int:
    """``compendium audit --pairwise FILE`` or ``--labels FILE``: read and check the table, compute here (no
    kernel), and write audit.html, audit.json and checklist.csv, all or none (:mod:`compendium.audit.categorical`)."""
    from compendium.audit import categorical
    from compendium.audit import outputs
    from compendium.data import pairwise

    pairwise_mode = bool(args.pairwise)
    option = "--pairwise" if pairwise_mode else "--labels"
    unused = [name for name, used in (("--lengths", args.lengths), ("--lower-is-better", args.lower_is_better),
                                      ("--missing", args.missing), ("--wide-pattern", args.wide_pattern),
                                      ("--coverage", args.coverage)) if used]
    if unused:
        print(f"compendium audit: {', '.join(unused)} applies to a ratings file, not to {option}", file=sys.stderr)
        return 2
    if args.notebook:
        print(f"compendium audit: --notebook applies to a ratings file; {option} writes its report here",
              file=sys.stderr)
        return 2
    if not pairwise_mode and (args.codes or args.pair):
        print("compendium audit: --codes and --pair apply to --pairwise, not to --labels", file=sys.stderr)
        return 2
    if args.tool and (pairwise_mode or args.wide or args.rater):
        print(f"compendium audit: --from {args.tool} reads ratings (a file) or labels (--labels FILE), in the "
              "export's own layout" + (", not --pairwise" if pairwise_mode else ": --wide and --rater do not apply"),
              file=sys.stderr)
        return 2
    path = Path(args.pairwise or args.labels).resolve()
    try:
        plan = outputs.plan_outputs(args.out, args.json, {option: path})
    except outputs.OutputError as error:
        print(f"compendium audit: {error}", file=sys.stderr)
        return 2
    wide = [name.strip() for name in args.wide.split(",") if name.strip()] if args.wide else None
    if pairwise_mode:
        derived = (("rater", "winner") if wide else ()) + (("system_a", "system_b") if args.pair else ())
        roles = _columns(path, pairwise.PAIRWISE, {"item": args.item, "system_a": args.system_a,
                                                   "system_b": args.system_b, "rater": args.rater,
                                                   "winner": args.winner},
                         recognised=tuple(r for r in pairwise.PAIRWISE if r not in derived))
        # a DataError names the file, column, lines (or records) and values
        frame = pairwise.read_pairwise(path, **roles, wide=wide, codes=args.codes, pair=args.pair,
                                       pair_sep=args.pair_sep)
        summary, tables = categorical.audit_pairwise(frame, roles, seed=args.seed, n_boot=args.n_boot, source=str(path))
    elif args.tool:
        from compendium.data import exports

        frame, found = exports.read_export(path, args.tool, labels=True, item=args.item, answer=args.label)
        _say_found(found)
        roles = dict(pairwise.LABELS)
        frame = pairwise.validate_labels(frame, roles)
        summary, tables = categorical.audit_labels(frame, roles, seed=args.seed, n_boot=args.n_boot, source=str(path))
    else:
        roles = _columns(path, pairwise.LABELS, {"item": args.item, "rater": args.rater, "label": args.label},
                         recognised=("item",) if wide else None)
        from compendium.data.judgements import table_columns

        row_items = bool(wide) and not args.item and roles["item"] not in table_columns(path)
        if row_items:
            print(f"compendium audit: no item column {roles['item']!r}: each row of the wide table is an item, "
                  "numbered from 0 and zero-padded (--item names a column)", file=sys.stderr)
        frame = pairwise.read_labels(path, **roles, wide=wide, row_items=row_items)
        summary, tables = categorical.audit_labels(frame, roles, seed=args.seed, n_boot=args.n_boot, source=str(path))
    with outputs.Staging(plan) as staging:
        staging.commit(categorical.write_report(summary, tables, staging.path, staging.json,
                                                page=args.format == "html"))
    for line in categorical.summary_lines(summary):
        print(line)
    if args.format == "html":
        print(f"report:   {plan.out / 'audit.html'}")
    print(f"summary:  {plan.summary_json} (JSON, with the checklist)")
    print(f"checklist: {plan.out / 'checklist.csv'}")
    return 0


def _replicates(text: str) -> int:
    """A number of bootstrap replicates: a whole number, at least 1 (argparse names the option on failure)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of replicates must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"a number of replicates must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="compendium", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    simulate = commands.add_parser("simulate", help="write the simulated benchmark and its MANIFEST")
    simulate.add_argument("--out", help="data directory to write (default: the repository's data/)")
    simulate.add_argument("--seed", type=int, help="simulation seed (default: the one in simulation.yml)")
    simulate.add_argument("--parameters", help="parameter file (default: data/simulation.yml)")
    simulate.add_argument(
        "--if-needed", action="store_true", help="do nothing when the MANIFEST already matches the files"
    )
    simulate.set_defaults(handler=_simulate)

    run = commands.add_parser(
        "run", add_help=False, help="execute chapters with papermill (default: all)",
        description="Execute chapters. With the book's own settings they run into book/; with any other seed or "
                    "parameter into a new folder under _build/reruns/ (or --out), and the run reports every claim, "
                    "table cell and computed sentence that moved against the book.")
    run.add_argument("-h", "--help", action="store_true",
                     help="show this help and the named chapters' parameters (all chapters' without names)")
    run.add_argument("notebooks", nargs="*", help="chapter names, e.g. 01_design (default: every chapter)")
    run.add_argument("--out", help="directory for the executed notebooks and claims.json (default: book/ with the "
                                   "book's settings, else a new folder under _build/reruns/)")
    run.add_argument("--rtol", type=float, default=1e-6,
                     help="relative change of a table value that counts as moved (default: 1e-6)")
    _add_run_options(run)
    run.set_defaults(handler=_run, run_parser=run)

    build = commands.add_parser("build", help="execute every chapter and build the HTML book")
    _add_run_options(build)
    build.add_argument("--no-html", action="store_true", help="execute and write the ledger, skip jupyter-book")
    build.set_defaults(handler=_build)

    sweep = commands.add_parser("sweep", help="execute chapters over many analysis or data seeds (for 'Robustness "
                                              "across seeds')")
    sweep.add_argument("notebooks", nargs="*", help="chapter names (default: every chapter that records claims of the "
                                                    "paper)")
    which = sweep.add_mutually_exclusive_group(required=True)
    which.add_argument("--seeds", help="analysis seeds: 0-9, 1,3,5 or 0-4,10 (the data stay fixed)")
    which.add_argument("--data-seeds", help="data seeds: simulate a fresh benchmark per seed (same forms as --seeds)")
    sweep.add_argument("--out", help="directory for the runs and the sweep table "
                                     "(default: _build/sweep, or _build/data-sweep with --data-seeds)")
    sweep.add_argument("--jobs", type=int, help="local worker processes (default: one per core)")
    sweep.add_argument("--scheduler", help="address of a dask.distributed scheduler to run the tasks on")
    sweep.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                       help="set a notebook parameter for every run; VALUE is read as YAML")
    sweep.add_argument("--data-dir", help="read the benchmark from this directory instead of data/ (not with "
                                          "--data-seeds)")
    sweep.set_defaults(handler=_sweep, seed=None)

    bench = commands.add_parser("bench", help="time the builds, the heavy kernels and the audit (_build/bench.json)")
    bench.add_argument("--sections", default="kernels,build,test,audit,scale,encoders,coverage",
                       help="comma-separated: kernels, build, test (make test), audit, scale (the audit at leaderboard "
                            "scale, with lme4 beside it where R has it), encoders (embedding NTREX with each real "
                            "encoder), coverage (how often each kind of interval behind a verdict covers; rewrites "
                            "the record the ledger reads); default: all seven")
    bench.set_defaults(handler=_bench)
    _add_audit_parser(commands)
    return parser


#: The examples ``compendium audit --help`` ends with, and where the full manual is.
AUDIT_EXAMPLES = """examples:
  compendium audit ratings.csv --item segment --system model --rater judge --rating score
  compendium audit ratings.csv --lengths lengths.csv --out my-audit     # with the length analyses
  compendium audit wide.csv --wide judge_1,judge_2,judge_3              # one column per rater
  compendium audit --pairwise prefs.csv                                 # which of two outputs won
  compendium audit --labels labels.csv                                  # one category per item and rater
  compendium audit export.json --from label-studio --rating quality    # a Label Studio JSON export
  compendium audit batch_results.csv --from mturk                       # a Mechanical Turk batch results CSV
  compendium audit ratings.csv --format json                            # audit.json and checklist.csv only
  compendium audit ratings.csv --notebook                               # the report run as a notebook ([book])
  compendium audit ratings.csv --coverage 200                           # how often its intervals cover

The manual (inputs, outputs, what each statistic means, the light install) is the book's page
"The audit's manual" (book/audit_manual.md in the repository)."""


def _add_audit_parser(commands) -> None:
    """``compendium audit``'s options: the table and its columns, the outputs, the statistics' settings."""
    audit = commands.add_parser(
        "audit", help="audit your own item x system x rater rating study (HTML report, JSON summary, checklist)",
        description="Put a human evaluation (items x systems x raters, crossed or not; or pairwise preferences, "
                    "or categorical labels) through the analyses of the paper's sections 4 and 5, and check the "
                    "paper's six recommendations for it. Writes audit.html, audit.json and checklist.csv to --out; "
                    "a table with a problem is refused with a message naming the file, the column and the rows, "
                    "and nothing is written.",
        epilog=AUDIT_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    audit.add_argument("ratings", nargs="?",
                       help="CSV (.csv, .tsv), JSON Lines (.jsonl), JSON list of records (.json) or Parquet "
                            "(.parquet) table, one row per rating (item, system, rater, rating; common other names "
                            "are recognised), or a wide table with --wide; or give --pairwise or --labels instead")
    audit.add_argument("--pairwise", metavar="FILE",
                       help="audit a pairwise preference table instead: one judgement per row (item, system_a, "
                            "system_b, rater, winner; winner a, b or tie; a tie counts half a win to each)")
    audit.add_argument("--labels", metavar="FILE",
                       help="audit a categorical labelling table instead: one label per row (item, rater, label)")
    audit.add_argument("--system-a", help="with --pairwise: first system column (default: system_a)")
    audit.add_argument("--system-b", help="with --pairwise: second system column (default: system_b)")
    audit.add_argument("--winner", help="with --pairwise: winner column, a, b or tie (default: winner)")
    audit.add_argument("--label", help="with --labels: label column (default: label)")
    audit.add_argument("--codes", metavar="VALUE=CODE,...",
                       help="with --pairwise: how the file's winner values read as a, b and tie, e.g. 0=tie,1=a,2=b "
                            "(PandaLM's annotators)")
    audit.add_argument("--pair", metavar="COLUMN",
                       help="with --pairwise: one column naming both systems, split at --pair-sep (e.g. PandaLM's "
                            "cmp_key, 'bloom-7b_llama-7b'), instead of --system-a and --system-b")
    audit.add_argument("--pair-sep", default="_", help="with --pair: the separator of the two systems (default: _)")
    audit.add_argument("--from", dest="tool", choices=("label-studio", "mturk"),
                       help="the file is an annotation tool's export: label-studio (the JSON export; the item and "
                            "system are fields of each task's data, the rater completed_by, the rating or label the "
                            "control's answer) or mturk (a batch results CSV; Input. columns are the item and "
                            "system, WorkerId the rater, an Answer. column the rating or label). --item, --system, "
                            "--rating and --label name the fields when the names are not common ones")
    audit.add_argument("--lengths", help="optional table of output lengths, one row per (item, system)")
    audit.add_argument("--item", help="item column (default: item)")
    audit.add_argument("--system", help="system column (default: system)")
    audit.add_argument("--rater", help="rater column (default: rater)")
    audit.add_argument("--rating", help="rating column (default: rating)")
    audit.add_argument("--missing", action="append", metavar="STRING",
                       help="a string that means a missing rating (repeat for several: --missing NA --missing n/a); "
                            "default: only an empty field. Any other rating that is not a number is an error")
    audit.add_argument("--level", choices=("ordinal", "interval", "nominal"),
                       help="Krippendorff's alpha's level of measurement (default: from the scale -- ordinal for whole "
                            "numbers on at most 11 values, interval otherwise; the summary says which and why)")
    audit.add_argument("--wide", metavar="COLUMNS",
                       help="the table is wide, one column per rater: the rater columns, comma-separated (the rater "
                            "is the column's name). Ratings: one row per (item, system); --pairwise: one row per "
                            "comparison, the cells the winners; --labels: one row per item (numbered from 0 when the "
                            "table has no item column)")
    audit.add_argument("--wide-pattern", metavar="REGEX",
                       help="a wide CSV whose rater columns are those whose whole name matches REGEX "
                            "(e.g. 'rater_[0-9]+')")
    audit.add_argument("--length", default="length", help="length column of --lengths (default: length)")
    audit.add_argument("--out", default="audit-report", help="report directory (default: ./audit-report)")
    audit.add_argument("--json", help="where to write the JSON summary (default: OUT/audit.json)")
    audit.add_argument("--seed", type=int, default=20260929, help="bootstrap seed (default: 20260929)")
    audit.add_argument("--n-boot", type=_replicates, default=2000,
                       help="bootstrap replicates of the alpha and MOS intervals (default: 2000)")
    audit.add_argument("--g-interval", choices=("noncentral-f", "bootstrap"), default="noncentral-f",
                       help="incomplete designs: G's interval, the noncentral-F interval of the fixed systems' G "
                            "(default: no refit) or the percentile interval of a parametric bootstrap of REML refits")
    audit.add_argument("--scheduler", metavar="ADDRESS",
                       help="a dask.distributed scheduler (e.g. tcp://host:8786): an incomplete design's REML refits, "
                            "G's bootstrap and the leave-one-rater-out panels, run on its workers, with the same "
                            "results (the cluster extra; the workers need this package)")
    audit.add_argument("--coverage", type=_replicates, metavar="N",
                       help="also measure how often the report's intervals (G's, each system's mean) cover, in N "
                            "studies simulated from this study's own fit on its observed cells (each a REML refit; "
                            "with --scheduler, on its workers); audit.json's coverage and the report say")
    audit.add_argument("--n-boot-g", type=_replicates, default=200,
                       help="with --g-interval bootstrap: replicates of G's interval, each a REML refit (default: 200)")
    audit.add_argument("--lower-is-better", action="store_true",
                       help="lower ratings are better (error scores such as MQM): every leaderboard ranks the lowest "
                            "mean first (default: higher is better)")
    audit.add_argument("--format", choices=("html", "json"), default="html",
                       help="html (default): write audit.html, audit.json and checklist.csv; json: audit.json and "
                            "checklist.csv only")
    audit.add_argument("--notebook", action="store_true",
                       help="a ratings file: write the report by executing its notebook in a Jupyter kernel (the "
                            "book's chapter 8, as 08_audit.ipynb beside audit.html, to re-run or extend; needs the "
                            "book extra) instead of here")
    audit.add_argument("--no-report", dest="format", action="store_const", const="json", help="the same as --format "
                                                                                              "json")
    audit.set_defaults(handler=_audit)


#: Failures to write that are the machine's, not the program's: said in one line, with what to do.
_WRITE_ERRORS = {
    errno.EACCES: "the folder is not writable for this user (a read-only _build or --out?)",
    errno.EPERM: "the folder is not writable for this user (a read-only _build or --out?)",
    errno.EROFS: "the file system is read-only",
    errno.ENOSPC: "the disk is full: free some space (make clean removes _build) and run again",
    errno.EDQUOT: "the disk quota is used up: free some space and run again",
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``compendium`` command."""
    args = build_parser().parse_args(argv)
    from compendium.data.errors import DataError

    errors: tuple = (DataError, FileNotFoundError)
    if not (args.command == "audit" and not args.notebook):  # only a notebook run needs the book's stack
        try:
            from compendium.build.runner import NotebookError
        except ImportError:
            pass
        else:
            errors += (NotebookError,)
    try:
        return args.handler(args)
    except DataError as error:  # bad input: a message naming the file, never a traceback; 2, as argparse's
        print(f"compendium {args.command}: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        if error.errno not in _WRITE_ERRORS:
            raise
        where = error.filename or "a file"
        print(f"compendium {args.command}: cannot write {where}: {error.strerror or error}; "
              f"{_WRITE_ERRORS[error.errno]}. What this command writes is written whole or not at all, so "
              "nothing half-written is left.", file=sys.stderr)
        return 2
    except errors as error:
        print(f"compendium {args.command}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
