"""`compendium audit --pairwise` and `--labels`: the statistics against outside implementations, the readers'
errors, and the command end to end on the vendored PandaLM and BANEmo.

Outside references: Bradley-Terry against ``choix`` (``opt_pairwise``, unregularised); nominal alpha against the
``krippendorff`` package on a reliability matrix built here independently; Fleiss' kappa against statsmodels'
``fleiss_kappa`` (the point and, replicate by replicate, the vectorised bootstrap); Cohen's kappa against a worked
example (Cohen 1960's definition computed by hand).
"""

from __future__ import annotations

import json

import choix
import krippendorff
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats import inter_rater

from compendium import cli
from compendium.audit import categorical
from compendium.data import corpora, pairwise, real
from compendium.data.errors import DataError
from compendium.stats import labels, preference


@pytest.fixture(scope="module")
def pandalm():
    return real.load_pandalm()


@pytest.fixture(scope="module")
def banemo():
    return corpora.load_banemo()[["item", "rater", "label"]]


def _choix_strengths(c: preference.Comparisons) -> np.ndarray:
    """choix's maximum-likelihood strengths, a tie fed as one win each way and a decisive judgement twice
    (the same likelihood as half a win each, scaled by 2)."""
    data = []
    for a, b, score in zip(c.a, c.b, c.score):
        data += [(a, b), (a, b)] if score == 1 else [(b, a), (b, a)] if score == 0 else [(a, b), (b, a)]
    t = choix.opt_pairwise(c.n_systems, data, alpha=0, tol=1e-12)
    return t - t.mean()


def test_bradley_terry_agrees_with_choix_on_pandalm(pandalm):
    c = preference.comparisons(pandalm)
    ours = preference.bradley_terry(c)
    assert list(ours.index) == sorted(set(pandalm["system_a"]) | set(pandalm["system_b"]))
    np.testing.assert_allclose(ours.to_numpy(), _choix_strengths(c), atol=1e-7)
    assert abs(ours.sum()) < 1e-9 and ours.idxmax() == "llama-7b"


def test_bradley_terry_agrees_with_choix_on_random_tournaments():
    rng = np.random.default_rng(3)
    for trial in range(5):
        k, n = 6, 400
        truth = rng.normal(0, 1, k)
        a = rng.integers(0, k, n)
        b = (a + rng.integers(1, k, n)) % k
        p = 1 / (1 + np.exp(truth[b] - truth[a]))
        u = rng.random(n)
        winner = np.where(u < 0.15, "tie", np.where(u < 0.15 + 0.85 * p, "a", "b"))
        frame = pd.DataFrame({"item": np.arange(n) // 2, "system_a": [f"s{i}" for i in a],
                              "system_b": [f"s{i}" for i in b], "rater": np.arange(n) % 2, "winner": winner})
        c = preference.comparisons(frame)
        np.testing.assert_allclose(preference.bradley_terry(c).to_numpy(), _choix_strengths(c), atol=1e-6)


def test_no_strengths_when_a_system_never_wins():
    frame = pd.DataFrame({"item": [1, 1, 2, 2], "system_a": ["x", "y", "x", "z"], "system_b": ["y", "z", "z", "y"],
                          "rater": ["r", "r", "r", "r"], "winner": ["a", "a", "a", "b"]})
    c = preference.comparisons(frame)
    assert not preference.estimable(c.matrix())  # x beats everyone: no finite maximum
    assert preference.bradley_terry(c).isna().all()
    frame.loc[0, "winner"] = "tie"  # x and y tie once, y beats z, z beats x: a cycle, strongly connected
    frame.loc[2, "winner"] = "b"
    assert preference.estimable(preference.comparisons(frame).matrix())


def test_win_rate_counts_a_tie_half():
    frame = pd.DataFrame({"item": [1, 2, 3], "system_a": ["x", "y", "x"], "system_b": ["y", "x", "y"],
                          "rater": ["r", "r", "r"], "winner": ["a", "tie", "b"]})
    wins = preference.win_matrix(frame)
    assert wins.loc["x", "y"] == 1.5 and wins.loc["y", "x"] == 1.5


