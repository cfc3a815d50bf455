"""The claims ledger: registry, recording, collection from notebooks, aggregation."""

import json
import math
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from compendium import claims

SHARED_REGISTRY = Path(__file__).resolve().parents[2] / "shared" / "paper" / "claims.csv"


def test_registry_has_every_claim_with_its_band():
    table = pd.read_csv(claims.REGISTRY_FILE)
    registry = claims.registry()
    assert list(registry) == table["id"].tolist()
    assert len(registry) == len(table) > 100
    assert all(c.lo <= c.hi for c in registry.values())
    n = registry["design.n_sentences"]
    assert (n.paper, n.lo, n.hi, n.section) == (17100, 17100, 17100, "3")


@pytest.mark.skipif(not SHARED_REGISTRY.exists(), reason="the paper's shared registry is not beside this checkout")
def test_registry_is_the_papers_registry_unchanged():
    """Bands are never widened: the package copy equals the paper's registry byte for byte."""
    assert claims.REGISTRY_FILE.read_bytes() == SHARED_REGISTRY.read_bytes()


@pytest.mark.parametrize(
    "value, status",
    [(17100, "reproduced"), (17099, "differs"), (17100.0, "reproduced"), (None, "not-run")],
)
def test_status_follows_the_band(value, status):
    assert claims.registry()["design.n_sentences"].status(value) == status


def test_band_edges_are_inclusive():
    claim = claims.registry()["agreement.alpha_ordinal"]  # band [-0.03, 0.06]
    assert claim.status(claim.lo) == claim.status(claim.hi) == "reproduced"
    assert claim.status(claim.hi + 1e-9) == "differs"


def test_record_returns_a_ledger_row():
    ledger = claims.Recorder("01_design", data="simulated", display=False)
    row = ledger.record("design.bn_multilabel_share", 0.177, note="exact allocation")
    assert row["status"] == "reproduced" and row["notebook"] == "01_design" and row["data"] == "simulated"
    assert row["note"] == "exact allocation"
    assert ledger.table()["id"].tolist() == ["design.bn_multilabel_share"]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "many", None])
def test_record_rejects_values_that_are_not_finite_numbers(bad):
    ledger = claims.Recorder("x", display=False)
    with pytest.raises(claims.ClaimError, match="design.n_sentences"):
        ledger.record("design.n_sentences", bad)


def test_record_rejects_unknown_ids():
    with pytest.raises(claims.ClaimError, match="unknown claim id 'design.n_sentence'"):
        claims.Recorder("x", display=False).record("design.n_sentence", 1)


def test_record_accepts_booleans_and_numpy_numbers():
    import numpy as np

    ledger = claims.Recorder("x", display=False)
    assert ledger.record("leakage.top_changes", True)["reproduced"] == 1.0
    assert ledger.record("design.n_judgements", np.int64(6960))["status"] == "reproduced"


def _notebook_with(rows):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("ledger.record(...)")
    cell.outputs = [nbformat.v4.new_output("display_data", data={claims.CLAIM_MIME: row, "text/plain": "x"}) for row in rows]
    nb.cells = [nbformat.v4.new_markdown_cell("# t"), cell]
    return nb


def test_collect_reads_records_from_executed_notebooks(tmp_path):
    ledger = claims.Recorder("01_design", display=False)
    first = ledger.record("design.n_sentences", 17100)
    second = ledger.record("design.missing_cells", 3)
    nbformat.write(_notebook_with([first, second]), tmp_path / "01.ipynb")
    found = claims.collect([tmp_path / "01.ipynb"])
    assert set(found) == {"design.n_sentences", "design.missing_cells"}
    assert found["design.missing_cells"]["reproduced"] == 3


def test_ledger_lists_every_id_and_recomputes_status(tmp_path):
    stale = {"id": "design.missing_cells", "reproduced": 3, "status": "reproduced", "note": None, "notebook": "n", "data": "simulated"}
    rows = claims.ledger({"design.missing_cells": stale})
    assert [r["id"] for r in rows] == list(claims.registry())
    by_id = {r["id"]: r for r in rows}
    assert by_id["design.missing_cells"]["status"] == "differs"  # band [0, 0]: a stale status cannot survive
    assert by_id["design.n_sentences"]["status"] == "not-run"
    assert by_id["design.n_sentences"]["reproduced"] is None
    assert claims.summary(rows).to_dict() == {"reproduced": 0, "differs": 1, "not-run": len(rows) - 1}


def test_write_ledger_is_byte_stable_and_leaves_no_temporary_file(tmp_path):
    rows = claims.ledger({})
    a = claims.write_ledger(tmp_path / "a" / "claims.json", rows).read_bytes()
    b = claims.write_ledger(tmp_path / "b" / "claims.json", claims.ledger({})).read_bytes()
    assert a == b and a.endswith(b"\n")
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["claims.json"]
    assert json.loads(a)[0].keys() == set(claims.LEDGER_FIELDS)
    assert claims.read_ledger(tmp_path / "a" / "claims.json") == json.loads(a)


def test_write_ledger_keeps_the_old_file_when_writing_fails(tmp_path):
    path = claims.write_ledger(tmp_path / "claims.json", claims.ledger({}))
    before = path.read_bytes()
    bad = claims.ledger({})
    bad[0]["paper"] = object()  # not JSON-serialisable
    with pytest.raises(TypeError):
        claims.write_ledger(path, bad)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["claims.json"]


def test_paper_inconsistencies_carry_computed_arithmetic():
    table = claims.paper_inconsistencies().set_index("id")
    assert set(table.index) <= set(claims.registry())
    assert f"{1 - 0.2 ** 7:.7f}" in table.loc["leakage.expected_fraction_v8", "arithmetic"]
    assert "0.9999872" in table.loc["leakage.expected_fraction_v8", "arithmetic"]
    assert f"{294.7 / 2.6:.1f}" == "113.3" and "113.3" in table.loc["cost.grok_completion_tokens_bn", "arithmetic"]
    assert math.isclose(1 - 0.2 ** 4, 0.9984)


def test_compare_reports_what_moved_and_by_how_much():
    book = claims.ledger({"design.n_sentences": {"reproduced": 17100}, "agreement.alpha_ordinal": {"reproduced": 0.01}})
    rerun = claims.ledger({"design.n_sentences": {"reproduced": 17100}, "agreement.alpha_ordinal": {"reproduced": 0.08},
                           "dstudy.G": {"reproduced": 0.3}})
    table = claims.compare(book, rerun).set_index("id")
    assert list(table.index) == ["dstudy.G", "agreement.alpha_ordinal", "design.n_sentences"]
    assert table.loc["agreement.alpha_ordinal", "change"] == pytest.approx(0.07)
    assert table.loc["agreement.alpha_ordinal", "rerun_status"] == "differs" and table.loc["agreement.alpha_ordinal", "status_changed"]
    assert not table.loc["design.n_sentences", "moved"]
    assert table.loc["dstudy.G", "book_status"] == "not-run"
