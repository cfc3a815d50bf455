"""The exports of the tools people annotate with, read as the audit's long table (issue 71).

``compendium audit --from TOOL FILE`` (and ``--labels FILE --from TOOL``) reads:

* **Label Studio**'s JSON export (``label-studio``): a list of tasks, each with ``data`` (the task's fields) and
  ``annotations``; each annotation has ``completed_by`` (a user's id, or an object with their ``email`` and
  ``id``), ``was_cancelled`` and ``result``, a list whose entries name their control in ``from_name`` and hold the
  answer in ``value`` under the control's type: ``{"rating": 4}`` (Rating), ``{"number": 3}`` (Number),
  ``{"choices": ["Positive"]}`` (Choices). Formats: https://labelstud.io/guide/task_format and
  https://labelstud.io/guide/export. The item is a field of ``data`` (or the task's ``id``), the system another
  field, the rater ``completed_by``; cancelled annotations are left out.
* **Amazon Mechanical Turk**'s batch results CSV (``mturk``, the Requester UI's "Download CSV":
  https://docs.aws.amazon.com/AWSMechTurk/latest/RequesterUI/ReviewingResultsOutsideoftheRUI.html): one row per
  assignment, with ``WorkerId`` (the rater), ``AssignmentStatus``, an ``Input.<name>`` column per input of the HIT
  (the item and the system) and an ``Answer.<name>`` column per field of its form (the rating). A radio group of
  crowd HTML elements is exported one column per option, ``Answer.<name>.<option>``, ``true`` on the option
  chosen: such a group is read as one answer. Rejected assignments are left out.

Which field is the item, the system and the answer is the option's (``--item``, ``--system``, ``--rating`` or
``--label``), else the field with a common name for it (:mod:`compendium.data.names`), else the only answer the
export has; two candidates are refused, naming both. A missing key is refused with the key and where it is
missing named (a Label Studio task by its record in the JSON list, counted from 0 as the project's JSON reader
counts, and its ``id``; an annotation by its ``id``; an MTurk row by its line), and so is an answer that is not
one value. The ratings are then checked as a ratings file's are (:func:`judgements`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from compendium.data import names
from compendium.data.errors import DataError
from compendium.data.judgements import Source, column_roles, validate_table

__all__ = ["TOOLS", "read_export", "read_label_studio", "read_mturk", "judgements"]

TOOLS = ("label-studio", "mturk")
#: The columns of the table an export becomes.
RATINGS, LABELS = ("item", "system", "rater", "rating"), ("item", "rater", "label")
#: Label Studio's answer types whose value is one number or one choice.
_VALUE_KEYS = {"rating": "rating", "number": "number", "choices": "choices", "taxonomy": "taxonomy",
               "labels": "labels"}


def _pick(source: str, role: str, present: list[str], given: str | None, option: str, *, where: str) -> str | None:
    """The field of ``role`` among ``present``: the one given, the default, or the one common name; None when
    none is there; refused when two could be it."""
    if given:
        if given not in present:
            raise DataError(f"{source}: no {where} {given!r} ({option} names it); the {where}s are "
                            f"{', '.join(repr(p) for p in present) or 'none'}", column=given)
        return given
    roles, _ = names.recognise(present, {role: role}, source=source, options={role: option})
    return roles[role] if roles[role] in present else None


# --------------------------------------------------------------------------- Label Studio
def _need(record: Mapping, key: str, what: str, source: str):
    if not isinstance(record, Mapping) or key not in record:
        raise DataError(f"{source}: {what} has no {key!r} key (Label Studio's export format: "
                        "https://labelstud.io/guide/task_format)", column=key)
    return record[key]


def _rater(completed_by, what: str, source: str) -> str:
    if isinstance(completed_by, Mapping):
        for key in ("email", "id"):
            if completed_by.get(key) not in (None, ""):
                return str(completed_by[key])
        raise DataError(f"{source}: {what}: 'completed_by' has neither an 'email' nor an 'id'", column="completed_by")
    if completed_by in (None, ""):
        raise DataError(f"{source}: {what}: 'completed_by' is empty", column="completed_by")
    return str(completed_by)


def _answer(entry: Mapping, what: str, source: str):
    """The one value of a result entry: ``value[type]``, a list of one choice read as that choice."""
    value = _need(entry, "value", what, source)
    kind = entry.get("type")
    key = _VALUE_KEYS.get(kind) if kind else None
    if key is None:
        keys = [k for k in _VALUE_KEYS if isinstance(value, Mapping) and k in value]
        if len(keys) != 1:
            raise DataError(f"{source}: {what}: the answer of type {kind!r} is not a rating, a number or a choice",
                            column="value")
        key = keys[0]
    answer = _need(value, key, f"{what}'s 'value'", source)
    if isinstance(answer, list):
        if len(answer) != 1:
            raise DataError(f"{source}: {what}: {len(answer)} {key} where one answer belongs: {answer!r}",
                            column=key, values=[answer])
        answer = answer[0]
    if isinstance(answer, list):  # a taxonomy's path: its last node
        answer = answer[-1] if answer else None
    return answer


def read_label_studio(path: str | os.PathLike, *, labels: bool = False, item: str | None = None,
                      system: str | None = None, answer: str | None = None) -> tuple[pd.DataFrame, dict]:
    """A Label Studio JSON export as a long table (see the module's description).

    Returns
    -------
    frame : pandas.DataFrame
        ``item, system, rater, rating`` (the answers as exported, empty where an annotation has none: check and
        type it with :func:`judgements`), or with ``labels`` ``item, rater, label`` (labels as text).
    found : dict
        What was read as each role, for the command's stderr (``{"item": "data.segment", ...}``).
    """
    source = str(path)
    try:
        tasks = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise DataError(f"{source}: not JSON ({error.msg} at line {error.lineno}); Label Studio's export is the "
                        "JSON format (Export > JSON)") from None
    if not isinstance(tasks, list):
        raise DataError(f"{source}: a Label Studio JSON export is a list of tasks, not a {type(tasks).__name__}")
    fields = sorted({str(k) for t in tasks if isinstance(t, Mapping) and isinstance(t.get("data"), Mapping)
                     for k in t["data"]})
    item_key = _pick(source, "item", fields, item, "--item", where="field of the tasks' 'data'")
    system_key = None if labels else _pick(source, "system", fields, system, "--system",
                                           where="field of the tasks' 'data'")
    if not labels and system_key is None:
        raise DataError(f"{source}: no field of the tasks' 'data' is the system (the fields are "
                        f"{', '.join(map(repr, fields)) or 'none'}); name it with --system", column="system")
    controls = sorted({str(e.get("from_name")) for t in tasks if isinstance(t, Mapping)
                       for a in t.get("annotations") or [] if isinstance(a, Mapping)
                       for e in a.get("result") or [] if isinstance(e, Mapping)})
    option = "--label" if labels else "--rating"
    if answer is None:
        if len(controls) != 1:
            raise DataError(f"{source}: the annotations answer {len(controls)} controls"
                            + (f" ({', '.join(map(repr, controls))}); name the one to audit with {option}"
                               if controls else ""), column="from_name")
        answer = controls[0]
    elif answer not in controls:
        raise DataError(f"{source}: no annotation answers the control {answer!r} ({option} names it); the controls "
                        f"are {', '.join(map(repr, controls)) or 'none'}", column="from_name")
    rows, cancelled = [], 0
    for k, task in enumerate(tasks):
        what = f"record {k}" + (f" (task id {task['id']})" if isinstance(task, Mapping) and "id" in task else "")
        data = _need(task, "data", what, source)
        annotations = _need(task, "annotations", what, source)
        key = _need(data, item_key, f"{what}'s 'data'", source) if item_key else _need(task, "id", what, source)
        sys_value = _need(data, system_key, f"{what}'s 'data'", source) if system_key else None
        for j, annotation in enumerate(annotations):
            where = f"{what}, annotation " + (f"id {annotation['id']}" if isinstance(annotation, Mapping)
                                              and "id" in annotation else f"{j} (counted from 0)")
            if isinstance(annotation, Mapping) and annotation.get("was_cancelled"):
                cancelled += 1
                continue
            rater = _rater(_need(annotation, "completed_by", where, source), where, source)
            entries = [e for e in _need(annotation, "result", where, source)
                       if isinstance(e, Mapping) and str(e.get("from_name")) == answer]
            if len(entries) > 1:
                raise DataError(f"{source}: {where}: {len(entries)} answers of the control {answer!r}", column=answer)
            value = _answer(entries[0], f"{where}, result {answer!r}", source) if entries else None
            rows.append((str(key), None if labels else str(sys_value), rater, value, k))
    frame = _frame(rows, labels, Source(source, "record", 0, source))
    found = {"item": f"data.{item_key}" if item_key else "the task's id", "rater": "completed_by",
             ("label" if labels else "rating"): f"the control {answer!r}"}
    if not labels:
        found["system"] = f"data.{system_key}"
    if cancelled:
        found["left out"] = f"{cancelled} cancelled annotation{'s' if cancelled != 1 else ''}"
    return frame, found


def _frame(rows: list[tuple], labels: bool, source: Source) -> pd.DataFrame:
    """The long table of ``rows`` (item, system, rater, answer, position), its answers as exported (the audit's
    reader reads the ratings as numbers and names the records or lines of those that are not), with its
    ``attrs["source"]`` for those messages."""
    if not rows:
        raise DataError(f"{source.label}: the export holds no answer to audit")
    answer = lambda v: "" if v is None else v  # noqa: E731  (an annotation without an answer: a missing rating)
    if labels:
        frame = pd.DataFrame([(i, r, str(answer(v))) for i, _, r, v, _ in rows], columns=list(LABELS))
        keep = (frame["label"] != "").to_numpy()
        frame = frame[keep].reset_index(drop=True)
        positions = [p for (*_, p), kept in zip(rows, keep) if kept]
    else:
        frame = pd.DataFrame([(i, s, r, answer(v)) for i, s, r, v, _ in rows], columns=list(RATINGS))
        positions = [p for *_, p in rows]
    frame.attrs["source"] = Source(source.label, source.unit, source.offset, source.file, lines=tuple(positions))
    return frame


def judgements(frame: pd.DataFrame) -> pd.DataFrame:
    """An export's rating table checked and typed as a ratings file is (:func:`compendium.data.judgements.
    validate_table`): ratings that are not numbers, duplicated judgements and single raters are refused, naming
    the records (Label Studio) or lines (MTurk)."""
    roles = column_roles(*RATINGS)
    return validate_table(frame, roles, frame.attrs["source"], convert=True)


# --------------------------------------------------------------------------- Mechanical Turk
def read_mturk(path: str | os.PathLike, *, labels: bool = False, item: str | None = None, system: str | None = None,
               answer: str | None = None) -> tuple[pd.DataFrame, dict]:
    """An MTurk batch results CSV as a long table (see the module's description); returns as
    :func:`read_label_studio`."""
    source = str(path)
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    for column in ("WorkerId",):
        if column not in table.columns:
            raise DataError(f"{source}: no {column!r} column: an MTurk batch results CSV has one per assignment "
                            "(https://docs.aws.amazon.com/AWSMechTurk/latest/RequesterUI/"
                            "ReviewingResultsOutsideoftheRUI.html)", column=column)
    lines = pd.Series(range(2, len(table) + 2), index=table.index)  # the header is line 1
    rejected = table.get("AssignmentStatus", pd.Series("", index=table.index)).str.lower() == "rejected"
    empty = (table["WorkerId"].str.strip() == "") & ~rejected
    if empty.any():
        raise DataError(f"{source}: 'WorkerId' is empty on line{'s' if empty.sum() > 1 else ''} "
                        f"{', '.join(map(str, lines[empty].head(10)))}", column="WorkerId",
                        rows=lines[empty].tolist(), unit="line")
    inputs = [c[len("Input."):] for c in table.columns if c.startswith("Input.")]
    strip = lambda name: name[len("Input."):] if name and name.startswith("Input.") else name  # noqa: E731
    item_key = _pick(source, "item", inputs, strip(item), "--item", where="Input. column")
    system_key = None if labels else _pick(source, "system", inputs, strip(system), "--system", where="Input. column")
    for role, key in (("item", item_key), *(() if labels else (("system", system_key),))):
        if key is None:
            raise DataError(f"{source}: no Input. column is the {role} (the inputs are "
                            f"{', '.join(map(repr, inputs)) or 'none'}); name it with --{role}", column=f"Input.{role}")
    column, cells = _mturk_answer(table, answer, "--label" if labels else "--rating", source)
    kept = ~rejected
    rows = [(str(table.at[i, f"Input.{item_key}"]), None if labels else str(table.at[i, f"Input.{system_key}"]),
             str(table.at[i, "WorkerId"]).strip(), cells[i], int(lines[i])) for i in table.index[kept]]
    frame = _frame(rows, labels, Source(source, "line", 2, source))
    found = {"item": f"Input.{item_key}", "rater": "WorkerId", ("label" if labels else "rating"): column}
    if not labels:
        found["system"] = f"Input.{system_key}"
    if rejected.any():
        found["left out"] = f"{int(rejected.sum())} rejected assignment{'s' if rejected.sum() != 1 else ''}"
    return frame, found


def _mturk_answer(table: pd.DataFrame, answer: str | None, option: str, source: str) -> tuple[str, pd.Series]:
    """The answer column (or radio group) and its cell on each row."""
    answers = [c for c in table.columns if c.startswith("Answer.")]
    groups: dict[str, list[str]] = {}
    for c in answers:
        match = re.fullmatch(r"(Answer\.[^.]+)\.(.+)", c)
        if match:
            groups.setdefault(match.group(1), []).append(c)
    plain = [c for c in answers if not any(c in members for members in groups.values())]
    choices = plain + list(groups)
    if answer is not None:
        answer = answer if answer.startswith("Answer.") else f"Answer.{answer}"
        if answer not in choices:
            raise DataError(f"{source}: no answer {answer!r} ({option} names it); the answers are "
                            f"{', '.join(map(repr, choices)) or 'none'}", column=answer)
    elif len(choices) != 1:
        raise DataError(f"{source}: {len(choices)} answers" + (f" ({', '.join(map(repr, choices))}); name the one "
                                                                f"to audit with {option}" if choices else
                                                                ": an Answer. column is the rating"),
                        column="Answer.")
    else:
        answer = choices[0]
    if answer in plain:
        return answer, table[answer]
    members = groups[answer]
    chosen = pd.DataFrame({c[len(answer) + 1:]: table[c].str.strip().str.lower() == "true" for c in members})
    several = chosen.sum(axis=1) > 1
    if several.any():
        lines = [i + 2 for i in table.index[several]]
        raise DataError(f"{source}: the radio group {answer!r} has more than one option true on line"
                        f"{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines[:10]))}", column=answer,
                        rows=lines, unit="line")
    cells = chosen.idxmax(axis=1).where(chosen.any(axis=1), "")
    return f"{answer}.* (a radio group)", cells


def read_export(path: str | os.PathLike, tool: str, **options) -> tuple[pd.DataFrame, dict]:
    """:func:`read_label_studio` or :func:`read_mturk` by the tool's name (:data:`TOOLS`)."""
    if tool == "label-studio":
        return read_label_studio(path, **options)
    if tool == "mturk":
        return read_mturk(path, **options)
    raise ValueError(f"unknown tool {tool!r}; the tools are {', '.join(TOOLS)}")