def _independent_reliability_matrix(frame: pd.DataFrame) -> np.ndarray:
    """raters x units of 0 (the alphabetically first system won), 1 (the second), 2 (tie), NaN where not judged."""
    rows = {}
    for row in frame.itertuples():
        first, second = sorted([row.system_a, row.system_b])
        code = 2 if row.winner == "tie" else 0 if (row.winner == "a") == (row.system_a == first) else 1
        rows.setdefault(row.rater, {})[(row.item, first, second)] = code
    units = sorted({u for by in rows.values() for u in by})
    return np.array([[by.get(u, np.nan) for u in units] for by in rows.values()], dtype=float)


def test_nominal_alpha_on_the_outcomes_agrees_with_the_krippendorff_package(pandalm):
    # flip half the judgements' order: a rater who saw (y, x) and chose b agrees with one who saw (x, y) and chose a
    flipped = pandalm.copy()
    swap = (np.arange(len(flipped)) % 2 == 1)
    flipped.loc[swap, ["system_a", "system_b"]] = flipped.loc[swap, ["system_b", "system_a"]].to_numpy()
    flipped.loc[swap, "winner"] = flipped.loc[swap, "winner"].map({"a": "b", "b": "a", "tie": "tie"})
    expected = krippendorff.alpha(
        reliability_data=_independent_reliability_matrix(pandalm), level_of_measurement="nominal"
    )
    for frame in (pandalm, flipped):
        summary, _ = categorical.audit_pairwise(frame, n_boot=50, n_boot_raters=5, seed=1)
        assert summary["alpha_nominal"]["alpha"] == pytest.approx(expected, abs=1e-12)
        assert summary["alpha_nominal"]["ci"][0] < expected < summary["alpha_nominal"]["ci"][1]


def test_fleiss_kappa_agrees_with_statsmodels_and_its_bootstrap_replicate_by_replicate(banemo):
    counts = labels.label_counts(banemo).to_numpy()
    result = labels.fleiss_kappa(banemo, n_boot=20, seed=4)
    assert result["kappa"] == pytest.approx(inter_rater.fleiss_kappa(counts), abs=1e-12)
    rng = np.random.default_rng(0)
    sub = counts[:300]
    for _ in range(3):
        draw = rng.integers(0, len(sub), len(sub))
        weights = np.bincount(draw, minlength=len(sub)).astype(float)[None, :]
        assert labels._kappa_weighted(sub, weights)[0] == pytest.approx(inter_rater.fleiss_kappa(sub[draw]), abs=1e-12)
    assert result["ci_low"] < result["kappa"] < result["ci_high"]


def test_fleiss_kappa_says_why_when_items_have_different_numbers_of_raters():
    frame = pd.DataFrame({"item": [1, 1, 1, 2, 2], "rater": ["p", "q", "r", "p", "q"], "label": list("xxyxy")})
    result = labels.fleiss_kappa(frame, n_boot=10)
    assert result["kappa"] is None and "same number of annotators" in result["reason"]


@pytest.mark.parametrize("seed", range(6))
def test_cohens_kappa_and_its_interval_agree_with_statsmodels(seed):
    rng = np.random.default_rng(seed)
    k = 2 + seed % 4
    table = rng.integers(0, 30, (k, k)) + np.diag(rng.integers(5, 60, k))
    kappa, low, high = labels.cohens_kappa(table)
    reference = inter_rater.cohens_kappa(table)
    assert (kappa, low, high) == pytest.approx((reference.kappa, reference.kappa_low, reference.kappa_upp), abs=1e-12)
    assert low < kappa < high


