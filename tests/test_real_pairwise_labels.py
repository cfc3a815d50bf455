"""The two vendored human evaluations of other kinds: PandaLM (pairwise preferences) and BANEmo (labels).

Loading only: the checks of the files and of bad input (the audit of them comes with `compendium audit
--pairwise` / `--labels`).
"""

from __future__ import annotations

import json
import shutil

import pytest

from compendium.data import corpora, real
from compendium.data.errors import DataError


def test_pandalm_is_999_comparisons_by_the_same_three_annotators():
    frame = real.load_pandalm()
    assert list(frame.columns) == list(real.PAIRWISE_COLUMNS)
    assert (frame["item"].nunique(), len(frame)) == (999, 2997)
    assert set(frame["rater"]) == {"A1", "A2", "A3"} and frame.groupby("item")["rater"].nunique().eq(3).all()
    assert set(frame["winner"]) == {"a", "b", "tie"}
    systems = set(frame["system_a"]) | set(frame["system_b"])
    assert systems == {"bloom-7b", "cerebras-gpt-6.7B", "llama-7b", "opt-7b", "pythia-6.9b"}
    assert (frame["system_a"] != frame["system_b"]).all()
    # the first judgement of the file: idx 0, bloom-7b against llama-7b, every annotator chose the second
    first = frame[frame["item"] == "0"]
    assert first["winner"].tolist() == ["b", "b", "b"] and first["system_b"].iloc[0] == "llama-7b"


def _pandalm_copy(tmp_path, edit):
    (tmp_path / "pandalm").mkdir()
    records = json.loads((real.real_data_dir() / real.PANDALM_FILE).read_text(encoding="utf-8"))
    (tmp_path / real.PANDALM_FILE).write_text(json.dumps(edit(records)), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("edit, field, match", [
    (lambda r: r[:5] + [{**r[5], "annotator2": 3}] + r[6:], "annotator2", "record 5 .*annotator2.*3 is not 0"),
    (lambda r: r[:7] + [{**r[7], "cmp_key": "opt-7b_opt-7b"}] + r[8:], "cmp_key", "record 7 .*two different systems"),
    (lambda r: r[:2] + [{k: v for k, v in r[2].items() if k != "annotator1"}] + r[3:], "annotator1", "record 2 .*no "
                                                                                                     "field"),
])
def test_bad_pandalm_records_are_named(tmp_path, edit, field, match):
    root = _pandalm_copy(tmp_path, edit)
    with pytest.raises(DataError, match=match) as error:
        real.load_pandalm(real_dir=root, verify_checksum=False)
    assert error.value.file == real.PANDALM_FILE and error.value.column == field


def test_banemo_is_14999_comments_by_three_named_annotators():
    frame = corpora.load_banemo()
    assert list(frame.columns) == ["item", "rater", "label", "final"]
    assert (frame["item"].nunique(), len(frame)) == (14999, 44997)
    assert set(frame["rater"]) == set(corpora.BANEMO_ANNOTATORS)
    assert set(frame["label"]) <= set(corpora.BANEMO_LABELS)
    # the file's second comment: all three annotators and the final tag say Anger
    assert frame[frame["item"] == 1]["label"].tolist() == ["Anger"] * 3


def test_an_empty_banemo_label_names_the_column_and_the_line(tmp_path):
    (tmp_path / "banemo").mkdir()
    lines = (real.real_data_dir() / corpora.BANEMO_FILE).read_text(encoding="utf-8").split("\n")
    lines[2] = lines[2].replace(",Anger,Anger,Anger,Anger", ",Anger,,Anger,Anger")
    (tmp_path / corpora.BANEMO_FILE).write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(DataError, match=r"Rizvi.*line 3|line 3.*Rizvi") as error:
        corpora.load_banemo(real_dir=tmp_path, verify_checksum=False)
    assert error.value.column == "Rizvi"


def test_both_files_are_checked_against_the_manifest(tmp_path):
    shutil.copy(real.real_data_dir() / "MANIFEST", tmp_path / "MANIFEST")
    root = _pandalm_copy(tmp_path, lambda r: r[:-1])
    with pytest.raises(DataError, match="SHA-256"):
        real.load_pandalm(real_dir=root)
