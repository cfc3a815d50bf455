"""One convention and the names people use (issue 71): ``item, system, rater, rating`` in every mode of
``compendium audit``; a table without a default column is read by the common name it has, said on stderr; two
columns that could be one role are refused, naming both; a JSON list of records is a table like JSON Lines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from compendium import cli
from compendium.simulate.crossed import simulate_crossed

CONVENTION = ["item", "system", "rater", "rating"]


@pytest.fixture(scope="module")
def crossed():
    data = simulate_crossed(8, 3, 3, seed=1, scale=(1, 5))
    return data.rename(columns={"sentence_id": "item", "annotator": "rater"})[CONVENTION]


def _audit(path: Path, out: Path, *options) -> int:
    return cli.main(["audit", str(path), *map(str, options), "--format", "json", "--n-boot", "20", "--out", str(out)])


def _summary(out: Path) -> dict:
    return json.loads((out / "audit.json").read_text(encoding="utf-8"))


def test_a_jsonl_file_in_the_convention_audits_with_no_column_options(crossed, tmp_path, capsys):
    path = tmp_path / "ratings.jsonl"
    crossed.to_json(path, orient="records", lines=True)
    assert _audit(path, tmp_path / "out") == 0
    err = capsys.readouterr().err
    assert "reading" not in err  # nothing had to be recognised
    summary = _summary(tmp_path / "out")
    assert summary["columns"] == dict(zip(CONVENTION, CONVENTION))
    assert (summary["n_items"], summary["n_systems"], summary["n_raters"]) == (8, 3, 3)


@pytest.mark.parametrize("names", [
    {"item": "sentence_id", "rater": "annotator"},  # the paper's (and this book's) own names
    {"item": "segment", "rater": "WorkerId", "rating": "score"},  # WMT's segment, Mechanical Turk's worker
    {"item": "doc_id", "system": "model", "rater": "judge"},
])
def test_the_names_people_use_are_read_as_their_roles_and_said(crossed, names, tmp_path, capsys):
    """The same study under other column names gives the same summary, and stderr says which column was read as
    which (the reference: the same file with every column named by its option)."""
    path = tmp_path / "ratings.csv"
    crossed.rename(columns=names).to_csv(path, index=False)
    assert _audit(path, tmp_path / "guessed") == 0
    err = capsys.readouterr().err
    for role, column in names.items():
        assert f"reading {column!r} as the {role} column" in err
    options = [x for role, column in names.items() for x in (f"--{role}", column)]
    assert _audit(path, tmp_path / "named", *options) == 0
    assert "reading" not in capsys.readouterr().err
    guessed, named = _summary(tmp_path / "guessed"), _summary(tmp_path / "named")
    assert guessed["columns"] == named["columns"] == {**dict(zip(CONVENTION, CONVENTION)), **names}
    assert guessed["G"] == named["G"] and guessed["alpha"] == named["alpha"]


def test_two_columns_that_could_be_the_rater_are_refused_naming_both(crossed, tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    crossed.rename(columns={"rater": "judge"}).assign(worker="w1").to_csv(path, index=False)
    assert _audit(path, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "no rater column 'rater'" in err and "'judge', 'worker'" in err and "--rater" in err
    assert not (tmp_path / "out").exists()  # nothing written
    assert _audit(path, tmp_path / "out", "--rater", "judge") == 0  # naming one settles it


def test_a_given_name_is_never_second_guessed(crossed, tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    crossed.rename(columns={"rater": "annotator"}).to_csv(path, index=False)
    assert _audit(path, tmp_path / "out", "--rater", "grader") == 2
    err = capsys.readouterr().err
    assert "no rater column 'grader'" in err and "annotator" in err  # the reader's message lists the columns


def test_pairwise_and_label_tables_take_the_same_convention_and_common_names(tmp_path, capsys):
    rows = [(i, a, b, r, w) for i in range(6) for a, b in (("m1", "m2"), ("m2", "m3"), ("m1", "m3"))
            for r, w in (("x", "a"), ("y", "b" if i % 2 else "a"), ("z", "tie" if i % 3 == 0 else "a"))]
    arena = tmp_path / "arena.csv"
    arena.write_text("question_id,model_a,model_b,judge,winner\n" + "".join(f"{','.join(map(str, r))}\n"
                                                                           for r in rows))
    assert cli.main(["audit", "--pairwise", str(arena), "--format", "json", "--n-boot", "20",
                     "--out", str(tmp_path / "pw")]) == 0
    err = capsys.readouterr().err
    for role, column in (("item", "question_id"), ("system a", "model_a"), ("system b", "model_b"),
                         ("rater", "judge")):
        assert f"reading {column!r} as the {role} column" in err
    assert _summary(tmp_path / "pw")["n_comparisons"] == 18
    labels = tmp_path / "labels.csv"
    labels.write_text("item,annotator,category\n" + "".join(f"{i},{r},{'ab'[(i + len(r)) % 2]}\n"
                                                           for i in range(10) for r in ("x", "yy", "zzz")))
    assert cli.main(["audit", "--labels", str(labels), "--format", "json", "--n-boot", "20",
                     "--out", str(tmp_path / "lb")]) == 0
    err = capsys.readouterr().err
    assert "reading 'annotator' as the rater column" in err and "reading 'category' as the label column" in err


def test_a_json_list_of_records_is_a_table(crossed, tmp_path, capsys):
    listed, lines = tmp_path / "ratings.json", tmp_path / "ratings.jsonl"
    crossed.to_json(listed, orient="records")
    crossed.to_json(lines, orient="records", lines=True)
    assert _audit(listed, tmp_path / "a") == 0 and _audit(lines, tmp_path / "b") == 0
    a, b = _summary(tmp_path / "a"), _summary(tmp_path / "b")
    assert a["G"] == b["G"] and a["n_judgements"] == b["n_judgements"] == len(crossed)
    capsys.readouterr()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"item": 1}))
    assert _audit(bad, tmp_path / "c") == 2
    assert "a JSON dict where a list of records belongs" in capsys.readouterr().err
    records = json.loads(listed.read_text())
    records[5]["rating"] = [1, 2]
    bad.write_text(json.dumps(records))
    assert _audit(bad, tmp_path / "c") == 2
    err = capsys.readouterr().err
    assert "record 5, column 'rating'" in err and str(bad) in err
    assert not (tmp_path / "c").exists()


def test_the_manual_lists_every_name_the_audit_recognises():
    """The manual's table of common names is the code's (compendium.data.names.SYNONYMS), name for name."""
    from compendium.data import names

    manual = (Path(__file__).resolve().parents[1] / "book" / "audit_manual.md").read_text(encoding="utf-8")
    listed = {name.lower() for line in manual.splitlines() if line.startswith("| ") for name in
              re.findall(r"`([^`]+)`", line)}
    assert {n.lower() for names_ in names.SYNONYMS.values() for n in names_} <= listed