def test_each_annotator_against_the_others_majority_with_cohens_kappa_by_hand():
    # rater p against the majority of q, r, s on 50 items: a 2x2 table [[20, 5], [10, 15]]:
    # observed agreement 0.7, chance 0.5 x 0.5 + 0.5 x 0.5 = 0.5, kappa (0.7 - 0.5) / 0.5 = 0.4
    cells = [("x", "x")] * 20 + [("x", "y")] * 5 + [("y", "x")] * 10 + [("y", "y")] * 15
    rows = []
    for item, (own, majority) in enumerate(cells):
        rows += [(item, "p", own), (item, "q", majority), (item, "r", majority), (item, "s", "z")]
    table = labels.against_others(pd.DataFrame(rows, columns=["item", "rater", "label"])).set_index("rater")
    assert table.loc["p", "compared"] == 50 and table.loc["p", "agreement"] == pytest.approx(0.7)
    assert table.loc["p", "kappa"] == pytest.approx(0.4)
    assert table.loc["p", "kappa_ci_low"] < 0.4 < table.loc["p", "kappa_ci_high"]
    # s's others (p, q, r) disagree 1-2 on 15 items and agree 3-0 on the rest: a majority always exists
    assert table.loc["s", "no_majority_among_others"] == 0 and table.loc["s", "agreement"] == 0


def test_confusion_counts_every_ordered_pair_of_annotators_on_an_item():
    frame = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "rater": list("pqrpqr"), "label": list("xxyzzz")})
    pairs = labels.confusion(frame)
    assert pairs.loc["x", "x"] == 2 and pairs.loc["x", "y"] == 2 and pairs.loc["y", "x"] == 2
    assert pairs.loc["z", "z"] == 6 and pairs.to_numpy().sum() == 2 * 3 * 2
    assert (pairs.to_numpy() == pairs.to_numpy().T).all()


def test_majority_changes_without_one_annotator():
    # item 1: x x y -- without p or q no majority (x vs y), without r still x; item 2: z z z never changes;
    # item 3: x y w has no majority to begin with
    frame = pd.DataFrame({"item": [1] * 3 + [2] * 3 + [3] * 3, "rater": list("pqr") * 3,
                          "label": list("xxy") + list("zzz") + list("xyw")})
    by, overall = labels.majority_changes(frame)
    assert by.set_index("left_out")["changed"].to_dict() == {"p": 1, "q": 1, "r": 0}
    assert overall["units_with_majority"] == 2 and overall["changed_by_some_annotator"] == 1


def _panel(preferences: dict[str, str | tuple[str, int]], n_items: int = 40) -> pd.DataFrame:
    """Each rater prefers their favourite system except on every k-th item (k = 5 unless given: four items in
    five), and splits the other pairs evenly; three systems."""
    rows = []
    for item in range(n_items):
        for a, b in (("x", "y"), ("y", "z"), ("x", "z")):
            for rater, liking in preferences.items():
                favourite, k = liking if isinstance(liking, tuple) else (liking, 5)
                if favourite in (a, b):
                    winner = "a" if (a == favourite) == bool(item % k) else "b"
                else:
                    winner = "a" if item % 2 else "b"
                rows.append((item, a, b, rater, winner))
    return pd.DataFrame(rows, columns=list(preference.COLUMNS))


def test_raters_for_a_stable_winner_and_leaving_one_out():
    agreed = preference.comparisons(_panel({"p": "x", "q": "x", "r": "x"}))
    table, needed = preference.raters_for_stable_winner(agreed, n_boot=50, seed=1)
    assert needed == 1 and (table["stability"] == 1).all()
    split = preference.comparisons(_panel({"p": "x", "q": "y", "r": "z", "s": "x"}))
    table, needed = preference.raters_for_stable_winner(split, n_boot=200, seed=1)
    assert table["stability"].iloc[0] < 0.7 and (needed is None or needed > 4)  # one rater names their own favourite
    # two raters like y (four in five), one likes x more strongly (nine in ten): y wins, and without either of
    # y's raters x does
    uneven = preference.comparisons(_panel({"p": ("x", 10), "q": "y", "r": "y"}))
    loro = preference.leave_one_rater_out(uneven).set_index("left_out")
    assert loro["winner"].to_dict() == {"p": "y", "q": "x", "r": "x"}
    assert loro["winner_changes"].to_dict() == {"p": False, "q": True, "r": True}
    assert preference.per_rater(uneven).set_index("rater")["winner"].to_dict() == {"p": "x", "q": "y", "r": "y"}


