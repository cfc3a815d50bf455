"""The paper checked against itself: its reported numbers, recomputed from one another.

The paper's data are not public, so the only statements this compendium can
make about the *paper* (rather than about its simulation) are these: each
check takes numbers typed from the paper, with the section they come from,
recomputes one of them from the others with a tested function, and says
whether the printed value is **consistent** (agrees within the printed
rounding) or **inconsistent**. No simulated data enters anywhere.

The statistics come from the package's tested functions
(:func:`compendium.stats.gtheory.variance_components`,
:func:`~compendium.stats.gtheory.g_coefficient`,
:func:`~compendium.stats.gtheory.raters_needed`, ...), from statsmodels
(Wilson interval) and scipy (t and F distributions). The one formula of this
module's own is the unbiased (expected-mean-square) estimate of the system
variance, :func:`unbiased_system_variance`.

:func:`checks` gathers every check into one table; the ledger chapter opens with it, and the
README lists the checks that come out inconsistent.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import stats

from compendium.stats import gtheory

CONSISTENT, INCONSISTENT = "consistent", "inconsistent"
VERDICTS = (CONSISTENT, INCONSISTENT)

#: Columns of :func:`checks`.
CHECK_COLUMNS = ("check", "section", "claims", "paper", "computed", "verdict", "how")

# --- numbers typed from the paper ----------------------------------------------------------

#: Section 3: the crossed human study.
N_ITEMS, N_SYSTEMS, N_RATERS = 290, 8, 3
#: Section 4.2 (Table 1): the system and system x rater mean squares and F(7, 4046) against the residual.
MS_SYSTEM, MS_SYSTEM_RATER, F_VS_RESIDUAL = 11.85, 20.25, 18.62
#: Section 4.2: F(7, 14) and its p value.
F_VS_INTERACTION, P_VS_INTERACTION = 0.59, 0.76
#: Section 4.3: random variance components (% of the random variance).
VC_SHARES = {"item": 0.073, "annotator": 0.291, "item:annotator": 0.229, "residual": 0.326}
#: Section 4.3: shares of the total sum of squares (%).
SS_SHARES = {"item": 18.8, "annotator": 22.1, "system": 0.7}
#: Section 4.3: G of the current design and the panels for G >= 0.8 and 0.9 at 290 items.
G_PRINTED, RATERS_G80, RATERS_G90 = 0.336, 27, 70


def _row(check, section, claims, paper, computed, consistent: bool, how) -> dict:
    return {"check": check, "section": section, "claims": claims, "paper": paper, "computed": computed,
            "verdict": CONSISTENT if consistent else INCONSISTENT, "how": how}


def _rounds_to(value: float, printed: float, decimals: int) -> bool:
    """Whether ``value`` rounds to ``printed`` at ``decimals`` places (half a unit either way)."""
    return abs(value - printed) <= 0.5 * 10 ** (-decimals) + 1e-12


# --- Table 1 ---------------------------------------------------------------------------------


def table1(ms_system: float = MS_SYSTEM, ms_system_rater: float = MS_SYSTEM_RATER,
           f_vs_residual: float = F_VS_RESIDUAL, vc_shares: dict | None = None) -> pd.DataFrame:
    r"""Table 1's ANOVA, rebuilt from the numbers sections 4.2 and 4.3 print.

    Printed: :math:`MS_s = 11.85`, :math:`MS_{sr} = 20.25`,
    :math:`F(7, 4046) = 18.62` (so :math:`MS_{psr} = 11.85 / 18.62`), and the
    random-variance shares item 7.3 %, annotator 29.1 %, item x annotator
    22.9 %, residual 32.6 %. With the total random variance
    :math:`T = \sigma^2_{psr} / 0.326`, :math:`\sigma^2_{sr} = (MS_{sr} -
    MS_{psr}) / n_p` and :math:`\sigma^2_{ps}` the rest of the 8.1 % not
    printed, the other mean squares follow from the random-model expected
    mean squares (Brennan 2001, ch. 3; see
    :func:`compendium.stats.gtheory.variance_components`).

    Parameters
    ----------
    ms_system, ms_system_rater, f_vs_residual, vc_shares
        The printed values by default; other values let a check follow the
        printed rounding through.

    Returns
    -------
    DataFrame
        Index: the sources of :data:`compendium.stats.gtheory.ANOVA_SOURCES`
        and ``total``; columns ``SS, df, MS, share`` (share of the total SS).
    """
    n_p, n_s, n_r = N_ITEMS, N_SYSTEMS, N_RATERS
    shares = dict(VC_SHARES if vc_shares is None else vc_shares)
    ms = {"system": ms_system, "system:annotator": ms_system_rater, "residual": ms_system / f_vs_residual}
    total = ms["residual"] / shares["residual"]
    s2 = {name: share * total for name, share in shares.items()}
    s2["residual"] = ms["residual"]
    s2["system:annotator"] = (ms["system:annotator"] - ms["residual"]) / n_p
    s2["item:system"] = (1 - sum(shares.values())) * total - s2["system:annotator"]
    ms["item:system"] = s2["residual"] + n_r * s2["item:system"]
    ms["item:annotator"] = s2["residual"] + n_s * s2["item:annotator"]
    ms["item"] = s2["residual"] + n_s * s2["item:annotator"] + n_r * s2["item:system"] + n_s * n_r * s2["item"]
    ms["annotator"] = (s2["residual"] + n_s * s2["item:annotator"] + n_p * s2["system:annotator"]
                       + n_p * n_s * s2["annotator"])
    df = {"item": n_p - 1, "system": n_s - 1, "annotator": n_r - 1, "item:system": (n_p - 1) * (n_s - 1),
          "item:annotator": (n_p - 1) * (n_r - 1), "system:annotator": (n_s - 1) * (n_r - 1),
          "residual": (n_p - 1) * (n_s - 1) * (n_r - 1)}
    table = pd.DataFrame({"df": pd.Series(df), "MS": pd.Series(ms)}).loc[list(gtheory.ANOVA_SOURCES[:-1])]
    table["SS"] = table["MS"] * table["df"]
    table.loc["total"] = [n_p * n_s * n_r - 1, np.nan, table["SS"].sum()]
    table["share"] = table["SS"] / table.loc["total", "SS"]
    return table[["SS", "df", "MS", "share"]]


def unbiased_system_variance(ms_system: float, ms_system_rater: float, ms_item_system: float, ms_residual: float,
                             n_items: int, n_raters: int) -> float:
    r"""The expected-mean-square (unbiased) estimate of the system variance.

    From :math:`E\,MS_s = \sigma^2_{psr} + n_p\sigma^2_{sr} + n_r\sigma^2_{ps}
    + n_p n_r \sigma^2_s` and the EMS of :math:`MS_{sr}`, :math:`MS_{ps}`,
    :math:`MS_{psr}` (Brennan 2001, ch. 3):

    .. math:: \hat\sigma^2_s = (MS_s - MS_{sr} - MS_{ps} + MS_{psr}) / (n_p n_r).

    Negative when the systems differ less than the panel's disagreement
    about them predicts; a variance cannot be negative, so it is then
    truncated to 0 (Brennan 2001, sec. 3.4), and so is G.

    Examples
    --------
    >>> unbiased_system_variance(11.85, 20.25, 0.7, 0.6, 290, 3) < 0
    True
    """
    return (ms_system - ms_system_rater - ms_item_system + ms_residual) / (n_items * n_raters)


def check_f_tests() -> dict:
    """Section 4.2: F(7, 14) = MS_s / MS_sr with its p value, from Table 1's mean squares."""
    tests = gtheory.system_f_tests(table1())
    f, p = tests.loc["system:annotator", "F"], tests.loc["system:annotator", "pval"]
    ok = _rounds_to(f, F_VS_INTERACTION, 2) and _rounds_to(p, P_VS_INTERACTION, 2)
    return _row("F test of systems against the system x rater interaction", "4.2",
                "anova.F_vs_interaction; anova.p_vs_interaction",
                f"F(7,14) = {F_VS_INTERACTION}, p = {P_VS_INTERACTION}; MS system {MS_SYSTEM}, MS system x rater "
                f"{MS_SYSTEM_RATER}",
                f"{MS_SYSTEM} / {MS_SYSTEM_RATER} = {f:.3f}, p = {p:.3f}", ok,
                "reliability.system_f_tests on Table 1")


