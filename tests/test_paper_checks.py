"""The paper checked against itself: each check against a value worked by hand or by another library."""

import functools
import itertools
import math
import re

import numpy as np
import pytest
from scipy import stats

from compendium.analyses.ledger import claims, paper_checks as pc
from compendium.stats import agreement, gtheory


@functools.lru_cache(maxsize=1)
def _checks():
    return pc.checks()


def by_check(name):
    return _checks().set_index("check").loc[name]


def test_every_check_has_a_section_a_verdict_and_known_claim_ids():
    table = _checks()
    assert list(table.columns) == list(pc.CHECK_COLUMNS)
    assert len(table) == len(pc.CHECKS) >= 20
    assert set(table["verdict"]) == set(pc.VERDICTS)
    assert table["section"].str.len().gt(0).all() and table["paper"].str.len().gt(0).all()
    registry = claims.registry()
    for ids in table["claims"]:
        assert set(ids.split("; ")) <= set(registry), ids
    # inconsistent checks come first
    verdicts = table["verdict"].tolist()
    assert verdicts == sorted(verdicts, key=lambda v: v != pc.INCONSISTENT)


def test_table1_rebuilds_the_printed_mean_squares_and_f():
    """By hand: MS_psr = 11.85 / 18.62 = 0.63641; df 7, 14, 4046 = 289 * 7 * 2."""
    table = pc.table1()
    # The hand value is rounded to five decimals (half a unit: 5e-6).
    assert table.loc["residual", "MS"] == pytest.approx(0.63641, abs=1e-5)
    assert table.loc["residual", "df"] == 4046 and table.loc["system:annotator", "df"] == 14
    assert table.loc["system", "MS"] == 11.85 and table.loc["system:annotator", "MS"] == 20.25


def test_f_test_matches_scipy():
    """F = 11.85 / 20.25 = 0.58519 (by hand); p from scipy's F distribution on (7, 14) df."""
    row = by_check("F test of systems against the system x rater interaction")
    assert row["verdict"] == "consistent"
    assert f"{11.85 / 20.25:.3f}" == "0.585" and "0.585" in row["computed"]
    assert f"{stats.f.sf(11.85 / 20.25, 7, 14):.3f}" in row["computed"]


def test_unbiased_system_variance_is_the_ems_solution():
    """Against reliability.variance_components(system_variance='corrected'), which solves the same EMS
    equations from the full table but scales to the variance of the true means over the 8 systems
    (divisor n_s, not n_s - 1: a factor 7/8); and by hand on a toy table: (10 - 4 - 3 + 1) / (5 * 2) = 0.4."""
    assert pc.unbiased_system_variance(10, 4, 3, 1, 5, 2) == pytest.approx(0.4)
    table = pc.table1()
    mine = pc.unbiased_system_variance(*(table.loc[k, "MS"] for k in ("system", "system:annotator", "item:system",
                                                                     "residual")), 290, 3)
    corrected = gtheory.variance_components(table, system_variance="corrected")
    assert mine * 7 / 8 == pytest.approx(corrected.loc["system", "raw"])
    assert mine < 0


def test_g_unbiased_is_zero_and_inconsistent_with_the_printed_g():
    row = by_check("G with the unbiased (expected-mean-square) system variance")
    assert row["verdict"] == "inconsistent" and "G = 0.000" in row["computed"] and "none" in row["computed"]


def test_g_observed_reproduces_the_printed_g_and_panels():
    """Paper: G = 0.336, 27 raters for 0.8, 70 for 0.9 (69 from the rounded mean squares, G(69) = 0.90001)."""
    row = by_check("G and the raters needed (observed variance of the system means)")
    assert row["verdict"] == "consistent"
    assert "G = 0.336" in row["computed"] and "27 and 69 raters" in row["computed"]


def test_ss_shares_cover_the_printed_ones_within_rounding():
    """Hand check of the centre: SS_system = 7 * 11.85 = 82.95; the total SS follows from the EMS."""
    ranges = pc.ss_share_ranges()
    table = pc.table1()
    assert table.loc["system", "SS"] == pytest.approx(82.95)
    for name, printed in pc.SS_SHARES.items():
        assert ranges.at[name, "low"] - 0.05 <= printed <= ranges.at[name, "high"] + 0.05
    assert by_check("Variance-component shares and sum-of-squares shares of Table 1")["verdict"] == "consistent"


