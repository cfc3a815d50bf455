"""``make bench``: wall-clock timings of the build and of the heavy kernels.

Speed is measured here, never asserted in a test. Nothing here touches the
book: the build is timed on a copy of the working tree in a temporary
directory. Results go to ``_build/bench.json`` and a printed table.

Sections:

``kernels``
    Each heavy kernel beside a plain baseline implementation, timed in the
    same run, with the ratio and a check that both give the same numbers:
    the 2,000-replicate alpha bootstrap (vectorised against a loop over the
    ``krippendorff`` package), the EAD grid of chapter 4 (24 cells x 10 seeds;
    count matrix built once per cell, fold TF-IDF from it, the fits of a
    cell stacked (:func:`compendium.stats.decoder.fit_many`), cells over two joblib
    workers, against a scikit-learn ``Pipeline`` + ``cross_val_predict``
    loop in one process) and the leakage replicates of chapter 7 (6
    replicates x 2 protocols; emojis counted once for the table, the fits
    over two workers, against a plain loop of ``train_test_split`` +
    ``Pipeline``). The workers are started, and import the package, before
    the kernels are timed (a row of its own), as the baselines' process has
    its imports done before its clock starts. scikit-learn's default
    ``tol = 1e-4`` stops ``lbfgs`` short of the optimum, so the leakage row
    also times the plain loop run to its optimum (``tol = 1e-8``) and reports
    the largest difference from it. Beside each decoder
    kernel, its estimated limit (:func:`decoder_limit`): the time of one
    gradient evaluation on the kernel's sparse design, times the gradient
    evaluations a converged fit from zero needs, times the number of fits,
    over the cores. It counts those evaluations only, for fits run one at a
    time from zero: stacking fits (one numpy call serves many) and starting
    them near their optimum lower a kernel's cost against it; preparing each
    fold, counting the emojis and the workers' messages add to it. Both
    kernels run cold (``COMPENDIUM_CACHE`` unset), so what is timed is
    computation, not the build's stored results.
``build``
    First, :func:`touch_probe` in two fresh interpreters, with numpy's
    transparent-huge-page advice on (numpy's default on Linux) and off (the
    build's setting, ``NUMPY_MADVISE_HUGEPAGE=0``): where the kernel compacts
    memory for each advised array, new memory costs many times as much. Then
    ``compendium simulate`` + ``compendium build`` on a fresh copy (cold), the
    same again with nothing changed (warm no-op), and after editing one
    chapter (only it and the summaries it feeds run again); the cold build's
    chapter execution from the first chapter's start to the last one's end
    (the chapters and the data-seed runs, two at a time) and per-notebook
    execution times (from papermill's metadata), and how many EAD cells were computed
    (stored in ``_build/cache``) by the cold build and by the rebuild after
    editing chapter 9 (none: it reads the cold build's).
``test``
    ``make test`` in this working tree (after ``make book``), with its
    wall-clock time and the load average before it.

The ``audit`` section times :func:`compendium.audit.core.audit` on synthetic,
seeded crossed studies of 10^4, 10^5 and 10^6 judgements (50, 500 and 5,000
items x 8 systems x 25 raters, 1-5 scale, with one length per output), each
in a fresh Python process so that its peak resident memory (``ru_maxrss``)
is its own; then the whole ``compendium audit`` command (CSV -> validation
-> notebook -> HTML and JSON) on the 10^6 study, and the command on small and
incomplete studies (:data:`SMALL_STUDIES`, :data:`INCOMPLETE_STUDIES`).

The ``scale`` section (:mod:`compendium.build.bench_scale`) times the audit at
leaderboard scale: REML on 10^5 and 10^6 incomplete judgements with lme4 on
the same study beside it, many raters, and many pairwise votes.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from compendium.stats import _workers as workers
from compendium.build import runner
from compendium.data.cache import CACHE_ENV
from compendium.data import store


#: Designs of the audit benchmark: items x systems x raters (10^4, 10^5, 10^6 judgements).
AUDIT_DESIGNS = ((50, 8, 25), (500, 8, 25), (5000, 8, 25))


def _synthetic_study(n_items: int, n_systems: int, n_raters: int, seed: int):
    """A crossed 1-5 rating study and one length (1-5) per output, seeded."""
    import numpy as np

    from compendium.simulate.crossed import simulate_crossed
    from compendium.stats import tidy

    data = simulate_crossed(n_items, n_systems, n_raters, seed=seed, scale=(1, 5))
    outputs = data[[tidy.ITEM, tidy.SYSTEM]].drop_duplicates()
    lengths = outputs.assign(length=np.random.default_rng(seed).integers(1, 6, len(outputs)))
    return data, lengths


def _rss_mb(who: int) -> float:
    import resource

    return resource.getrusage(who).ru_maxrss / 1024  # kilobytes on Linux


def audit_probe(n_items: int, n_systems: int, n_raters: int, *, seed: int = 0, n_boot: int = 2000) -> dict:
    """Time one :func:`compendium.audit.core.audit` call in this process.

    Returns the number of judgements, the seconds, and the peak resident
    memory of the process before the call (interpreter, libraries, data)
    and after it (MB). Meant to run in a fresh process (:func:`_audit_rows`).
    """
    import resource

    from compendium.audit import core as audit

    data, lengths = _synthetic_study(n_items, n_systems, n_raters, seed)
    before = _rss_mb(resource.RUSAGE_SELF)
    start = time.perf_counter()
    audit.audit(data, lengths, seed=seed, n_boot=n_boot)
    seconds = time.perf_counter() - start
    return {"judgements": len(data), "seconds": round(seconds, 3), "rss_before_mb": round(before, 1),
            "peak_rss_mb": round(_rss_mb(resource.RUSAGE_SELF), 1)}


def _cli_probe(n_items: int, n_systems: int, n_raters: int, scratch: str, seed: int = 0) -> dict:
    """Time the ``compendium audit`` command end to end on a CSV of the synthetic study."""
    import resource

    from compendium.stats import tidy

    data, lengths = _synthetic_study(n_items, n_systems, n_raters, seed)
    ratings_csv, lengths_csv = Path(scratch) / "ratings.csv", Path(scratch) / "lengths.csv"
    data.to_csv(ratings_csv, index=False)
    lengths.to_csv(lengths_csv, index=False)
    del data, lengths
    command = [sys.executable, "-m", "compendium.cli", "audit", str(ratings_csv), "--lengths", str(lengths_csv),
               "--rater", tidy.RATER, "--out", str(Path(scratch) / "report")]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return {"judgements": n_items * n_systems * n_raters, "seconds": round(time.perf_counter() - start, 3),
            "peak_rss_mb": round(_rss_mb(resource.RUSAGE_CHILDREN), 1)}


#: The small studies a researcher iterates on (issue 56: under 3 s from the command line): SQuALITY correctness
#: (real, 900 judgements, incomplete) and a simulated incomplete study of 10^3 judgements.
SMALL_STUDIES = ("squality", "simulated")
SMALL_GOAL_SECONDS = 3.0


#: Incomplete studies of issue 58 (G's interval without refits): the real WMT23 zh-en MQM (11,310 judgements,
#: goal 10 s) and simulated studies of 10^4 and 10^5 judgements (items x systems x raters, 30 % of cells missing;
#: goal 60 s for 10^5), each audited end to end from the command line.
INCOMPLETE_STUDIES = {"zhen": 10.0, "1e4": None, "1e5": 60.0}


#: Issue 71: a 10^3-judgement audit with its HTML page (written in the command's process) from the command line.
PAGE_GOAL_SECONDS = 2.0


def small_cli_probe(which: str, scratch: str, page: bool = False) -> dict:
    """Time ``compendium audit --format json`` (or, with ``page``, the default that writes ``audit.html`` too)
    end to end (a fresh interpreter: imports included) on an incomplete study, with the audit's defaults:
    ``squality`` and ``simulated`` (10^3 judgements), or one of :data:`INCOMPLETE_STUDIES`."""
    import resource

    from compendium.data import real
    from compendium.simulate.crossed import simulate_incomplete

    extra = []
    if which == "squality":
        data = real.load_squality("correctness")
    elif which == "zhen":
        data, extra = real.load_mqm("zhen"), ["--lower-is-better"]
    elif which in ("1e4", "1e5"):
        n_items = 180 if which == "1e4" else 1800
        data = simulate_incomplete(n_items, 8, 10, missing=0.3, seed=0, scale=(1, 5), item="item", rater="rater")
    else:  # 100 items x 5 systems, each item rated by 2 of 6 raters: 1,000 judgements
        data = simulate_incomplete(100, 5, 6, raters_per_item=2, seed=0, scale=(1, 5), item="item", rater="rater")
    path = Path(scratch) / f"{which}.csv"
    data.to_csv(path, index=False)
    out = Path(scratch) / f"{which}-{'page' if page else 'json'}"
    command = [sys.executable, "-m", "compendium.cli", "audit", str(path), "--item", "item", "--rater", "rater",
               *([] if page else ["--format", "json"]), "--out", str(out), *extra]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    summary = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    return {"judgements": int(summary["n_judgements"]), "seconds": round(seconds, 3),
            "peak_rss_mb": round(_rss_mb(resource.RUSAGE_CHILDREN), 1),
            "interval_G": summary.get("interval_method_G"),
            "goal_seconds": PAGE_GOAL_SECONDS if page else INCOMPLETE_STUDIES.get(which, SMALL_GOAL_SECONDS)}


def touch_probe(arrays: int = 8, shape: tuple[int, int] = (1202, 4096)) -> dict:
    """Seconds to create and fill ``arrays`` fresh float64 arrays of ``shape`` (39 MB each by default; the
    simulation's embedding noise), all kept alive so that every one needs new memory, in this process as
    numpy set it up (``NUMPY_MADVISE_HUGEPAGE`` at import)."""
    import numpy as np

    kept = []
    start = time.perf_counter()
    for _ in range(arrays):
        kept.append(np.ones(shape))
    return {"seconds": time.perf_counter() - start, "megabytes": round(sum(a.nbytes for a in kept) / 2**20),
            "advice": bool(np._core.multiarray._get_madvise_hugepage())}


def _touch_rows(rows: list[dict]) -> None:
    """The fresh-memory probe with numpy's huge-page advice on (numpy's default) and off (the build's)."""
    for advice, label in (("1", "numpy's default"), ("0", "the build's")):
        result = _probe("touch_probe()", {"NUMPY_MADVISE_HUGEPAGE": advice})
        if result["advice"] != (advice == "1"):
            raise RuntimeError(f"bench: NUMPY_MADVISE_HUGEPAGE={advice} did not reach numpy in the probe")
        rows.append({"stage": f"fresh numpy arrays, huge-page advice {'on' if advice == '1' else 'off'} ({label})",
                     "section": "build", "seconds": round(result["seconds"], 3), "megabytes": result["megabytes"]})
        print(f"{rows[-1]['stage']:<62} {rows[-1]['seconds']:>9.2f} s   {result['megabytes']} MB", flush=True)


def _probe(call: str, env: Mapping[str, str] | None = None) -> dict:
    """Run ``compendium.build.bench.<call>`` in a fresh interpreter (the kernels' environment, updated with
    ``env``) and return its JSON."""
    code = f"import json, compendium.build.bench as b; print(json.dumps(b.{call}))"
    env = {**os.environ, **runner.KERNEL_ENVIRONMENT, **(env or {})}
    completed = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env)
    return json.loads(completed.stdout.strip().splitlines()[-1])