def ss_share_ranges() -> pd.DataFrame:
    """The SS shares Table 1 implies over every corner of the printed numbers' rounding.

    Each printed input (the four variance shares to 0.1 %, the two mean
    squares to 0.01, F to 0.01) is moved half a unit either way; the
    rebuilt table's SS shares (:func:`table1`) at all 2^7 corners give the
    range the printed SS shares must fall in.

    Returns
    -------
    DataFrame
        Index ``item, annotator, system``; columns ``low, high`` (%).
    """
    from itertools import product

    found = []
    for signs in product((-1, 1), repeat=7):
        shares = {k: v + s * 0.0005 for (k, v), s in zip(VC_SHARES.items(), signs[:4])}
        table = table1(MS_SYSTEM + signs[4] * 0.005, MS_SYSTEM_RATER + signs[5] * 0.005,
                       F_VS_RESIDUAL + signs[6] * 0.005, shares)
        found.append({k: 100 * table.loc[k, "share"] for k in SS_SHARES})
    frame = pd.DataFrame(found)
    return pd.DataFrame({"low": frame.min(), "high": frame.max()})


def check_ss_shares() -> dict:
    """Section 4.3: the printed SS shares follow from the printed variance-component shares (EMS algebra)."""
    table = table1()
    computed = {name: 100 * table.loc[name, "share"] for name in SS_SHARES}
    ranges = ss_share_ranges()
    components = gtheory.variance_components(table)
    back = {name: 100 * components.loc[name, "share"] for name in VC_SHARES}
    ok = all(ranges.at[k, "low"] - 0.05 <= v <= ranges.at[k, "high"] + 0.05 for k, v in SS_SHARES.items()) and all(
        math.isclose(back[k], 100 * v) for k, v in VC_SHARES.items())
    sr = 100 * components.loc["system:annotator", "share"]
    ps = 100 * components.loc["item:system", "share"]
    return _row("Variance-component shares and sum-of-squares shares of Table 1", "4.3",
                "vc.item_pct; vc.annotator_pct; ss.item_pct; ss.annotator_pct; ss.system_pct",
                "variance: item 7.3 %, annotator 29.1 %, item x annotator 22.9 %, residual 32.6 %; "
                "SS: item 18.8 %, annotator 22.1 %, system 0.7 %",
                "SS from the components: " + ", ".join(
                    f"{k} {v:.2f} % (over the printed rounding {ranges.at[k, 'low']:.2f}-{ranges.at[k, 'high']:.2f})"
                    for k, v in computed.items())
                + f"; the unprinted 8.1 % split as system x rater {sr:.1f} % and item x system {ps:.1f} % (both >= 0)",
                ok and sr >= 0 and ps >= 0, "paper_checks.table1 (EMS), reliability.variance_components")


