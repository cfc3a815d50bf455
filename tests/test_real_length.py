"""Chapter 3 on REAL data: the length slope of WMT23 en-de MQM (compendium.analyses.real.length).

Reference: lme4 REML and lmerTest's Satterthwaite df, pinned from tests/reference/mqm_length_lmertest.R,
which reads tests/reference/mqm_length_judgements.csv.gz (checked here to be what the package derives
from data/real). R 4.2.2 / lme4 1.1-31 / lmerTest 3.1-3, bobyqa (rhoend 1e-12).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compendium.analyses.real import DOES_NOT_HOLD, HOLDS, INCONCLUSIVE, NOT_TESTABLE
from compendium.analyses.real import length as RL
from compendium.data import mqm_texts
from compendium.data.errors import DataError
from compendium.data.real import load_mqm, real_data_dir

# Compares floats from CPU-dispatched code with outside values (the MQM length models against lme4 and
# lmerTest values pinned from R); make test runs this module again under the narrow CPU profile
# (tests/narrow_cpu.py).
pytestmark = pytest.mark.numerics

FIXTURE = Path(__file__).resolve().parent / "reference" / "mqm_length_judgements.csv.gz"

LMERTEST = {
    ("quality", "chars100"): {
        "paper": {
            "slope": 2.59544496488,
            "se": 0.165394409353,
            "df": 965.251983341,
            "t": 15.6924588626,
            "p": 1.33654854366e-49,
            "var_item": 161.67655285,
            "var_output": 0.0,
            "var_rater": 8.70666979404,
            "var_rater_slope": 0.0,
            "var_residual": 29.5797285093,
            "deviance": 19987.4593223,
        },
        "sounder": {
            "slope": -0.1806393265,
            "se": 0.193394534174,
            "df": 15.3279029468,
            "t": -0.934045666138,
            "p": 0.364762384363,
            "var_item": 13.3828367652,
            "var_output": 14.8936769389,
            "var_rater": 0.463421721133,
            "var_rater_slope": 0.276535692582,
            "var_residual": 17.1849679208,
            "deviance": 19324.0024654,
        },
    },
    ("quality", "tokens100"): {
        "paper": {
            "slope": 11.0417735404,
            "se": 0.706010341917,
            "df": 983.703820349,
            "t": 15.6396767651,
            "p": 2.08568331706e-49,
            "var_item": 157.134259118,
            "var_output": 0.0,
            "var_rater": 8.70010289947,
            "var_rater_slope": 0.0,
            "var_residual": 29.5975810105,
            "deviance": 19983.4489529,
        },
        "sounder": {
            "slope": -0.866456234596,
            "se": 0.837358209469,
            "df": 15.1742340698,
            "t": -1.03474979381,
            "p": 0.316995843571,
            "var_item": 13.0524320027,
            "var_output": 14.9578824995,
            "var_rater": 0.510519387101,
            "var_rater_slope": 5.21122606152,
            "var_residual": 17.2079150825,
            "deviance": 19325.5090905,
        },
    },
    ("quality_per_word", "chars100"): {
        "paper": {
            "slope": 0.0242776932976,
            "se": 0.00279385736103,
            "df": 137.532907193,
            "t": 8.68966813993,
            "p": 9.5906987239e-15,
            "var_item": 0.0133232548212,
            "var_output": 0.0,
            "var_rater": 0.00329273061832,
            "var_rater_slope": 0.0,
            "var_residual": 0.0267173814609,
            "deviance": -2114.92211007,
        },
        "sounder": {
            "slope": 0.0195898344442,
            "se": 0.00321760912258,
            "df": 65.5246425221,
            "t": 6.08832014639,
            "p": 6.6567487775e-08,
            "var_item": 0.0115067274961,
            "var_output": 0.00760023685746,
            "var_rater": 0.00629654947584,
            "var_rater_slope": 2.43109591955e-05,
            "var_residual": 0.0194549392051,
            "deviance": -2333.11436531,
        },
    },
}


@pytest.fixture(scope="module")
def judgements() -> pd.DataFrame:
    return pd.read_csv(FIXTURE)


@pytest.fixture(scope="module")
def models(judgements) -> pd.DataFrame:
    return RL.mqm_length_models(judgements).set_index(["outcome", "length", "model"])


def test_fixture_is_derived_from_the_real_release():
    texts = mqm_texts.load_mqm_texts()
    assert len(texts) == 1040 and texts.groupby("item")["system"].nunique().eq(10).all()
    j = RL.mqm_judgements(load_mqm(), RL.mqm_lengths(texts))
    fixture = pd.read_csv(FIXTURE)
    assert list(j.columns) == list(fixture.columns)
    pd.testing.assert_frame_equal(j.reset_index(drop=True), fixture, check_dtype=False, rtol=1e-12)


@pytest.mark.parametrize("fit", list(LMERTEST))
@pytest.mark.parametrize("name", ["paper", "sounder"])
def test_mqm_length_models_agree_with_lmertest(models, fit, name):
    row = models.loc[(*fit, name)]
    for key, value in LMERTEST[fit][name].items():
        mine = -2.0 * row["loglik"] if key == "deviance" else row[key]
        if abs(value) < 1e-8:
            assert abs(mine) < 1e-6, key
        else:
            # R printed 12 digits; lme4's bobyqa and our optimiser stop at different points of a flat likelihood (a
            # deviance gap of 1e-8 allows about 1e-4 in the variances; the MQM fits are flatter): 2e-4 relative.
            assert mine == pytest.approx(value, rel=2e-4), key


def test_lengths_count_characters_tokens_and_words():
    t = pd.DataFrame({"item": [1, 1], "system": ["a", "b"], "target": ["Guten Tag.", "Hallo Welt, wie geht es?"]})
    out = RL.mqm_lengths(t)
    assert out["chars"].tolist() == [10, 24] and out["words"].tolist() == [2, 5]
    assert (out["tokens"] > 0).all() and (out["tokens"] <= out["chars"]).all()
    assert out["chars100"].tolist() == [0.10, 0.24]


def test_judgements_sign_and_per_word():
    scores = pd.DataFrame({"item": [1, 1], "system": ["a", "b"], "rater": ["r1", "r1"], "rating": [5.0, 1.0]})
    lengths = pd.DataFrame({"item": [1, 1], "system": ["a", "b"], "chars": [10, 20], "tokens": [3, 6],
                            "words": [2, 4], "chars100": [0.1, 0.2], "tokens100": [0.03, 0.06]})
    j = RL.mqm_judgements(scores, lengths)
    assert j["quality"].tolist() == [-5.0, -1.0] and j["quality_per_word"].tolist() == [-2.5, -0.25]
    with pytest.raises(ValueError, match="no translation text"):
        RL.mqm_judgements(scores.assign(system=["a", "c"]), lengths)


@pytest.mark.parametrize("ci,expected", [((0.001, 0.3), HOLDS), ((-0.001, 0.3), INCONCLUSIVE),
                                         ((-0.3, 0.19), DOES_NOT_HOLD), ((-0.3, 0.2), INCONCLUSIVE),
                                         ((-0.5, -0.1), DOES_NOT_HOLD), ((np.nan, 1.0), NOT_TESTABLE)])
def test_verdict_tracks_length_three_ways(ci, expected):
    """An interval holding both 0 and the smallest slope of interest (0.2 here) decides nothing."""
    assert RL.verdict_tracks_length(*ci, smallest=0.2) == expected


def test_the_smallest_slope_is_a_standardised_slope_on_the_raw_scale():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"chars100": rng.gamma(2.0, 1.5, 500), "quality": rng.normal(0, 7.7, 500)})
    smallest = RL.smallest_slope(frame, length="chars100")
    # a slope of this size moves quality by 0.1 SD per SD of length
    assert smallest * frame["chars100"].std() / frame["quality"].std() == pytest.approx(RL.SMALLEST_STANDARDISED_SLOPE)
    assert RL.SMALLEST_STANDARDISED_SLOPE == 0.1


@pytest.mark.parametrize("raw,per_word,expected", [
    ((0.1, 0.5), (0.01, 0.2), HOLDS), ((0.1, 0.5), (-0.01, 0.2), INCONCLUSIVE),
    ((0.1, 0.5), (-0.2, -0.01), DOES_NOT_HOLD),
    ((-0.5, -0.1), (-0.2, -0.01), HOLDS), ((-0.5, -0.1), (-0.2, 0.01), INCONCLUSIVE),
    ((-0.5, -0.1), (0.01, 0.2), DOES_NOT_HOLD), ((-0.1, 0.1), (0.01, 0.2), NOT_TESTABLE),
])
def test_verdict_survives_per_word_both_sides(raw, per_word, expected):
    assert RL.verdict_survives_per_word(raw, per_word) == expected


def _copy_release(tmp_path: Path) -> Path:
    root = real_data_dir()
    shutil.copy(root / "MANIFEST", tmp_path / "MANIFEST")
    shutil.copy(root / mqm_texts.ARCHIVE, tmp_path / mqm_texts.ARCHIVE)
    return tmp_path


def test_text_loader_rejects_a_corrupted_copy(tmp_path):
    root = _copy_release(tmp_path)
    path = root / mqm_texts.ARCHIVE
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(DataError, match=mqm_texts.ARCHIVE) as err:
        mqm_texts.load_mqm_texts(real_dir=root)
    assert err.value.file == mqm_texts.ARCHIVE
    # Without the MANIFEST check the member's own SHA-256 (or gzip's CRC) still rejects it.
    with pytest.raises(DataError, match=mqm_texts.ARCHIVE):
        mqm_texts.load_mqm_texts(real_dir=root, verify_checksum=False)


def test_text_loader_cleans_span_tags():
    rows = mqm_texts.load_mqm_rows()
    assert not rows["target"].str.contains("<v>|</v>").any()
    assert rows["item"].nunique() == 104 and rows["rater"].nunique() == 10


def test_within_item_slope_equals_ols_with_item_dummies(judgements):
    import statsmodels.formula.api as smf

    ref = smf.ols("quality ~ chars100 + C(item)", data=judgements).fit().params["chars100"]
    assert RL.within_item_slope(judgements) == pytest.approx(ref, rel=1e-9)


def test_per_word_by_length_groups():
    j = pd.DataFrame({"item": [1, 1, 2], "system": ["a", "a", "b"], "chars": [100, 100, 300], "words": [10, 10, 50],
                      "mqm": [1.0, 3.0, 5.0]})
    t = RL.per_word_by_length(j)
    assert t.loc[True, "translations"] == 1 and t.loc[True, "mean_mqm_per_word"] == pytest.approx(0.2)
    assert t.loc[False, "mean_mqm_per_word"] == pytest.approx(0.1)


def test_omission_length_correlation_by_hand():
    rows = pd.DataFrame({"item": [1, 1, 2], "system": ["a", "a", "c"], "category": ["Accuracy/Omission "
                                                                                    "(Translation)"] * 3,
                         "severity": ["Major", "Minor", "Major"]})
    texts = pd.DataFrame({"item": [1, 1, 2, 2], "system": ["a", "b", "c", "d"], "target": ["ab", "abcd", "a", "abc"]})
    # centred: chars (-1, 1, -1, 1), omissions (1, -1, 0.5, -0.5): r = -3 / sqrt(4 * 2.5)
    assert RL.omission_length_correlation(rows, texts) == pytest.approx(-3 / np.sqrt(10.0))


# --- PandaLM: does the longer response win? (issue 67) -------------------------------------------------------


def test_longer_wins_by_hand_with_wilsons_interval_from_statsmodels():
    """Item 1: a is longer; item 2: b is longer; item 3: equal length. Rater R1: a, a, a -> longer wins 1 of 2
    (item 3 is of equal length); R2: tie, b, b -> 1 of 1 (the tie is left out)."""
    from statsmodels.stats.proportion import proportion_confint

    responses = pd.DataFrame({"item": ["1", "2", "3"], "response_a": ["long one", "x", "same"],
                              "response_b": ["short", "longer", "SAME"]})
    judgements = pd.DataFrame({"item": ["1", "2", "3"] * 2, "rater": ["R1"] * 3 + ["R2"] * 3,
                               "winner": ["a", "a", "a", "tie", "b", "b"]})
    table = RL.longer_wins(judgements, responses).set_index("rater")
    assert table.loc["R1", ["n", "longer_wins", "ties", "equal_length"]].tolist() == [2, 1, 0, 1]
    assert table.loc["R2", ["n", "longer_wins", "ties", "equal_length"]].tolist() == [1, 1, 1, 1]
    assert table.loc["all", ["n", "longer_wins"]].tolist() == [3, 2]
    for rater in ("R1", "R2", "all"):
        n, wins = int(table.loc[rater, "n"]), int(table.loc[rater, "longer_wins"])
        lo, hi = proportion_confint(wins, n, alpha=0.05, method="wilson")
        # Wilson's closed form in two libraries: rounding only (the z quantile to 1e-16)
        assert (table.loc[rater, "ci_low"], table.loc[rater, "ci_high"]) == pytest.approx((lo, hi), abs=1e-12)


def test_longer_wins_on_pandalm_against_a_plain_count_of_the_release():
    """Counted here from the JSON file with the standard library: per annotator, non-tied judgements of responses
    of unequal length, and how many the longer one won."""
    import json

    from compendium.data.real import PANDALM_FILE, load_pandalm, load_pandalm_responses

    records = json.loads((real_data_dir() / PANDALM_FILE).read_text(encoding="utf-8"))
    expected = {}
    for k in (1, 2, 3):
        n = wins = 0
        for r in records:
            a, b = str(r["response1"]), str(r["response2"])  # six answers are JSON true: the word True
            code = str(r[f"annotator{k}"])
            if code == "0" or len(a) == len(b):
                continue
            n += 1
            wins += (code == "1") == (len(a) > len(b))
        expected[f"A{k}"] = (n, wins)
    table = RL.longer_wins(load_pandalm(), load_pandalm_responses()).set_index("rater")
    assert {r: (int(table.loc[r, "n"]), int(table.loc[r, "longer_wins"])) for r in expected} == expected
    assert set(table.index) == {"A1", "A2", "A3", "all"}


def test_pandalms_responses_are_the_comparisons_of_its_judgements():
    from compendium.data.real import load_pandalm, load_pandalm_responses

    responses = load_pandalm_responses()
    judgements = load_pandalm()
    assert responses["item"].is_unique and len(responses) == 999
    pairs = judgements[["item", "system_a", "system_b"]].drop_duplicates().reset_index(drop=True)
    pd.testing.assert_frame_equal(pairs, responses[["item", "system_a", "system_b"]])
    assert responses[["response_a", "response_b"]].map(lambda v: isinstance(v, str)).all().all()
    assert (responses[["response_a", "response_b"]] == "True").sum().sum() == 6  # the JSON booleans


def test_the_longer_wins_rule_uses_cohens_small_difference_and_needs_every_annotator():
    assert RL.SMALLEST_LONGER_WINS == pytest.approx(0.5993, abs=1e-4)  # sin^2(pi/4 + 0.1), by hand
    assert RL.verdict_longer_wins(0.501, 0.6) == HOLDS
    assert RL.verdict_longer_wins(0.45, 0.598) == DOES_NOT_HOLD and RL.verdict_longer_wins(0.45, 0.60) == INCONCLUSIVE
    assert RL.verdict_longer_wins(float("nan"), 0.6) == NOT_TESTABLE
    assert RL.verdict_longer_wins_all([HOLDS, HOLDS, DOES_NOT_HOLD]) == INCONCLUSIVE
    assert RL.verdict_longer_wins_all([DOES_NOT_HOLD] * 3) == DOES_NOT_HOLD


def test_pandalms_checks_are_one_per_annotator_and_one_over_them_at_the_lowest_annotator():
    from compendium.analyses.ledger import real_checks
    from compendium.data.real import load_pandalm, load_pandalm_responses

    table, checks = RL.pandalm_length_checks(load_pandalm(), load_pandalm_responses())
    ids = [c["check"] for c in checks]
    assert ids == ["length.real_pandalm_longer_wins.a1", "length.real_pandalm_longer_wins.a2",
                   "length.real_pandalm_longer_wins.a3", "length.real_pandalm_longer_wins"]
    per = {c["check"][-2:].upper(): c for c in checks[:3]}
    rates = table.set_index("rater")["rate"]
    assert checks[-1]["estimate"] == min(rates[r] for r in per)
    assert checks[-1]["verdict"] == RL.verdict_longer_wins_all([c["verdict"] for c in per.values()])
    recorder = real_checks.Recorder("03_length")
    for check in checks:  # every field the recorder asks for, and nothing it refuses
        recorder.record(**check)
    assert set(recorder.rows) == set(ids)


def test_mqm_scores_from_the_rows_are_the_shipped_scores():
    """Nothing left out: the release's rows, weighted as the derivation weights them, give the shipped table."""
    rows = mqm_texts.load_mqm_rows()
    again = RL.mqm_scores(rows)
    shipped = load_mqm()
    shipped = shipped.assign(item=shipped["item"].astype(int), system=shipped["system"].astype(str),
                             rater=shipped["rater"].astype(str))
    merged = again.merge(shipped, on=["item", "system", "rater"], how="outer", suffixes=("", "_shipped"),
                         validate="1:1", indicator=True)
    assert (merged["_merge"] == "both").all() and len(merged) == 3120
    assert (merged["rating"] == merged["rating_shipped"]).all()


def test_mqm_scores_without_omissions_by_hand():
    rows = pd.DataFrame({
        "item": [1, 1, 1, 2, 2, 3], "system": ["a"] * 6, "rater": ["r"] * 6,
        "category": ["Accuracy/Omission (Translation)", "Fluency/Grammar", "Fluency/Punctuation",
                     "Accuracy/Omission (Translation 2)", "Non-translation!", "Accuracy/Source language fragment"],
        "severity": ["Major", "Minor", "Minor", "Minor", "Major", "HOTW-test"]})
    full = RL.mqm_scores(rows).set_index("item")["rating"]
    assert full.to_dict() == {1: 6.1, 2: 26.0}  # 5 + 1 + 0.1; 1 + 25; a HOTW-test row counts for nothing
    without = RL.mqm_scores(rows, without=RL.OMISSION_CATEGORIES).set_index("item")["rating"]
    assert without.to_dict() == {1: 1.1, 2: 0.0}  # only omissions and a non-translation: 0, and still a judgement


def test_the_length_doctests_run():
    import doctest

    assert doctest.testmod(RL).failed == 0