def _audit_rows(rows: list[dict], designs: Sequence[tuple[int, int, int]] = AUDIT_DESIGNS, cli: bool = True) -> None:
    """The audit section: audit() at each size, then the command at the largest."""
    for design in designs:
        result = _probe(f"audit_probe{tuple(design)}")
        label = f"audit() {result['judgements']:,} judgements"
        rows.append({"stage": label, "section": "audit", "design": list(design), **result})
        print(f"{label:<62} {result['seconds']:>9.2f} s   peak RSS {result['peak_rss_mb']:>7,.0f} MB "
              f"(before the call {result['rss_before_mb']:,.0f} MB)", flush=True)
    with tempfile.TemporaryDirectory(prefix="compendium-bench-small-") as scratch:
        for which, page in (*((w, False) for w in (*SMALL_STUDIES, *INCOMPLETE_STUDIES)), ("simulated", True)):
            result = _probe(f"small_cli_probe({which!r}, {scratch!r}, {page})")
            how = "with audit.html" if page else "--format json"
            label = f"compendium audit {how}, {which} ({result['judgements']:,} judgements, incomplete)"
            rows.append({"stage": label, "section": "audit", **result})
            goal = f"goal {result['goal_seconds']:.0f} s; " if result["goal_seconds"] else ""
            print(f"{label:<62} {result['seconds']:>9.2f} s   ({goal}peak RSS {result['peak_rss_mb']:,.0f} MB)",
                  flush=True)
    if cli and designs:
        with tempfile.TemporaryDirectory(prefix="compendium-bench-audit-") as scratch:
            design = tuple(designs[-1])
            result = _probe(f"_cli_probe{design + (scratch,)!r}")
        label = f"compendium audit, {result['judgements']:,} judgements"
        rows.append({"stage": label, "section": "audit", "design": list(design), **result})
        print(f"{label:<62} {result['seconds']:>9.2f} s   peak RSS {result['peak_rss_mb']:>7,.0f} MB "
              "(largest process: CLI or kernel)", flush=True)