def check_g_observed() -> dict:
    """Section 4.3: G = 0.336 and the raters needed, with the system variance as the observed variance of the means."""
    components = gtheory.variance_components(table1())
    g = gtheory.g_coefficient(components, N_ITEMS, N_RATERS)
    r80 = gtheory.raters_needed(components, N_ITEMS, 0.8)
    r90 = gtheory.raters_needed(components, N_ITEMS, 0.9)
    g_at_69 = gtheory.g_coefficient(components, N_ITEMS, 69)
    limit = gtheory.g_limit(components, N_RATERS)
    ok = _rounds_to(g, G_PRINTED, 3) and r80 == RATERS_G80 and r90 in (RATERS_G90 - 1, RATERS_G90) and limit < 0.8
    return _row("G and the raters needed (observed variance of the system means)", "4.3",
                "dstudy.G; dstudy.raters_for_G80; dstudy.raters_for_G90; dstudy.G_limit_3_raters",
                f"G = {G_PRINTED}; {RATERS_G80} raters for G >= 0.8, {RATERS_G90} for G >= 0.9; three raters never "
                "reach 0.8",
                f"G = {g:.3f}; {r80} and {r90} raters (G(69) = {g_at_69:.5f}: the rounded mean squares put 70 on "
                f"the boundary); G with endless items and 3 raters {limit:.3f}", ok,
                "reliability.variance_components, g_coefficient, raters_needed, g_limit")


