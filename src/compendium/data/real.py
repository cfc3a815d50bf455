"""The two real human evaluations of ``data/real/``: loading and checking them.

This module loads the real judgement tables that :mod:`compendium.data.derive`
derives from the upstream releases (SummEval's four expert dimensions and
crowd ratings; WMT23 en-de MQM), checks every file against ``MANIFEST``
(SHA-256) and checks the design, so a bad file is reported with its name, the
column and the rows. The chapter's audit of them is
:mod:`compendium.book.real_benchmarks`.

MQM scores are errors (lower is better); they are returned as loaded.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.data.errors import DataError, row_error
from compendium.data.judgements import Source, check_design, read_judgements, validate_table
from compendium.data.paths import project_root
from compendium.data.derive import DERIVED, SOURCES, SUMMEVAL_DIMENSIONS

__all__ = [
    "REAL_DIR_ENV",
    "COLUMNS",
    "BENCHMARKS",
    "real_data_dir",
    "verify",
    "load_summeval",
    "load_summeval_crowd",
    "load_mqm",
    "load_all",
    "SQUALITY_FILE",
    "SQUALITY_PROPERTIES",
    "load_squality",
    "PANDALM_FILE",
    "PAIRWISE_COLUMNS",
    "load_pandalm",
    "load_pandalm_responses",
]

#: Environment variable naming another directory of real data.
REAL_DIR_ENV = "COMPENDIUM_REAL_DIR"
#: Column names of the derived tables.
COLUMNS = {"item": "item", "system": "system", "rater": "rater", "rating": "rating"}
#: The benchmarks of the chapter, in order: name -> (file, what is rated, direction).
BENCHMARKS = {
    **{f"SummEval {d}": (f"summeval_{d}.csv", f"{d}, 1-5, higher is better") for d in SUMMEVAL_DIMENSIONS},
    "WMT23 MQM": ("wmt23_mqm_ende.csv", "MQM error score, lower is better (audited as -MQM)"),
}


# --------------------------------------------------------------------------- loading
def real_data_dir(real_dir: str | os.PathLike | None = None) -> Path:
    """The directory of real data: ``real_dir``, else ``$COMPENDIUM_REAL_DIR``, else ``<project>/data/real``."""
    if real_dir is None:
        real_dir = os.environ.get(REAL_DIR_ENV) or None
    if real_dir is None:
        return project_root() / "data" / "real"
    return Path(real_dir).expanduser().absolute()


def verify(real_dir: str | os.PathLike | None = None, files: list[str] | None = None) -> Path:
    """Check files of the real-data directory against its MANIFEST (SHA-256).

    Raises
    ------
    DataError
        Naming the directory or the file: no such directory, no MANIFEST, a
        file missing, unlisted or changed.
    """
    from compendium.data.benchmark import read_manifest

    root = real_data_dir(real_dir)
    if not root.is_dir():
        raise DataError(f"{root}: no such directory of real data; point {REAL_DIR_ENV} or real_dir= at data/real")
    listed = read_manifest(root / "MANIFEST")["files"]
    for name in files if files is not None else [*SOURCES, *DERIVED]:
        path = root / name
        if name not in listed:
            raise DataError(f"{root / 'MANIFEST'}: does not list {name}, so it cannot be verified", file="MANIFEST")
        if not path.is_file():
            raise DataError(
                f"{path}: no such file (listed in the MANIFEST); run `python data/real/derive.py`", file=name
            )
        found = hashlib.sha256(path.read_bytes()).hexdigest()
        if found != listed[name]:
            raise DataError(
                f"{path}: SHA-256 {found[:12]}... does not match {listed[name][:12]}... in the MANIFEST: the file "
                "changed; restore it or re-derive it with `python data/real/derive.py`", file=name)
    return root


def _check_values(path: Path, frame: pd.DataFrame, bad: np.ndarray, problem: str) -> None:
    if bad.any():
        where = np.flatnonzero(bad)
        raise row_error(path, path.name, "rating", problem, (where + 2).tolist(), frame["rating"].iloc[where].tolist())


def _read(path: Path, verify_checksum: bool, root: Path) -> pd.DataFrame:
    if verify_checksum:
        verify(root, [path.name])
    return read_judgements(path, **COLUMNS)


def load_summeval(dimension: str = "coherence", *, real_dir: str | os.PathLike | None = None,
                  verify_checksum: bool = True) -> pd.DataFrame:
    """SummEval's expert ratings of one dimension: 100 documents x 16 systems x 3 experts.

    Parameters
    ----------
    dimension : {"coherence", "consistency", "fluency", "relevance"}
    real_dir : path-like, optional
        See :func:`real_data_dir`.
    verify_checksum : bool
        Check the file against the MANIFEST first.

    Returns
    -------
    pandas.DataFrame
        ``item, system, rater, rating`` (as :func:`compendium.data.judgements.read_judgements`).

    Raises
    ------
    DataError
        A changed file, a rating that is not an integer 1-5 (file, column,
        lines), or a design that is not fully crossed.
    """
    if dimension not in SUMMEVAL_DIMENSIONS:
        raise ValueError(f"unknown SummEval dimension {dimension!r}; one of {', '.join(SUMMEVAL_DIMENSIONS)}")
    root = real_data_dir(real_dir)
    path = root / f"summeval_{dimension}.csv"
    frame = _read(path, verify_checksum, root)
    values = frame["rating"].to_numpy()
    _check_values(path, frame, ~np.isin(values, [1, 2, 3, 4, 5]), "ratings that are not integers 1-5")
    check_design(frame, **COLUMNS, require_complete=True, source=str(path))
    return frame


def load_summeval_crowd(*, real_dir: str | os.PathLike | None = None, verify_checksum: bool = True) -> pd.DataFrame:
    """SummEval's crowd ratings: ``dimension, item, system, rater, rating``, 5 per summary and dimension.

    The rater ``C1``-``C5`` is a list position, not a person (crowd workers
    are anonymous): use these ratings for agreement over units only.
    Each dimension's block is checked as :func:`compendium.data.judgements.read_judgements`
    checks a file (line numbers are the file's).
    """
    root = real_data_dir(real_dir)
    path = root / "summeval_crowd.csv"
    if verify_checksum:
        verify(root, [path.name])
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(raw.columns) != ["dimension", *COLUMNS.values()]:
        raise DataError(f"{path}: columns {list(raw.columns)}, expected dimension, item, system, rater, rating",
                        file=path.name, rows=[1], unit="line")
    unknown = ~raw["dimension"].isin(SUMMEVAL_DIMENSIONS).to_numpy()
    if unknown.any():
        where = np.flatnonzero(unknown)
        raise row_error(path, path.name, "dimension", f"dimensions other than {', '.join(SUMMEVAL_DIMENSIONS)}",
                        (where + 2).tolist(), raw["dimension"].iloc[where].tolist())
    parts = []
    for dimension in SUMMEVAL_DIMENSIONS:
        rows = np.flatnonzero(raw["dimension"].to_numpy() == dimension)
        if len(rows) and rows[-1] - rows[0] + 1 != len(rows):
            raise DataError(
                f"{path}: the rows of dimension {dimension!r} are not contiguous; the file is sorted by dimension",
                file=path.name,
                column="dimension",
            )
        block = raw.iloc[rows][list(COLUMNS.values())].reset_index(drop=True)
        source = Source(str(path), "line", int(rows[0]) + 2 if len(rows) else 2, str(path))
        typed = validate_table(block, dict(COLUMNS), source, convert=True)
        _check_values(path, typed.assign(rating=block["rating"]), ~np.isin(typed["rating"].to_numpy(), [1, 2, 3, 4, 5]),
                      "ratings that are not integers 1-5")
        parts.append(typed.assign(dimension=dimension)[["dimension", *COLUMNS.values()]])
    return pd.concat(parts, ignore_index=True)


#: The WMT23 MQM tables: language pair -> file (data/real/README.md, sections 2 and 13).
MQM_TABLES = {"ende": "wmt23_mqm_ende.csv", "zhen": "wmt23_mqm_zhen.csv"}


def load_mqm(pair: str = "ende", *, real_dir: str | os.PathLike | None = None,
             verify_checksum: bool = True) -> pd.DataFrame:
    """WMT23 MQM scores (lower is better): ``pair="ende"``, 104 segments x 10 conditions, 3 of 10 raters per
    segment; ``"zhen"``, 377 segments x 10 systems, 3 of 8 raters per segment.

    Raises
    ------
    DataError
        A changed file, a negative score, or a segment whose raters did not
        each score all of its conditions (the design the chapter relies on).
    """
    if pair not in MQM_TABLES:
        raise ValueError(f"unknown MQM language pair {pair!r}; one of {', '.join(MQM_TABLES)}")
    root = real_data_dir(real_dir)
    path = root / MQM_TABLES[pair]
    frame = _read(path, verify_checksum, root)
    _check_values(path, frame, ~(frame["rating"].to_numpy() >= 0), "negative or missing MQM scores")
    n_systems = frame["system"].nunique()
    per = frame.groupby(["item", "rater"], observed=True)["system"].nunique()
    short = per[per != n_systems]
    if len(short):
        cells = [tuple(k) for k in short.index]
        raise DataError(
            f"{path}: {len(cells)} (item, rater) pairs do not score all {n_systems} conditions: "
            f"{', '.join(map(str, cells[:5]))}; every rater of a segment scores all of its outputs",
            file=path.name, column="item, rater", values=cells)
    return frame


def load_all(real_dir: str | os.PathLike | None = None) -> dict[str, pd.DataFrame]:
    """Every benchmark of :data:`BENCHMARKS`, checked; MQM as loaded (lower is better)."""
    root = verify(real_dir)
    out = {f"SummEval {d}": load_summeval(d, real_dir=root, verify_checksum=False) for d in SUMMEVAL_DIMENSIONS}
    out["WMT23 MQM"] = load_mqm(real_dir=root, verify_checksum=False)
    return out


# --------------------------------------------------------------------------- SQuALITY
#: The SQuALITY human evaluation (Wang et al. 2022), vendored unchanged.
SQUALITY_FILE = "squality/all-responses.jsonl"
#: The properties each reviewer rated, 0-100.
SQUALITY_PROPERTIES = ("correctness", "selection", "overall")
#: The responders: two systems and the human reference.
SQUALITY_RESPONDERS = ("bart", "bart-dpr", "human")


def load_squality(prop: str = "overall", *, include_human: bool = True, real_dir: str | os.PathLike | None = None,
                  verify_checksum: bool = True) -> pd.DataFrame:
    """SQuALITY's human evaluation of one property as long ratings: ``item, system, rater, rating``.

    100 items (story passage and question, ``"<passage>/<question>"``) x 3 responders (``bart``,
    ``bart-dpr`` and the ``human`` reference), each rated 0-100 by 3 of 4 reviewers (``W<worker_id>``),
    every reviewer of an item rating all of its responses: an incomplete design in the raters.

    Parameters
    ----------
    prop : {"correctness", "selection", "overall"}
    include_human : bool
        Keep the human reference as a responder. A benchmark compares systems, so the section-4 checks
        run with it and without it.

    Raises
    ------
    DataError
        A changed file, a line that is not JSON or lacks a field, or a rating that is not a number in
        [0, 100]: the file, the field (the column) and the lines are named.
    """
    if prop not in SQUALITY_PROPERTIES:
        raise ValueError(f"unknown SQuALITY property {prop!r}; one of {', '.join(SQUALITY_PROPERTIES)}")
    root = real_data_dir(real_dir)
    path = root / SQUALITY_FILE
    if verify_checksum:
        verify(root, [SQUALITY_FILE])
    column = f"{prop}-rating"
    rows, bad_lines, bad_values = [], [], []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            passage, questions = str(record["passage-id"]), record["questions"]
            for question, responses in questions.items():
                for responder in SQUALITY_RESPONDERS:
                    for review in responses[responder]["reviews"]:
                        value = review[column]
                        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
                            bad_lines.append(line_no)
                            bad_values.append(value)
                            continue
                        rows.append((f"{passage}/{question}", responder, f"W{review['worker_id']}", float(value)))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            field = error.args[0] if isinstance(error, KeyError) else "the line"
            raise DataError(f"{path}, line {line_no}: not a SQuALITY record ({type(error).__name__}: {field}); "
                            "each line holds passage-id and questions -> responder -> reviews -> worker_id and "
                            f"the {column} field", file=SQUALITY_FILE, column=str(field), rows=[line_no],
                            unit="line") from None
    if bad_lines:
        raise row_error(path, SQUALITY_FILE, column, "ratings that are not numbers in [0, 100]", bad_lines, bad_values)
    frame = pd.DataFrame(rows, columns=list(COLUMNS.values()))
    if not include_human:
        frame = frame[frame["system"] != "human"].reset_index(drop=True)
    return frame


# --------------------------------------------------------------------------- PandaLM (pairwise)
#: The PandaLM test set v1 (Wang et al. 2023), vendored unchanged.
PANDALM_FILE = "pandalm/testset-v1.json"
#: Columns of a pairwise judgement table: which item, which two systems, which rater, who won.
PAIRWISE_COLUMNS = ("item", "system_a", "system_b", "rater", "winner")
#: PandaLM's annotation codes: 0 a tie, 1 the first response, 2 the second.
PANDALM_CODES = {0: "tie", 1: "a", 2: "b"}


def _pandalm_records(real_dir, verify_checksum: bool) -> tuple[Path, list]:
    """PandaLM's file, checked against the MANIFEST, as its JSON list of comparisons."""
    root = real_data_dir(real_dir)
    path = root / PANDALM_FILE
    if verify_checksum:
        verify(root, [PANDALM_FILE])
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise DataError(f"{path}: not JSON ({error})", file=PANDALM_FILE) from None
    if not isinstance(records, list):
        raise DataError(f"{path}: expected a JSON list of comparisons", file=PANDALM_FILE)
    return path, records


def _pandalm_systems(path: Path, position: int, record) -> tuple[str, list[str]]:
    """A record's ``idx`` and the two systems its ``cmp_key`` names, or a DataError naming the record."""
    where = f"record {position} (idx {record.get('idx') if isinstance(record, dict) else '?'})"
    try:
        item, key = record["idx"], record["cmp_key"]
    except (KeyError, TypeError) as error:
        raise DataError(f"{path}, {where}: no field {error}", file=PANDALM_FILE, column=str(error).strip("'"),
                        rows=[position], unit="record") from None
    systems = str(key).split("_")
    if len(systems) != 2 or systems[0] == systems[1] or not all(systems):
        raise DataError(f"{path}, {where}, field 'cmp_key': {key!r} does not name two different systems "
                        "('<a>_<b>')", file=PANDALM_FILE, column="cmp_key", rows=[position], values=[key],
                        unit="record")
    return str(item), systems


def load_pandalm(*, real_dir: str | os.PathLike | None = None, verify_checksum: bool = True) -> pd.DataFrame:
    """PandaLM's test set as one pairwise judgement per row: ``item, system_a, system_b, rater, winner``.

    999 comparisons of two responses (from five 7B models, ``cmp_key`` = ``"<a>_<b>"``), each judged by the
    same three annotators (``A1``-``A3`` for ``annotator1``-``annotator3``); ``winner`` is ``a``, ``b`` or
    ``tie``. The authors kept only comparisons on which the annotators agreed well, which inflates agreement.

    Raises
    ------
    DataError
        A changed file, a file that is not a JSON list, a record without a field, a ``cmp_key`` that does not
        name two different systems, or an annotation other than 0, 1 or 2: the file, the field and the record
        (its ``idx``) are named.
    """
    path, records = _pandalm_records(real_dir, verify_checksum)
    rows = []
    for position, record in enumerate(records):
        item, systems = _pandalm_systems(path, position, record)
        where = f"record {position} (idx {item})"
        try:
            codes = [record[f"annotator{k}"] for k in (1, 2, 3)]
        except KeyError as error:
            raise DataError(f"{path}, {where}: no field {error}", file=PANDALM_FILE, column=str(error).strip("'"),
                            rows=[position], unit="record") from None
        for k, code in enumerate(codes, 1):
            if isinstance(code, bool) or code not in PANDALM_CODES:
                raise DataError(f"{path}, {where}, field 'annotator{k}': {code!r} is not 0 (tie), 1 (the first "
                                "response) or 2 (the second)", file=PANDALM_FILE, column=f"annotator{k}",
                                rows=[position], values=[code], unit="record")
            rows.append((item, systems[0], systems[1], f"A{k}", PANDALM_CODES[code]))
    return pd.DataFrame(rows, columns=list(PAIRWISE_COLUMNS))


#: Columns of :func:`load_pandalm_responses`.
PANDALM_RESPONSE_COLUMNS = ("item", "system_a", "system_b", "response_a", "response_b")


def load_pandalm_responses(*, real_dir: str | os.PathLike | None = None,
                           verify_checksum: bool = True) -> pd.DataFrame:
    """PandaLM's two responses per comparison: ``item, system_a, system_b, response_a, response_b``.

    ``response_a`` is the file's ``response1`` (the response of the first system of ``cmp_key``, the one a
    judgement ``a`` prefers), ``response_b`` its ``response2``; one row per comparison, in the file's order,
    with the items of :func:`load_pandalm`. Six responses of the release are JSON booleans (``true``, the
    answer to a true-or-false instruction, unquoted); they are read as the words ``True`` and ``False``.

    Raises
    ------
    DataError
        As :func:`load_pandalm`, and for a record whose ``response1`` or ``response2`` is missing or not text.
    """
    path, records = _pandalm_records(real_dir, verify_checksum)
    rows = []
    for position, record in enumerate(records):
        item, systems = _pandalm_systems(path, position, record)
        texts = []
        for field in ("response1", "response2"):
            text = record.get(field)
            if isinstance(text, bool):  # six answers of the release are JSON true, unquoted: the word True
                text = str(text)
            if not isinstance(text, str):
                raise DataError(f"{path}, record {position} (idx {item}), field {field!r}: "
                                f"{'missing' if text is None else f'not text ({type(text).__name__})'}",
                                file=PANDALM_FILE, column=field, rows=[position], unit="record")
            texts.append(text)
        rows.append((item, systems[0], systems[1], *texts))
    return pd.DataFrame(rows, columns=list(PANDALM_RESPONSE_COLUMNS))