def test_spearman_brown_matches_icc_on_data():
    """ICC(2,k) = k ICC(2,1) / (1 + (k-1) ICC(2,1)) holds for the package's icc (Shrout & Fleiss 1979, eq. for
    case 2) on any data; by hand 3 * 0.116 / 1.232 = 0.28247."""
    # The hand value is rounded to five decimals (half a unit: 5e-6).
    assert pc.spearman_brown(0.116, 3) == pytest.approx(0.28247, abs=1e-5)
    rng = np.random.default_rng(3)
    wide = rng.normal(size=(30, 1)) + rng.normal(size=(30, 3)) + np.array([0.0, 0.5, 1.0])
    import pandas as pd

    long = pd.DataFrame([(i, f"r{j}", wide[i, j]) for i in range(30) for j in range(3)],
                        columns=["item", "rater", "rating"])
    table = agreement.icc(long, target="item", rater="rater", rating="rating")
    assert pc.spearman_brown(table.loc["ICC(2,1)", "ICC"], 3) == pytest.approx(table.loc["ICC(2,k)", "ICC"])


def test_wilson_interval_is_statsmodels_and_143_of_237_is_the_only_fit():
    """Wilson by hand for 143/237: centre (p + z^2/2n)/(1 + z^2/n), half-width z sqrt(p(1-p)/n + z^2/4n^2)/(1 +
    z^2/n)."""
    z, n, p = stats.norm.ppf(0.975), 237, 143 / 237
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low, high = pc.wilson_interval(143, 237)
    assert (low, high) == pytest.approx((centre - half, centre + half))
    assert pc.wilson_matches(0.603, 0.540, 0.664, 2599) == [(143, 237)]
    assert by_check("Gemini-2.0-Flash's length-matched win rate and its interval")["verdict"] == "consistent"


def test_leak_fractions_by_hand():
    """1 - 0.2^7 = 1 - 0.0000128 = 0.9999872; 1 - 0.2^4 = 1 - 0.0016 = 0.9984."""
    assert pc.expected_leaked_fraction(0.8, 8) == pytest.approx(0.9999872)
    assert pc.expected_leaked_fraction(0.8, 5) == pytest.approx(0.9984)
    assert by_check("Expected leaked share of test rows at V = 8")["verdict"] == "inconsistent"
    assert by_check("Expected leaked share of test rows at V = 5")["verdict"] == "consistent"


def test_leak_fraction_matches_a_count_over_all_splits():
    """Outside reference: enumerate every train/test assignment of V views (each in train with prob. rho)."""
    rho, views = 0.8, 5
    total = 0.0
    for assignment in itertools.product((0, 1), repeat=views):
        prob = np.prod([rho if a else 1 - rho for a in assignment])
        test_rows = [i for i, a in enumerate(assignment) if not a]
        total += prob * sum(sum(assignment) > 0 for _ in test_rows)
    expected_test_rows = views * (1 - rho)
    assert total / expected_test_rows == pytest.approx(pc.expected_leaked_fraction(rho, views))


def test_grok_tokens_per_emoji():
    """294.7 / 2.60 = 113.35 (by hand), not 124."""
    row = by_check("Grok-4-Fast's completion tokens per emoji")
    assert row["verdict"] == "inconsistent" and "113.3" in row["computed"]


def test_leakage_t_test_against_scipy_on_paired_data():
    """scipy's ttest_rel on 6 pairs whose differences have t = 4.97 gives the 5-df p, ttest_ind's df is 10."""
    d = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 0.0])
    d = d / d.std(ddof=1) + 4.97 / math.sqrt(6)  # mean / (sd / sqrt 6) = 4.97
    result = stats.ttest_rel(d, np.zeros(6))
    assert result.statistic == pytest.approx(4.97)
    row = by_check("The leakage t test")
    assert f"{result.pvalue:.4f}" in row["computed"] and row["verdict"] == "inconsistent"
    assert f"{2 * stats.t.sf(4.97, 10):.4f}" == "0.0006"


def test_correlation_p_matches_pearsonr():
    """Data built with correlation exactly r: scipy.stats.pearsonr's p equals correlation_p(r, n)."""
    rng = np.random.default_rng(0)
    for r, n in [(0.90, 8), (-0.19, 8), (-0.48, 5)]:
        x = rng.normal(size=n)
        x = (x - x.mean()) / np.linalg.norm(x - x.mean())
        z = rng.normal(size=n)
        z = z - z.mean() - (z @ x) * x
        z /= np.linalg.norm(z)
        y = r * x + math.sqrt(1 - r * r) * z
        result = stats.pearsonr(x, y)
        assert result.statistic == pytest.approx(r)
        assert pc.correlation_p(r, n) == pytest.approx(result.pvalue)
    assert by_check("Correlations and their p values")["verdict"] == "consistent"