SECTIONS = ("kernels", "build", "test", "audit", "scale", "encoders", "coverage")


def run_benchmarks(out: Path = runner.BUILD_DIR / "bench.json", sections: Sequence[str] = SECTIONS) -> list[dict]:
    """Time the heavy kernels against plain baselines (``kernels``), the cold, warm and one-chapter
    builds with per-notebook times (``build``) and the audit (``audit``); write ``out`` and print a table."""
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        raise ValueError(f"unknown bench section(s) {sorted(unknown)}; the sections are {', '.join(SECTIONS)}")
    rows: list[dict] = []
    if "kernels" in sections:
        _kernel_rows(rows)
    if "build" in sections:
        _touch_rows(rows)
        _build_rows(rows)
    if "test" in sections:
        _test_rows(rows)
    if "audit" in sections:
        _audit_rows(rows)
    if "scale" in sections:
        from compendium.build import bench_scale

        bench_scale.scale_rows(rows)
    if "encoders" in sections:
        _encoder_rows(rows)
    if "coverage" in sections:
        _coverage_rows(rows)
    _write(out, rows)  # written first: the measurements outlive any fault in printing them
    _print_table(rows)
    return rows


def _coverage_rows(rows: list[dict]) -> None:
    """The coverage section: measure how often every kind of interval behind a verdict covers, on the designs it
    was used on, and write the committed record the ledger chapter reads
    (:func:`compendium.analyses.ledger.intervals.write_record`; about forty minutes on two cores). One row per
    kind with its time."""
    from concurrent.futures import ProcessPoolExecutor

    from compendium.analyses.ledger import intervals

    with ProcessPoolExecutor(max(1, os.cpu_count() or 1)) as pool:
        for kind in intervals.MEASURED:
            started = time.perf_counter()
            record = intervals.write_record(pool, kinds=intervals.MEASURED[kind])
            designs = [d for key in intervals.MEASURED[kind] for d in record["kinds"].get(key, {}).get("designs", [])]
            # the raters needed promise no level: their row gives the lowest share of panels that reached the target
            shares = [d["coverage"] for d in designs] or [d["reaches"] for key in intervals.MEASURED[kind]
                                                          for d in record.get("promises", {}).get(key, [])]
            rows.append({"stage": f"coverage of {kind}", "section": "coverage",
                         "seconds": round(time.perf_counter() - started, 1),
                         "lowest_coverage": min(shares, default=float("nan")),
                         "record": str(intervals.RECORD.relative_to(runner.ROOT))})
            print(f"{rows[-1]['stage']:<62} {rows[-1]['seconds']:>9.2f} s   lowest coverage "
                  f"{rows[-1]['lowest_coverage']:.3f}", flush=True)