def test_systems_against_rater_x_system_f_agrees_with_statsmodels_anova_rm():
    from statsmodels.stats.anova import AnovaRM

    c = preference.comparisons(_panel({"p": ("x", 10), "q": "y", "r": ("y", 3), "s": ("x", 4)}, n_items=30))
    spread = preference.rater_system_spread(c, n_boot=5)
    strengths = pd.concat([preference.bradley_terry(c, weights=(c.rater == r).astype(float)).rename(name)
                           for r, name in enumerate(c.raters)], axis=1)
    long = strengths.rename_axis("system").reset_index().melt(id_vars="system", var_name="rater", value_name="t")
    row = AnovaRM(long, "t", "rater", within=["system"]).fit().anova_table.iloc[0]
    assert spread["F"] == pytest.approx(row["F Value"], rel=1e-9)
    assert spread["df"] == [row["Num DF"], row["Den DF"]] and spread["p"] == pytest.approx(row["Pr > F"], rel=1e-9)


def test_rater_disagreement_exceeds_the_system_spread_only_when_raters_disagree():
    split = preference.rater_system_spread(preference.comparisons(_panel({"p": "x", "q": "y", "r": "z"})), n_boot=30)
    assert split["rater_x_system_var"] > split["system_var"] and split["difference_ci"][0] > 0
    agreed = preference.rater_system_spread(preference.comparisons(_panel({"p": "x", "q": "x", "r": "x"})), n_boot=30)
    assert agreed["rater_x_system_var"] < agreed["system_var"] and agreed["difference_ci"][1] < 0


# --------------------------------------------------------------------------- the readers' errors
_PAIRWISE_HEADER = "item,system_a,system_b,rater,winner\n"
_GOOD = "1,x,y,p,a\n1,x,y,q,b\n2,y,x,p,tie\n2,x,y,q,a\n"


@pytest.mark.parametrize("rows, column, line, value", [
    ("1,x,y,p,a\n1,x,y,q,first\n2,y,x,p,tie\n2,x,y,q,a\n", "winner", 3, "'first'"),  # unknown winner code
    ("1,x,y,p,a\n1,x,x,q,b\n2,y,x,p,tie\n2,x,y,q,a\n", "system_a, system_b", 3, "'x'"),  # a self-comparison
    (_GOOD + "3,x,y,lone,a\n", "rater", 6, "'lone'"),  # a rater with one judgement
    ("1,x,y,p,a\n1,x,y,,b\n2,y,x,p,tie\n2,x,y,q,a\n", "rater", 3, "''"),  # a missing rater
])
def test_pairwise_bad_input_names_file_column_line_and_value_and_writes_nothing(
    tmp_path, capsys, rows, column, line, value
):
    path = tmp_path / "prefs.csv"
    path.write_text(_PAIRWISE_HEADER + rows, encoding="utf-8")
    assert cli.main(["audit", "--pairwise", str(path), "--out", str(tmp_path / "report"), "--n-boot", "20"]) == 2
    message = capsys.readouterr().err
    assert str(path) in message and f"column {column!r}" in message and f"line {line} {value}" in message
    assert not (tmp_path / "report").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["prefs.csv"]


