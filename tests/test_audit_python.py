"""``compendium.audit.audit``: the audit of a DataFrame in a notebook (issue 71), the same as the command line's."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from compendium import cli
from compendium.audit import Audit, audit
from compendium.data.errors import DataError
from compendium.simulate.crossed import simulate_crossed


@pytest.fixture(scope="module")
def ratings():
    data = simulate_crossed(10, 3, 3, seed=4, scale=(1, 5))
    return data.rename(columns={"sentence_id": "item", "annotator": "rater"})


def test_a_dataframe_audits_as_its_file_does_on_the_command_line(ratings, tmp_path):
    """The reference is the command line on the same table written as CSV: the same summary, key for key."""
    mine = audit(ratings, n_boot=50)
    assert isinstance(mine, Audit) and mine.kind == "rated"
    path = tmp_path / "ratings.csv"
    ratings.to_csv(path, index=False)
    assert cli.main(["audit", str(path), "--format", "json", "--n-boot", "50", "--out", str(tmp_path / "o")]) == 0
    theirs = json.loads((tmp_path / "o" / "audit.json").read_text(encoding="utf-8"))
    ours = json.loads(json.dumps(mine.summary, default=str))
    differ = [k for k in theirs if k not in ("source",) and json.dumps(ours.get(k), default=str)
              != json.dumps(theirs[k], default=str)]
    assert not differ, differ
    assert set(mine.tables) >= {"alpha", "anova", "components", "loao"}
    assert all(isinstance(t, pd.DataFrame) for t in mine.tables.values())
    page = mine.to_html(tmp_path / "audit.html").read_text(encoding="utf-8")
    # the command line's page: its sections and figures (tests/test_audit_page.py)
    assert "Audit of a rating study" in page and "The checklist (paper section 10)" in page and "<svg" in page


def test_common_names_are_recognised_with_a_warning_and_bad_input_is_named(ratings):
    paper = ratings.rename(columns={"item": "sentence_id", "rater": "annotator"})
    with pytest.warns(UserWarning, match="reading 'annotator' as the rater column"):
        result = audit(paper, n_boot=20)
    assert result.columns["item"] == "sentence_id"
    broken = ratings.astype({"rating": object})
    broken.loc[3, "rating"] = "good"
    with pytest.raises(DataError, match="rating") as error:
        audit(broken, n_boot=20)
    assert error.value.column == "rating"


def test_preferences_and_labels_audit_in_memory_and_write_an_inert_page(tmp_path):
    rows = [(i, a, b, r, w) for i in range(6) for a, b in (("m1", "m2"), ("m2", "m3"), ("m1", "m3"))
            for r, w in (("x", "a"), ("y", "b" if i % 2 else "a"), ("<script>z</script>", "tie" if i % 3 else "a"))]
    prefs = pd.DataFrame(rows, columns=["item", "system_a", "system_b", "rater", "winner"])
    result = audit(prefs, pairwise=True, n_boot=20)
    assert result.kind == "pairwise" and result.summary["n_comparisons"] == 18
    page = result.to_html(tmp_path / "audit.html").read_text(encoding="utf-8")
    assert "<script>z" not in page and "&lt;script&gt;z" in page  # a name from the data is text, never markup
    assert "Bradley" in result._repr_html_() and "<html" not in result._repr_html_()
    labels = pd.DataFrame([(i, r, "ab"[(i + len(r)) % 2]) for i in range(10) for r in ("x", "yy", "zzz")],
                          columns=["item", "rater", "label"])
    assert audit(labels, labels=True, n_boot=20).summary["n_items"] == 10
    assert "winner" in str(result)  # the terminal's lines
    with pytest.raises(ValueError, match="not both"):
        audit(prefs, pairwise=True, labels=True)
