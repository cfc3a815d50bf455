"""The claims ledger: registry, recording, collection from notebooks, aggregation."""

import hashlib
import json
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from compendium.analyses.ledger import claims

#: The paper's registry in the shared folder beside the checkout (../shared, or further up for a worktree).
SHARED_REGISTRY = next(
    (p / "shared" / "paper" / "claims.csv" for p in Path(__file__).resolve().parents[1:]
     if (p / "shared" / "paper" / "claims.csv").exists()),
    Path(__file__).resolve().parents[2] / "shared" / "paper" / "claims.csv",
)


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


#: SHA-256 of the paper's registry (with its ``basis`` column) as carried into the package. A clone
#: without ../shared cannot drift silently: changing the copy means changing this pin, in review.
REGISTRY_SHA256 = "eb5708ad8a6bff4f4b8fcc8ac88e31364071c81302bc2d96b1b2f82153d332e6"


def test_registry_copy_is_pinned():
    assert hashlib.sha256(claims.REGISTRY_FILE.read_bytes()).hexdigest() == REGISTRY_SHA256


def test_every_claim_has_a_basis():
    registry = claims.registry()
    assert {c.basis for c in registry.values()} == set(claims.BASES)
    assert registry["design.n_sentences"].basis == "design"
    assert registry["leakage.expected_fraction_v8"].basis == "arithmetic"
    assert registry["dstudy.G"].basis == "data"


def test_a_bad_basis_names_the_file_the_column_and_the_row(tmp_path):
    path = tmp_path / "claims.csv"
    path.write_text("id,section,priority,paper,lo,hi,what,basis\na.b,3,detail,1,0,2,x,data\nc.d,3,detail,1,0,2,y,guess\n")
    with pytest.raises(claims.ClaimError, match=r"claims.csv: column 'basis' .*row 3 \(c.d: 'guess'\)"):
        claims.registry(path)


def test_calibration_is_targeted_free_or_not_applicable():
    record = pd.DataFrame({"parameter": ["p.a", "p.b"], "claim": ["dstudy.G", "dstudy.G"], "how": ["targets"] * 2})
    calibration = claims.calibration_of(record=record)
    assert calibration["dstudy.G"] == ("targeted", "p.a, p.b")
    assert calibration["agreement.icc_2_k"] == ("free", "")
    assert calibration["design.n_sentences"][0] == "n.a."
    assert calibration["leakage.expected_fraction_v8"][0] == "n.a."


def test_ledger_rows_carry_basis_calibration_and_data_seed_share():
    record = pd.DataFrame({"parameter": ["p"], "claim": ["dstudy.G"], "how": ["targets"]})
    rows = {r["id"]: r for r in claims.ledger({"dstudy.G": {"reproduced": 0.3}}, record=record,
                                              data_seed_share={"dstudy.G": 0.7})}
    assert rows["dstudy.G"]["calibration"] == "targeted" and rows["dstudy.G"]["data_seed_share_in_band"] == 0.7
    assert (
        rows["agreement.icc_2_k"]["calibration"] == "free"
        and rows["agreement.icc_2_k"]["data_seed_share_in_band"] is None
    )
    assert claims.group_of(rows["dstudy.G"]) == "targeted" and claims.group_of(rows["design.n_sentences"]) == "design"


def test_summary_counts_groups_and_never_a_single_total():
    rows = claims.ledger({"design.n_sentences": {"reproduced": 17100}, "dstudy.G": {"reproduced": 5.0}})
    summary = claims.ledger_summary(rows)
    assert list(summary["groups"]) == ["free", "targeted", "design", "arithmetic"]
    assert summary["groups"]["design"]["reproduced"] == 1
    assert summary["groups"]["targeted"]["differs"] == 1  # dstudy.G is targeted by the rating parameters
    assert sum(g["claims"] for g in summary["groups"].values()) == len(claims.registry())
    assert summary["paper_checks"]["inconsistent"] > 0
    line = claims.summary_line(rows)
    assert "free data claims:" in line and " of 128" not in line and "reproduced" not in line


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
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={claims.CLAIM_MIME: row, "text/plain": "x"}) for row in rows
    ]
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
    stale = {
        "id": "design.missing_cells",
        "reproduced": 3,
        "status": "reproduced",
        "note": None,
        "notebook": "n",
        "data": "simulated",
    }
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
    document = json.loads(a)
    assert list(document) == ["summary", "claims"]
    assert document["claims"][0].keys() == set(claims.BOOK_FIELDS)
    assert claims.read_ledger(tmp_path / "a" / "claims.json") == document["claims"]
    assert claims.read_summary(tmp_path / "a" / "claims.json") == document["summary"]


def test_write_ledger_keeps_the_old_file_when_writing_fails(tmp_path):
    path = claims.write_ledger(tmp_path / "claims.json", claims.ledger({}))
    before = path.read_bytes()
    bad = claims.ledger({})
    bad[0]["paper"] = object()  # not JSON-serialisable
    with pytest.raises(TypeError):
        claims.write_ledger(path, bad)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["claims.json"]


