"""Issue 71, part 4: the exports of annotation tools audit with ``--from``.

The fixtures are built here from each tool's documented export format, from one simulated incomplete study:

* Label Studio's JSON export -- https://labelstud.io/guide/task_format (a list of tasks with ``data`` and
  ``annotations``; ``completed_by``, ``was_cancelled``, ``result[].from_name/type/value``) and
  https://labelstud.io/tags/rating, https://labelstud.io/tags/choices (a Rating's value ``{"rating": 4}``, a
  Choices' value ``{"choices": ["4"]}``);
* Mechanical Turk's batch results CSV -- https://docs.aws.amazon.com/AWSMechTurk/latest/RequesterUI/
  ReviewingResultsOutsideoftheRUI.html ("Download CSV": one row per assignment with HITId, AssignmentId,
  WorkerId, AssignmentStatus, ``Input.*`` and ``Answer.*`` columns, and Approve and Reject); a crowd HTML radio
  group exported one ``Answer.<name>.<option>`` column per option (https://docs.aws.amazon.com/AWSMechTurk/latest/
  AWSMechanicalTurkRequester/ and the crowd-radio-group element).

The reference is the audit of the same judgements written as the tidy CSV the manual describes: every number of
``audit.json`` must be the same. A cancelled annotation and a rejected assignment (with a rating that would move
the numbers) must be left out, and a file missing a key is refused with the key and the record named.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from compendium.data import exports
from compendium.data.errors import DataError
from compendium.simulate.crossed import simulate_incomplete

#: Keys of audit.json that name the input rather than describe the study.
ABOUT_THE_FILE = ("source", "columns")


@pytest.fixture(scope="module")
def study() -> pd.DataFrame:
    """Item x system x rater ratings on 1-5, each item rated by 3 of 5 raters (the tidy reference)."""
    data = simulate_incomplete(14, 3, 5, raters_per_item=3, seed=11, scale=(1, 5), item="item", rater="rater")
    # items named as text (as a CSV reader reads them back), so that both tables order them alike
    return data.assign(item="doc-" + data["item"].astype(str).str.zfill(2), rating=data["rating"].astype(int))


def label_studio(study: pd.DataFrame, *, choices: bool = False) -> list[dict]:
    """One task per (item, system) output, one annotation per rater; one more annotation, cancelled."""
    tasks = []
    for k, ((item, system), part) in enumerate(study.groupby(["item", "system"], sort=False), start=1):
        annotations = []
        for j, row in enumerate(part.itertuples(index=False), start=1):
            value = {"choices": [str(row.rating)]} if choices else {"rating": int(row.rating)}
            number = int(row.rater[1:])  # odd raters exported as a user object (email, id), even ones by id
            rater = {"id": 100 + number, "email": f"{row.rater}@lab.example"} if number % 2 else 100 + number
            annotations.append({
                "id": 1000 * k + j, "completed_by": rater, "was_cancelled": False, "ground_truth": False,
                "created_at": "2026-11-02T10:00:00.000000Z", "lead_time": 4.2, "task": k,
                "result": [{"id": f"r{k}-{j}", "from_name": "quality", "to_name": "text",
                            "type": "choices" if choices else "rating", "origin": "manual", "value": value},
                           {"id": f"c{k}-{j}", "from_name": "comment", "to_name": "text", "type": "textarea",
                            "value": {"text": ["fine"]}}]})
        annotations.append({"id": 1000 * k + 99, "completed_by": 999, "was_cancelled": True, "result": []})
        tasks.append({"id": k, "project": 7, "data": {"text": f"output of {system} for {item}", "segment": item,
                                                       "model": system}, "annotations": annotations,
                      "predictions": [], "created_at": "2026-11-01T09:00:00.000000Z"})
    return tasks


def _as_exported(study: pd.DataFrame) -> pd.DataFrame:
    """The judgements in the export's order (task by task) with the rater names Label Studio gives: the email of
    a user object, else the user's id."""
    study = pd.concat([part for _, part in study.groupby(["item", "system"], sort=False)])
    number = study["rater"].str[1:].astype(int)
    return study.assign(rater=(study["rater"] + "@lab.example").where(number % 2 == 1, (100 + number).astype(str)))


MTURK_META = ["HITId", "HITTypeId", "Title", "Description", "Keywords", "Reward", "CreationTime", "MaxAssignments",
              "RequesterAnnotation", "AssignmentDurationInSeconds", "AutoApprovalDelayInSeconds", "Expiration",
              "NumberOfSimilarHITs", "LifetimeInSeconds", "AssignmentId", "WorkerId", "AssignmentStatus",
              "AcceptTime", "SubmitTime", "AutoApprovalTime", "ApprovalTime", "RejectionTime", "RequesterFeedback",
              "WorkTimeInSeconds", "LifetimeApprovalRate", "Last30DaysApprovalRate", "Last7DaysApprovalRate"]