def _encoder_rows(rows: list[dict]) -> None:
    """The encoders section: load each real encoder, then embed all of NTREX (5,991 sentences, batches of 64, as
    ``derive.py --embeddings`` does), and compare with the stored float16 rows (``data/real/encoded``)."""
    import numpy as np

    from compendium.data import corpora, encoded, encoders

    texts = corpora.load_ntrex()["text"].tolist()
    for name in encoders.ENCODERS:
        encoders.get_encoder.cache_clear()
        start = time.perf_counter()
        encoder = encoders.get_encoder(name)
        loaded = time.perf_counter() - start
        start = time.perf_counter()
        matrix = encoder.embed(texts, batch=encoded.BATCH)
        seconds = time.perf_counter() - start
        stored = encoded.load_ntrex_embeddings(name)
        difference = float(np.max(np.abs(matrix.astype(np.float16).astype(np.float64) - stored)))
        label = f"embed NTREX ({len(texts):,} sentences) with {name}"
        rows.append({"stage": label, "section": "encoders", "seconds": round(seconds, 3),
                     "load_seconds": round(loaded, 3), "sentences_per_second": round(len(texts) / seconds, 1),
                     "max_abs_difference": difference})
        print(f"{label:<62} {seconds:>9.2f} s   {len(texts) / seconds:,.0f} sentences/s, loaded in {loaded:.2f} s; "
              f"largest difference to the stored rows {difference:.2g}", flush=True)


def _pair(rows: list[dict], name: str, fast: Callable[[], object], plain: Callable[[], object],
          agree: Callable[[object, object], float]) -> dict:
    """Time ``fast`` and ``plain`` in turn; record the ratio and the largest difference of their results.

    Returns both results (``"fast"``, ``"plain baseline"``)."""
    results = {}
    for label, action in (("fast", fast), ("plain baseline", plain)):
        _cold_segmentation()
        start = time.perf_counter()
        results[label] = action()
        rows.append({"stage": f"{name} ({label})", "section": "kernels",
                     "seconds": round(time.perf_counter() - start, 3)})
        print(f"{rows[-1]['stage']:<62} {rows[-1]['seconds']:>9.2f} s", flush=True)
    fast_row, plain_row = rows[-2], rows[-1]
    fast_row["speedup_vs_plain"] = round(plain_row["seconds"] / fast_row["seconds"], 1) if fast_row["seconds"] else None
    fast_row["max_abs_difference"] = float(agree(results["fast"], results["plain baseline"]))
    print(f"{name + ' speed-up':<62} {fast_row['speedup_vs_plain']:>9}x  (largest difference "
          f"{fast_row['max_abs_difference']:.2g})", flush=True)
    return results


def _cold_segmentation() -> None:
    """Forget the emoji segmentation of earlier kernels (``compendium.analyses.emoji`` caches it per string), so
    that each side of a pair pays for segmenting its outputs, as it would in a fresh process."""
    from compendium.analyses import emoji

    emoji._graphemes.cache_clear()


def _reference(rows: list[dict], name: str, label: str, action: Callable[[], object], fast: object,
               agree: Callable[[object, object], float]) -> None:
    """Time a second reference of a kernel and record its largest difference from the fast result."""
    _cold_segmentation()
    start = time.perf_counter()
    result = action()
    rows.append({"stage": f"{name} ({label})", "section": "kernels", "seconds": round(time.perf_counter() - start, 3),
                 "max_abs_difference_to_fast": float(agree(fast, result))})
    print(f"{rows[-1]['stage']:<62} {rows[-1]['seconds']:>9.2f} s   (largest difference to fast "
          f"{rows[-1]['max_abs_difference_to_fast']:.2g})", flush=True)


