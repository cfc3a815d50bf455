"""Section 5 on real data: does the WMT23 en-de MQM score track the length of the translation?

The paper (section 5) finds that preference ratings track output length. WMT23
MQM (:func:`compendium.data.real.load_mqm`, 104 segments x 10 systems, 3 of 10
raters per segment) is a real human evaluation whose outputs have a length:
the translation's text, read from the raw release by
:mod:`compendium.data.mqm_texts`. This module fits the paper's length model and
the sounder one (:func:`compendium.analyses.length.length_models`, unchanged;
this module only builds its inputs) to it.

Conventions
-----------
- **Sign.** MQM counts errors (lower is better). The models are fitted to the
  *quality* ``-MQM`` so that "ratings track length" means a positive slope,
  as in the paper.
- **Length.** The translation's length in hundreds of characters
  (``len(text) / 100``, code points of the cleaned text) and, again, in
  hundreds of ``o200k_base`` tokens (OpenAI's GPT-4o/4.1 encoding, vendored;
  chosen because it is a production tokenizer with a large multilingual
  vocabulary that segments German reasonably, and because its counts are
  exact, not a proxy, for the system it belongs to). Per hundred so that the
  slopes are of a readable size.
- **Per-word control.** MQM sums error weights over the text, so a longer
  translation has more room for errors and its score falls mechanically. The
  control divides by the number of target words (white-space tokens):
  ``-MQM / words`` (quality per word). If the raw slope is negative but the
  per-word slope is not, the length effect is the scoring summing over
  length, not the raters tracking it.
- **Omission control.** An MQM score also counts what a translation leaves
  out: a translation that omits a clause is shorter *and* marked for the
  omission, so a length slope on MQM is partly arithmetic, not a rater's
  taste. The control scores every judgement again from the release's
  annotation rows without the errors a shorter text earns by being shorter
  (:data:`OMISSION_CATEGORIES`) and fits the same models to that score.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from compendium.analyses.length import length_models
from compendium.analyses.real import DOES_NOT_HOLD, HOLDS, INCONCLUSIVE, NOT_TESTABLE, Rule, interval_verdict
from compendium.data.tokenizers import stored_counts
from compendium.data.cache import cached

__all__ = [
    "TOKENIZER",
    "LENGTHS",
    "OUTCOMES",
    "mqm_lengths",
    "mqm_judgements",
    "OMISSION_CATEGORIES",
    "mqm_scores",
    "mqm_length_models",
    "within_item_slope",
    "per_word_by_length",
    "omission_length_correlation",
    "SMALLEST_STANDARDISED_SLOPE",
    "RULE_TRACKS_LENGTH",
    "RULE_SURVIVES_PER_WORD",
    "smallest_slope",
    "verdict_tracks_length",
    "verdict_survives_per_word",
    "SMALLEST_SENSITIVITY",
    "smallest_sensitivity",
    "SMALLEST_LONGER_WINS",
    "RULE_LONGER_WINS",
    "longer_wins",
    "verdict_longer_wins",
    "verdict_longer_wins_all",
    "pandalm_length_checks",
    "system_lengths",
    "length_adjusted_order",
    "RULE_ORDER_TRACKS_LENGTH",
    "verdict_order_tracks_length",
    "pandalm_order_check",
]

#: The tokenizer of the token-length fits (see the module docstring).
TOKENIZER = "o200k_base"
#: Length predictors: column -> description.
LENGTHS = {"chars100": "characters / 100", "tokens100": f"{TOKENIZER} tokens / 100"}
#: Outcomes: column -> description.
OUTCOMES = {"quality": "-MQM (higher is better)", "quality_per_word": "-MQM per target word",
            "quality_no_omission": "-MQM without omission and untranslated-text errors"}
#: The error categories (prefixes) a translation earns by leaving text out or untranslated: ``Accuracy/Omission``
#: (both of the release's variants), ``Non-translation!`` (a segment not translated at all) and
#: ``Accuracy/Source language fragment`` (the release's name for untranslated text).
OMISSION_CATEGORIES = ("Accuracy/Omission", "Non-translation!", "Accuracy/Source language fragment")


def mqm_lengths(texts: pd.DataFrame, *, tokenizer: str = TOKENIZER) -> pd.DataFrame:
    """Length of every translation: characters, tokens of ``tokenizer``, words.

    Parameters
    ----------
    texts : DataFrame
        :func:`compendium.data.mqm_texts.load_mqm_texts` (``item, system, target``).
    tokenizer : str
        A name of :func:`compendium.data.tokenizers.registry`.

    Returns
    -------
    DataFrame
        ``item, system, chars, tokens, words, chars100, tokens100``.

    Examples
    --------
    >>> t = pd.DataFrame({"item": [1], "system": ["a"], "target": ["Die Polizei nimmt 15 Personen fest."]})
    >>> mqm_lengths(t)[["chars", "words"]].values.tolist()
    [[35, 6]]
    """
    out = texts[["item", "system"]].copy()
    target = texts["target"].astype(str)
    out["chars"] = target.str.len().astype(int)
    out["tokens"] = np.asarray(stored_counts(tokenizer, tuple(target.tolist())), dtype=int)
    out["words"] = target.str.split().str.len().astype(int)
    out["chars100"] = out["chars"] / 100.0
    out["tokens100"] = out["tokens"] / 100.0
    return out.reset_index(drop=True)


def mqm_scores(rows: pd.DataFrame, *, without: Sequence[str] = ()) -> pd.DataFrame:
    """Each judgement's MQM score from the release's annotation rows, leaving out the categories that start
    with any of ``without``.

    The weights are :func:`compendium.data.derive.mqm_weight`'s (HOTW-test rows excluded), which made the
    shipped ``wmt23_mqm_ende.csv``: with nothing left out the scores equal :func:`compendium.data.real.load_mqm`'s
    (tested). A judgement whose every error is left out scores 0.

    Returns
    -------
    DataFrame
        ``item, system, rater, rating`` (MQM, lower is better), one row per judgement.
    """
    from compendium.data.derive import mqm_weight

    kept = rows[rows["severity"] != "HOTW-test"]
    tenths = np.array([mqm_weight(c, s) for c, s in zip(kept["category"], kept["severity"])], dtype=float)
    dropped = kept["category"].str.startswith(tuple(without)) if len(without) else np.zeros(len(kept), dtype=bool)
    score = kept[["item", "system", "rater"]].assign(rating=np.where(dropped, 0.0, tenths) / 10.0)
    out = score.groupby(["item", "system", "rater"], as_index=False, sort=True)["rating"].sum()
    out["rating"] = out["rating"].round(1)  # sums of tenths, as the derived table writes them
    return out


def mqm_judgements(scores: pd.DataFrame, lengths: pd.DataFrame,
                   without_omissions: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every MQM judgement with its translation's length and the signed outcomes.

    Parameters
    ----------
    scores : DataFrame
        :func:`compendium.data.real.load_mqm` (``item, system, rater, rating``, MQM).
    lengths : DataFrame
        :func:`mqm_lengths`.
    without_omissions : DataFrame, optional
        :func:`mqm_scores` without :data:`OMISSION_CATEGORIES`: adds ``quality_no_omission``.

    Returns
    -------
    DataFrame
        ``item, system, rater, mqm, quality (= -mqm), quality_per_word (=
        -mqm / words), chars, tokens, words, chars100, tokens100`` (and
        ``quality_no_omission``), sorted.

    Raises
    ------
    ValueError
        If a judgement has no length (the texts and scores disagree).
    """
    s = scores.assign(item=scores["item"].astype(int), system=scores["system"].astype(str),
                      rater=scores["rater"].astype(str))
    j = s.rename(columns={"rating": "mqm"}).merge(lengths, on=["item", "system"], how="left", validate="m:1")
    if j["chars"].isna().any():
        raise ValueError(f"{int(j['chars'].isna().sum())} judgements have no translation text")
    j["mqm"] = j["mqm"].astype(float)
    j["quality"] = -j["mqm"]
    j["quality_per_word"] = -j["mqm"] / j["words"]
    cols = ["item", "system", "rater", "mqm", "quality", "quality_per_word", "chars", "tokens", "words",
            "chars100", "tokens100"]
    if without_omissions is not None:
        w = without_omissions.assign(item=without_omissions["item"].astype(int),
                                     system=without_omissions["system"].astype(str),
                                     rater=without_omissions["rater"].astype(str))
        j = j.merge(w.rename(columns={"rating": "mqm_no_omission"}), on=["item", "system", "rater"], how="left",
                    validate="1:1")
        if j["mqm_no_omission"].isna().any():
            raise ValueError(f"{int(j['mqm_no_omission'].isna().sum())} judgements have no annotation rows")
        j["quality_no_omission"] = -j["mqm_no_omission"].astype(float)
        cols.append("quality_no_omission")
    return j[cols].sort_values(["item", "system", "rater"]).reset_index(drop=True)


