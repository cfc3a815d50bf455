"""The audit of a user's own crossed rating study (``compendium audit``).

* On the shipped ratings the summary equals, key by key and exactly, what the
  reliability chapter computes (same functions, same parameters), whether the
  ratings come from the loader or from ``data/ratings.csv`` through the
  audit's own reader.
* On a small hand-made crossed table the ANOVA, F tests, variance components,
  G and the leave-one-out leaderboards equal values computed here in exact
  rational arithmetic (and the ANOVA equals statsmodels' ``anova_lm``).
* Every bad input gets its own message naming the file, column and rows.
* With missing cells alpha and the REML statistics are reported, ICC and the F tests are null with their reasons.
* The checklist statuses on constructed cases.
* The command end to end, once, on a small dataset.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from fractions import Fraction
from itertools import product
from pathlib import Path

import jupytext
import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium.audit import checklist as audit_checklist
from compendium.audit import conventions, wording
from compendium.audit import core as audit
from compendium.build import runner
from compendium.stats import gstudy
from compendium.simulate.crossed import simulate_crossed
from compendium.stats import agreement, gtheory, panels
from compendium.data.errors import DataError
from compendium.data.benchmark import load_benchmark
from compendium.simulate.crossed import simulate_incomplete

ROOT = runner.ROOT
UNIT = ["sentence_id", "system"]
#: Replicates of G's parametric bootstrap on incomplete designs where a test needs the interval to exist, not to be
#: precise (each is a REML refit; the interval's coverage is tested in tests/test_gstudy.py with the default 200).
N_BOOT_G = 20


def chapter_parameters(name: str) -> dict:
    """The values of a chapter's ``parameters`` cell."""
    nb = jupytext.read(ROOT / "notebooks" / f"{name}.py")
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    scope: dict = {}
    exec(cell.source, scope)
    return scope


def roundtrip(summary: dict, tmp_path: Path) -> dict:
    path = audit.write_json(summary, tmp_path / "audit.json")
    return json.loads(path.read_text(encoding="utf-8"))


# ----------------------------------------------------------- the shipped ratings
@pytest.fixture(scope="module")
def chapter2():
    """The ratings exactly as chapter 2 prepares them, and its parameters."""
    params = chapter_parameters("02_reliability")
    try:
        benchmark = load_benchmark(params["data_dir"], embeddings=False)
    except DataError as error:
        pytest.fail(f"the shipped data does not load ({error}); run `compendium simulate`")
    ratings = benchmark.ratings[~benchmark.ratings["annotator"].isin(params["exclude_annotators"])]
    ratings = ratings.assign(annotator=ratings["annotator"].cat.remove_unused_categories())
    return ratings, params


def expected_chapter_numbers(ratings: pd.DataFrame, seed: int, n_boot: int) -> dict:
    """Section 4 as notebooks/02_reliability.py computes it, straight from compendium.stats."""
    alpha = agreement.alpha_bootstrap_ci(ratings, unit=UNIT, level="ordinal", n_boot=n_boot, seed=seed)
    iccs = agreement.icc(ratings, target=UNIT)
    anova = gtheory.anova_table(ratings)
    tests = gtheory.system_f_tests(anova)
    components = gtheory.variance_components(anova)
    unbiased = gtheory.variance_components(anova, system_variance="corrected")
    n_items, n_raters = ratings["sentence_id"].nunique(), ratings["annotator"].nunique()
    loao = panels.leave_one_annotator_out(ratings)
    winners = loao.groupby("panel")["winner"].first()
    return {
        "n_items": n_items,
        "n_systems": ratings["system"].nunique(),
        "n_raters": n_raters,
        "alpha": alpha["alpha"].iloc[0],
        "alpha_ci": [alpha["ci_low"].iloc[0], alpha["ci_high"].iloc[0]],
        "icc_2_1": iccs.loc["ICC(2,1)", "ICC"],
        "icc_2_k": iccs.loc["ICC(2,k)", "ICC"],
        "F_vs_residual": tests.loc["residual", "F"],
        "p_vs_residual": tests.loc["residual", "pval"],
        "F_vs_interaction": tests.loc["system:annotator", "F"],
        "p_vs_interaction": tests.loc["system:annotator", "pval"],
        "variance_components": {c: components.loc[c].to_dict() for c in components.index},
        "G": gtheory.g_coefficient(unbiased, n_items, n_raters),
        "raters_for_G80": gtheory.raters_needed(unbiased, n_items, 0.8),
        "raters_for_G90": gtheory.raters_needed(unbiased, n_items, 0.9),
        "G_observed": gtheory.g_coefficient(components, n_items, n_raters),
        "raters_for_G80_observed": gtheory.raters_needed(components, n_items, 0.8),
        "raters_for_G90_observed": gtheory.raters_needed(components, n_items, 0.9),
        "loao": loao,
        "winner_changes": int((winners.drop("all") != winners["all"]).sum()),
    }


def assert_matches_chapter(summary: dict, expected: dict) -> None:
    for key in audit.SUMMARY_KEYS:
        assert key in summary, key
    for key in ("n_items", "n_systems", "n_raters", "alpha", "icc_2_1", "icc_2_k", "F_vs_residual",
                "p_vs_residual", "F_vs_interaction", "p_vs_interaction", "G", "raters_for_G80", "raters_for_G90",
                "G_observed", "raters_for_G80_observed", "raters_for_G90_observed"):
        assert summary[key] == expected[key], (key, summary[key], expected[key])
    assert summary["alpha_ci"] == expected["alpha_ci"]
    for component, values in expected["variance_components"].items():
        got = summary["variance_components"][component]
        for name, value in values.items():
            assert got[name] == (None if np.isnan(value) else value), (component, name)
    loao = expected["loao"]
    assert summary["loao"]["winner_changes"] == expected["winner_changes"]
    for panel in summary["loao"]["panels"]:
        board = loao[loao["panel"] == panel["panel"]]
        assert [row["system"] for row in panel["leaderboard"]] == [str(s) for s in board["system"]]
        assert [row["mean"] for row in panel["leaderboard"]] == board["mean"].tolist()
        assert [row["rank"] for row in panel["leaderboard"]] == board["rank"].tolist()
        assert panel["winner"] == board["winner"].iloc[0]