def check_g_unbiased() -> dict:
    """Section 4.3: with the unbiased system variance, MS_s < MS_sr makes it negative, so G = 0, not 0.336."""
    table = table1()
    sigma2 = unbiased_system_variance(table.loc["system", "MS"], table.loc["system:annotator", "MS"],
                                      table.loc["item:system", "MS"], table.loc["residual", "MS"], N_ITEMS, N_RATERS)
    components = gtheory.variance_components(table).copy()
    components.loc["system", "variance"] = max(sigma2, 0.0)
    g = gtheory.g_coefficient(components, N_ITEMS, N_RATERS)
    needed = gtheory.raters_needed(components, N_ITEMS, 0.8)
    return _row("G with the unbiased (expected-mean-square) system variance", "4.3", "dstudy.G",
                f"G = {G_PRINTED}, from the system means' observed variance",
                f"(MS_s - MS_sr - MS_ps + MS_psr) / (n_p n_r) = {sigma2:.4f} < 0, truncated to 0: G = {g:.3f}; "
                f"raters for G >= 0.8: {'none' if needed is None else needed}",
                _rounds_to(g, G_PRINTED, 3),
                "paper_checks.unbiased_system_variance (EMS), reliability.g_coefficient")


# --- sections 4.1, 4.4, 5 --------------------------------------------------------------------


def spearman_brown(reliability_one: float, k: int) -> float:
    """Reliability of the mean of ``k`` raters from that of one: ``k r / (1 + (k - 1) r)`` (ICC(2,k) from ICC(2,1))."""
    return k * reliability_one / (1 + (k - 1) * reliability_one)


def check_icc_k() -> dict:
    """Section 4.1: ICC(2,k) = 0.282 from ICC(2,1) = 0.116 with k = 3 (Shrout & Fleiss 1979, Spearman-Brown)."""
    value = spearman_brown(0.116, N_RATERS)
    return _row("ICC(2,k) from ICC(2,1)", "4.1", "agreement.icc_2_1; agreement.icc_2_k",
                "ICC(2,1) = 0.116, ICC(2,k) = 0.282", f"3 x 0.116 / (1 + 2 x 0.116) = {value:.4f}",
                _rounds_to(value, 0.282, 3), "paper_checks.spearman_brown")


def check_winner_changes() -> dict:
    """Abstract ('whenever any single annotator is removed', 3 of 3) against section 4.4 ('two of three cases')."""
    abstract, section = 3, 2
    return _row("How often the winner changes when one annotator is left out", "abstract; 4.4",
                "loao.winner_changes",
                "abstract: 'the winning system changes whenever any single annotator is removed'; section 4.4: "
                "'in two of three cases'",
                f"'whenever' = {abstract} of 3 panels, section 4.4 = {section} of 3", abstract == section,
                "counting")