def test_pairwise_repeated_comparison_in_either_order_is_refused(tmp_path):
    path = tmp_path / "prefs.csv"
    path.write_text(_PAIRWISE_HEADER + _GOOD + "1,y,x,p,b\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"\('1', 'x vs y', 'p'\) on lines 2, 6.*judges each pair"):
        pairwise.read_pairwise(path)


@pytest.mark.parametrize("rows, column, line, value", [
    ("1,p,joy\n1,q, \n2,p,anger\n2,q,joy\n", "label", 3, "' '"),  # an empty label
    ("1,p,joy\n1,q,joy\n2,p,anger\n2,q,joy\n3,lone,joy\n", "rater", 6, "'lone'"),  # a rater with one label
])
def test_labels_bad_input_names_file_column_line_and_value_and_writes_nothing(
    tmp_path, capsys, rows, column, line, value
):
    path = tmp_path / "labels.csv"
    path.write_text("item,rater,label\n" + rows, encoding="utf-8")
    assert cli.main(["audit", "--labels", str(path), "--out", str(tmp_path / "report"), "--n-boot", "20"]) == 2
    message = capsys.readouterr().err
    assert str(path) in message and f"column {column!r}" in message and f"line {line} {value}" in message
    assert not (tmp_path / "report").exists()


def test_mapped_column_names_and_a_missing_column_names_the_options(tmp_path):
    path = tmp_path / "prefs.tsv"
    path.write_text(
        "q\tleft\tright\tjudge\tchoice\n" + _GOOD.replace(",", "\t").replace("1\t", "1\t", 1), encoding="utf-8"
    )
    frame = pairwise.read_pairwise(path, item="q", system_a="left", system_b="right", rater="judge", winner="choice")
    assert frame["choice"].tolist() == ["a", "b", "tie", "a"]
    with pytest.raises(DataError, match=r"no item column 'item'.*--item, --system-a, --system-b, --rater, --winner"):
        pairwise.read_pairwise(path)


def test_one_table_at_a_time(tmp_path, capsys):
    assert cli.main(["audit", "r.csv", "--pairwise", "p.csv", "--out", str(tmp_path / "o")]) == 2
    assert "give one table" in capsys.readouterr().err
    assert cli.main(["audit", "--labels", "l.csv", "--lengths", "x.csv", "--out", str(tmp_path / "o")]) == 2
    assert "--lengths applies to a ratings file" in capsys.readouterr().err


# --------------------------------------------------------------------------- end to end
def test_audit_pairwise_on_pandalm_writes_html_json_and_checklist(tmp_path, pandalm, capsys):
    path = tmp_path / "pandalm.csv"
    pandalm.to_csv(path, index=False)
    assert cli.main(["audit", "--pairwise", str(path), "--out", str(tmp_path / "report"), "--n-boot", "200"]) == 0
    assert "winner: llama-7b" in capsys.readouterr().out
    report = tmp_path / "report"
    assert sorted(p.name for p in report.iterdir()) == ["audit.html", "audit.json", "checklist.csv"]
    summary = json.loads((report / "audit.json").read_text(encoding="utf-8"))
    assert (summary["n_items"], summary["n_systems"], summary["n_raters"]) == (999, 5, 3)
    assert summary["order"][0] == "llama-7b" and summary["loro"]["n_panels"] == 3
    kappa = summary["fleiss_kappa"]
    assert kappa["kappa"] == pytest.approx(inter_rater.fleiss_kappa(
        labels.label_counts(preference.outcome_units(preference.comparisons(pandalm)), unit="unit").to_numpy()))
    systems = pd.DataFrame(summary["systems"])
    assert (systems["strength_ci_low"] < systems["strength"]).all() and (
        systems["strength"] < systems["strength_ci_high"]
    ).all()
    checklist = pd.read_csv(report / "checklist.csv")
    assert list(checklist.columns) == ["id", "recommendation", "status", "reason"] and len(checklist) == 6
    assert "llama-7b" in (report / "audit.html").read_text(encoding="utf-8")


def test_audit_labels_on_banemo_writes_html_json_and_checklist(tmp_path, banemo):
    path = tmp_path / "banemo.csv"
    banemo.to_csv(path, index=False)
    assert cli.main(["audit", "--labels", str(path), "--out", str(tmp_path / "report"), "--n-boot", "100"]) == 0
    summary = json.loads((tmp_path / "report" / "audit.json").read_text(encoding="utf-8"))
    assert (summary["n_items"], summary["n_raters"], len(summary["categories"])) == (14999, 3, 8)
    assert summary["alpha_nominal"]["alpha"] == pytest.approx(krippendorff.alpha(
        reliability_data=banemo.assign(code=pd.factorize(banemo["label"])[0]).pivot(
            index="rater", columns="item", values="code").to_numpy(dtype=float),
        level_of_measurement="nominal"), abs=1e-12)
    assert len(summary["against_others"]) == 3 and summary["majority_changes"]["changed_by_some_annotator"] > 0
    page = (tmp_path / "report" / "audit.html").read_text(encoding="utf-8")
    assert "Confusion between annotators" in page and "Sourov" in page


def test_names_from_the_data_stay_text_in_the_page_and_the_csv(tmp_path):
    evil = '<script>alert(1)</script>'  # a rater's name: shown in the per-rater tables
    formula = '=HYPERLINK("http://x")'  # the winning system's name: quoted in the checklist's reasons
    rows = [(i, formula, "y", rater, "a" if i % 4 else "b") for i in range(24) for rater in (evil, "r2")]
    path = tmp_path / "prefs.csv"
    pd.DataFrame(rows, columns=list(preference.COLUMNS)).to_csv(path, index=False)
    assert cli.main(["audit", "--pairwise", str(path), "--out", str(tmp_path / "report"), "--n-boot", "30"]) == 0
    page = (tmp_path / "report" / "audit.html").read_text(encoding="utf-8")
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert categorical.check_inert(page) == page
    checklist = pd.read_csv(tmp_path / "report" / "checklist.csv", dtype=str)
    reasons = " ".join(checklist["reason"])
    assert formula in reasons and not any(cell.startswith("=") for cell in checklist.to_numpy().ravel())


# --------------------------------------------------------------------------- chapter 10
def test_chapter_10_rows_and_section4_checks_for_preferences_and_labels():
    from compendium.analyses.real import DOES_NOT_HOLD, HOLDS, NOT_TESTABLE
    from compendium.analyses import reliability

    def verdicts(preferences):
        summary, _ = categorical.audit_pairwise(_panel(preferences), n_boot=60, n_boot_raters=20, seed=2)
        row = reliability.pairwise_row("constructed (pairwise)", summary)
        checks = reliability.section4_checks([row])
        assert len(checks) == 5 + 5 and all("pairwise preferences" in c["data"] for c in checks[:5])
        return row, {c["check"].rsplit(".", 1)[0]: c["verdict"] for c in checks if c["check"].count(".") == 2}

    row, agreed = verdicts({"p": "x", "q": "x", "r": "x"})
    assert agreed == {"anova.real_random_raters": DOES_NOT_HOLD, "vc.real_raters_exceed_systems": NOT_TESTABLE,
                      "loao.real_winner_changes": DOES_NOT_HOLD, "loao.real_winner_changes_some": DOES_NOT_HOLD,
                      "dstudy.real_three_raters_below_g80": NOT_TESTABLE}
    row, uneven = verdicts({"p": ("x", 10), "q": "y", "r": "y"})
    assert (row["loao_changes"], row["loao_panels"]) == (2, 3)
    assert uneven["loao.real_winner_changes"] == DOES_NOT_HOLD and uneven["loao.real_winner_changes_some"] == HOLDS
    labelled, _ = categorical.audit_labels(pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "rater": list("pqrpqr"),
                                                         "label": list("xxyzzz")}), n_boot=20)
    label_row = reliability.labels_row("constructed (labels)", labelled)
    assert reliability.section4_checks([label_row]) == []  # no systems: none of section 4's claims applies
    table = reliability.cross_benchmark_table([row, label_row])
    assert table.loc["constructed (pairwise)", "items × systems × raters"] == "40 × 3 × 3 (pairwise)"
    assert "majority label changes on 50.0% of items" in table.loc["constructed (labels)"].iloc[-1]