def mturk(study: pd.DataFrame, *, radio: bool = False) -> pd.DataFrame:
    """One row per assignment (a HIT per output, one assignment per rater), then one rejected assignment."""
    rows = []
    for k, row in enumerate(study.itertuples(index=False)):
        meta = dict.fromkeys(MTURK_META, "")
        meta.update(HITId=f"3H{hash((row.item, row.system)) % 10**8:08d}", HITTypeId="3T1", Title="Rate a translation",
                    Reward="$0.10", AssignmentId=f"3A{k:06d}", WorkerId=f"A{row.rater.upper()}XYZ",
                    AssignmentStatus="Submitted", WorkTimeInSeconds="31", LifetimeApprovalRate="100% (12/12)")
        answers = ({f"Answer.quality.{v}": "true" if v == row.rating else "false" for v in range(1, 6)} if radio
                   else {"Answer.quality": str(row.rating)})
        rows.append({**meta, "Input.segment_id": row.item, "Input.model": row.system, "Input.text": "…",
                     **answers, "Answer.comment": "", "Approve": "", "Reject": ""})
    rejected = {**rows[0], "AssignmentId": "3AREJECT", "WorkerId": "ASPAMMER", "AssignmentStatus": "Rejected"}
    rejected.update({k: ("true" if k.endswith(".1") else "false") for k in rows[0] if k.startswith("Answer.quality.")}
                    if radio else {"Answer.quality": "1"})
    return pd.DataFrame([*rows, rejected])


def _audit(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compendium.cli", "audit", *args, "--n-boot", "200", "--format",
                           "json"], capture_output=True, text=True, cwd=cwd, timeout=300)


def _numbers(folder: Path) -> dict:
    summary = json.loads((folder / "audit.json").read_text(encoding="utf-8"))
    return {k: v for k, v in summary.items() if k not in ABOUT_THE_FILE}


def _reference(tmp_path: Path, frame: pd.DataFrame) -> dict:
    frame.to_csv(tmp_path / "tidy.csv", index=False)
    done = _audit(tmp_path, "tidy.csv", "--out", "tidy")
    assert done.returncode == 0, done.stderr
    return _numbers(tmp_path / "tidy")


def test_a_label_studio_export_audits_as_its_tidy_table(study, tmp_path):
    (tmp_path / "export.json").write_text(json.dumps(label_studio(study)), encoding="utf-8")
    done = _audit(tmp_path, "export.json", "--from", "label-studio", "--rating", "quality", "--out", "ls")
    assert done.returncode == 0, done.stderr
    assert "reading data.segment as the item" in done.stderr and "reading data.model as the system" in done.stderr
    assert "left out: 42 cancelled annotations" in done.stderr  # one per task
    ours, theirs = _numbers(tmp_path / "ls"), _reference(tmp_path, _as_exported(study))
    assert ours == theirs and ours["n_judgements"] == len(study) and ours["n_raters"] == 5


def test_two_controls_need_naming_and_choices_read_as_ratings_or_as_labels(study, tmp_path):
    (tmp_path / "export.json").write_text(json.dumps(label_studio(study, choices=True)), encoding="utf-8")
    done = _audit(tmp_path, "export.json", "--from", "label-studio", "--out", "a")
    assert done.returncode == 2 and "2 controls ('comment', 'quality')" in done.stderr and "--rating" in done.stderr
    assert not (tmp_path / "a").exists()
    done = _audit(tmp_path, "export.json", "--from", "label-studio", "--rating", "quality", "--out", "b")
    assert done.returncode == 0, done.stderr
    assert _numbers(tmp_path / "b") == _reference(tmp_path, _as_exported(study))
    # a labelling project: each task is an item (its data has no field named as one), read by the task's id
    tasks = label_studio(study, choices=True)
    for task in tasks:
        task["data"] = {"text": task["data"]["text"]}
    (tmp_path / "labels.json").write_text(json.dumps(tasks), encoding="utf-8")
    done = _audit(tmp_path, "--labels", "labels.json", "--from", "label-studio", "--label", "quality", "--out", "c")
    assert done.returncode == 0, done.stderr
    assert "reading the task's id as the item" in done.stderr
    labels = json.loads((tmp_path / "c" / "audit.json").read_text(encoding="utf-8"))
    assert labels["kind"] == "labels" and labels["n_labels"] == len(study) and labels["n_items"] == len(tasks)
    assert labels["label_counts"] == {str(k): int(v) for k, v in study["rating"].value_counts().sort_index().items()}