def plain_ead_grid(sentences, generations, seeds, C: float = 4.0, n_splits: int = 5):
    """The EAD grid written plainly: per cell and seed, a ``TfidfVectorizer`` + ``LogisticRegression``
    pipeline in ``cross_val_predict`` with a seeded ``StratifiedKFold``, then macro-F1."""
    import numpy as np
    import pandas as pd
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline

    from compendium.analyses import emoji
    from compendium.analyses.ead import core as ead_core
    from compendium.data import schema

    rows = []
    for language in schema.LANGUAGES:
        for system in schema.SYSTEMS:
            cell = ead_core.cell_data(sentences, generations, language=language, system=system)
            texts = cell["output"].fillna("").astype(str).to_numpy()
            labels = cell["label"].astype(str).to_numpy()
            scores = []
            for seed in seeds:
                model = make_pipeline(
                    TfidfVectorizer(analyzer=emoji.emoji_analyzer, sublinear_tf=True),
                    LogisticRegression(C=C, class_weight="balanced", max_iter=2000),
                )
                folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
                predicted = cross_val_predict(model, texts, labels, cv=folds)
                scores.append(f1_score(labels, predicted, average="macro"))
            rows.append({"language": language, "system": system, "mean": float(np.mean(scores)),
                         "sd": float(np.std(scores, ddof=1))})
    return pd.DataFrame(rows)


def plain_split_optimism(table, n_replicates: int, seed: int, C: float = 4.0, train_fraction: float = 0.8,
                         tol: float = 1e-4):
    """The leakage replicates written plainly: per replicate, a stratified row-wise split and a split of
    source items (``train_test_split`` both), a fresh ``TfidfVectorizer`` + ``LogisticRegression``
    pipeline fitted on each training part, macro-F1 on each test part.

    ``tol`` is ``LogisticRegression``'s (default 1e-4, scikit-learn's). At that default ``lbfgs`` stops
    short of the optimum; ``tol=1e-8`` (the decoder's :data:`compendium.stats.decoder.TOL`) runs the same
    model to its optimum, the second reference of the bench row."""
    import numpy as np
    import pandas as pd
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline

    from compendium.analyses import emoji, leakage

    texts = table["output"].fillna("").astype(str).to_numpy()
    labels = table["label"].astype(str).to_numpy()
    items = table[["sentence_id", "label"]].drop_duplicates("sentence_id").sort_values("sentence_id")
    rows = []
    for split_seed in leakage.replicate_seeds(seed, n_replicates):
        record = {}
        positions = np.arange(len(table))
        train_rows, test_rows = train_test_split(positions, train_size=train_fraction, stratify=labels,
                                                 random_state=split_seed)
        train_items, _ = train_test_split(items["sentence_id"].to_numpy(), train_size=train_fraction,
                                          stratify=items["label"].to_numpy(), random_state=split_seed)
        in_train = table["sentence_id"].isin(train_items).to_numpy()
        for protocol, (train, test) in {"rowwise": (train_rows, test_rows),
                                        "grouped": (positions[in_train], positions[~in_train])}.items():
            model = make_pipeline(TfidfVectorizer(analyzer=emoji.emoji_analyzer, sublinear_tf=True),
                                  LogisticRegression(C=C, class_weight="balanced", max_iter=50000, tol=tol))
            predicted = model.fit(texts[train], labels[train]).predict(texts[test])
            record[protocol] = f1_score(labels[test], predicted, average="macro", zero_division=0)
        rows.append(record)
    return pd.DataFrame(rows)


def _ead_problems(benchmark):
    """Fold 0 of seed 0 of every EAD cell: (design, labels, train, test)."""
    import numpy as np
    from sklearn.model_selection import StratifiedKFold

    from compendium.analyses.ead import core as ead_core, inference as ead_inference
    from compendium.stats import decoder
    from compendium.analyses import emoji
    from compendium.data import schema

    for language in schema.LANGUAGES:
        for system in schema.SYSTEMS:
            cell = ead_core.cell_data(benchmark.sentences, benchmark.generations, language=language, system=system)
            labels = cell["label"].astype(str).to_numpy()
            train, test = next(StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros(len(labels)), labels))
            yield decoder.design(ead_inference._texts(cell["output"]), emoji.emoji_analyzer), labels, train, test


def _leakage_problems(table, n_replicates: int):
    """Every split of the leakage replicates: (design, labels, train, test)."""
    from compendium.stats import decoder
    from compendium.analyses import emoji, leakage

    dsg = decoder.design(list(table["output"].fillna("").astype(str)), emoji.emoji_analyzer)
    labels = table["label"].astype(str).to_numpy()
    for split_seed in leakage.replicate_seeds(0, n_replicates):
        for split in (leakage.rowwise_split, leakage.grouped_split):
            yield (dsg, labels, *split(table, seed=split_seed))


