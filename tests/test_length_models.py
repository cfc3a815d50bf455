"""Chapter 3's length slope with the annotators fixed and random (compendium.analyses.length.length_models).

Reference: lme4 REML and lmerTest's Satterthwaite df on the book's simulated judgements, pinned
from tests/reference/length_lmertest.R (which reads tests/reference/length_judgements.csv.gz).
A textbook case checks the Satterthwaite df of compendium.stats.mixed: in a balanced one-way random
model the df of the grand mean is exactly (number of groups - 1).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compendium.analyses import length as L
from compendium.stats import mixed as M

# Compares floats from CPU-dispatched code with outside values (the length mixed models against lmerTest
# values pinned from R); make test runs this module again under the narrow CPU profile (tests/narrow_cpu.py).
pytestmark = pytest.mark.numerics

FIXTURE = Path(__file__).resolve().parent / "reference" / "length_judgements.csv.gz"

# lme4 1.1-31 / lmerTest 3.1-3, REML, bobyqa (rhoend 1e-12).
LMERTEST = {
    "paper": {
        "slope": 0.127711425021, "se": 0.0127486970014, "df": 5668.63393674, "t": 10.0176061136,
        "p": 1.99586009113e-23, "var_item": 0.274286511341, "var_output": 0.0, "var_rater": 0.57425658923,
        "var_rater_slope": 0.0, "var_residual": 1.04863297714, "deviance": 20681.8885355,
    },
    "sounder": {
        "slope": 0.127593436797, "se": 0.102546962081, "df": 2.02807608175, "t": 1.24424394646,
        "p": 0.337966272317, "var_item": 0.275849100768, "var_output": 1.80493769387e-13,
        "var_rater": 1.45284390382, "var_rater_slope": 0.03107517975, "var_residual": 1.01113134042,
        "deviance": 20450.5844108,
    },
}


@pytest.fixture(scope="module")
def judgements() -> pd.DataFrame:
    return pd.read_csv(FIXTURE)


@pytest.fixture(scope="module")
def models(judgements) -> pd.DataFrame:
    lengths = judgements[["sentence_id", "system", "count"]].drop_duplicates()
    return L.length_models(judgements, lengths, length="count").set_index("model")


def test_fixture_is_the_books_simulated_data():
    from compendium.data.benchmark import load_benchmark

    benchmark = load_benchmark(None, embeddings=False)
    lengths = L.emoji_counts(benchmark.generations)
    j = benchmark.ratings.merge(lengths[["sentence_id", "system", "graphemes"]], on=["sentence_id", "system"])
    j = j.rename(columns={"graphemes": "count"})[["sentence_id", "system", "annotator", "rating", "count"]]
    fixture = pd.read_csv(FIXTURE)
    pd.testing.assert_frame_equal(j.astype(str).reset_index(drop=True), fixture.astype(str))


@pytest.mark.parametrize("name", ["paper", "sounder"])
def test_length_models_agree_with_lmertest(models, name):
    row = models.loc[name]
    for key, value in LMERTEST[name].items():
        mine = -2.0 * row["loglik"] if key == "deviance" else row[key]
        if abs(value) < 1e-8:
            assert abs(mine) < 1e-6, key
        else:
            # R printed 12 digits; two optimisers stop at different points of a flat likelihood (see test_gstudy's
            # lme4 test): 1e-4 relative. Hosts move these by less than 1e-9.
            assert mine == pytest.approx(value, rel=1e-4), key


def test_sounder_rows_side_by_side(models):
    rows = L.sounder_rows(models.reset_index())
    assert list(rows.columns) == list(L.SOUNDER_COLUMNS)
    assert rows["claim"].tolist() == ["length.beta_per_emoji", "length.beta_se"]
    # With three annotators whose slopes differ, the slope is significant for these annotators only.
    assert models.loc["paper", "p"] < 1e-10 and models.loc["sounder", "p"] > 0.05
    assert rows["conclusion_changes"].all()
    # Satterthwaite's df with three raters' slopes is near its limit of 3 - 1 = 2 (lmerTest: 2.03 on this design).
    assert models.loc["sounder", "df"] == pytest.approx(2.0, abs=0.1)


@pytest.mark.parametrize("groups,per_group", [(6, 4), (11, 3)])
def test_satterthwaite_df_is_exact_in_a_balanced_one_way_model(groups, per_group):
    rng = np.random.default_rng(groups)
    g = np.repeat(np.arange(groups), per_group)
    y = rng.normal(0, 1.0, groups)[g] + rng.normal(0, 0.7, len(g))
    fit = M.fit_lmm(y, np.ones((len(g), 1)), [M.RandomTerm("group", g)])
    test = M.fixed_effect_test(fit, 0)
    # Var(mean) = MS_between / N exactly, a chi-square on groups - 1 df, when the REML estimate is positive.
    means = pd.Series(y).groupby(g).mean()
    ms_between = per_group * ((means - y.mean()) ** 2).sum() / (groups - 1)
    assert fit.variances["group"] > 0
    assert test["se"] ** 2 == pytest.approx(ms_between / len(y), rel=1e-6)
    # Exact in theory; numerically the df come from a finite-difference Hessian of the deviance, good to about 1e-5.
    assert test["df"] == pytest.approx(groups - 1, rel=1e-4)