@pytest.mark.parametrize("radio", [False, True])
def test_an_mturk_batch_file_audits_as_its_tidy_table(study, tmp_path, radio):
    mturk(study, radio=radio).to_csv(tmp_path / "Batch_4821_batch_results.csv", index=False)
    done = _audit(tmp_path, "Batch_4821_batch_results.csv", "--from", "mturk", "--rating", "quality", "--out", "mt")
    assert done.returncode == 0, done.stderr
    assert "reading Input.segment_id as the item" in done.stderr and "reading WorkerId as the rater" in done.stderr
    assert "left out: 1 rejected assignment" in done.stderr
    reference = study.assign(rater="A" + study["rater"].str.upper() + "XYZ")
    assert _numbers(tmp_path / "mt") == _reference(tmp_path, reference)


@pytest.mark.parametrize("break_it, key, record", [
    (lambda tasks: tasks[2].pop("annotations"), "'annotations'", "record 2 (task id 3)"),
    (lambda tasks: tasks[4]["annotations"][1].pop("completed_by"), "'completed_by'", "record 4 (task id 5), "
                                                                                     "annotation id 5002"),
    (lambda tasks: tasks[0]["data"].pop("model"), "'model'", "record 0 (task id 1)'s 'data'"),
    (lambda tasks: tasks[1]["annotations"][0]["result"][0].pop("value"), "'value'", "record 1 (task id 2), "
                                                                                    "annotation id 2001, result "
                                                                                    "'quality'"),
])
def test_a_label_studio_export_missing_a_key_is_refused_naming_the_key_and_the_record(study, tmp_path, break_it, key,
                                                                                       record):
    tasks = label_studio(study)
    break_it(tasks)
    (tmp_path / "export.json").write_text(json.dumps(tasks), encoding="utf-8")
    with pytest.raises(DataError) as error:
        exports.read_label_studio(tmp_path / "export.json", answer="quality")
    assert key in str(error.value) and record in str(error.value)
    done = _audit(tmp_path, "export.json", "--from", "label-studio", "--rating", "quality", "--out", "x")
    assert done.returncode == 2 and key in done.stderr and record in done.stderr
    assert not (tmp_path / "x").exists()


def test_an_mturk_file_missing_a_key_is_refused_naming_it(study, tmp_path):
    batch = mturk(study)
    batch.drop(columns="WorkerId").to_csv(tmp_path / "no_worker.csv", index=False)
    with pytest.raises(DataError, match="no 'WorkerId' column") as error:
        exports.read_mturk(tmp_path / "no_worker.csv")
    assert error.value.column == "WorkerId"
    batch.loc[[3, 7], "WorkerId"] = ""
    batch.to_csv(tmp_path / "empty_worker.csv", index=False)
    with pytest.raises(DataError, match="'WorkerId' is empty on lines 5, 9") as error:
        exports.read_mturk(tmp_path / "empty_worker.csv", answer="quality")
    assert list(error.value.rows) == [5, 9]
    mturk(study).drop(columns="Input.model").to_csv(tmp_path / "no_system.csv", index=False)
    done = _audit(tmp_path, "no_system.csv", "--from", "mturk", "--rating", "quality", "--out", "x")
    assert done.returncode == 2 and "no Input. column is the system" in done.stderr and "'text'" in done.stderr


def test_from_is_refused_with_options_that_do_not_apply(tmp_path):
    (tmp_path / "e.json").write_text("[]", encoding="utf-8")
    for options in (["e.json", "--wide", "a,b"], ["e.json", "--notebook"], ["--pairwise", "e.json"]):
        done = _audit(tmp_path, *options, "--from", "label-studio", "--out", "x")
        assert done.returncode == 2 and "--from label-studio" in done.stderr, options
    assert not (tmp_path / "x").exists()


def test_an_answer_that_is_not_a_rating_is_named_by_its_record(study, tmp_path):
    tasks = label_studio(study, choices=True)
    tasks[6]["annotations"][2]["result"][0]["value"]["choices"] = ["five"]
    (tmp_path / "export.json").write_text(json.dumps(tasks), encoding="utf-8")
    frame, _ = exports.read_label_studio(tmp_path / "export.json", answer="quality")
    with pytest.raises(DataError, match="not numbers") as error:
        exports.judgements(frame)
    assert "record 6" in str(error.value) and "'five'" in str(error.value) and "counted from 0" in str(error.value)
    tasks[6]["annotations"][2]["result"][0]["value"]["choices"] = ["4", "5"]
    (tmp_path / "export.json").write_text(json.dumps(tasks), encoding="utf-8")
    with pytest.raises(DataError, match="2 choices where one answer belongs") as error:
        exports.read_label_studio(tmp_path / "export.json", answer="quality")
    assert "record 6 (task id 7), annotation id 7003" in str(error.value)