def decoder_limit(problems, *, fits_per_problem: int, cores: int = 2, C: float = 4.0) -> dict:
    """Estimated floor of a decoder kernel from the cost of one gradient evaluation.

    For each sample problem, the merged sparse design of its training rows
    is built as the decoder builds it, one evaluation of the loss and
    gradient (:func:`compendium.stats.decoder.loss_gradient`) is timed (median of
    20), and the fit is run to count the gradient-sized evaluations it needs
    (per Newton step one gradient and one objective, per CG step one
    Hessian-vector product, which costs what a gradient does). The limit is
    ``sum(evaluations x gradient time) x fits_per_problem / cores``: what the
    kernel would take if nothing but those evaluations ran, spread over
    ``cores`` without overhead. ``lbfgs_iterations`` is, for comparison, how
    many iterations scikit-learn's ``lbfgs`` needs on the same problems at
    its default ``tol = 1e-4`` (one gradient each).
    """
    import statistics

    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    from compendium.stats import decoder

    seconds, evaluations, lbfgs, gradient_times = 0.0, [], [], []
    with threadpool_limits(limits=1, user_api="blas"):
        for dsg, labels, train, _ in problems:
            classes, codes = np.unique(labels, return_inverse=True)
            counts = np.zeros((dsg.unique.shape[0], len(classes)))
            np.add.at(counts, (dsg.inverse[train], codes[train]), 1.0)
            rows = np.flatnonzero(counts.sum(axis=1))
            X = decoder.fold_tfidf(dsg.unique, counts.sum(axis=1))[rows]
            T = counts[rows] * (len(train) / (len(classes) * counts.sum(axis=0)))
            params = np.zeros((X.shape[1] + 1) * len(classes))
            times = []
            for _ in range(20):
                start = time.perf_counter()
                decoder.loss_gradient(params, X, T, C)
                times.append(time.perf_counter() - start)
            info: dict = {}
            decoder.fit(X, T, C, info=info)
            needed = 2 * (info["newton_steps"] + 1) + info["cg_steps"]
            gradient_times.append(statistics.median(times))
            evaluations.append(needed)
            seconds += needed * gradient_times[-1]
            pair_rows, pair_classes = np.nonzero(T)  # each (row, label) once, with its weight: the same objective
            model = LogisticRegression(C=C, max_iter=5000).fit(X[pair_rows], pair_classes,
                                                               sample_weight=T[pair_rows, pair_classes])
            lbfgs.append(int(model.n_iter_[0]))
    return {"seconds": round(seconds * fits_per_problem / cores, 3),
            "gradient_ms": round(1000 * statistics.mean(gradient_times), 3),
            "evaluations_per_fit": round(statistics.mean(evaluations), 1),
            "lbfgs_iterations": round(statistics.mean(lbfgs), 1), "problems": len(evaluations)}


def _limit_row(rows: list[dict], name: str, problems, *, fits_per_problem: int) -> None:
    limit = decoder_limit(problems, fits_per_problem=fits_per_problem)
    rows.append({"stage": f"{name} (estimated limit)", "section": "kernels", **limit})
    print(f"{rows[-1]['stage']:<62} {limit['seconds']:>9.2f} s   one gradient {limit['gradient_ms']:.2f} ms x "
          f"{limit['evaluations_per_fit']:.0f} per converged fit (lbfgs at tol 1e-4: "
          f"{limit['lbfgs_iterations']:.0f} iterations)", flush=True)


def _import_kernels() -> None:
    import compendium.analyses.ead.core  # noqa: F401
    import compendium.analyses.leakage  # noqa: F401


def _pool_row(rows: list[dict], stage: str = "start 2 joblib workers and import the package in them") -> None:
    """Start joblib's two worker processes and import the package in them, timed as a row of its own.

    The plain baselines run in this process, whose imports are done before
    any clock starts; the fast kernels run in two worker processes, which
    joblib starts once and keeps. Starting them is timed here, so that the
    kernel rows time the kernels on the same footing as the baselines. loky
    stops workers that have been idle for 300 s, which a slow baseline can
    outlast, so this runs again before each fast kernel that uses the pool.
    """
    from joblib import Parallel, delayed

    start = time.perf_counter()
    Parallel(n_jobs=2, **workers.options())(delayed(_import_kernels)() for _ in range(2))
    rows.append({"stage": stage, "section": "kernels", "seconds": round(time.perf_counter() - start, 3)})
    print(f"{rows[-1]['stage']:<62} {rows[-1]['seconds']:>9.2f} s", flush=True)