def test_attainable_rank_correlations_match_every_permutation_and_scipy():
    """All 8! permutations: the rho and tau values they produce are exactly the attainable sets;
    scipy's spearmanr and kendalltau agree on a sample of them."""
    perms = np.array(list(itertools.permutations(range(8))))
    base = np.arange(8)
    rho = 1 - 6 * ((perms - base) ** 2).sum(axis=1) / (8 * 63)
    i, j = np.triu_indices(8, 1)
    tau = np.sign(perms[:, j] - perms[:, i]).sum(axis=1) / 28
    assert set(np.round(rho, 9)) == set(np.round(pc.attainable_spearman(8), 9))
    assert set(np.round(tau, 9)) == set(np.round(pc.attainable_kendall(8), 9))
    for k in np.random.default_rng(1).integers(0, len(perms), 50):
        assert stats.spearmanr(base, perms[k]).statistic == pytest.approx(rho[k])
        assert stats.kendalltau(base, perms[k]).statistic == pytest.approx(tau[k])
    assert by_check("Rank correlations over eight systems are attainable values")["verdict"] == "consistent"


def test_wording_and_comparison_checks():
    assert by_check("How often the winner changes when one annotator is left out")["verdict"] == "inconsistent"
    assert by_check("Bangla emoji decodability at n ~ 400")["verdict"] == "inconsistent"
    assert by_check("The 80/20 inflation against the range over split ratios")["verdict"] == "inconsistent"
    assert by_check("Does the length-matched comparison reverse the leaderboard?")["verdict"] == "inconsistent"
    assert by_check("Prompt tokens per source byte above one")["verdict"] == "inconsistent"
    # 0.341 / 0.159 = 2.1447 (by hand); 18.8 / 0.7 = 26.86; 2.93 / 1.108 = 2.6444, 2.93 / 1.45 = 2.0207
    assert "2.14" in by_check("The MOS spread in emojis' worth")["computed"]
    assert "26.9" in by_check("Sentence against system in the sums of squares")["computed"]
    assert "2.644" in by_check("Bytes per character and the per-character premium")["computed"]
    assert by_check("The leakage inflation from the two F1 values")["verdict"] == "consistent"
    assert by_check("Design counts")["verdict"] == "consistent"


def test_beta_p_range_by_hand():
    """z = 0.159 / 0.015 = 10.6: 2 * norm.sf(10.6) = 2.97e-26, inside the printed-rounding range around 1.6e-25."""
    # The hand value is given to three significant digits (half a unit: 1.7e-3 relative).
    assert 2 * stats.norm.sf(10.6) == pytest.approx(2.97e-26, rel=0.01)
    assert by_check("The length slope's p value")["verdict"] == "consistent"


def test_old_name_stays_importable():
    table = claims.paper_inconsistencies().set_index("id")
    assert set(table.index) <= set(claims.registry())
    assert "0.9999872" in table.loc["leakage.expected_fraction_v8", "arithmetic"]
    assert "113.3" in table.loc["cost.grok_completion_tokens_bn", "arithmetic"]


def test_the_readme_lists_the_inconsistent_checks():
    """The README lists, in its section on the paper checked against itself, exactly the checks that come out
    inconsistent: if a check's verdict changes, so must its wording (the book's introduction leaves them to
    the ledger)."""
    from compendium.build import runner

    inconsistent = set(_checks().loc[_checks()["verdict"] == "inconsistent", "check"])
    for path in (runner.ROOT / "README.md",):
        text = path.read_text(encoding="utf-8")
        # read the introduction's glossary links as their words: {term}`G` -> G, {term}`a <b>` -> a
        text = re.sub(r"\{term\}`([^`<]*?)(?:\s*<[^`>]*>)?`", r"\1", text)
        assert "## The paper checked against itself" in text, path.name
        section = text.split("## The paper checked against itself", 1)[1].split("\n## ", 1)[0]
        listed = {check for check in pc.checks()["check"] if f"**{check}" in section}
        assert listed == inconsistent, (path.name, listed ^ inconsistent)