def wilson_interval(successes: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """The Wilson score interval (statsmodels ``proportion_confint(method='wilson')``)."""
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return float(low), float(high)


def wilson_matches(rate: float, low: float, high: float, n_max: int, decimals: int = 3) -> list[tuple[int, int]]:
    """Every ``(wins, n)`` with ``n <= n_max`` whose rate and Wilson 95 % interval round to the printed ones."""
    from statsmodels.stats.proportion import proportion_confint

    n = np.repeat(np.arange(1, n_max + 1), 3)
    wins = np.round(rate * n).astype(int) + np.tile([-1, 0, 1], n_max)
    keep = (wins >= 0) & (wins <= n) & (np.abs(wins / n - rate) <= 0.5 * 10 ** -decimals + 1e-12)
    n, wins = n[keep], wins[keep]
    lo, hi = proportion_confint(wins, n, alpha=0.05, method="wilson")
    match = (np.abs(lo - low) <= 0.5 * 10 ** -decimals + 1e-12) & (np.abs(hi - high) <= 0.5 * 10 ** -decimals + 1e-12)
    return [(int(k), int(m)) for k, m in zip(wins[match], n[match])]


def check_gemini_wilson() -> dict:
    """Section 5: Gemini-2.0-Flash's length-matched win rate 0.603, 95 % CI [0.540, 0.664]."""
    wins, n = 143, 237
    low, high = wilson_interval(wins, n)
    matches = wilson_matches(0.603, 0.540, 0.664, 2599)
    ok = _rounds_to(wins / n, 0.603, 3) and _rounds_to(low, 0.540, 3) and _rounds_to(high, 0.664, 3)
    return _row("Gemini-2.0-Flash's length-matched win rate and its interval", "5", "length.gemini_win_rate",
                "win rate 0.603, 95 % CI [0.540, 0.664] (binomial)",
                f"{wins}/{n} = {wins / n:.4f}, Wilson [{low:.4f}, {high:.4f}]; of all n <= 2,599 only "
                + ", ".join(f"{k}/{m}" for k, m in matches) + " give all three printed numbers", ok,
                "statsmodels proportion_confint (Wilson)")


def check_mos_spread_in_emojis() -> dict:
    """Section 5: the MOS spread 0.341 is 'slightly more than two emojis' worth' at beta = 0.159 per emoji."""
    emojis = 0.341 / 0.159
    return _row("The MOS spread in emojis' worth", "5", "length.mos_spread; length.beta_per_emoji",
                "spread 0.341 MOS points, 'slightly more than two emojis' worth'; beta = 0.159 per emoji",
                f"0.341 / 0.159 = {emojis:.2f} emojis", 2 < emojis < 2.5, "arithmetic")


def check_beta_p() -> dict:
    """Section 5: beta = 0.159 (SE 0.015), p = 1.6e-25: the Wald p over the rounding range of beta and SE."""
    ends = [2 * stats.norm.sf(b / se) for b in (0.1585, 0.1595) for se in (0.0145, 0.0155)]
    ok = min(ends) <= 1.6e-25 <= max(ends)
    return _row("The length slope's p value", "5", "length.beta_per_emoji; length.beta_se",
                "beta = 0.159, SE = 0.015, p = 1.6e-25",
                f"Wald p for beta in [0.1585, 0.1595], SE in [0.0145, 0.0155]: {min(ends):.1e} to {max(ends):.1e}", ok,
                "scipy.stats.norm")


def correlation_p(r: float, n: int) -> float:
    """Two-sided p of a correlation ``r`` over ``n`` pairs: t = r sqrt((n-2)/(1-r^2)) on n-2 df (as scipy's pearsonr
    and spearmanr)."""
    t = r * math.sqrt((n - 2) / (1 - r * r))
    return float(2 * stats.t.sf(abs(t), n - 2))


#: Correlations the paper prints with their p value: (section, what, r, n, printed p, decimals of p).
PRINTED_CORRELATIONS = (
    ("5", "mean emoji count vs MOS (rho)", 0.90, 8, 0.002, 3),
    ("5", "length-matched vs raw ordering (rho)", 0.12, 8, 0.78, 2),
    ("6", "EAD vs MOS (rho)", -0.19, 8, 0.65, 2),
    ("7", "anisotropy vs pooled probe (r)", -0.48, 5, 0.41, 2),
)


def check_correlation_p_values() -> dict:
    """Sections 5-7: each printed correlation's p value from r and n, over the rounding range of r."""
    parts, ok = [], True
    for section, what, r, n, printed, decimals in PRINTED_CORRELATIONS:
        lo, hi = sorted(correlation_p(r + d, n) for d in (-0.005, 0.005))
        inside = lo - 0.5 * 10 ** -decimals <= printed <= hi + 0.5 * 10 ** -decimals
        ok &= inside
        parts.append(f"{what}: p = {correlation_p(r, n):.3f} (printed {printed})")
    return _row("Correlations and their p values", "5; 6; 7",
                "length.rho_count_mos; length.matched_rho_with_mos; ead.rho_with_mos; geometry.r_anisotropy_probe",
                "; ".join(f"{w} {r} (p = {p}, n = {n})" for _, w, r, n, p, _ in PRINTED_CORRELATIONS),
                "; ".join(parts), ok, "scipy.stats.t (the test scipy.stats.pearsonr uses)")


def attainable_spearman(n: int) -> np.ndarray:
    """Every value Spearman's rho can take over ``n`` untied ranks: 1 - 6 S / (n (n^2 - 1)), S even."""
    top = n * (n * n - 1) // 3
    return np.array([1 - 6 * s / (n * (n * n - 1)) for s in range(0, top + 1, 2)])


def attainable_kendall(n: int) -> np.ndarray:
    """Every value Kendall's tau can take over ``n`` untied ranks: (C - D) / (n (n - 1) / 2)."""
    pairs = n * (n - 1) // 2
    return np.array([(2 * c - pairs) / pairs for c in range(pairs + 1)])


#: Rank correlations over the eight systems the paper prints: (section, what, value, kind).
PRINTED_RANK_CORRELATIONS = (
    ("4.4", "Kendall between annotators", -0.36, "kendall"), ("4.4", "Kendall between annotators", 0.07, "kendall"),
    ("4.4", "Kendall between annotators", 0.00, "kendall"), ("5", "count vs MOS", 0.90, "spearman"),
    ("5", "matched vs raw", 0.12, "spearman"), ("5", "annotator ranking vs length", 0.95, "spearman"),
    ("5", "annotator ranking vs length", -0.26, "spearman"), ("6", "EAD vs MOS", -0.19, "spearman"),
    ("6", "EAD vs MOS per annotator", 0.07, "spearman"), ("6", "EAD vs MOS per annotator", 0.76, "spearman"),
    ("6", "EAD vs MOS per annotator", -0.40, "spearman"), ("8", "EAD vs cost", -0.14, "spearman"),
    ("8", "EAD vs cost", -0.12, "spearman"), ("9", "leaky vs clean ranking", 0.76, "spearman"),
)


def check_rank_correlation_granularity() -> dict:
    """Sections 4.4-9: every rank correlation over eight systems is one that eight untied ranks can produce."""
    values = {"spearman": attainable_spearman(N_SYSTEMS), "kendall": attainable_kendall(N_SYSTEMS)}
    misses = [f"{what} {v}" for _, what, v, kind in PRINTED_RANK_CORRELATIONS
              if not np.any(np.abs(values[kind] - v) <= 0.005 + 1e-12)]
    return _row("Rank correlations over eight systems are attainable values", "4.4; 5; 6; 8; 9",
                "loao.kendall_min; loao.kendall_max; length.rho_count_mos; ead.rho_with_mos; leakage.rank_rho",
                ", ".join(f"{v}" for _, _, v, _ in PRINTED_RANK_CORRELATIONS),
                "each rounds from an attainable value (Kendall: multiples of 1/14; Spearman: 1 - S/84, S even)"
                if not misses else "not attainable: " + ", ".join(misses), not misses,
                "attainable_spearman / attainable_kendall, checked against scipy.stats on permutations")


def check_sentence_vs_system() -> dict:
    """Section 4.3: the sentence matters 'more than twenty times as much' as the system (18.8 % vs 0.7 % of the SS)."""
    ratio = SS_SHARES["item"] / SS_SHARES["system"]
    return _row("Sentence against system in the sums of squares", "4.3", "ss.item_pct; ss.system_pct",
                "item 18.8 %, system 0.7 % of the total SS: 'more than twenty times as much'",
                f"18.8 / 0.7 = {ratio:.1f}", ratio > 20, "arithmetic")


def check_reversal() -> dict:
    """Abstract and section 1 ('reverses the leaderboard') against section 5 (rho = 0.12 with the raw ordering)."""
    reversed_rho = stats.spearmanr(np.arange(N_SYSTEMS), np.arange(N_SYSTEMS)[::-1]).statistic
    return _row("Does the length-matched comparison reverse the leaderboard?", "abstract; 1; 5",
                "length.matched_rho_with_mos",
                "abstract: 'reverses the leaderboard'; section 5: the orderings correlate at rho = 0.12",
                f"a reversed ordering of 8 systems has rho = {reversed_rho:.0f}; 0.12 is a reordering, not a reversal",
                False, "scipy.stats.spearmanr")


# --- sections 6, 8, 9 ------------------------------------------------------------------------


def check_ead_at_400() -> dict:
    """Section 6: the best Bangla emoji channel at n~400 is 0.673 in one sentence and 0.614 in the next."""
    matched, curve, full = 0.673, 0.614, 0.657
    return _row("Bangla emoji decodability at n ~ 400", "6", "ead.emoji_best_bn_400; ead.emoji_curve_400; ead.bn_max",
                "'the best emoji channel reaches 0.673 macro-F1 in Bangla' (n ~ 400); 'the emoji curve ... 0.614 at "
                "n = 400, 0.657 at n = 4,206'",
                f"two values for n ~ 400: {matched} - {curve} = {matched - curve:.3f}; {matched} also exceeds the "
                f"best system on all 4,206 items ({full}) although the curve rises with n", matched == curve,
                "comparison")


def check_tokens_per_emoji() -> dict:
    """Section 8: Grok-4-Fast's 294.7 completion tokens for 2.60 emojis, printed as 124 tokens per emoji."""
    ratio = 294.7 / 2.60
    return _row("Grok-4-Fast's completion tokens per emoji", "8", "cost.grok_completion_tokens_bn; cost.grok_emojis_bn",
                "294.7 completion tokens, 2.60 emojis per Bangla item: '124 tokens per emoji'",
                f"294.7 / 2.60 = {ratio:.1f}; 124 can only be a mean of per-item ratios", abs(ratio - 124) < 0.5,
                "arithmetic")


def check_unit_ratios() -> dict:
    """Section 8: 2.93 tokens per character / 1.108 per byte = 2.64 bytes per character; 2.93 / 1.45 = '2.0x'."""
    bytes_per_char, premium = 2.93 / 1.108, 2.93 / 1.45
    return _row("Bytes per character and the per-character premium", "8",
                "cost.bytes_per_char_bn; cost.tokens_per_char_bn; cost.tokens_per_byte_bn; cost.tokens_per_char_en",
                "2.93 tokens per character, 1.108 per byte, 2.64 bytes per character; English 1.45: a 2.0x premium",
                f"2.93 / 1.108 = {bytes_per_char:.3f}; 2.93 / 1.45 = {premium:.2f}",
                _rounds_to(bytes_per_char, 2.64, 2) and _rounds_to(premium, 2.0, 1), "arithmetic")


def check_tokens_per_byte() -> dict:
    """Section 8: prompt tokens per source byte above 1 (1.108, 1.450, 1.557)."""
    printed = {"bn": 1.108, "en": 1.450, "hi": 1.557}
    return _row("Prompt tokens per source byte above one", "8",
                "cost.tokens_per_byte_bn; cost.tokens_per_byte_en; cost.tokens_per_byte_hi",
                "prompt tokens per source byte: " + ", ".join(f"{k} {v}" for k, v in printed.items()),
                "a byte-level tokenizer spends at most one token per byte of its input, so every ratio above 1 "
                "counts the fixed prompt template in the numerator and only the sentence in the denominator",
                all(v <= 1 for v in printed.values()), "comparison")


def expected_leaked_fraction(train_share: float, views: int) -> float:
    """Expected share of test rows whose source item is also in training: 1 - (1 - rho)^(V - 1) (section 9)."""
    return 1 - (1 - train_share) ** (views - 1)


def check_leak_fraction_v8() -> dict:
    """Section 9: 1 - 0.2^7 at V = 8, rho = 0.8, printed as 99.998 %."""
    value = expected_leaked_fraction(0.8, 8)
    return _row("Expected leaked share of test rows at V = 8", "9", "leakage.expected_fraction_v8",
                "99.998 % at V = 8, rho = 0.8",
                f"1 - 0.2^7 = {value:.7f} = {100 * value:.5f} %, which rounds to 99.999 %",
                _rounds_to(100 * value, 99.998, 3), "paper_checks.expected_leaked_fraction")


def check_leak_fraction_v5() -> dict:
    """Section 9: 1 - 0.2^4 at V = 5, printed as 99.84 %."""
    value = expected_leaked_fraction(0.8, 5)
    return _row("Expected leaked share of test rows at V = 5", "9", "leakage.expected_fraction_v5",
                "99.84 % at V = 5", f"1 - 0.2^4 = {value:.4f} = {100 * value:.2f} %",
                _rounds_to(100 * value, 99.84, 2), "paper_checks.expected_leaked_fraction")


def check_leakage_points() -> dict:
    """Section 9: 0.630 row-wise against 0.598 grouped is '+3.1 points absolute, +5.3 % relative'."""
    lo_abs, hi_abs = 0.6295 - 0.5985, 0.6305 - 0.5975
    lo_rel, hi_rel = lo_abs / 0.5985, hi_abs / 0.5975
    ok = lo_abs <= 0.0315 and hi_abs >= 0.0305 and lo_rel <= 0.0535 and hi_rel >= 0.0525
    return _row("The leakage inflation from the two F1 values", "9",
                "leakage.rowwise_f1; leakage.grouped_f1; leakage.inflation_points",
                "0.630 row-wise, 0.598 grouped: +3.1 points absolute, +5.3 % relative",
                f"0.630 - 0.598 = {0.630 - 0.598:.3f} (rounding range {lo_abs:.4f}-{hi_abs:.4f}); relative "
                f"{100 * lo_rel:.2f}-{100 * hi_rel:.2f} %", ok, "arithmetic")


def check_leakage_over_ratios() -> dict:
    """Section 9: +3.1 points at the 80/20 split, yet 'stable at 1.7-2.3 points across split ratios from 0.5 to 0.9'."""
    at_80, low, high = 3.1, 1.7, 2.3
    return _row("The 80/20 inflation against the range over split ratios", "9",
                "leakage.inflation_points; leakage.inflation_min_over_ratios; leakage.inflation_max_over_ratios",
                "+3.1 points at the 80/20 split; 1.7-2.3 points across split ratios 0.5-0.9",
                f"0.8 lies in [0.5, 0.9] but {at_80} lies outside [{low}, {high}]", low <= at_80 <= high, "comparison")


def check_leakage_t_test() -> dict:
    """Section 9: t = 4.97 over 6 paired replicates gives p = 0.0042 on 5 df; 0.0006 is the p of 10 df."""
    t, replicates = 4.97, 6
    paired = float(2 * stats.t.sf(t, replicates - 1))
    two_sample = float(2 * stats.t.sf(t, 2 * replicates - 2))
    return _row("The leakage t test", "9", "leakage.p",
                "t = 4.97, p = 0.0006, 6 replicates (the splits are paired by replicate)",
                f"paired, {replicates - 1} df: p = {paired:.4f}; p = {two_sample:.4f} needs "
                f"{2 * replicates - 2} df (a two-sample test)", _rounds_to(paired, 0.0006, 4), "scipy.stats.t")


def check_design_counts() -> dict:
    """Section 3 and 9: 5,813 + 6,547 + 4,740 = 17,100; 290 x 8 x 3 = 6,960; 4,206 x 8 = 33,648."""
    total, judgements, rows = 5813 + 6547 + 4740, N_ITEMS * N_SYSTEMS * N_RATERS, 4206 * 8
    return _row("Design counts", "3; 9", "design.n_sentences; design.n_judgements",
                "17,100 sentences (5,813 + 6,547 + 4,740); 6,960 judgements (290 x 8 x 3); 33,648 rows (4,206 x 8)",
                f"{total:,}; {judgements:,}; {rows:,}", (total, judgements, rows) == (17100, 6960, 33648),
                "arithmetic")


#: Every check, in the order the book shows them: inconsistencies first within each theme.
CHECKS: tuple[Callable[[], dict], ...] = (
    check_winner_changes, check_g_unbiased, check_g_observed, check_f_tests, check_ss_shares, check_icc_k,
    check_sentence_vs_system, check_gemini_wilson, check_reversal, check_mos_spread_in_emojis, check_beta_p,
    check_correlation_p_values, check_rank_correlation_granularity, check_ead_at_400, check_tokens_per_emoji,
    check_tokens_per_byte, check_unit_ratios, check_leak_fraction_v8, check_leak_fraction_v5,
    check_leakage_points, check_leakage_over_ratios, check_leakage_t_test, check_design_counts,
)


def checks() -> pd.DataFrame:
    """Every check of the paper against itself (computed once per process; a copy is returned).

    Returns
    -------
    DataFrame
        One row per check, columns :data:`CHECK_COLUMNS`: what is checked,
        the section(s), the registry ids it concerns (``"; "``-joined), what
        the paper prints, what the printed numbers give when recomputed, the
        verdict (``consistent`` / ``inconsistent``) and the function or
        library that computed it. Inconsistent checks first, then in
        :data:`CHECKS` order.
    """
    return _checks().copy()


@functools.lru_cache(maxsize=1)
def _checks() -> pd.DataFrame:
    table = pd.DataFrame([check() for check in CHECKS], columns=list(CHECK_COLUMNS))
    order = table["verdict"].map({INCONSISTENT: 0, CONSISTENT: 1})
    return table.assign(_o=order).sort_values("_o", kind="stable").drop(columns="_o").reset_index(drop=True)


def paper_inconsistencies() -> pd.DataFrame:
    """The inconsistent checks, one row per registry id they concern first.

    Kept for the chapters that import ``claims.paper_inconsistencies``.

    Returns
    -------
    DataFrame
        Columns ``id, paper_says, arithmetic``.
    """
    rows = checks()
    rows = rows[rows["verdict"] == INCONSISTENT]
    table = pd.DataFrame({"id": rows["claims"].str.split("; ").str[0], "paper_says": rows["paper"],
                          "arithmetic": rows["computed"]})
    return table.drop_duplicates("id").reset_index(drop=True)