def _kernel_rows(rows: list[dict]) -> None:
    """The heavy kernels of the book, each against a plain baseline on the shipped data."""
    from compendium.analyses import leakage
    from compendium.analyses.ead import core as ead_core
    from compendium.data.benchmark import load_benchmark
    from compendium.stats import agreement

    benchmark = load_benchmark(embeddings=False)
    ratings = benchmark.ratings
    unit = ["sentence_id", "system"]
    _pair(rows, "alpha bootstrap, 2,000 replicates",
          lambda: agreement.alpha_bootstrap_ci(ratings, unit=unit, n_boot=2000, seed=0),
          lambda: agreement.alpha_bootstrap_ci_reference(ratings, unit=unit, n_boot=2000, seed=0),
          lambda a, b: float((a.select_dtypes("number") - b.select_dtypes("number")).abs().to_numpy().max()))
    os.environ.pop(CACHE_ENV, None)  # time computation, not stored results
    _pool_row(rows)
    seeds = list(range(10))
    _limit_row(rows, "EAD grid, 24 cells x 10 seeds", _ead_problems(benchmark), fits_per_problem=5 * len(seeds))
    _pair(rows, "EAD grid, 24 cells x 10 seeds",
          lambda: ead_core.ead_stability(benchmark.sentences, benchmark.generations, seeds=seeds),
          lambda: plain_ead_grid(benchmark.sentences, benchmark.generations, seeds),
          lambda a, b: float((a.set_index(["language", "system"])["mean"]
                              - b.set_index(["language", "system"])["mean"]).abs().max()))
    table = leakage.multiview_table(benchmark.sentences, benchmark.generations, language="bn")
    _pool_row(rows, "start the joblib workers again if loky stopped them while idle")
    _limit_row(rows, "leakage replicates, 6 x 2 protocols (Bangla, 33,648 rows)", _leakage_problems(table, 6),
               fits_per_problem=1)
    name = "leakage replicates, 6 x 2 protocols (Bangla, 33,648 rows)"
    agree = lambda a, b: float((a.reset_index(drop=True) - b).abs().to_numpy().max())  # noqa: E731
    results = _pair(rows, name,
                    lambda: leakage.split_optimism(table, n_replicates=6, seed=0,
                                                   n_jobs=2).replicates[["rowwise", "grouped"]],
                    lambda: plain_split_optimism(table, n_replicates=6, seed=0), agree)
    # scikit-learn's default tol stops lbfgs short of the optimum; the same model run to it:
    _reference(rows, name, "plain baseline at its optimum, tol 1e-8",
               lambda: plain_split_optimism(table, n_replicates=6, seed=0, tol=1e-8), results["fast"], agree)