def test_audit_of_the_shipped_ratings_gives_the_chapter_numbers_exactly(chapter2, tmp_path):
    ratings, params = chapter2
    expected = expected_chapter_numbers(ratings, params["seed"], params["n_boot"])
    summary = roundtrip(audit.audit(ratings, seed=params["seed"], n_boot=params["n_boot"]), tmp_path)
    assert_matches_chapter(summary, expected)
    assert summary["design_complete"] and summary["missing_cells"] == 0
    assert summary["alpha_level"] == "ordinal" and summary["settings"]["n_boot"] == params["n_boot"]


def test_audit_of_the_shipped_csv_through_the_reader_gives_the_same_numbers(chapter2, tmp_path):
    """read_judgements keeps the file's order of systems and raters, so even the bootstrap CI agrees."""
    ratings, params = chapter2
    if params["exclude_annotators"]:
        pytest.skip("chapter 2 excludes annotators by default")
    judgements = audit.read_judgements(ROOT / "data" / "ratings.csv")
    expected = expected_chapter_numbers(ratings, params["seed"], params["n_boot"])
    summary = roundtrip(audit.audit(judgements, seed=params["seed"], n_boot=params["n_boot"]), tmp_path)
    assert_matches_chapter(summary, expected)


# ----------------------------------------------------------- a hand-made study
#: 3 items x 3 systems x 2 raters, y[item][system][rater].
HAND = [
    [[4, 2], [5, 4], [3, 3]],
    [[2, 1], [4, 2], [2, 1]],
    [[5, 3], [5, 5], [4, 1]],
]


def hand_frame() -> pd.DataFrame:
    rows = [(f"i{p + 1}", f"s{s + 1}", f"r{r + 1}", HAND[p][s][r]) for p, s, r in product(range(3), range(3), range(2))]
    return pd.DataFrame(rows, columns=["item", "model", "judge", "score"])


COLUMNS = {"item": "item", "system": "model", "rater": "judge", "rating": "score"}


def hand_anova() -> dict:
    """Sums of squares of the p x s x r design in exact arithmetic, by the textbook definitions."""
    P, S, R = 3, 3, 2
    y = {(p, s, r): Fraction(HAND[p][s][r]) for p, s, r in product(range(P), range(S), range(R))}

    def mean(cells):
        cells = list(cells)
        return sum(y[c] for c in cells) / len(cells)

    m = mean(y)
    mp = {p: mean(c for c in y if c[0] == p) for p in range(P)}
    ms = {s: mean(c for c in y if c[1] == s) for s in range(S)}
    mr = {r: mean(c for c in y if c[2] == r) for r in range(R)}
    mps = {(p, s): mean(c for c in y if c[:2] == (p, s)) for p, s in product(range(P), range(S))}
    mpr = {(p, r): mean(c for c in y if (c[0], c[2]) == (p, r)) for p, r in product(range(P), range(R))}
    msr = {(s, r): mean(c for c in y if c[1:] == (s, r)) for s, r in product(range(S), range(R))}
    ss = {
        "item": S * R * sum((mp[p] - m) ** 2 for p in mp),
        "system": P * R * sum((ms[s] - m) ** 2 for s in ms),
        "annotator": P * S * sum((mr[r] - m) ** 2 for r in mr),
        "item:system": R * sum((mps[p, s] - mp[p] - ms[s] + m) ** 2 for p, s in mps),
        "item:annotator": S * sum((mpr[p, r] - mp[p] - mr[r] + m) ** 2 for p, r in mpr),
        "system:annotator": P * sum((msr[s, r] - ms[s] - mr[r] + m) ** 2 for s, r in msr),
        "residual": sum(
            (y[p, s, r] - mps[p, s] - mpr[p, r] - msr[s, r] + mp[p] + ms[s] + mr[r] - m) ** 2 for p, s, r in y
        ),
    }
    df = {
        "item": 2,
        "system": 2,
        "annotator": 1,
        "item:system": 4,
        "item:annotator": 2,
        "system:annotator": 2,
        "residual": 4,
    }
    assert sum(ss.values()) == sum((v - m) ** 2 for v in y.values())
    ms_ = {k: ss[k] / df[k] for k in ss}
    # Expected-mean-square estimates of the random components (Brennan 2001, ch. 3); system variance observed.
    vc = {
        "item": (ms_["item"] - ms_["item:system"] - ms_["item:annotator"] + ms_["residual"]) / (S * R),
        "annotator": (ms_["annotator"] - ms_["item:annotator"] - ms_["system:annotator"] + ms_["residual"]) / (P * S),
        "item:system": (ms_["item:system"] - ms_["residual"]) / R,
        "item:annotator": (ms_["item:annotator"] - ms_["residual"]) / S,
        "system:annotator": (ms_["system:annotator"] - ms_["residual"]) / P,
        "residual": ms_["residual"],
        "system": ss["system"] / (P * S * R),
        # unbiased: (S - 1)/S (MS_s - MS_ps - MS_sr + MS_psr) / (P R)
        "system_unbiased": Fraction(S - 1, S) * (ms_["system"] - ms_["item:system"] - ms_["system:annotator"]
                                                 + ms_["residual"]) / (P * R),
    }
    return {"ss": ss, "df": df, "ms": ms_, "vc": vc, "means": {"system_by_rater": msr, "system": ms}}


