"""The audit's Study: a table is checked once and pivoted once, whatever the audit computes from it.

Every statistic of the audit takes ``study.ratings`` (:class:`compendium.stats.tidy.Ratings`): the tests count the
column checks, the validations and the pivots that a whole audit runs, and check that a study and its table give the
same audit.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from compendium.audit import core as audit
from compendium.audit import study as study_module
from compendium.data import judgements as judgements_module
from compendium.simulate.crossed import simulate_crossed, simulate_incomplete
from compendium.stats import agreement, diagnostics, gstudy, gtheory, panels, tidy

N_BOOT = 60


class Counter:
    def __init__(self):
        self.calls: dict[str, int] = {}

    def wrap(self, monkeypatch, module, name: str, label: str):
        original = getattr(module, name)

        def counted(*args, **kwargs):
            self.calls[label] = self.calls.get(label, 0) + 1
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)


@pytest.fixture
def counter(monkeypatch):
    count = Counter()
    # every module's own reference to the helpers (they import them by name)
    for module in (tidy, agreement, gtheory, panels, diagnostics):
        if hasattr(module, "_check_columns"):
            count.wrap(monkeypatch, module, "_check_columns", "column checks")
        if hasattr(module, "_no_missing_keys"):
            count.wrap(monkeypatch, module, "_no_missing_keys", "key checks")
    for module in (tidy, agreement):
        count.wrap(monkeypatch, module, "_pivot", "pivots by output")
    count.wrap(monkeypatch, tidy, "_cube", "cubes")
    count.wrap(monkeypatch, diagnostics, "_tidy_cube", "cubes")
    for module in (judgements_module, study_module):
        count.wrap(monkeypatch, module, "validate_table", "validations")
    return count


def _table(design: str) -> pd.DataFrame:
    if design == "complete":
        return simulate_crossed(20, 3, 4, seed=5, scale=(1, 5))
    return simulate_incomplete(24, 3, 6, raters_per_item=3, seed=5, scale=(1, 5))


@pytest.mark.parametrize("design", ["complete", "incomplete"])
def test_an_audit_checks_its_table_once_and_pivots_it_once(design, counter, tmp_path):
    table = _table(design)
    path = tmp_path / "ratings.csv"
    table.to_csv(path, index=False)
    study = audit.read_study(path)
    assert counter.calls.get("validations") == 1  # the reader's
    counter.calls.clear()
    result = audit.run_audit(study, n_boot=N_BOOT, n_boot_g=20, seed=1)
    assert result.summary["design_complete"] is (design == "complete")
    calls = counter.calls
    assert (
        calls.get("validations", 0) == 0 and calls.get("column checks", 0) == 0 and calls.get("key checks", 0) == 0
    ), calls
    assert calls.get("pivots by output", 0) == 1, calls  # raters x outputs, shared by alpha, r, ICC, ...
    # the item x system x rater cube in order of first appearance, and (complete designs: the ANOVA's) sorted
    assert calls.get("cubes", 0) == (2 if design == "complete" else 1), calls
    assert study.ratings.pivots == 1 + calls["cubes"]


def test_without_a_study_the_same_statistics_check_their_table_each_time(counter):
    """The control: called on a DataFrame, the statistics check it themselves (the count above can fail)."""
    table = _table("complete")
    agreement.rater_summary(table)
    agreement.pairwise_pearson(table)
    gtheory.anova_table(table)
    assert counter.calls["column checks"] >= 3 and counter.calls["pivots by output"] == 1


@pytest.mark.parametrize("design", ["complete", "incomplete"])
def test_a_study_and_its_table_give_the_same_audit(design):
    table = _table(design)
    from_table = audit.run_audit(table, n_boot=N_BOOT, n_boot_g=20, seed=2)
    from_study = audit.run_audit(audit.Study.from_frame(table), n_boot=N_BOOT, n_boot_g=20, seed=2)
    assert json.dumps(from_table.summary, sort_keys=True) == json.dumps(from_study.summary, sort_keys=True)


def test_the_study_holds_the_design_facts_and_the_cube():
    table = _table("incomplete")
    study = audit.Study.from_frame(table)
    assert not study.complete and study.design.n_missing > 0
    assert study.scale == {"min": float(table["rating"].min()), "max": float(table["rating"].max()),
                           "n_values": int(table["rating"].nunique())}
    cube, items, systems, raters = study.ratings.cube()
    assert cube.shape == (study.design.n_items, study.design.n_systems, study.design.n_raters)
    assert int(np.isnan(cube).sum()) == study.design.n_missing
    row = table.iloc[7]
    assert (
        cube[items.get_loc(row["sentence_id"]), systems.get_loc(row["system"]), raters.get_loc(row["annotator"])]
        == row["rating"]
    )


def test_a_statistic_refuses_column_names_the_study_was_not_built_with():
    study = audit.Study.from_frame(_table("complete"))
    with pytest.raises(ValueError, match="not roles of these ratings"):
        agreement.rater_summary(study.ratings, rater="judge")


def test_a_study_from_a_bad_table_names_the_column_and_rows():
    table = _table("complete")
    table.loc[[3, 8], "annotator"] = None
    with pytest.raises(audit.DataError, match="annotator"):
        audit.Study.from_frame(table)


def test_the_g_study_reads_the_checked_ratings():
    table = _table("incomplete")
    ratings = audit.Study.from_frame(table).ratings
    a, b = gstudy.fit_gstudy(table), gstudy.fit_gstudy(ratings)
    assert np.array_equal(a.fit.beta, b.fit.beta) and a.fit.deviance == b.fit.deviance