def _working_tree_copy(scratch: Path) -> Path:
    """Copy the files git tracks or would track (not .venv, _build, book/) to ``scratch/repo``."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                            cwd=runner.ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    copy = scratch / "repo"
    for name in filter(None, listed):
        source = runner.ROOT / name
        if source.is_file():
            target = copy / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    (copy / "node_modules").symlink_to(runner.ROOT / "node_modules")
    return copy


def _build_rows(rows: list[dict]) -> None:
    """Cold, warm and one-chapter builds of a copy of the working tree, and per-notebook times."""
    import nbformat

    with tempfile.TemporaryDirectory(prefix="compendium-bench-build-") as scratch:
        copy = _working_tree_copy(Path(scratch))
        env = {**os.environ, "PYTHONPATH": str(copy / "src")}
        python = [sys.executable, "-m", "compendium.cli"]

        def build(label: str) -> None:
            start = time.perf_counter()
            for command in (["simulate", "--if-needed"], ["build"]):
                done = subprocess.run(python + command, cwd=copy, env=env, capture_output=True, text=True)
                if done.returncode != 0:
                    raise RuntimeError(f"bench: {' '.join(command)} failed in the copy:\n{done.stderr[-3000:]}")
            executed = sorted(line.split(":")[0] for line in done.stdout.splitlines() if line.endswith(": executed"))
            rows.append({"stage": label, "section": "build", "seconds": round(time.perf_counter() - start, 3),
                         "executed": executed})
            print(f"{label:<62} {rows[-1]['seconds']:>9.2f} s   executed: {', '.join(executed) or 'none'}",
                  flush=True)

        build("cold build (simulate, every chapter, HTML)")
        executed = sorted((copy / "book").glob("[0-9][0-9]_*.ipynb"))
        runs = [nbformat.read(path, as_version=4).metadata.get("papermill", {}) for path in
                executed + sorted((copy / "_build" / "data-sweep").glob("*/[0-9][0-9]_*.ipynb"))]
        runs = [run for run in runs if run.get("start_time") and run.get("end_time")]
        wall = (max(datetime.fromisoformat(run["end_time"]) for run in runs)
                - min(datetime.fromisoformat(run["start_time"]) for run in runs)).total_seconds()
        rows.append({"stage": "  chapter execution, first start to last end (2 workers)", "section": "build",
                     "seconds": round(wall, 3), "notebooks": len(runs),
                     "notebook_seconds": round(sum(run["duration"] for run in runs), 3)})
        print(f"{rows[-1]['stage']:<62} {wall:>9.2f} s   {len(runs)} notebooks, "
              f"{rows[-1]['notebook_seconds']:.0f} s summed", flush=True)
        for path in executed:
            seconds = nbformat.read(path, as_version=4).metadata.get("papermill", {}).get("duration")
            if seconds is not None:
                rows.append({"stage": f"  execute {path.stem}", "section": "build", "seconds": round(seconds, 3)})
                print(f"{rows[-1]['stage']:<62} {seconds:>9.2f} s", flush=True)
        cells = _stored_ead_cells(copy)
        rows.append({"stage": "  EAD cell x seed results computed by the cold build", "section": "build",
                     "seconds": 0.0, "count": cells})
        print(f"{rows[-1]['stage']:<62} {cells:>9}", flush=True)
        build("warm rebuild, nothing changed")
        edited = copy / "notebooks" / "09_system_cards.py"
        edited.write_text(edited.read_text(encoding="utf-8") + "\n# %% [markdown]\n# (an edit)\n", encoding="utf-8")
        build("rebuild after editing one chapter (09_system_cards)")
        seconds = nbformat.read(copy / "book" / "09_system_cards.ipynb", as_version=4).metadata["papermill"]["duration"]
        rows.append({"stage": "  execute 09_system_cards (reads the stored EAD cells)", "section": "build",
                     "seconds": round(seconds, 3), "count": _stored_ead_cells(copy) - cells})
        print(f"{rows[-1]['stage']:<62} {seconds:>9.2f} s   EAD results computed anew: {rows[-1]['count']}",
              flush=True)


def _stored_ead_cells(copy: Path) -> int:
    """How many per-cell, per-seed EAD results the build of ``copy`` has stored (each computed once)."""
    return sum(1 for path in (copy / "_build" / "cache").rglob(store.SEAL) if path.parent.parent.name.endswith("._oof"))


def _test_rows(rows: list[dict]) -> None:
    """``make test`` in this working tree, timed, with the load average before it."""
    load = os.getloadavg()
    log = runner.BUILD_DIR / "bench-make-test.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with open(log, "w", encoding="utf-8") as handle:
        done = subprocess.run(["make", "-C", str(runner.ROOT), "test"], stdout=handle, stderr=subprocess.STDOUT)
    seconds = round(time.perf_counter() - start, 3)
    tail = log.read_text(encoding="utf-8").strip().splitlines()[-1:] or [""]
    rows.append({"stage": "make test (after make book)", "section": "test", "seconds": seconds,
                 "returncode": done.returncode, "load_before": [round(x, 2) for x in load], "summary": tail[0]})
    print(f"{rows[-1]['stage']:<62} {seconds:>9.2f} s   exit {done.returncode}; load before "
          f"{load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f}; {tail[0]}", flush=True)


#: The notes of the printed table: the key a row must carry, and how its note reads.
NOTES: tuple[tuple[str, Callable[[dict], str]], ...] = (
    ("speedup_vs_plain", lambda r: f"{r['speedup_vs_plain']}x the speed of the plain baseline"),
    ("peak_rss_mb", lambda r: f"peak RSS {r['peak_rss_mb']:,.0f} MB"),
    ("megabytes", lambda r: f"{r['megabytes']} MB created and filled"),
    ("executed", lambda r: f"executed {len(r['executed'])} notebook(s)"),
    ("gradient_ms", lambda r: f"{r['gradient_ms']} ms per gradient x {r['evaluations_per_fit']} per fit "
                              f"(lbfgs at tol 1e-4: {r['lbfgs_iterations']} iterations)"),
    ("max_abs_difference", lambda r: f"largest difference {r['max_abs_difference']:.2g}"),
    ("max_abs_difference_to_fast", lambda r: "largest difference to the fast result "
                                             f"{r['max_abs_difference_to_fast']:.2g}"),
    ("notebook_seconds", lambda r: f"{r['notebooks']} notebooks, {r['notebook_seconds']:.0f} s of execution summed"),
    ("cpu_seconds", lambda r: f"{r['cpu_seconds']:.1f} s of CPU"),
    ("count", lambda r: f"{r['count']} EAD results computed"),
    ("load_before", lambda r: f"exit {r['returncode']}, load before {r['load_before']}"),
    ("note", lambda r: r["note"]),
    ("lowest_coverage", lambda r: f"lowest coverage {r['lowest_coverage']:.3f} (written to {r['record']})"),
    ("sentences_per_second", lambda r: f"{r['sentences_per_second']:,} sentences/s (loaded in {r['load_seconds']} s)"),
)


def _print_table(rows: list[dict]) -> None:
    print(f"\n{'stage':<62} {'seconds':>9}  notes")
    for row in rows:
        notes = [note(row) for key, note in NOTES if row.get(key) is not None]
        seconds = f"{row['seconds']:>9.2f}" if row.get("seconds") is not None else f"{'-':>9}"
        print(f"{row['stage']:<62} {seconds}  {'; '.join(notes)}")


def _write(out: Path, rows: list[dict]) -> list[dict]:
    report = {"machine": {"python": platform.python_version(), "processor": platform.machine(),
                          "cpus": os.cpu_count(), "load_average_at_end": [round(x, 2) for x in os.getloadavg()]},
              "timings": rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"written to {out}")
    return rows