@cached("compendium")  # REML fits; a build artefact: nbval's re-execution reads it
def mqm_length_models(judgements: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """The paper's and the sounder length model for each (outcome, length) of the MQM study.

    Fits :func:`compendium.analyses.length.length_models` (REML,
    Satterthwaite df) for the outcome ``quality`` on ``chars100`` and on
    ``tokens100``, for the per-word control ``quality_per_word`` on
    ``chars100`` and, where the judgements have it, for the omission control
    ``quality_no_omission`` on ``chars100``.

    Returns
    -------
    DataFrame
        ``outcome, length`` and the columns of ``length_models`` (one row per
        model per fit).
    """
    lengths = judgements[["item", "system", *LENGTHS]].drop_duplicates(["item", "system"])
    fits = []
    pairs = [("quality", "chars100"), ("quality", "tokens100"), ("quality_per_word", "chars100")]
    if "quality_no_omission" in judgements:
        pairs.append(("quality_no_omission", "chars100"))
    for outcome, length in pairs:
        m = length_models(judgements, lengths, level=level, item="item", system="system", rater="rater",
                          rating=outcome, length=length)
        fits.append(m.assign(outcome=outcome, length=length))
    out = pd.concat(fits, ignore_index=True)
    return out[["outcome", "length", *[c for c in out.columns if c not in ("outcome", "length")]]]


def within_item_slope(judgements: pd.DataFrame, *, outcome: str = "quality", length: str = "chars100") -> float:
    """OLS slope of ``outcome`` on ``length`` after removing each item's mean from both (descriptive).

    Uses only the differences between the translations of one segment, so
    segment difficulty and segment length cannot enter it.

    Examples
    --------
    >>> j = pd.DataFrame({"item": [1, 1, 2, 2], "quality": [0.0, 2.0, 5.0, 6.0], "chars100": [1.0, 2.0, 8.0, 9.0]})
    >>> within_item_slope(j)
    1.5
    """
    y = judgements[outcome] - judgements.groupby("item")[outcome].transform("mean")
    x = judgements[length] - judgements.groupby("item")[length].transform("mean")
    return float((x * y).sum() / (x * x).sum())


def per_word_by_length(judgements: pd.DataFrame, *, threshold: int = 150) -> pd.DataFrame:
    """Mean MQM and MQM per word of translations shorter than ``threshold`` characters and of the rest.

    Returns
    -------
    DataFrame
        Index ``shorter than {threshold} characters`` (True/False); columns
        ``translations, mean_words, mean_mqm, mean_mqm_per_word``.
    """
    key = judgements["chars"] < threshold
    g = judgements.assign(mqm_per_word=judgements["mqm"] / judgements["words"]).groupby(key.rename(
        f"shorter than {threshold} characters"))
    return pd.DataFrame({
        "translations": g.apply(lambda d: len(d[["item", "system"]].drop_duplicates())),
        "mean_words": g["words"].mean(), "mean_mqm": g["mqm"].mean(), "mean_mqm_per_word": g["mqm_per_word"].mean(),
    })


def omission_length_correlation(rows: pd.DataFrame, texts: pd.DataFrame) -> float:
    """Within-segment Pearson correlation of a translation's length with its number of omission errors.

    Omission rows are those whose category starts with ``Accuracy/Omission``
    (all raters pooled, HOTW-test rows excluded); both the character length
    and the count are centred on their segment's mean before correlating.

    Parameters
    ----------
    rows : DataFrame
        :func:`compendium.data.mqm_texts.load_mqm_rows`.
    texts : DataFrame
        :func:`compendium.data.mqm_texts.load_mqm_texts`.
    """
    r = rows[(rows["severity"] != "HOTW-test") & rows["category"].str.startswith("Accuracy/Omission")]
    om = r.groupby(["item", "system"]).size().rename("omissions")
    d = texts.set_index(["item", "system"]).join(om)
    d["omissions"] = d["omissions"].fillna(0.0)
    d["chars"] = d["target"].str.len()
    centred = d[["chars", "omissions"]] - d.groupby(level="item")[["chars", "omissions"]].transform("mean")
    return float(centred["chars"].corr(centred["omissions"]))


#: The smallest standardised slope of interest: Cohen's "small" effect (r = 0.1; J. Cohen, *Statistical Power
#: Analysis for the Behavioral Sciences*, 2nd ed., 1988), the convention for equivalence bounds when no other basis
#: exists (D. Lakens, 2017, *Social Psychological and Personality Science* 8(4), 355-362). The paper's own slope
#: (0.159 MOS points per emoji on a 1-5 scale) has no unit in common with MQM points per character.
SMALLEST_STANDARDISED_SLOPE = 0.1

RULE_TRACKS_LENGTH = Rule(
    quantity="mixed-model slope of quality (-MQM, higher is better) on translation length, with its 95% CI "
             "(Satterthwaite df)",
    paper="positive: longer outputs are rated better",
    rule="holds if the 95% CI lies wholly above 0; does not hold if it lies wholly below the smallest slope of "
         "interest; inconclusive otherwise",
    smallest_effect=f"a standardised slope of {SMALLEST_STANDARDISED_SLOPE} (slope x SD(length) / SD(quality) over "
                    "the judgements): Cohen's small effect, as equivalence bounds take it when nothing else gives one; "
                    "the paper's 0.159 MOS points per emoji does not convert to MQM points per character",
)
RULE_SURVIVES_PER_WORD = Rule(
    quantity="mixed-model slope of -MQM per target word on translation length, with its 95% CI",
    paper="the ordering tracks length because of the raters, not because a score sums over a longer text",
    rule="not testable here unless the raw slope's CI excludes 0 (no length effect to explain); then holds if the "
         "per-word slope's CI excludes 0 on the raw slope's side; does not hold if it excludes 0 on the other side; "
         "inconclusive if it contains 0",
)


def smallest_slope(judgements: pd.DataFrame, *, length: str, outcome: str = "quality",
                   standardised: float = SMALLEST_STANDARDISED_SLOPE) -> float:
    """The smallest slope of interest on the raw scale: ``standardised x SD(outcome) / SD(length)``.

    >>> frame = pd.DataFrame({"quality": [0.0, 2.0, 4.0], "chars100": [1.0, 2.0, 3.0]})
    >>> round(smallest_slope(frame, length="chars100"), 3)
    0.2
    """
    return float(standardised * judgements[outcome].std(ddof=1) / judgements[length].std(ddof=1))


def verdict_tracks_length(ci_low: float, ci_high: float, *, smallest: float) -> str:
    """Verdict on "ratings track output length" (longer outputs rated better): :data:`RULE_TRACKS_LENGTH`.

    ``smallest`` is the smallest slope of interest on the interval's scale (:func:`smallest_slope`).

    Examples
    --------
    >>> verdict_tracks_length(0.01, 0.2, smallest=0.1), verdict_tracks_length(-0.3, 0.05, smallest=0.1)
    ('holds', 'does not hold')
    >>> verdict_tracks_length(-0.1, 0.2, smallest=0.1), verdict_tracks_length(float("nan"), 0.2, smallest=0.1)
    ('inconclusive', 'not testable here')
    """
    return interval_verdict(ci_low, ci_high, effect_of_interest=smallest)


#: The smallest standardised slopes over which a length verdict's sensitivity is reported (Cohen's small effect
#: is the rule's; these bracket it).
SMALLEST_SENSITIVITY = (0.05, 0.1, 0.15, 0.2)


def smallest_sensitivity(ci: tuple[float, float], judgements: pd.DataFrame, *, length: str,
                         outcome: str = "quality") -> str:
    """How :func:`verdict_tracks_length` moves with the smallest standardised slope of interest, as text.

    >>> frame = pd.DataFrame({"quality": [0.0, 2.0, 4.0], "chars100": [1.0, 2.0, 3.0]})
    >>> smallest_sensitivity((-0.5, 0.25), frame, length="chars100")  # doctest: +NORMALIZE_WHITESPACE
    'with a smallest standardised slope of 0.05 / 0.1 / 0.15 / 0.2: inconclusive / inconclusive / does not hold / does
    not hold'
    """
    verdicts = [verdict_tracks_length(*ci, smallest=smallest_slope(judgements, length=length, outcome=outcome,
                                                                   standardised=v)) for v in SMALLEST_SENSITIVITY]
    return (f"with a smallest standardised slope of {' / '.join(f'{v:g}' for v in SMALLEST_SENSITIVITY)}: "
            + " / ".join(verdicts))


def verdict_survives_per_word(raw_ci: tuple[float, float], per_word_ci: tuple[float, float]) -> str:
    """Verdict on "the length effect is the raters', not the scoring's" (:data:`RULE_SURVIVES_PER_WORD`).

    Rule: ``not testable here`` when the raw slope's 95% CI contains 0 (no
    length effect to explain) or an interval is not finite; otherwise
    ``holds`` when the per-word slope's CI excludes 0 on the *same side* as
    the raw one (the raters' scores track length beyond the mechanical sum),
    ``does not hold`` when it excludes 0 on the *other* side, ``inconclusive``
    when it contains 0 (a per-word effect of the raw one's size is then not
    ruled out either).

    Examples
    --------
    >>> verdict_survives_per_word((-0.9, -0.5), (-0.02, 0.01)), verdict_survives_per_word((-0.9, -0.5), (-0.3, -0.1))
    ('inconclusive', 'holds')
    >>> verdict_survives_per_word((-0.2, 0.1), (-0.3, -0.1)), verdict_survives_per_word((-0.9, -0.5), (0.1, 0.3))
    ('not testable here', 'does not hold')
    """
    lo, hi = raw_ci
    plo, phi = per_word_ci
    if not all(np.isfinite(v) for v in (lo, hi, plo, phi)) or lo <= 0 <= hi:
        return NOT_TESTABLE
    return interval_verdict(plo, phi, effect_of_interest=0.0, direction=1 if lo > 0 else -1)


# --------------------------------------------------------------------------- PandaLM: does the longer response win?

#: The smallest longer-wins rate of interest: Cohen's "small" difference between proportions, h = 0.2
#: (J. Cohen, 1988, ch. 6), from 0.5: sin^2(asin(sqrt(0.5)) + 0.1) = 0.599. The same convention as
#: :data:`SMALLEST_STANDARDISED_SLOPE`, for want of one from the paper, whose length effect is a slope in MOS
#: points per emoji.
SMALLEST_LONGER_WINS = float(np.sin(np.arcsin(np.sqrt(0.5)) + 0.1) ** 2)

RULE_LONGER_WINS = Rule(
    quantity="share of an annotator's non-tied PandaLM judgements of two responses of unequal length (characters) "
             "in which the longer response wins, with its 95% Wilson interval",
    paper="the ordering tracks output length: the longer output is preferred",
    rule="per annotator: holds if the interval lies wholly above 0.5; does not hold if it lies wholly below the "
         "smallest rate of interest; inconclusive otherwise. Over PandaLM's three annotators: holds if it holds for "
         "each, does not hold if it does not hold for each, inconclusive otherwise. An association, as in the "
         "paper: a longer response may also be a better one",
    smallest_effect=f"a longer-wins rate of {SMALLEST_LONGER_WINS:.3f}: Cohen's small difference between "
                    "proportions (h = 0.2) from 0.5, as equivalence bounds take it when nothing else gives one",
)


def longer_wins(judgements: pd.DataFrame, responses: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """How often the longer of two responses wins, per rater and over all raters.

    Parameters
    ----------
    judgements : DataFrame
        Pairwise judgements ``item, rater, winner`` (``a``, ``b`` or ``tie``), as
        :func:`compendium.data.real.load_pandalm`.
    responses : DataFrame
        ``item, response_a, response_b``, as :func:`compendium.data.real.load_pandalm_responses`.
    level : float
        The interval's confidence level.

    Returns
    -------
    DataFrame
        One row per rater and a last row ``all`` (every judgement of every rater, which are not independent:
        a description, with no verdict of its own): ``n`` the non-tied judgements of responses of unequal
        length in characters (code points), ``longer_wins`` how many the longer response won, ``rate``, and
        ``ci_low``, ``ci_high``, the Wilson score interval (E. B. Wilson, 1927, JASA 22, 209-212), as
        ``scipy.stats.binomtest(...).proportion_ci(method="wilson")`` computes it. Ties and responses of equal
        length are left out and counted (``ties``, ``equal_length``).
    """
    from scipy import stats

    lengths = responses.assign(len_a=responses["response_a"].str.len(), len_b=responses["response_b"].str.len())
    frame = judgements.merge(lengths[["item", "len_a", "len_b"]], on="item", how="left", validate="many_to_one")
    if frame["len_a"].isna().any():
        missing = sorted(frame.loc[frame["len_a"].isna(), "item"].unique())[:5]
        raise ValueError(f"judgements of items with no responses: {missing}")
    decided = frame["winner"].isin(["a", "b"])
    unequal = frame["len_a"] != frame["len_b"]
    longer = np.where(frame["len_a"] > frame["len_b"], "a", "b")

    def row(name, part):
        use = part[decided[part.index] & unequal[part.index]]
        n = len(use)
        wins = int((use["winner"].to_numpy() == longer[use.index]).sum())
        lo = hi = np.nan
        if n:
            ci = stats.binomtest(wins, n).proportion_ci(confidence_level=level, method="wilson")
            lo, hi = float(ci.low), float(ci.high)
        return {"rater": name, "n": n, "longer_wins": wins, "rate": wins / n if n else np.nan, "ci_low": lo,
                "ci_high": hi, "ties": int((~decided[part.index]).sum()),
                "equal_length": int((decided[part.index] & ~unequal[part.index]).sum())}

    rows = [row(str(rater), part) for rater, part in frame.groupby("rater", sort=True)]
    rows.append(row("all", frame))
    return pd.DataFrame(rows)


def verdict_longer_wins(ci_low: float, ci_high: float) -> str:
    """One annotator's verdict on "the longer response wins" (:data:`RULE_LONGER_WINS`).

    Examples
    --------
    >>> verdict_longer_wins(0.61, 0.70), verdict_longer_wins(0.40, 0.58), verdict_longer_wins(0.45, 0.65)
    ('holds', 'does not hold', 'inconclusive')
    >>> verdict_longer_wins(0.52, 0.58)  # above 0.5, if by less than a small effect
    'holds'
    """
    return interval_verdict(ci_low - 0.5, ci_high - 0.5, effect_of_interest=SMALLEST_LONGER_WINS - 0.5)


def verdict_longer_wins_all(verdicts: Sequence[str]) -> str:
    """The verdict over annotators: holds if it holds for each, does not hold if it does not hold for each.

    >>> verdict_longer_wins_all(["holds"] * 3), verdict_longer_wins_all(["holds", "inconclusive", "holds"])
    ('holds', 'inconclusive')
    >>> verdict_longer_wins_all([]), verdict_longer_wins_all(["not testable here", "holds"])
    ('not testable here', 'not testable here')
    """
    verdicts = list(verdicts)
    if not verdicts or NOT_TESTABLE in verdicts:
        return NOT_TESTABLE
    if all(v == HOLDS for v in verdicts):
        return HOLDS
    if all(v == DOES_NOT_HOLD for v in verdicts):
        return DOES_NOT_HOLD
    return INCONCLUSIVE


def pandalm_length_checks(judgements: pd.DataFrame, responses: pd.DataFrame) -> tuple[pd.DataFrame, list[dict]]:
    """PandaLM's longer-wins table (:func:`longer_wins`, with each annotator's verdict) and its checks.

    The checks are keyword arguments for :meth:`compendium.analyses.ledger.real_checks.Recorder.record` (with
    ``rule=RULE_LONGER_WINS``): one per annotator (``length.real_pandalm_longer_wins.a1`` ...) and the
    verdict over the three (``length.real_pandalm_longer_wins``), whose estimate and interval are the lowest
    annotator's, the one that binds a rule asking every annotator to hold.
    """
    table = longer_wins(judgements, responses)
    by_rater = table[table["rater"] != "all"].set_index("rater")
    verdicts = {rater: verdict_longer_wins(row["ci_low"], row["ci_high"]) for rater, row in by_rater.iterrows()}
    table = table.assign(verdict=[verdicts.get(r, "(all annotators: a description)") for r in table["rater"]])
    data = (f"PandaLM test set v1 (real): {judgements['item'].nunique()} comparisons of two responses, "
            f"{len(by_rater)} annotators, lengths in characters")
    common = {"section": "5", "paper": "The ordering that does emerge tracks output length", "rule": RULE_LONGER_WINS}
    checks = [{**common, "check": f"length.real_pandalm_longer_wins.{rater.lower()}",
               "data": f"{data}; annotator {rater}", "estimate": row["rate"],
               "interval": (row["ci_low"], row["ci_high"]), "verdict": verdicts[rater],
               "computed": f"the longer response wins {row['longer_wins']:.0f} of {row['n']:.0f} non-tied judgements "
                           f"of unequal length ({row['rate']:.3f}; {row['ties']:.0f} ties and "
                           f"{row['equal_length']:.0f} of equal length left out)"}
              for rater, row in by_rater.iterrows()]
    weakest = by_rater["rate"].idxmin()
    checks.append({**common, "check": "length.real_pandalm_longer_wins", "data": data,
                   "estimate": by_rater.loc[weakest, "rate"],
                   "interval": (by_rater.loc[weakest, "ci_low"], by_rater.loc[weakest, "ci_high"]),
                   "verdict": verdict_longer_wins_all(verdicts.values()),
                   "computed": "the longer response wins "
                               + "; ".join(f"{r}: {row['rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
                                           for r, row in by_rater.iterrows())
                               + f"; the estimate shown is the lowest annotator's ({weakest})"})
    return table, checks


# --------------------------------------------------------------------------- PandaLM: the ordering against length

RULE_ORDER_TRACKS_LENGTH = Rule(
    quantity="Kendall's tau-b between the five PandaLM systems' Bradley-Terry strengths (all three annotators' "
             "judgements, a tie half a win each way) and their mean response length in characters",
    paper="The ordering that does emerge tracks output length",
    rule="holds if tau >= 0.8 (at most one of the ten pairs of systems out of length order: 5 of the 120 orderings "
         "of five systems, an exact one-sided p of 0.042 against orderings unrelated to length); does not hold if "
         "tau <= -0.8 (the ordering runs against length just as clearly); inconclusive between. Beside it, the "
         "ordering with length held fixed (a Bradley-Terry model with the log length ratio of the two responses "
         "as a covariate) says how much of the order length accounts for. An association over five systems: no "
         "interval",
    smallest_effect="the rule's threshold is the smallest tau an ordering of five systems can reach by chance "
                    "with probability below 0.05",
)


def system_lengths(responses: pd.DataFrame) -> pd.Series:
    """Each system's mean response length in characters (code points) over the comparisons it appears in.

    ``responses`` has ``item, system_a, system_b, response_a, response_b``
    (:func:`compendium.data.real.load_pandalm_responses`); each comparison's two responses count once, whatever
    the number of raters.
    """
    sides = pd.concat([responses[["system_a", "response_a"]].set_axis(["system", "text"], axis=1),
                       responses[["system_b", "response_b"]].set_axis(["system", "text"], axis=1)])
    return sides.assign(length=sides["text"].str.len()).groupby("system")["length"].mean().rename("mean_length")


def length_adjusted_order(judgements: pd.DataFrame, responses: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """The systems' raw Bradley-Terry order beside the order with the responses' length held fixed.

    The length covariate of a judgement is ``log((len_a + 1) / (len_b + 1))`` in characters (+1 because some
    responses are empty), fitted by :func:`compendium.stats.preference.bradley_terry_covariate`.

    Returns
    -------
    (DataFrame, dict)
        One row per system, strongest first on the raw order: ``system``, ``mean_length``
        (:func:`system_lengths`), ``strength`` and ``rank`` raw, ``strength_length_held`` and
        ``rank_length_held``; and the covariate's ``beta`` (log-odds of winning per unit of log length ratio)
        with ``ci_low``, ``ci_high`` (clustered by item) and ``n``, and ``tau_raw_held``, Kendall's tau-b between
        the two orders.
    """
    from scipy.stats import kendalltau

    from compendium.stats import preference

    frame = judgements.merge(responses[["item", "response_a", "response_b"]], on="item", how="left",
                             validate="many_to_one")
    if frame["response_a"].isna().any():
        raise ValueError("judgements of items with no responses: "
                         f"{sorted(frame.loc[frame['response_a'].isna(), 'item'].unique())[:5]}")
    c = preference.comparisons(frame)
    ratio = np.log((frame["response_a"].str.len().to_numpy() + 1.0) / (frame["response_b"].str.len().to_numpy() + 1.0))
    raw = preference.bradley_terry(c)
    held, info = preference.bradley_terry_covariate(c, ratio)
    table = pd.DataFrame({"system": raw.index, "mean_length": system_lengths(responses).reindex(raw.index).to_numpy(),
                          "strength": raw.to_numpy(), "strength_length_held": held.to_numpy()})
    table["rank"] = table["strength"].rank(ascending=False, method="min").astype(int)
    table["rank_length_held"] = table["strength_length_held"].rank(ascending=False, method="min").astype(int)
    table = table.sort_values("rank", kind="stable").reset_index(drop=True)
    info["tau_raw_held"] = float(kendalltau(table["strength"], table["strength_length_held"]).statistic)
    return table[["system", "mean_length", "strength", "rank", "strength_length_held", "rank_length_held"]], info


def verdict_order_tracks_length(tau: float) -> str:
    """:data:`RULE_ORDER_TRACKS_LENGTH` from Kendall's tau between strength and mean length.

    >>> verdict_order_tracks_length(0.8), verdict_order_tracks_length(0.6), verdict_order_tracks_length(-1.0)
    ('holds', 'inconclusive', 'does not hold')
    >>> verdict_order_tracks_length(float("nan"))
    'not testable here'
    """
    if not np.isfinite(tau):
        return NOT_TESTABLE
    if tau >= 0.8 - 1e-12:
        return HOLDS
    return DOES_NOT_HOLD if tau <= -0.8 + 1e-12 else INCONCLUSIVE


def pandalm_order_check(judgements: pd.DataFrame, responses: pd.DataFrame) -> tuple[pd.DataFrame, dict, dict]:
    """The table of :func:`length_adjusted_order`, its fit, and the check ``length.real_pandalm_order_tracks_length``
    (keyword arguments for :meth:`compendium.analyses.ledger.real_checks.Recorder.record`)."""
    from scipy.stats import kendalltau

    table, info = length_adjusted_order(judgements, responses)
    tau = float(kendalltau(table["strength"], table["mean_length"]).statistic)
    order = lambda column: " > ".join(table.sort_values(column, ascending=False)["system"])  # noqa: E731
    check = {
        "check": "length.real_pandalm_order_tracks_length", "section": "5", "rule": RULE_ORDER_TRACKS_LENGTH,
        "paper": "The ordering that does emerge tracks output length",
        "data": f"PandaLM test set v1 (real): {judgements['item'].nunique()} comparisons, {len(table)} systems, "
                "3 annotators",
        "computed": f"Kendall's tau between strength and mean length {tau:.2f}; raw order {order('strength')}; "
                    f"mean lengths " + ", ".join(f"{r.system} {r.mean_length:.0f}" for r in table.itertuples())
                    + f"; with length held fixed (log-odds {info['beta']:.2f} [{info['ci_low']:.2f}, "
                    f"{info['ci_high']:.2f}] per unit of log length ratio) the order is "
                    f"{order('strength_length_held')}, tau {info['tau_raw_held']:.2f} with the raw order",
        "estimate": tau, "no_interval": "a rank correlation over five systems; the exact chance level is in the rule",
        "verdict": verdict_order_tracks_length(tau)}
    return table, info, check