@pytest.mark.filterwarnings("ignore:The inplace keyword")
def test_hand_made_study_matches_exact_arithmetic_and_statsmodels(tmp_path):
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    frame = hand_frame()
    hand = hand_anova()
    result = audit.run_audit(frame, seed=1, n_boot=200, **COLUMNS)
    summary = roundtrip(result.summary, tmp_path)
    table = result.tables["anova"]
    for source, value in hand["ss"].items():
        assert table.loc[source, "SS"] == pytest.approx(float(value), abs=1e-12), source
        assert table.loc[source, "df"] == hand["df"][source]
    fit = smf.ols("score ~ C(item) + C(model) + C(judge) + C(item):C(model) + C(item):C(judge) + C(model):C(judge)",
                  data=frame).fit()
    lm = anova_lm(fit, typ=1)
    assert lm.loc["C(model)", "sum_sq"] == pytest.approx(float(hand["ss"]["system"]))
    assert lm.loc["Residual", "sum_sq"] == pytest.approx(float(hand["ss"]["residual"]))

    ms = hand["ms"]
    f_res, f_int = ms["system"] / ms["residual"], ms["system"] / ms["system:annotator"]
    assert summary["F_vs_residual"] == pytest.approx(float(f_res))
    assert summary["p_vs_residual"] == pytest.approx(stats.f.sf(float(f_res), 2, 4))
    assert summary["F_vs_interaction"] == pytest.approx(float(f_int))
    assert summary["p_vs_interaction"] == pytest.approx(stats.f.sf(float(f_int), 2, 2))
    assert summary["df_vs_interaction"] == [2.0, 2.0]
    vc = dict(hand["vc"])
    system_unbiased = vc.pop("system_unbiased")
    for component, value in vc.items():
        got = summary["variance_components"][component]
        assert got["raw"] == pytest.approx(float(value), abs=1e-12), component
        assert got["variance"] == pytest.approx(max(float(value), 0.0), abs=1e-12), component
    for suffix, system_var in (("_observed", vc["system"]), ("", system_unbiased)):
        var = {k: max(v, 0) for k, v in {**vc, "system": system_var}.items()}
        error = var["system:annotator"] / 2 + var["item:system"] / 3 + var["residual"] / 6
        g = var["system"] / (var["system"] + error) if var["system"] + error > 0 else float("nan")
        assert summary[f"G{suffix}"] == pytest.approx(float(g)), suffix

        def g_at(n_raters, var=var):
            return var["system"] / (var["system"] + var["system:annotator"] / n_raters + var["item:system"] / 3
                                    + var["residual"] / (3 * n_raters))

        limit = var["system"] / (var["system"] + var["item:system"] / 3)
        for target, key in ((0.8, "raters_for_G80"), (0.9, "raters_for_G90")):
            brute = next((n for n in range(1, 10_000) if g_at(n) >= target), None) if limit > target else None
            assert summary[key + suffix] == brute, key + suffix

    # Leave-one-rater-out: system means of the remaining rater's ratings.
    means = hand["means"]
    for panel in summary["loao"]["panels"]:
        if panel["panel"] == "all":
            expected = {f"s{s + 1}": float(means["system"][s]) for s in range(3)}
        else:
            kept = 1 - int(panel["panel"][-1]) + 1  # "without r1" keeps r2 (index 1)
            expected = {f"s{s + 1}": float(means["system_by_rater"][s, kept]) for s in range(3)}
        assert {row["system"]: row["mean"] for row in panel["leaderboard"]} == pytest.approx(expected)

    # Agreement against the reference implementations.
    matrix = frame.pivot_table(index="judge", columns=["item", "model"], values="score").to_numpy(dtype=float)
    assert summary["alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, value_domain=np.unique(matrix), level_of_measurement="ordinal"))
    lo, hi = summary["alpha_ci"]
    assert lo <= summary["alpha"] <= hi
    import pingouin

    ref = pingouin.intraclass_corr(frame.assign(target=frame["item"] + frame["model"]), targets="target",
                                   raters="judge", ratings="score").set_index("Type")
    assert summary["icc_2_1"] == pytest.approx(ref.loc["ICC(A,1)", "ICC"])
    assert summary["icc_2_k"] == pytest.approx(ref.loc["ICC(A,k)", "ICC"])


# ----------------------------------------------------------- bad input
def write_csv(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


GOOD = "sentence_id,system,annotator,rating\n" + "".join(
    f"{i},{s},{a},{(i + ord(s[-1]) + ord(a[-1])) % 5 + 1}\n"
    for i in (1, 2, 3)
    for s in ("S1", "S2")
    for a in ("A1", "A2")
)


def test_non_numeric_ratings_are_listed_with_their_lines(tmp_path):
    lines = GOOD.splitlines()
    lines[3] = lines[3].rsplit(",", 1)[0] + ",five"
    lines[7] = lines[7].rsplit(",", 1)[0] + ",4 stars"
    path = write_csv(tmp_path / "r.csv", "\n".join(lines) + "\n")
    with pytest.raises(DataError) as info:
        audit.read_judgements(path)
    message = str(info.value)
    assert str(path) in message and "column 'rating'" in message and "not numbers" in message
    assert "line 4 'five'" in message and "line 8 '4 stars'" in message
    assert info.value.rows == (4, 8) and info.value.column == "rating"


def test_duplicated_judgements_are_listed(tmp_path):
    lines = GOOD.splitlines()
    path = write_csv(tmp_path / "r.csv", "\n".join(lines + [lines[1], lines[5]]) + "\n")
    with pytest.raises(DataError) as info:
        audit.read_judgements(path)
    message = str(info.value)
    assert "2 duplicated judgements" in message
    assert "('1', 'S1', 'A1') on lines 2, 14" in message and "('2', 'S1', 'A1') on lines 6, 15" in message


@pytest.mark.parametrize(
    ("keep", "message"),
    [
        ("annotator", "column 'annotator': a single rater ('A1')"),
        ("system", "column 'system': a single system ('S1')"),
    ],
)
def test_a_single_rater_or_system_has_its_own_message(tmp_path, keep, message):
    frame = pd.read_csv(pd.io.common.StringIO(GOOD))
    one = "A1" if keep == "annotator" else "S1"
    path = tmp_path / "r.csv"
    frame[frame[keep] == one].to_csv(path, index=False)
    with pytest.raises(DataError, match="needs at least two") as info:
        audit.read_judgements(path)
    assert message in str(info.value)


def test_missing_cells_are_listed(tmp_path):
    lines = GOOD.splitlines()
    kept = [line for line in lines if not line.startswith(("2,S2,A2", "3,S1,A1"))]
    path = write_csv(tmp_path / "r.csv", "\n".join(kept) + "\n")
    judgements = audit.read_judgements(path)  # a missing cell is not a reading error
    design = audit.check_design(judgements)
    assert not design.complete and design.n_missing == 2
    assert design.missing_cells() == [(2, "S2", "A2"), (3, "S1", "A1")]
    with pytest.raises(DataError) as info:
        audit.check_design(judgements, require_complete=True, source=str(path))
    text = str(info.value)
    assert "not fully crossed" in text and ("3 items x 2 systems x 2 raters = 12 cells, of which 2 have no "
                                            "rating") in text
    assert "(sentence_id, system, annotator) = (2, 'S2', 'A2'), (3, 'S1', 'A1')" in text


def test_missing_column_empty_file_and_unreadable_parquet(tmp_path):
    path = write_csv(tmp_path / "r.csv", GOOD.replace("annotator", "judge"))
    with pytest.raises(DataError) as info:
        audit.read_judgements(path)
    text = str(info.value)
    assert "no rater column 'annotator'" in text and "'judge'" in text and "--rater" in text
    assert audit.read_judgements(path, rater="judge").shape == (12, 4)

    empty = write_csv(tmp_path / "empty.csv", "")
    with pytest.raises(DataError, match=r"empty\.csv: the file is empty"):
        audit.read_judgements(empty)
    header_only = write_csv(tmp_path / "header.csv", "sentence_id,system,annotator,rating\n")
    with pytest.raises(DataError, match="no judgements"):
        audit.read_judgements(header_only)

    broken = tmp_path / "r.parquet"
    broken.write_bytes(b"PAR1 this is not a parquet file")
    with pytest.raises(DataError, match=r"r\.parquet: cannot be read as a Parquet file"):
        audit.read_judgements(broken)
    with pytest.raises(DataError, match="no such file"):
        audit.read_judgements(tmp_path / "absent.csv")
    with pytest.raises(DataError, match="unknown table format"):
        audit.read_judgements(write_csv(tmp_path / "r.xlsx", GOOD))


def test_parquet_reads_like_csv_and_lengths_are_checked(tmp_path):
    csv = write_csv(tmp_path / "r.csv", GOOD)
    frame = pd.read_csv(csv)
    frame.to_parquet(tmp_path / "r.parquet")
    from_csv, from_parquet = audit.read_judgements(csv), audit.read_judgements(tmp_path / "r.parquet")
    pd.testing.assert_frame_equal(from_csv, from_parquet, check_dtype=False, check_categorical=False)
    bad = frame.copy()
    bad["rating"] = bad["rating"].astype(str).where(bad.index != 2, "x")
    bad.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(DataError, match=r"bad\.parquet, column 'rating': ratings that are not numbers on 1 row: row 3 "
                                        r"'x'"):
        audit.read_judgements(tmp_path / "bad.parquet")

    lengths = write_csv(tmp_path / "l.csv", "sentence_id,system,length\n1,S1,3\n1,S2,2\n2,S1,1\n2,S2,4\n3,S1,2\n")
    with pytest.raises(DataError, match=r"1 rated output \(sentence_id, system\) has no length: \('3', 'S2'\)"):
        audit.read_lengths(lengths, judgements=from_csv)


# ----------------------------------------------------------- missing cells
def test_with_missing_cells_reml_statistics_are_reported_and_the_anova_ones_are_not_computable():
    data = simulate_crossed(20, 3, 3, seed=4, scale=(1, 5))
    data = data.drop(index=[0, 7, 30]).reset_index(drop=True)
    data.loc[10, "rating"] = np.nan  # a missing rating is a missing cell too
    summary = audit.audit(data, n_boot=200, seed=1)
    assert summary["missing_cells"] == 4 and not summary["design_complete"]
    assert isinstance(summary["alpha"], float) and len(summary["alpha_ci"]) == 2
    assert summary["alpha"] == agreement.krippendorff_alpha(data, unit=UNIT)
    gap = "the design is incomplete (4 missing cells), and"  # null, with the reason (issue 25: one type per key)
    for key in ("icc_2_1", "icc_2_k", "F_vs_residual", "p_vs_residual", "F_vs_interaction", "p_vs_interaction"):
        assert summary[key] is None and summary["reasons"][key].startswith(gap), key
    low, high = summary["G_ci"]  # the parametric-bootstrap interval of the REML G
    assert low <= summary["G"] <= high
    # REML needs no complete design: the same numbers as compendium.stats.gstudy on the same ratings.
    study = gstudy.fit_gstudy(data)
    g = gstudy.g_summary(study)
    for key in (
        "G",
        "G_observed",
        "raters_for_G80",
        "raters_for_G90",
        "raters_for_G80_observed",
        "raters_for_G90_observed",
    ):
        assert summary[key] == (pytest.approx(g[key]) if isinstance(g[key], float) else g[key]), key
    comps = gstudy.variance_components(study)
    for c in comps.index:
        assert summary["variance_components"][c]["variance"] == pytest.approx(comps.loc[c, "variance"])
    assert summary["loao"]["n_panels"] == 3 and summary["loao"]["winner_all"]
    assert {"icc", "anova", "F_tests"} <= set(summary["needs_complete_design"])
    status = {c["id"]: c["status"] for c in summary["checklist"]}
    reasons = {c["id"]: c["reason"] for c in summary["checklist"]}
    assert status[4] == "not applicable"
    # Item 2 is judged on the REML system test, with its own p value.
    test = summary["system_test_reml"]
    assert status[2] == ("met" if test["p"] < audit_checklist.SIGNIFICANCE else "not met")
    assert "REML F test" in reasons[2] and f"= {test['F']:.2f}" in reasons[2]
    # Item 3 speaks of the raters each item had (3 here), not of the pool.
    assert status[3] in {"met", "not met"}
    assert "3 raters per item (from a pool of 3)" in reasons[3]
    assert status[1] in {"met", audit_checklist.LOW_AGREEMENT}


def test_checklist_on_an_incomplete_design_names_the_raters_per_item_not_the_pool():
    data = simulate_incomplete(40, 4, 6, raters_per_item=3, seed=5, scale=(1, 5))
    summary = audit.audit(data, n_boot=50, n_boot_g=N_BOOT_G, seed=1)
    assert summary["n_raters"] == 6 and summary["raters_per_item"] == 3
    reasons = {c["id"]: c["reason"] for c in summary["checklist"]}
    assert "3 raters per item (from a pool of 6)" in reasons[3]
    assert "at 40 items and 6 raters" not in reasons[3]


@pytest.mark.parametrize("complete", [True, False], ids=["complete", "incomplete"])
def test_lower_is_better_on_negated_ratings_gives_the_same_winners(complete):
    if complete:
        data = simulate_crossed(20, 4, 3, seed=6, scale=(1, 5))
    else:
        data = simulate_incomplete(30, 4, 5, raters_per_item=3, seed=6, scale=(1, 5))
    negated = data.assign(rating=-data["rating"])
    up = audit.audit(data, n_boot=50, n_boot_g=N_BOOT_G, seed=1)
    down = audit.audit(negated, n_boot=50, n_boot_g=N_BOOT_G, seed=1, higher_is_better=False)
    wrong = audit.audit(negated, n_boot=50, n_boot_g=N_BOOT_G, seed=1)
    assert up["settings"]["higher_is_better"] is True and down["settings"]["higher_is_better"] is False
    assert down["loao"]["winners"] == up["loao"]["winners"]
    assert down["loao"]["winner_changes"] == up["loao"]["winner_changes"]
    ranks_up = {r["system"]: r["rank"] for r in up["loao"]["panels"][0]["leaderboard"]}
    ranks_down = {r["system"]: r["rank"] for r in down["loao"]["panels"][0]["leaderboard"]}
    assert ranks_down == ranks_up
    # Without the flag the negated ratings crown the last system: the flag is what makes them agree.
    assert wrong["loao"]["winner_all"] != up["loao"]["winner_all"]


def test_lower_is_better_ranks_the_length_matched_and_mos_leaderboards_too():
    data = simulate_crossed(20, 3, 3, seed=7, scale=(1, 5))
    rng = np.random.default_rng(0)
    lengths = data[["sentence_id", "system"]].drop_duplicates().assign(length=lambda f: rng.integers(1, 4, len(f)))
    up = audit.audit(data, lengths, n_boot=50, seed=1)
    down = audit.audit(data.assign(rating=-data["rating"]), lengths, n_boot=50, seed=1, higher_is_better=False)
    assert down["mos_winner"] == up["mos_winner"]
    assert down["matched_winner"] == up["matched_winner"]
    assert {c["id"]: c["status"] for c in down["checklist"]}[4] == {c["id"]: c["status"] for c in up["checklist"]}[4]


# ----------------------------------------------------------- the checklist
def base_summary(**changes) -> dict:
    summary = {
        "n_items": 100, "n_raters": 5, "alpha_level": "ordinal", "alpha": 0.8, "alpha_ci": [0.75, 0.85],
        "icc_2_1": 0.7, "pearson": [{"r": 0.8}], "rater_summary": [{"mean": 3.0}, {"mean": 3.2}],
        "F_vs_residual": 20.0, "p_vs_residual": 1e-6, "df_vs_residual": [3.0, 1188.0],
        "F_vs_interaction": 8.0, "p_vs_interaction": 0.003, "df_vs_interaction": [3.0, 12.0],
        "G": 0.85, "raters_for_G80": 4, "raters_for_G90": 9, "G_limit_items_unbounded": 0.9,
    }
    summary.update(changes)
    return summary


def statuses(summary: dict) -> list[str]:
    return [c["status"] for c in audit.checklist(summary)]


def test_checklist_statuses_on_constructed_summaries():
    entries = audit.checklist(base_summary())
    assert [c["id"] for c in entries] == [1, 2, 3, 4, 5, 6]
    assert all(set(c) == {"id", "recommendation", "status", "reason"} for c in entries)
    assert statuses(base_summary()) == ["met", "met", "met", "not applicable", "not applicable", "not applicable"]
    assert "No per-output lengths" in entries[3]["reason"]
    assert statuses(base_summary(alpha_ci=[0.6, 0.85]))[0] == "reported; agreement is low"
    fixed_only = audit.checklist(base_summary(p_vs_interaction=0.3))[1]
    assert fixed_only["status"] == "not met" and "only with the raters fixed" in fixed_only["reason"]
    neither = audit.checklist(base_summary(p_vs_interaction=0.3, p_vs_residual=0.2))[1]
    assert neither["status"] == "not met" and "either error term" in neither["reason"]
    low = audit.checklist(base_summary(G=0.4, raters_for_G80=None, raters_for_G90=None, G_limit_items_unbounded=0.5))[2]
    assert low["status"] == "not met" and "no number of raters reaches G >= 0.8" in low["reason"]
    assert "only more raters help" in low["reason"]
    lengths = {"length_slope": {"slope": 0.3, "p": 1e-9}, "matched_win_rates": [{}], "matched_comparisons": 50,
               "mos_winner": ["a"], "matched_winner": ["b"], "matched_rho_with_mos": {"rho": -0.2}}
    assert statuses(base_summary(**lengths))[3] == "not met"
    assert statuses(base_summary(**{**lengths, "matched_winner": ["a"]}))[3] == "met"
    none_matched = base_summary(length_slope={"slope": 0.3, "p": 0.5}, matched_win_rates="not computable: no two "
                                                                                         "systems")
    assert statuses(none_matched)[3] == "not applicable"


def test_checklist_on_studies(tmp_path):
    # Systems that differ clearly, raters that agree: 1-3 met.
    clear = simulate_crossed(60, 4, 8, seed=2, system_means=[0, 1.0, 2.0, 3.0], scale=(1, 9),
                                 components={"item": 0.5, "residual": 0.1, "system:annotator": 0.01})
    assert statuses(audit.audit(clear, n_boot=100, seed=1))[:3] == ["met", "met", "met"]
    # No system differences at all, raters who disagree about systems: 1-3 not met. (Under no differences the
    # p-value is uniform, so the seed matters; with this one F(3, 6) = 0.14.)
    flat = simulate_crossed(60, 4, 3, seed=8, system_means=[0, 0, 0, 0], scale=(1, 9),
                                components={"annotator": 1.0, "system:annotator": 1.0, "residual": 1.0})
    assert statuses(audit.audit(flat, n_boot=100, seed=1))[:3] == ["reported; agreement is low", "not met", "not met"]
    # Continuous ratings: alpha is not computed, ICC(2,1) judges recommendation 1.
    continuous = simulate_crossed(30, 4, 3, seed=4)
    summary = audit.audit(continuous, n_boot=100, seed=1)
    assert summary["alpha"] is None and summary["reasons"]["alpha"].startswith("360 distinct rating values")
    assert summary["alpha_ci"] is None and summary["reasons"]["alpha_ci"] == summary["reasons"]["alpha"]
    assert isinstance(summary["icc_2_1"], float)
    assert (
        "ICC(2,1) = " in summary["checklist"][0]["reason"]
        and summary["checklist"][0]["status"] == audit_checklist.LOW_AGREEMENT
    )
    # Verbosity: "verbose" wins on mean rating only because its outputs are long;
    # where it is as short as "good", "good" wins.
    rows, lengths = [], []
    for i in range(1, 21):
        size = {"verbose": 5 if i <= 15 else 3, "good": 3, "short": 1}
        score = {"verbose": 5 if i <= 15 else 1, "good": 4, "short": 1}
        for system in size:
            lengths.append((i, system, size[system]))
            for rater, shift in (("A1", 0), ("A2", (i + len(system)) % 2)):
                rows.append((i, system, rater, max(1, score[system] - shift)))
    ratings = pd.DataFrame(rows, columns=["sentence_id", "system", "annotator", "rating"])
    outputs = pd.DataFrame(lengths, columns=["sentence_id", "system", "length"])
    summary = audit.audit(ratings, outputs, n_boot=100, seed=1)
    assert summary["mos_winner"] == ["verbose"] and summary["matched_winner"] == ["good"]
    rec4 = summary["checklist"][3]
    assert rec4["status"] == "not met" and "does not survive length matching" in rec4["reason"]
    for key in audit.LENGTH_KEYS:
        assert key in summary


def test_the_demonstration_dataset_is_reproducible_and_audits_as_documented(tmp_path):
    import runpy

    make = runpy.run_path(str(ROOT / "data" / "examples" / "make_mt_example.py"))["make"]
    for written in make(tmp_path):
        assert written.read_bytes() == (ROOT / "data" / "examples" / written.name).read_bytes()
    total = sum(f.stat().st_size for f in (ROOT / "data" / "examples").iterdir() if f.is_file())
    assert total < 200_000
    inputs = wording.resolve_inputs()
    cols = inputs["columns"]
    judgements = audit.read_judgements(inputs["ratings"], **{k: cols[k] for k in ("item", "system", "rater", "rating")})
    lengths = audit.read_lengths(inputs["lengths"], item=cols["item"], system=cols["system"], length=cols["length"],
                                 judgements=judgements, rating=cols["rating"])
    summary = audit.audit(judgements, lengths, n_boot=200, **cols)
    assert (summary["n_items"], summary["n_systems"], summary["n_raters"]) == (120, 6, 6)
    assert statuses(summary) == [
        audit_checklist.LOW_AGREEMENT,
        "met",
        "not met",
        "met",
        "not applicable",
        "not applicable",
    ]


def test_write_json_is_strict_json_and_leaves_no_temporary_file(tmp_path):
    path = audit.write_json({"a": np.float64("nan"), "b": np.int64(3), "c": [np.inf, 1.5]}, tmp_path / "s.json")
    assert json.loads(path.read_text()) == {"a": None, "b": 3, "c": [None, 1.5]}
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


# ----------------------------------------------------------- the command
def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compendium.cli", "audit", *args],
                          capture_output=True, text=True, cwd=cwd)


def test_command_end_to_end(tmp_path):
    data = simulate_crossed(30, 4, 3, seed=5, scale=(1, 7), item="segment", system="model", rater="judge",
                                rating="score")
    data.to_csv(tmp_path / "judgements.csv", index=False)
    outputs = data[["segment", "model"]].drop_duplicates()
    outputs.assign(words=np.random.default_rng(1).integers(1, 4, len(outputs))).to_csv(
        tmp_path / "words.csv", index=False
    )
    completed = run_cli("judgements.csv", "--item", "segment", "--system", "model", "--rater", "judge",
                        "--rating", "score", "--lengths", "words.csv", "--length", "words", "--n-boot", "200",
                        "--out", "report", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    out = tmp_path / "report"
    assert f"report:   {out / 'audit.html'}" in completed.stdout
    summary = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    for key in (*audit.SUMMARY_KEYS, *audit.LENGTH_KEYS, "checklist"):
        assert key in summary, key
    assert (summary["n_items"], summary["n_systems"], summary["n_raters"]) == (30, 4, 3)
    page = (out / "audit.html").read_text(encoding="utf-8")
    for text in ("Audit of a rating study", "ICC(2,1)", "system:annotator", "raters for G &gt;= 0.8",
                 "without A1", "win_rate", "Treat annotators as a random factor", "Length-matched win rates",
                 "<table", "<svg"):
        assert text in page, text
    assert "Traceback" not in page
    assert sorted(p.name for p in out.iterdir()) == ["audit.html", "audit.json", "checklist.csv"]  # no kernel ran


def test_command_without_a_report_writes_json_and_checklist_in_process(tmp_path):
    data = simulate_crossed(20, 3, 3, seed=2, scale=(1, 5), item="segment", system="model", rater="judge",
                                rating="score")
    data.to_csv(tmp_path / "judgements.csv", index=False)
    completed = run_cli("judgements.csv", "--item", "segment", "--system", "model", "--rater", "judge",
                        "--rating", "score", "--n-boot", "100", "--no-report", "--out", "report", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    out = tmp_path / "report"
    summary = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    expected = audit.audit(data, n_boot=100, item="segment", system="model", rater="judge", rating="score")
    assert summary["G"] == pytest.approx(expected["G"]) and summary["checklist"] == expected["checklist"]
    checklist = pd.read_csv(out / "checklist.csv")
    assert checklist["status"].tolist() == [c["status"] for c in expected["checklist"]]
    assert sorted(p.name for p in out.iterdir()) == ["audit.json", "checklist.csv"]  # no notebook, no kernel


def test_command_lower_is_better_and_the_incomplete_design_warning(tmp_path):
    data = simulate_incomplete(30, 4, 5, raters_per_item=3, seed=8, scale=(1, 5))
    data.assign(rating=-data["rating"]).to_csv(tmp_path / "errors.csv", index=False)
    completed = run_cli("errors.csv", "--lower-is-better", "--n-boot", "50", "--g-interval", "bootstrap", "--n-boot-g",
                        str(N_BOOT_G), "--no-report", "--out", "report", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert "REML variance components" in completed.stderr and "ICC need the complete design" in completed.stderr
    summary = json.loads((tmp_path / "report" / "audit.json").read_text(encoding="utf-8"))
    assert summary["settings"]["higher_is_better"] is False
    # --g-interval bootstrap --n-boot-g reach G's interval: N_BOOT_G replicates were drawn, each refit giving a finite
    # G or dropped
    assert summary["settings"]["g_interval"] == "bootstrap" and summary["interval_method_G"].startswith("parametric")
    assert summary["settings"]["n_boot_g"] == N_BOOT_G and 0.9 * N_BOOT_G <= summary["interval_n_boot_G"] <= N_BOOT_G
    assert summary["G_ci_df"] is None and "no degrees of freedom" in summary["reasons"]["G_ci_df"]
    # the default: the noncentral-F interval, no refit, its df in the summary
    default = audit.audit(data, n_boot=50, seed=1, higher_is_better=False)
    assert default["settings"]["g_interval"] == "noncentral-f" and default["interval_method_G"].startswith(
        "noncentral-F"
    )
    assert default["interval_n_boot_G"] is None and default["G_ci_df"][0] == 3 and default["G_ci_df"][1] > 0
    assert default["G_ci_mc_error"] is None and "no Monte Carlo error" in default["reasons"]["G_ci_mc_error"]
    assert 0 <= default["G_ci"][0] <= default["G"] <= default["G_ci"][1] <= 1
    assert summary["loao"]["winner_all"] == audit.audit(data, n_boot=50, n_boot_g=N_BOOT_G)["loao"]["winner_all"]


def test_command_fails_before_starting_a_kernel_on_bad_input(tmp_path):
    write_csv(tmp_path / "r.csv", GOOD.replace("1,S1,A1,", "1,S1,A1,x", 1))
    completed = run_cli("r.csv", "--out", "report", cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stderr.startswith("compendium audit: ") and "not numbers" in completed.stderr
    assert "line 2 'x" in completed.stderr
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize("option, value", [("--n-boot", "-5"), ("--n-boot-g", "0"), ("--n-boot-g", "2.5")])
def test_command_rejects_a_replicate_count_below_one_before_writing_anything(tmp_path, option, value):
    write_csv(tmp_path / "r.csv", GOOD)
    completed = run_cli("r.csv", "--format", "json", option, value, "--out", "report", cwd=tmp_path)
    assert completed.returncode == 2
    assert f"argument {option}: a number of replicates must be" in completed.stderr and value in completed.stderr
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize("options", [{"n_boot": 0}, {"n_boot_g": -3}, {"n_boot": 2.0}])
def test_run_audit_rejects_a_replicate_count_below_one(options):
    frame = pd.read_csv(io.StringIO(GOOD))
    name = next(iter(options))
    with pytest.raises(ValueError, match=f"{name} must be a whole number of bootstrap replicates"):
        audit.run_audit(frame, **options)


def test_checklist_uses_the_quasi_f_the_cluster_interval_and_the_unbiased_g():
    # 2: judged on the quasi-F when the summary has it, whatever the system x rater test says.
    quasi_not = audit.checklist(base_summary(F_vs_quasi=1.5, p_vs_quasi=0.2, df_vs_quasi=[3.0, 9.4]))[1]
    assert quasi_not["status"] == "not met" and "quasi-F" in quasi_not["reason"] and "F(3, 9.4)" in quasi_not["reason"]
    quasi_met = audit.checklist(
        base_summary(F_vs_quasi=6.0, p_vs_quasi=0.01, df_vs_quasi=[3.0, 9.4], p_vs_interaction=0.3)
    )[1]
    assert quasi_met["status"] == "met"
    # ... and on the system x rater test when the quasi-F is undefined.
    undefined = audit.checklist(base_summary(F_vs_quasi=None, p_vs_quasi=None))[1]
    assert undefined["status"] == "met" and "system x rater interaction" in undefined["reason"]
    # 1: the cluster interval decides when present (the unit interval [0.75, 0.85] alone would meet it).
    cluster = audit.checklist(base_summary(alpha_ci_cluster=[0.6, 0.9]))[0]
    assert cluster["status"] == audit_checklist.LOW_AGREEMENT and ("item-cluster bootstrap CI [0.600, "
                                                                   "0.900]") in cluster["reason"]
    # 3: the unbiased G decides; the observed one is quoted.
    g = audit.checklist(base_summary(G=0.5, G_ci=[0.0, 0.9], G_observed=0.85))[2]
    assert g["status"] == "not met" and "0.850" in g["reason"] and "[0.000, 0.900]" in g["reason"]


def test_audit_writes_both_gs_and_names_the_error_terms(tmp_path):
    data = simulate_crossed(30, 4, 3, seed=1, scale=(1, 5))
    summary = roundtrip(audit.audit(data, n_boot=100, seed=1), tmp_path)
    from compendium.stats import gtheory

    study = gtheory.g_study(gtheory.anova_table(data))
    assert summary["G"] == pytest.approx(study.loc["unbiased", "G"])
    assert summary["G_observed"] == pytest.approx(study.loc["observed", "G"])
    assert summary["G_ci"] == pytest.approx(list(study.loc["unbiased", ["ci_low", "ci_high"]]))
    assert summary["raters_for_G80_observed"] == study.loc["observed", "raters_for_G80"]
    assert set(summary["error_terms"]) == {"residual", "interaction", "quasi", "item_system"}
    assert len(summary["alpha_ci_cluster"]) == 2
    line = "\n".join(audit.summary_lines(summary))
    assert "(systems fixed, unbiased; systems random: " in line and "observed, as in the paper" in line
    assert "item-cluster" in line


# ----------------------------------------------------------- alpha's level of measurement


def test_alphas_level_follows_the_scale_unless_given_and_agrees_with_the_krippendorff_package():
    """A 0-100 slider is interval by default, a 1-5 scale ordinal; --level overrides; every level agrees with
    the krippendorff package on the same reliability matrix."""
    likert = simulate_crossed(12, 3, 3, seed=2, scale=(1, 5))
    assert conventions.alpha_level(likert["rating"].to_numpy(float)) [0] == "ordinal"
    slider = likert.assign(rating=(likert["rating"] - 1) * 25 + np.tile([0, 3, 7], len(likert) // 3))
    level, why = conventions.alpha_level(slider["rating"].to_numpy(float))
    assert level == "interval" and "distinct ratings" in why
    assert conventions.alpha_level(likert["rating"].to_numpy(float) / 2)[0] == "interval"
    for frame, given, expected in ((slider, None, "interval"), (slider, "ordinal", "ordinal"),
                                   (likert, None, "ordinal"), (likert, "nominal", "nominal")):
        summary = audit.audit(frame, n_boot=50, seed=1, level=given)
        assert summary["alpha_level"] == expected
        assert summary["settings"]["alpha_level"].startswith("given" if given else "from the scale")
        matrix = frame.pivot_table(index="annotator", columns=["sentence_id", "system"], values="rating").to_numpy(
            float
        )
        assert summary["alpha"] == pytest.approx(krippendorff.alpha(
            reliability_data=matrix, value_domain=np.unique(matrix), level_of_measurement=expected), abs=1e-9)
    with pytest.raises(ValueError, match="level must be one of"):
        audit.audit(likert, n_boot=10, seed=1, level="ratio-ish")


def test_g_with_systems_random_follows_the_expected_mean_squares_of_statsmodels_anova():
    """G's convention is stated, and the systems-random G is the EMS estimate from mean squares that statsmodels'
    ANOVA computes (items, systems, raters crossed; all two-way interactions; the residual is the three-way)."""
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    data = simulate_crossed(40, 5, 4, seed=11, scale=(1, 7),
                            components={"annotator": 0.3, "system:annotator": 0.2, "item:system": 0.4,
                                        "residual": 0.6})
    summary = audit.audit(data, n_boot=50, seed=1)
    assert summary["settings"]["system_variance"] == conventions.SYSTEM_VARIANCE
    frame = data.rename(columns={"sentence_id": "i", "system": "s", "annotator": "r", "rating": "y"})
    table = anova_lm(smf.ols("y ~ C(i) + C(s) + C(r) + C(i):C(s) + C(i):C(r) + C(s):C(r)", frame).fit())
    ms = table["sum_sq"] / table["df"]
    n_i, n_r = 40, 4
    residual = ms["Residual"]
    sr = (ms["C(s):C(r)"] - residual) / n_i
    ps = (ms["C(i):C(s)"] - residual) / n_r
    system = (ms["C(s)"] - ms["C(i):C(s)"] - ms["C(s):C(r)"] + residual) / (n_i * n_r)
    assert min(sr, ps, system) > 0  # no truncation in this study
    error = sr / n_r + ps / n_i + residual / (n_i * n_r)
    assert summary["G_systems_random"] == pytest.approx(system / (system + error), abs=1e-9)
    fixed = system * 4 / 5  # (S-1)/S times the EMS estimate: the audit's G
    assert summary["G"] == pytest.approx(fixed / (fixed + error), abs=1e-9)
    assert summary["G_systems_random"] > summary["G"]
