"""The formats annotation tools export (compendium.data.judgements): JSON Lines and wide CSV, read into the same
long table as a long CSV, and bad input named by file, column and line."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compendium.data.errors import DataError
from compendium.data.judgements import read_judgements

COLUMNS = dict(item="item", system="system", rater="rater", rating="rating")


def _long(seed=0, n_items=4, systems=("a", "b", "c"), raters=("r1", "r2", "r3")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [{"item": f"i{i}", "system": s, "rater": r, "rating": int(rng.integers(1, 6))}
            for i in range(n_items) for s in systems for r in raters]
    return pd.DataFrame(rows)


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    key = ["item", "system", "rater"]
    left = a.astype({"system": str, "rater": str}).sort_values(key).reset_index(drop=True)
    right = b.astype({"system": str, "rater": str}).sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(left, right)


def test_json_lines_read_as_the_same_long_table(tmp_path):
    frame = _long()
    frame.to_csv(tmp_path / "long.csv", index=False)
    with open(tmp_path / "long.jsonl", "w", encoding="utf-8") as out:
        for record in frame.to_dict("records"):
            out.write(json.dumps({**record, "comment": {"nested": True}}) + "\n")
        out.write("\n")  # a blank line at the end is no record
    expected = read_judgements(tmp_path / "long.csv", **COLUMNS)
    _same(read_judgements(tmp_path / "long.jsonl", **COLUMNS), expected)
    with gzip.open(tmp_path / "long.ndjson.gz", "wt", encoding="utf-8") as out:
        out.write(frame.to_json(orient="records", lines=True))
    _same(read_judgements(tmp_path / "long.ndjson.gz", **COLUMNS), expected)


def test_json_lines_null_is_a_missing_rating_and_pandas_reads_the_same_values(tmp_path):
    frame = _long()
    path = tmp_path / "j.jsonl"
    records = frame.to_dict("records")
    records[3]["rating"] = None
    records[5]["rating"] = 2.5
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    read = read_judgements(path, **COLUMNS)
    theirs = pd.read_json(path, lines=True)  # an outside reader of the same file
    assert np.allclose(read["rating"].to_numpy(), theirs["rating"].to_numpy(dtype=float), equal_nan=True)
    assert np.isnan(read["rating"].iloc[3]) and read["rating"].iloc[5] == 2.5


@pytest.mark.parametrize("line,problem", [
    ('{"item": "i1", "system": "a", "rater": "r1", "rating": 3', "not a JSON object"),
    ('["i1", "a", "r1", 3]', "a JSON list where an object belongs"),
    ('{"item": "i1", "system": "a", "rater": "r1", "rating": [3]}', "column 'rating': a JSON list"),
    ('{"item": "i1", "system": "a", "rater": "r1", "rating": true}', "column 'rating': a JSON bool"),
    ('{"item": "i1", "system": "a", "rater": "r1", "rating": "three"}', "column 'rating'"),
])
def test_bad_json_lines_name_the_file_and_the_line(tmp_path, line, problem):
    frame = _long()
    lines = [json.dumps(r) for r in frame.to_dict("records")]
    lines.insert(2, "")  # a blank line: the bad record is on line 5 of the file
    lines.insert(4, line)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=problem) as caught:
        read_judgements(path, **COLUMNS)
    assert str(path) in str(caught.value) and 5 in caught.value.rows


def test_json_lines_without_a_key_lists_the_keys_there_are(tmp_path):
    path = tmp_path / "k.jsonl"
    path.write_text("".join(json.dumps({"segment": "i", "system": "a", "rater": "r", "score": 1}) + "\n"
                            for _ in range(3)), encoding="utf-8")
    with pytest.raises(DataError, match=r"no item column 'item'.*'segment'.*--item"):
        read_judgements(path, **COLUMNS)


def _wide(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.pivot(index=["item", "system"], columns="rater", values="rating").reset_index()


def test_a_wide_csv_reads_as_the_long_table_by_names_or_by_pattern(tmp_path):
    frame = _long()
    wide = _wide(frame).rename(columns={"r1": "rater_1", "r2": "rater_2", "r3": "rater_3"}).assign(note="x")
    wide.to_csv(tmp_path / "wide.csv", index=False)
    expected = frame.assign(rater=frame["rater"].str.replace("r", "rater_"))
    expected.to_csv(tmp_path / "long.csv", index=False)
    long = read_judgements(tmp_path / "long.csv", **COLUMNS)
    by_name = read_judgements(tmp_path / "wide.csv", **COLUMNS, raters=["rater_1", "rater_2", "rater_3"])
    by_pattern = read_judgements(tmp_path / "wide.csv", **COLUMNS, rater_pattern=r"rater_\d+")
    _same(by_name, long)
    _same(by_pattern, long)
    melted = pd.melt(wide, id_vars=["item", "system"], value_vars=["rater_1", "rater_2", "rater_3"],
                     var_name="rater", value_name="rating")  # pandas' own reshaping, as an outside reference
    _same(by_name, read_judgements(_write(tmp_path / "melted.csv", melted), **COLUMNS))


def _write(path: Path, frame: pd.DataFrame) -> Path:
    frame.to_csv(path, index=False)
    return path


def test_an_empty_wide_cell_is_a_missing_rating(tmp_path):
    wide = _wide(_long()).astype({"r2": object})
    wide.loc[1, "r2"] = ""
    read = read_judgements(_write(tmp_path / "w.csv", wide), **COLUMNS, raters=["r1", "r2", "r3"])
    assert read["rating"].isna().sum() == 1


def test_bad_wide_input_names_the_file_the_column_and_the_line(tmp_path):
    wide = _wide(_long()).astype({"r3": object})
    wide.loc[2, "r3"] = "seven"
    path = _write(tmp_path / "w.csv", wide)
    with pytest.raises(DataError, match=r"column 'rating'") as caught:
        read_judgements(path, **COLUMNS, raters=["r1", "r2", "r3"])
    assert list(caught.value.rows) == [4]  # the header is line 1: the third data row is line 4
    duplicated = pd.concat([_wide(_long()), _wide(_long()).iloc[[0]]], ignore_index=True)
    with pytest.raises(DataError, match=r"duplicated.*lines 2, 14|duplicated.*on lines 2, 14"):
        read_judgements(_write(tmp_path / "d.csv", duplicated), **COLUMNS, raters=["r1", "r2", "r3"])
    with pytest.raises(DataError, match=r"no column matches the rater pattern 'judge_\\\\d\+'"):
        read_judgements(path, **COLUMNS, rater_pattern=r"judge_\d+")
    with pytest.raises(DataError, match=r"no rater r9 column 'r9'"):
        read_judgements(path, **COLUMNS, raters=["r1", "r9"])
    with pytest.raises(DataError, match="by name or by a pattern, not both"):
        read_judgements(path, **COLUMNS, raters=["r1"], rater_pattern="r.")


def test_the_audit_command_reads_a_wide_csv(tmp_path):
    path = _write(tmp_path / "w.csv", _wide(_long(n_items=6)))
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "compendium"),
            "audit",
            str(path),
            "--item",
            "item",
            "--system",
            "system",
            "--wide",
            "r1,r2,r3",
            "--format",
            "json",
            "--out",
            str(tmp_path / "out"),
            "--n-boot",
            "50",
            "--n-boot-g",
            "10",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "audit.json").read_text())
    assert (summary["n_items"], summary["n_systems"], summary["n_raters"], summary["n_judgements"]) == (6, 3, 3, 54)
    assert summary["columns"]["rater"] == "rater"  # the long table's rater column: the convention's name (issue 71)


def test_the_html_report_reads_a_wide_csv_and_states_alphas_level(tmp_path):
    """The report's notebook gets the wide columns and the level from the command line, as --format json does."""
    wide = _wide(_long(n_items=6))
    rng = np.random.default_rng(1)
    for column in ("r1", "r2", "r3"):
        wide[column] = wide[column] * 18 + rng.integers(0, 10, len(wide))  # a 0-100 slider: interval by default
    path = _write(tmp_path / "w.csv", wide)
    done = subprocess.run([str(Path(sys.executable).parent / "compendium"), "audit", str(path), "--item", "item",
                           "--system", "system", "--wide-pattern", "r[0-9]", "--out", str(tmp_path / "out"),
                           "--n-boot", "50", "--n-boot-g", "10"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "audit.json").read_text())
    assert summary["alpha_level"] == "interval" and summary["n_raters"] == 3
    page = (tmp_path / "out" / "audit.html").read_text(encoding="utf-8")
    assert "interval</strong> level" in page or "<strong>interval</strong>" in page