def test_compare_reports_what_moved_and_by_how_much():
    book = claims.ledger({"design.n_sentences": {"reproduced": 17100}, "agreement.alpha_ordinal": {"reproduced": 0.01}})
    rerun = claims.ledger({"design.n_sentences": {"reproduced": 17100}, "agreement.alpha_ordinal": {"reproduced": 0.08},
                           "dstudy.G": {"reproduced": 0.3}})
    table = claims.compare(book, rerun).set_index("id")
    assert list(table.index) == ["dstudy.G", "agreement.alpha_ordinal", "design.n_sentences"]
    assert table.loc["agreement.alpha_ordinal", "change"] == pytest.approx(0.07)
    assert (
        table.loc["agreement.alpha_ordinal", "rerun_status"] == "differs"
        and table.loc["agreement.alpha_ordinal", "status_changed"]
    )
    assert not table.loc["design.n_sentences", "moved"]
    assert table.loc["dstudy.G", "book_status"] == "not-run"


# --- the calibration record of data/simulation.yml ----------------------------------------


def test_every_target_of_the_simulation_is_a_registry_id():
    """A `targets:` or `copied_from:` id that is not in the registry is a typo that would hide a targeted claim."""
    record = claims.calibration_record()
    unknown = sorted(set(record["claim"]) - set(claims.registry()))
    assert not unknown, f"data/simulation.yml names claims the registry does not have: {unknown}"
    assert len(record) > 100 and set(record["how"]) == {"targets", "copied_from"}


def test_the_interaction_matrix_says_it_was_copied_from_reported_results():
    record = claims.calibration_record()
    copied = record[(record["parameter"] == "ratings.interaction") & (record["how"] == "copied_from")]
    assert {"loao.winner_changes", "loao.kendall_min", "anova.ms_system_x_rater"} <= set(copied["claim"])
    assert claims.calibration_of()["loao.kendall_min"][0] == "targeted"


def test_annotations_change_no_simulated_byte():
    """The simulator reads only `value`: an annotated mapping and its bare values load identically,
    with the same digest, and the shipped file's digest is the one data/MANIFEST was made from."""
    from compendium import simulate

    bare = {"seed": 1, "a": {"b": 0.5, "c": [1, 2]}}
    annotated = {"seed": 1, "a": {"b": {"value": 0.5, "targets": ["dstudy.G"]},
                                  "c": {"value": [1, 2], "copied_from": "Table 2", "targets": ["x.y"]}}}
    assert simulate.load_parameters(bare) == simulate.load_parameters(annotated)
    header, _ = simulate.read_manifest(simulate.DEFAULT_PARAMETERS.parent)
    assert header["parameters_sha256"] == simulate.load_parameters()[1]
    table = simulate.calibration(annotated)
    assert table.to_dict("records") == [
        {"parameter": "a.b", "claim": "dstudy.G", "how": "targets"},
        {"parameter": "a.c", "claim": "x.y", "how": "targets"},
        {"parameter": "a.c", "claim": "Table 2", "how": "copied_from"},
    ]


def test_a_malformed_target_list_names_the_parameter():
    from compendium import simulate

    with pytest.raises(ValueError, match=r"a.b.targets: expected a claim id or a list"):
        simulate.calibration({"a": {"b": {"value": 1, "targets": [1, 2]}}})


def test_recording_a_claim_again_replaces_the_earlier_record():
    ledger = claims.Recorder("01_design", display=False)
    ledger.record("design.n_sentences", 1)
    ledger.record("design.n_sentences", 17100, note="again")
    assert list(ledger.records) == ["design.n_sentences"] and ledger.records["design.n_sentences"]["note"] == "again"
    assert ledger.table()["reproduced"].tolist() == [17100.0]


@pytest.mark.parametrize(("value", "message"), [("many", r"claim 'x': value 'many' is not a number"),
                                                (float("inf"), r"claim 'x': value inf is not finite")])
def test_finite_number_names_the_value_and_what_it_is(value, message):
    with pytest.raises(claims.ClaimError, match=f"^{message}$"):
        claims.finite_number(value, "claim 'x': value", claims.ClaimError)
    assert claims.finite_number("2.5", "v") == 2.5


@pytest.mark.parametrize("value", [0.6185272222, 17100, "a text", float("nan")])
def test_glue_writes_what_myst_nb_glue_writes(monkeypatch, value):
    """claims.glue stands in for myst_nb.glue(name, value, display=False) in the chapters' kernels: the same
    display call (bundle, raw, metadata) for numbers and text, so the book's {glue} roles read it alike."""
    import IPython.display
    import myst_nb.ext.glue as library

    calls = []

    def capture(*args, **kwargs):
        calls.append((args, kwargs))

    monkeypatch.setattr(IPython.display, "display", capture)
    monkeypatch.setattr(library, "ipy_display", capture)
    library.glue("ead.bn_max", value, display=False)
    claims.glue("ead.bn_max", value)
    assert len(calls) == 2 and calls[0] == calls[1]
    (bundle,), options = calls[1]
    assert options["raw"] is True and options["metadata"]["scrapbook"] == {"name": "ead.bn_max",
                                                                           "mime_prefix": library.GLUE_PREFIX}
    assert bundle and all(k.startswith(claims.GLUE_PREFIX) for k in bundle)
