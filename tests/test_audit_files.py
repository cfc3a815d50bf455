"""The files people have (issue 71): PandaLM's and BANEmo's original files in ``data/real/`` audit from the command
line with options only, and give the numbers chapter 10 gives; the wide pairwise and label readers refuse what they
cannot read, naming the file, the column and the rows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from compendium import cli
from compendium.data.errors import DataError

ROOT = Path(__file__).resolve().parents[1]
PANDALM = ROOT / "data" / "real" / "pandalm" / "testset-v1.json"
BANEMO = ROOT / "data" / "real" / "banemo" / "BANEmo_Dataset.csv"


@pytest.fixture(scope="module")
def chapter10():
    """Chapter 10's audits of the two files, with its seed and replicates (the CLI's defaults)."""
    from compendium.analyses.reliability.real import SECTION4_N_BOOT, SECTION4_SEED
    from compendium.book import real_benchmarks

    return real_benchmarks.preference_and_label_audits(SECTION4_SEED, SECTION4_N_BOOT)


def _cli(tmp_path: Path, capsys, *options) -> tuple[dict, str]:
    out = tmp_path / "out"
    assert cli.main(["audit", *map(str, options), "--format", "json", "--out", str(out)]) == 0
    return json.loads((out / "audit.json").read_text(encoding="utf-8")), capsys.readouterr().err


def test_pandalms_original_file_audits_with_options_only(chapter10, tmp_path, capsys):
    """PandaLM ships a JSON list of records: the pair in ``cmp_key`` ("bloom-7b_llama-7b"), the item in ``idx``,
    one column per annotator coded 0 (tie), 1 (the first response) or 2 (the second). Chapter 10 reshapes it with
    the book's loader; the command line reads it with options, and every number is the same (the raters are
    named by their columns, annotator1-3, where the loader says A1-A3)."""
    from compendium.book.real_benchmarks import PAIRWISE_EVALUATION

    mine, err = _cli(tmp_path, capsys, "--pairwise", PANDALM, "--wide", "annotator1,annotator2,annotator3",
                     "--codes", "0=tie,1=a,2=b", "--pair", "cmp_key")
    assert "reading 'idx' as the item column" in err
    theirs = chapter10[PAIRWISE_EVALUATION]
    renamed = json.loads(re.sub(r"annotator([123])", r"A\1", json.dumps(mine)))
    differ = [k for k in theirs if k not in ("source", "columns") and renamed.get(k) != theirs[k]]
    assert not differ, {k: (renamed.get(k), theirs[k]) for k in differ}
    assert mine["winner"] == "llama-7b" and mine["n_comparisons"] == 999


def test_banemos_original_file_audits_with_options_only(chapter10, tmp_path, capsys):
    """BANEmo's CSV has one column per annotator and no item column: each row is an item, numbered from 0 as
    chapter 10's loader numbers it. Every number is chapter 10's but one: Fleiss' kappa's interval, whose bootstrap
    draws the units in the order of their names, which are numbers in the loader and zero-padded text here; the
    two intervals are both 2,000-replicate percentile intervals and agree within their Monte Carlo error."""
    from compendium.book.real_benchmarks import LABELS_EVALUATION

    mine, err = _cli(tmp_path, capsys, "--labels", BANEMO, "--wide", "Ankon,Rizvi,Sourov")
    assert "each row of the wide table is an item, numbered from 0" in err
    theirs = chapter10[LABELS_EVALUATION]
    differ = [k for k in theirs if k not in ("source", "fleiss_kappa") and mine.get(k) != theirs[k]]
    assert not differ, {k: (mine.get(k), theirs[k]) for k in differ}
    assert mine["fleiss_kappa"]["kappa"] == pytest.approx(theirs["fleiss_kappa"]["kappa"], rel=1e-12)
    # two bootstraps of the same 14,999 units: the ends of a 95 % percentile interval from 2,000 replicates move by
    # about a tenth of its half-width (0.004) between draws
    for end in ("ci_low", "ci_high"):
        assert mine["fleiss_kappa"][end] == pytest.approx(theirs["fleiss_kappa"][end], abs=1e-3)
    assert mine["n_items"] == 14999


def test_the_wide_pairwise_reader_names_what_it_cannot_read(tmp_path):
    from compendium.data import pairwise

    path = tmp_path / "prefs.csv"
    path.write_text("id,pair,r1,r2\n1,x_y,1,2\n2,x_y_z,0,1\n3,x_y,1,7\n")
    with pytest.raises(DataError, match=r"pairs that do not split into two systems at '_'") as error:
        pairwise.read_pairwise(path, item="id", pair="pair", wide="r1,r2", codes="0=tie,1=a,2=b")
    assert error.value.column == "pair" and list(error.value.rows) == [3, 3]  # line 3 of the file, once per rater
    path.write_text("id,pair,r1,r2\n1,x_y,1,2\n2,x_y,0,1\n3,x_y,1,7\n")
    with pytest.raises(DataError, match="unknown winner codes") as error:
        pairwise.read_pairwise(path, item="id", pair="pair", wide="r1,r2", codes="0=tie,1=a,2=b")
    assert list(error.value.rows) == [4] and list(error.value.values) == ["7"]
    with pytest.raises(DataError, match="VALUE=CODE"):
        pairwise.parse_codes("0=tie,1=first")
    with pytest.raises(DataError, match="no rater r3 column 'r3'"):
        pairwise.read_pairwise(path, item="id", pair="pair", wide="r1,r3")


def test_options_of_one_mode_are_refused_in_another(tmp_path, capsys):
    out = str(tmp_path / "out")
    assert cli.main(["audit", "--labels", str(BANEMO), "--wide", "Ankon,Rizvi,Sourov", "--codes", "0=tie",
                     "--format", "json", "--out", out]) == 2
    assert "--codes and --pair apply to --pairwise, not to --labels" in capsys.readouterr().err
    assert cli.main(["audit", str(BANEMO), "--pair", "x", "--format", "json", "--out", out]) == 2
    assert "apply to --pairwise, not to a ratings file" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
