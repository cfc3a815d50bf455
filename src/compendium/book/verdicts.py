"""Verdict first: each section chapter's verdict box, and the claims table that opens the book and the README.

A reader should learn on a chapter's first screen whether the paper's claims
of that section hold on real data, and only then see the paper's analysis
reconstructed on simulated data. Nothing here decides anything: the box and
the table are built from what the chapters recorded, and from the paper
checked against itself.

- :data:`CLAIMS`: the paper's claims, one per row of a box, each quoted with
  its place in the paper, and tied to the checks that bear on it: the paper
  checks (:mod:`compendium.analyses.ledger.paper_checks`, by name), the real-data checks
  (:mod:`compendium.analyses.ledger.real_checks`, by id) and the sounder analyses
  (:mod:`compendium.analyses.ledger.sounder`, by the registry id of their row). The ties
  are typed here; every verdict is computed.
- :func:`claim_rows`: per claim of a chapter, **consistency** (do the paper's own numbers agree on it:
  inconsistent if any tied paper check is, consistent if all are, unverifiable with none), **on real data**
  (each part with the checks that test it, or why none does; "simulated only: no public data" for a claim
  no real data bear on), **the sounder analysis** (does it change the conclusion: yes if any tied sounder row
  says so, no if none does, "not run here" when the book computes none for the claim).
- :func:`table_rows`, :func:`table_html`, :func:`table_markdown`: the claims table, one row per claim, whose
  verdict is its headline part's (:func:`headline_verdict`) with the estimate named by its quantity and unit
  (:data:`NAMED`). The build writes it to ``_build/claims_table.md`` (the introduction includes it) and
  between the README's markers :data:`README_START` and :data:`README_END` (:func:`write_readme`); a test
  fails when the README's copy differs from the build's.
- :func:`box`: a chapter's rows of the same table, and each claim in full in a folded dropdown.

A chapter shows its box with :func:`glue_box` at its end, pasted under its
title by ``{glue:md}`` (myst-nb's glue resolves within a page, whatever the
order), so the box reads the chapter's own records once they exist.
"""

from __future__ import annotations

import os
import re
from html import escape
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from compendium.analyses.ledger import claims as ledger
from compendium.analyses.ledger import intervals
from compendium.analyses.real.ead import COMPETITIVE_GAP
from compendium.analyses.ledger.real_checks import format_estimate, format_interval
from compendium.data._files import write_text_atomic

__all__ = ["ClaimPart", "PaperClaim", "Named", "NAMED", "NO_OUTPUTS", "CLAIMS", "CHAPTERS", "GLUE_NAME",
           "README_START", "README_END", "claim_rows", "box", "glue_box", "table_rows", "table_html",
           "table_markdown", "rollup", "headline_verdict", "named_estimate", "write_readme", "readme_table"]

#: The name under which a chapter glues its box (``{glue:md} verdict_box`` under its title).
GLUE_NAME = "verdict_box"
#: The README's copy of the claims table lies between these lines (written by the build).
README_START = "<!-- claims table: written by `make book` (compendium.book.verdicts); do not edit by hand -->"
README_END = "<!-- claims table: end -->"

#: The section chapters: name, the paper's section(s), the chapter's (neutral) title.
CHAPTERS: dict[str, tuple[str, str]] = {
    "01_design": ("3, App. B", "1. Benchmark and study design"),
    "02_reliability": ("4", "2. Do preference scores identify a winner?"),
    "03_length": ("5", "3. Do the ratings track output length?"),
    "04_decodability": ("6", "4. Is affect decodable from the emojis?"),
    "05_geometry": ("7", "5. Does one centring remove the anisotropy differences?"),
    "06_cost": ("8", "6. Does the cost per language depend on the unit?"),
    "07_leakage": ("9", "7. Do row-wise splits inflate the scores?"),
    "10_real_benchmarks": ("4, on real benchmarks", "The audit on real benchmarks"),
}

#: What a badge looks like per verdict (sphinx-design badge roles).
BADGES = {ledger.HOLDS: "bdg-success", ledger.DOES_NOT_HOLD: "bdg-danger", ledger.INCONCLUSIVE: "bdg-warning",
          ledger.NOT_TESTABLE: "bdg-muted"}
CONSISTENT, INCONSISTENT, UNVERIFIABLE = "consistent", "inconsistent", "unverifiable"
SIMULATED_ONLY = "simulated only: no public data"
#: Why a part whose checks were not recorded in this build shows no verdict.
NOT_RUN = "its check was not run in this build"
#: The sounder column of a claim no sounder analysis of the book concerns.
NO_SOUNDER = "not run here"


@dataclass(frozen=True)
class ClaimPart:
    """One part of a claim, and the real-data checks that test it or the reason none does.

    A claim often says two things ("inflate macro-F1 by 3.1 points *and* change the top-ranked system"); a
    check tests one of them. The first part is the claim's headline: the claims table shows its verdict
    (:func:`headline_verdict`), and the box's folded detail lists every part. Each line there names the part
    its check tests, and a part no check tests reads "not testable here" with its reason, instead of
    borrowing the verdict of a check about another part.

    Attributes
    ----------
    text : str
        The part, in the paper's words where they suffice (a paraphrase names the section it comes from).
    real_checks : tuple of str
        Ids of the real-data checks that test this part.
    untested : str
        Why no real-data check tests it (given exactly when ``real_checks`` is empty).
    """

    text: str
    real_checks: tuple[str, ...] = ()
    untested: str = ""

    def __post_init__(self):
        if bool(self.real_checks) == bool(self.untested):
            raise ValueError(f"claim part {self.text!r}: give either its real-data checks or why none tests it")


@dataclass(frozen=True)
class PaperClaim:
    """One claim of the paper, quoted, and the checks that bear on it.

    Attributes
    ----------
    chapter : str
        The chapter whose box shows it (a key of :data:`CHAPTERS`).
    place : str
        Where the paper says it ("abstract; §5").
    quote : str
        The paper's words.
    paper_checks : tuple of str
        Names of :func:`compendium.analyses.ledger.paper_checks.checks` rows.
    parts : tuple of ClaimPart
        The claim's parts, each with the real-data checks that test it or why none does. None given: the
        whole quote is one part that no real data test (:data:`SIMULATED_ONLY`).
    sounder : tuple of str
        Registry ids (``claim``) of sounder rows.
    phrases : tuple of str
        Words that state the claim (lower case). Where a real-data check bears on it, the book's own prose
        may use them only in the paper's voice: quoted, or in a sentence that names the paper as its source
        (:func:`unattributed`).
    short : str
        The claim in at most :data:`SHORT_WORDS` words for the claims table: a shorter quote of the paper
        (words left out marked "..."), or, with ``paraphrase``, the book's paraphrase of what the headline
        part says. Empty: the quote itself (it must then be short enough).
    paraphrase : bool
        ``short`` is a paraphrase, shown without quotation marks and marked "(paraphrase)".
    """

    chapter: str
    place: str
    quote: str
    paper_checks: tuple[str, ...] = ()
    parts: tuple[ClaimPart, ...] = ()
    sounder: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()
    short: str = ""
    paraphrase: bool = False

    @property
    def headline(self) -> str:
        """The claim as the claims table shows it (:attr:`short`, or the quote)."""
        return self.short or self.quote

    @property
    def real_checks(self) -> tuple[str, ...]:
        """The ids of every part's real-data checks, in order, each once."""
        return tuple(dict.fromkeys(i for part in self.parts for i in part.real_checks))

    def all_parts(self) -> tuple[ClaimPart, ...]:
        """:attr:`parts`, or the whole quote as one part that no real data test."""
        return self.parts or (ClaimPart(self.quote, untested=SIMULATED_ONLY),)


#: Why a part about the benchmark's own systems or outputs has no real-data check.
NO_OUTPUTS = "the benchmark's outputs are not public"

#: The paper's claims, chapter by chapter (quotes from the paper), each split into the parts a check can test.
CLAIMS: tuple[PaperClaim, ...] = (
    PaperClaim("01_design", "abstract; §3",
               "eight instruction-tuned LLMs producing emoji summaries for 17,100 Bangla, English and Hindi "
               "sentences, with 6,960 human judgements",
               paper_checks=("Design counts",),
               short="8 LLMs, 17,100 sentences in three languages, 6,960 human judgements", paraphrase=True),
    PaperClaim("01_design", "App. B",
               "naive per-codepoint segmentation inflates the mean emoji count by 15.0% overall, but unevenly "
               "across systems",
               parts=(ClaimPart("naive per-codepoint segmentation inflates the mean emoji count by 15.0% overall",
                                ("seg.real_inflation_range",)),
                      ClaimPart("unevenly across systems", untested=NO_OUTPUTS)),
               phrases=("inflates the mean emoji count", "inflates the emoji count"),
               short="naive per-codepoint segmentation inflates the mean emoji count by 15.0%"),
    *(PaperClaim(chapter, "abstract; §4.2",
                 "Treating annotators as a random rather than a fixed factor, no system differs significantly from "
                 "any other […], although the conventional analysis declares 19 of 28 pairwise differences "
                 "significant",
                 paper_checks=("F test of systems against the system x rater interaction",),
                 parts=(ClaimPart("treated as random rather than fixed, the annotators leave no system significantly "
                                  "different from any other: significance the fixed analysis finds is lost",
                                  ("anova.real_random_raters",)),
                        ClaimPart("the conventional analysis declares 19 of 28 pairwise differences significant",
                                  untested="the paper's ratings are not public; the count is over its own 28 pairs "
                                           "of eight systems, and another evaluation has other systems and other "
                                           "pairs (its fixed-rater F is in chapter 10)")),
                 sounder=("anova.p_vs_interaction", "anova.F_vs_residual") if chapter == "02_reliability" else (),
                 phrases=("no system differs significantly", "no system differs from any other"),
                 short="with annotators random, no system differs significantly from any other", paraphrase=True)
      for chapter in ("02_reliability", "10_real_benchmarks")),
    *(PaperClaim(chapter, "abstract; §4.3",
                 "Annotator identity explains far more rating variance than system identity",
                 paper_checks=("Variance-component shares and sum-of-squares shares of Table 1",
                               "G with the unbiased (expected-mean-square) system variance",
                               "G and the raters needed (observed variance of the system means)",
                               "ICC(2,k) from ICC(2,1)"),
                 parts=(ClaimPart("annotator identity (a rater's leniency) explains far more rating variance "
                                  "than system identity: at least twice", ("vc.real_raters_exceed_systems",)),),
                 sounder=(("agreement.alpha_ci_high", "dstudy.G", "dstudy.raters_for_G80")
                          if chapter == "02_reliability" else ()),
                 phrases=("annotator identity explains", "annotators explain far more"))
      for chapter in ("02_reliability", "10_real_benchmarks")),
    *(PaperClaim(chapter, "§4.3, Figure 1c",
                 "three annotators cannot reach G=0.8 at any corpus size",
                 paper_checks=("G and the raters needed (observed variance of the system means)",),
                 parts=(ClaimPart("three annotators cannot reach G = 0.8 at any corpus size",
                                  ("dstudy.real_three_raters_below_g80",)),),
                 phrases=("cannot reach g", "three annotators cannot"))
      for chapter in ("02_reliability", "10_real_benchmarks")),
    *(PaperClaim(chapter, "abstract; §4.4",
                 "the winning system changes whenever any single annotator is removed",
                 paper_checks=("How often the winner changes when one annotator is left out",),
                 parts=(ClaimPart("on a panel of three, the winner changes whenever any single annotator is "
                                  "removed", ("loao.real_winner_changes",)),
                        ClaimPart("(§4.4's weaker wording) on a panel of three, some removal changes it",
                                  ("loao.real_winner_changes_some",))),
                 phrases=("winning system changes whenever", "winner changes whenever",
                          "removing a single annotator changes the winner"))
      for chapter in ("02_reliability", "10_real_benchmarks")),
    PaperClaim("03_length", "abstract; §5",
               "The ordering that does emerge tracks output length: mean emoji count explains 78.7% of "
               "between-system variance",
               paper_checks=("The length slope's p value", "The MOS spread in emojis' worth"),
               parts=(ClaimPart("ratings track output length: raters prefer the longer output",
                                ("length.real_pandalm_longer_wins", "length.real_mqm_tracks_length_no_omission")),
                      ClaimPart("the ordering of the systems tracks their output length",
                                ("length.real_pandalm_order_tracks_length",)),
                      ClaimPart("on a score that counts errors, omissions included (MQM), the score tracks length: "
                                "partly arithmetic, since a translation that leaves text out is shorter",
                                ("length.real_mqm_tracks_length", "length.real_mqm_tracks_length_tokens",
                                 "length.real_mqm_survives_per_word")),
                      ClaimPart("mean emoji count explains 78.7% of between-system variance",
                                untested=f"{NO_OUTPUTS}; no public evaluation rates emoji outputs")),
               sounder=("length.beta_per_emoji",),
               phrases=("tracks output length", "tracks how many emojis", "follows how many emojis",
                        "ratings track length", "length, not quality"),
               short="The ordering that does emerge tracks output length"),
    PaperClaim("03_length", "abstract; §5",
               "a within-item length-matched comparison over 2,599 pairs reverses the leaderboard",
               paper_checks=("Does the length-matched comparison reverse the leaderboard?",
                             "Gemini-2.0-Flash's length-matched win rate and its interval")),
    PaperClaim("04_decodability", "abstract; §6",
               "emoji-affect decodability, a reference-based probe whose rankings are stable to ±0.003 macro-F1 "
               "across seeds",
               paper_checks=("Bangla emoji decodability at n ~ 400",),
               parts=(ClaimPart("emoji-affect decodability: affect can be read back from emojis",
                                ("ead.human_decodable_goemotions", "ead.human_decodable_emomix3l",
                                 "ead.human_decodable_sentmix3l")),
                      ClaimPart("its rankings are stable to ±0.003 macro-F1 across seeds",
                                untested=f"the rankings are of the benchmark's systems, and {NO_OUTPUTS}; the "
                                         "human corpora have no systems to rank")),
               sounder=("ead.tiers",),
               phrases=("ranks systems stably",),
               # the headline part only: the table's verdict must not read as one on the rankings' stability
               short="affect can be read back from the emojis (emoji-affect decodability)", paraphrase=True),
    PaperClaim("04_decodability", "§6",
               "we claim only that the emoji channel is competitive at matched sample size, not that it is superior",
               parts=(ClaimPart("the emoji channel is competitive at matched sample size",
                                ("ead.real_emoji_vs_embedding",)),),
               phrases=("channel is competitive", "competitive at matched sample size"),
               short="the emoji channel is competitive at matched sample size"),
    PaperClaim("04_decodability", "§6",
               "the models emit the same emojis across languages but use them to mean different things",
               parts=(ClaimPart("the models emit the same emojis across languages", untested=NO_OUTPUTS),
                      ClaimPart("but use them to mean different things (tested on human writers' emojis, not the "
                                "models')", ("ead.human_language_specific",))),
               phrases=("emoji code is language-specific", "code is language-specific")),
    PaperClaim("05_geometry", "abstract; §7",
               "cross-provider anisotropy differences vanish under mean-centring",
               parts=(ClaimPart("anisotropy differences vanish under mean-centring",
                                ("geometry.mean_offset_emoji2vec", "geometry.real_centring_removes_anisotropy")),),
               phrases=("vanish under mean-centring", "are a mean offset", "is a mean offset",
                        "one centring removes")),
    PaperClaim("05_geometry", "§1; §7",
               "language separability is not alignment when corpora are not parallel",
               parts=(ClaimPart("language separability is not alignment when corpora are not parallel (each "
                                "language a disjoint third of NTREX-128's sentences)",
                                ("geometry.real_separability_not_alignment", "geometry.real_retrieval_alignment")),
                      ClaimPart("(the paper's corpora also differ in topic and domain between languages)",
                                untested="NTREX's thirds are one news corpus: disjoint sentences on the same topics; "
                                         "no corpus here gives the three languages different topics and also the "
                                         "translations that retrieval needs")),
               phrases=("separability is not alignment", "low separability is not a virtue")),
    PaperClaim("06_cost", "abstract; §8",
               "per-language token costs change sign with the normalising unit",
               paper_checks=("Bytes per character and the per-character premium",
                             "Prompt tokens per source byte above one"),
               parts=(ClaimPart("per-language token costs change sign with the normalising unit",
                                ("cost.real_sign_flip",)),
                      ClaimPart("(§8) per source byte, Bangla is the cheapest of the three languages",
                                ("cost.real_cheapest_per_byte",)),
                      ClaimPart("(§8) per source character, Bangla costs 2.0x English", ("cost.real_char_premium",))),
               phrases=("changes sign with the unit", "change sign with the normalising unit",
                        "bangla is the cheapest", "2.0x premium", "2x premium")),
    PaperClaim("06_cost", "§8",
               "the “token premium” reported previously is a statement about Unicode encoding, not about tokenizer "
               "fairness",
               parts=(ClaimPart("the token premium is about Unicode encoding, not tokenizer fairness",
                                ("cost.real_parallel_premium", "cost.real_parallel_premium_hi")),),
               phrases=("statement about unicode encoding", "not about the fairness of a tokenizer",
                        "not about tokenizer fairness"),
               short="the “token premium” … is a statement about Unicode encoding, not about tokenizer fairness"),
    PaperClaim("06_cost", "§8",
               "the other seven systems average 1.4–4.4 [completion tokens per emoji]",
               paper_checks=("Grok-4-Fast's completion tokens per emoji",),
               parts=(ClaimPart("the other seven systems average 1.4–4.4 completion tokens per emoji",
                                ("cost.real_tokens_per_emoji",)),),
               phrases=("average 1.4–4.4", "average 1.4-4.4")),
    PaperClaim("07_leakage", "abstract; §9",
               "multi-view row-wise splits inflate macro-F1 by 3.1 points and change the top-ranked system",
               paper_checks=("Expected leaked share of test rows at V = 8",
                             "Expected leaked share of test rows at V = 5",
                             "The 80/20 inflation against the range over split ratios", "The leakage t test",
                             "The leakage inflation from the two F1 values"),
               parts=(ClaimPart("multi-view row-wise splits inflate macro-F1 by 3.1 points",
                                ("leakage.real_mqm_rowwise_inflation",)),
                      ClaimPart("and change the top-ranked system",
                                ("leakage.real_mqm_top_system_changes",))),
               sounder=("leakage.p",),
               phrases=("splits inflate macro-f1", "split inflates macro-f1")),
)

def _records(rows) -> list[dict]:
    if rows is None:
        return []
    if isinstance(rows, pd.DataFrame):
        return rows.to_dict("records")
    if isinstance(rows, Mapping):
        return list(rows.values())
    return list(rows)


def _consistency(names: Sequence[str], paper_checks: pd.DataFrame) -> str:
    if not names:
        return UNVERIFIABLE
    verdicts = paper_checks.set_index("check")["verdict"]
    missing = [n for n in names if n not in verdicts.index]
    if missing:
        raise KeyError(f"no paper check named {missing}")
    return INCONSISTENT if any(verdicts[n] == INCONSISTENT for n in names) else CONSISTENT


def _sounder(ids: Sequence[str], rows: list[dict]) -> str:
    """yes / no / not run here, with the data the sounder rows were computed on: "yes (simulated)"."""
    tied = [r for r in rows if r.get("claim") in ids]
    if not tied:
        return NO_SOUNDER
    answer = "yes" if any(bool(r.get("conclusion_changes")) for r in tied) else "no"
    data = sorted({str(r["data"]) for r in tied if r.get("data")})
    return f"{answer} ({' and '.join(data)})" if data else answer


def claim_rows(chapter: str, *, real_checks, paper_checks: pd.DataFrame, sounder_rows=None,
               claims: Sequence[PaperClaim] = CLAIMS) -> list[dict]:
    """The rows of ``chapter``'s box: per claim, its quote and place, consistency, real-data checks, sounder.

    Parameters
    ----------
    real_checks : iterable of dict
        Real-data checks as recorded (any chapter's: those tied to a claim of ``chapter`` are used; a tied
        check that was not recorded is left out).
    paper_checks : DataFrame
        :func:`compendium.analyses.ledger.paper_checks.checks`.
    sounder_rows : DataFrame or iterable of dict, optional
        Sounder rows (:mod:`compendium.analyses.ledger.sounder`).
    """
    if chapter not in CHAPTERS:
        raise KeyError(f"{chapter!r} is not a section chapter ({', '.join(CHAPTERS)})")
    by_id = {c["check"]: c for c in _records(real_checks)}
    sounder_rows = _records(sounder_rows)
    out = []
    for claim in claims:
        if claim.chapter != chapter:
            continue
        parts = []
        for part in claim.all_parts():
            recorded = [by_id[i] for i in part.real_checks if i in by_id]
            untested = part.untested or ("" if recorded else NOT_RUN)
            parts.append({"text": part.text, "real": recorded, "untested": untested, "whole": not claim.parts})
        # A claim two boxes list has its sounder analysis in one chapter; the other box points there.
        twin = next((c for c in claims if c.quote == claim.quote and c.sounder), None)
        sounder = (f"see chapter {int(twin.chapter[:2])}" if twin and not claim.sounder
                   else _sounder(claim.sounder, sounder_rows))
        out.append({"place": claim.place, "quote": claim.quote, "parts": parts,
                    "consistency": _consistency(claim.paper_checks, paper_checks),
                    "real": [c for part in parts for c in part["real"]], "sounder": sounder})
    return out


def _badge(verdict: str) -> str:
    return f"{{{BADGES[verdict]}}}`{verdict}`"


def _real_check(check: dict) -> str:
    """A check in the box's folded detail: its verdict, its quantity (the ledger's words), the estimate, and
    its 95% interval or why it has none, with its measured coverage where that fell below 0.935
    (:func:`compendium.analyses.ledger.intervals.box_note`)."""
    estimate = format_estimate(check["estimate"])
    interval = (f"95% CI {format_interval(check['interval'])}" if check.get("interval") is not None
                else f"no interval: {check.get('no_interval') or 'none given'}")
    worth = intervals.box_note(check)  # an interval that covered below 0.935 where it was used says so
    if worth:
        interval += f" ({worth})"
    quantity = re.sub(r",? with (its|a) 95 ?%.*$", "", check.get("quantity") or "the estimate")
    return (f"{_badge(check['verdict'])}: {quantity}: {estimate}; {interval}; {_short_data(check['data'])} "
            f"(`{check['check']}`)")


def _part_line(part: dict, indent: str) -> list[str]:
    """A part of a claim and the verdicts of the checks that test it, or "not testable here" and why."""
    head = f"{indent}- *{part['text']}*:"
    if not part["real"]:
        return [f"{head} {_badge(ledger.NOT_TESTABLE)}: {part['untested']}"]
    if len(part["real"]) == 1:
        return [f"{head} {_real_check(part['real'][0])}"]
    return [head] + [f"{indent}  - {_real_check(c)}" for c in part["real"]]


def _real_lines(parts: list[dict], indent: str) -> list[str]:
    """The claim's line "On real data": one line per part, each naming what its check tests (a claim with no
    parts declared is one untested part, the quote above)."""
    if len(parts) == 1 and parts[0].get("whole"):
        return [f"{indent}- **On real data**: {_badge(ledger.NOT_TESTABLE)}: {parts[0]['untested']}"]
    return [f"{indent}- **On real data**, part by part:"] + [
        line for part in parts for line in _part_line(part, indent + "  ")]


def _short_data(data: str) -> str:
    """The data a check rests on, up to its first semicolon or parenthesis: "WMT23 en-de MQM", "NTREX-128 ..."."""
    head = re.split(r"[;(:]", data, maxsplit=1)[0].strip()
    return head or data


def box(chapter: str, *, real_checks, paper_checks: pd.DataFrame, sounder_rows=None,
        claims: Sequence[PaperClaim] = CLAIMS, real_from: str | None = None) -> str:
    """``chapter``'s verdict box as MyST: its rows of the claims table, then each claim in full, folded.

    The table (:func:`table_rows`, :func:`table_html`) is the introduction's, so a claim reads the same in
    both. Under it, a folded dropdown quotes each claim whole and lists every part with the verdict, the
    estimate, the interval and the data of each check that tests it, or why none does.
    """
    section, _ = CHAPTERS[chapter]
    kwargs = dict(real_checks=real_checks, paper_checks=paper_checks, sounder_rows=sounder_rows, claims=claims)
    rows = claim_rows(chapter, **kwargs)
    table = table_html(table_rows(chapter, **kwargs), groups=False)
    where = f"{{doc}}`{real_from}`" if real_from else "the real-data section below"
    if not any(row["real"] for row in rows):
        where = "the {ref}`ledger <ledger-paper-checks>`"
    lines = [f"::::{{admonition}} Verdict first: §{section.split(',')[0]}", ":class: verdict-box", "",
             '<span id="verdict"></span>', "", table, ":::{dropdown} Claims in full", "",
             f"Each claim quoted whole, part by part. The rules and numbers: {where}.", ""]
    for i, row in enumerate(rows, 1):
        lines += [f"{i}. “{row['quote']}” ({row['place']})", *_real_lines(row["parts"], "   "), ""]
    lines += [":::", "::::"]
    return "\n".join(lines) + "\n"


def glue_box(chapter: str, *, real_checks=(), sounder_rows=None, real_from: str | None = None) -> str:
    """Build ``chapter``'s box from its records and glue it (:data:`GLUE_NAME`) for the title's ``{glue:md}``.

    ``real_from`` names the chapter that computes the real-data checks when it is not this one.
    """
    from IPython.display import Markdown

    from compendium.analyses.ledger import paper_checks

    text = box(chapter, real_checks=real_checks, paper_checks=paper_checks.checks(), sounder_rows=sounder_rows,
               real_from=real_from)
    ledger.glue(GLUE_NAME, Markdown(text))
    return text


# --- the paper's voice --------------------------------------------------------------------------

#: Words that take a sentence out of the book's own voice: it names the paper (or a section of it) as the
#: source, or it names the data it was computed on (a measured statement, simulated or real, not a claim).
ATTRIBUTION = re.compile(r"\b(the paper|paper's|the authors|(section|appendix) \w+'s|simulated|simulation|"
                         r"real data|\*\*real\*\*|on real|\(real)", re.IGNORECASE)
_QUOTED = re.compile(r"“[^”]*”|\"[^\"\n]*\"|«[^»]*»")
_SENTENCE = re.compile(r"(?<=[.!?:;])\s+(?=[A-Z*“\"(])|\n\s*\n|\n(?=#|- |\d+\. )")


def unattributed(text: str, phrases: Sequence[str]) -> list[str]:
    """The sentences of ``text`` that state one of ``phrases`` in the book's own voice.

    A phrase is in the paper's voice when it lies inside quotation marks, or when its sentence names the
    paper as the source (:data:`ATTRIBUTION`: "the paper argues ...", "the paper's claim that ..."). A
    sentence that names its data ("on the simulated benchmark ...", "on real data ...") reports a
    measurement, not the claim, and passes too.
    Matching ignores case and line breaks.

    >>> unattributed("The ordering tracks output length. Next.", ["tracks output length"])
    ['The ordering tracks output length.']
    >>> unattributed("The paper argues that the ordering tracks output length.", ["tracks output length"])
    []
    >>> unattributed('It says the ordering “tracks output length”.', ["tracks output length"])
    []
    """
    out = []
    for sentence in _SENTENCE.split(text):
        flat = " ".join(sentence.split())
        bare = _QUOTED.sub(" ", flat).lower()
        if any(p in bare for p in phrases) and not ATTRIBUTION.search(flat):
            out.append(flat)
    return out


def prose_of_notebook(path: str | os.PathLike) -> list[str]:
    """The prose a reader sees in an executed notebook: its Markdown cells and its Markdown outputs.

    The verdict box (quotes by construction) and the stored records are not prose.
    """
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    texts = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            texts.append(cell.source)
        elif cell.cell_type == "code":
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if "text/markdown" in data and GLUE_NAME not in str(output.get("metadata", {})):
                    texts.append(data["text/markdown"])
    return texts


# --- the claims table --------------------------------------------------------------------------

#: The claims table shows each claim in at most this many words (issue 69).
SHORT_WORDS = 15


@dataclass(frozen=True)
class Named:
    """How the claims table names a check's estimate: its quantity and unit, in a few words.

    The ledger keeps each check's full quantity (``quantity`` of its record); this is the name a reader
    needs beside the number.

    Attributes
    ----------
    what : str
        The quantity with a ``{}`` where the value goes: "EAD macro-F1 {}", "row-wise minus grouped
        macro-F1: {} points".
    data : str
        The data, in a few words.
    unit : str
        How a number (and its interval's ends) is shown: a format spec, "{:.2f}", "{:.1%}".
    no_interval : str
        Why there is no 95% interval, in a few words (the record's ``no_interval`` says it in full).
    """

    what: str
    data: str
    unit: str = "{:.2f}"
    no_interval: str = ""

    def show(self, value) -> str:
        return self.what.format(value if isinstance(value, str) else self.unit.format(value))


#: The section-4 checks pooled over independent evaluations (their estimate lists each evaluation's verdict).
POOLED = ("anova.real_random_raters", "vc.real_raters_exceed_systems", "dstudy.real_three_raters_below_g80",
          "loao.real_winner_changes", "loao.real_winner_changes_some")
#: The reason a count has no interval (said once in the introduction, not beside each count).
COUNT = "a count"

#: The name of the estimate of every check that decides a claim's verdict in the claims table (a test keeps
#: this complete: every check of a headline part has an entry).
NAMED: dict[str, Named] = {
    **{check: Named("{}", "", no_interval=COUNT) for check in POOLED},
    "seg.real_inflation_range": Named("naive per-code-point inflation of real emoji, usage-weighted: {}",
                                      "RGI inventory, emoji2vec", "{:.2f}%", "whole populations"),
    "length.real_pandalm_longer_wins": Named("the longer response wins {} of non-tied judgements (lowest rater)",
                                             "PandaLM", "{:.1%}"),
    "length.real_mqm_tracks_length_no_omission": Named("slope of −MQM without omissions, per 100 characters: {}",
                                                       "WMT23 en-de MQM", "{:+.2f}"),
    "ead.human_decodable_goemotions": Named("EAD macro-F1 {}", "GoEmotions"),
    "ead.human_decodable_emomix3l": Named("EAD macro-F1 {}", "EmoMix-3L"),
    "ead.human_decodable_sentmix3l": Named("EAD macro-F1 {}", "SentMix-3L"),
    "ead.real_emoji_vs_embedding": Named(f"emojis within {COMPETITIVE_GAP} macro-F1 of text embeddings on {{}}",
                                         "GoEmotions, EmoMix-3L", no_interval=COUNT),
    "geometry.mean_offset_emoji2vec": Named("centring removes {} of the anisotropy", "emoji2vec", "{:.1%}",
                                            "exact"),
    "geometry.real_centring_removes_anisotropy": Named("centring removes it on {}", "NTREX-128",
                                                       no_interval=COUNT),
    "geometry.real_separability_not_alignment": Named("separability against alignment: {}", "NTREX-128",
                                                      no_interval="4 encoders"),
    "geometry.real_retrieval_alignment": Named("divergence against alignment: {}", "NTREX-128",
                                               no_interval="4 encoders"),
    "cost.real_sign_flip": Named("Bangla/English, per byte against per character: {}", "NTREX-128",
                                 no_interval=COUNT),
    "cost.real_parallel_premium": Named("Bangla/English, same sentences: {}", "NTREX-128",
                                        no_interval=COUNT),
    "cost.real_parallel_premium_hi": Named("Hindi/English: {}", "NTREX-128", no_interval=COUNT),
    "cost.real_tokens_per_emoji": Named("tokens per emoji, highest tokenizer: {}",
                                        "RGI inventory, emoji2vec", no_interval="exact"),
    "leakage.real_mqm_rowwise_inflation": Named("row-wise minus grouped macro-F1: {} points", "WMT23 en-de MQM",
                                                "{:+.1f}"),
}


def evaluation_verdicts(estimate: str) -> dict[str, str]:
    """Each evaluation's verdict in a pooled section-4 check's estimate ("SummEval holds; PandaLM does not hold").

    >>> evaluation_verdicts("SummEval holds; WMT23 en-de MQM not testable here")
    {'SummEval': 'holds', 'WMT23 en-de MQM': 'not testable here'}
    """
    out = {}
    for item in estimate.split("; "):
        verdict = next((v for v in ledger.VERDICTS if item.endswith(" " + v)), None)
        if verdict is None:
            raise ValueError(f"no verdict at the end of {item!r} in the pooled estimate {estimate!r}")
        out[item[: -len(verdict) - 1]] = verdict
    return out


def _pooled_estimate(estimate: str, verdict: str) -> str:
    """Where it holds or fails among the evaluations that could test it: "fails on 4 of 5 evaluations".

    The count the verdict rests on (:data:`POOLED`'s majority rule); both counts when it is inconclusive.
    """
    found = [v for v in evaluation_verdicts(estimate).values() if v != ledger.NOT_TESTABLE]
    holds, fails = (sum(v == w for v in found) for w in (ledger.HOLDS, ledger.DOES_NOT_HOLD))
    if verdict == ledger.HOLDS:
        return f"holds on {holds} of {len(found)} evaluations"
    if verdict == ledger.DOES_NOT_HOLD:
        return f"fails on {fails} of {len(found)} evaluations"
    return f"holds on {holds}, fails on {fails} of {len(found)} evaluations"


def named_estimate(check: Mapping, *, data: bool = True, bare: bool = False) -> str:
    """A check's estimate named by its quantity and unit, its 95% interval or why it has none, and its data.

    A count ("4 of 4 exact tokenizers", :data:`COUNT`) has no interval, and says nothing more: each unit it
    counts has its own interval in the ledger, as the introduction's "How to read a chapter" says once.

    ``data=False`` leaves the data out (for a list of checks on the same data, which names it once);
    ``bare=True`` the quantity (for a list of checks of the same quantity, which names it once).

    >>> named_estimate({"check": "ead.human_decodable_goemotions", "estimate": 0.3197, "interval": [0.2817, 0.357]})
    'EAD macro-F1 0.32 [0.28, 0.36] (GoEmotions)'
    >>> named_estimate({"check": "cost.real_tokens_per_emoji", "estimate": 1.7947, "interval": None}, data=False)
    'tokens per emoji, highest tokenizer: 1.79 (no CI: exact)'
    """
    named = NAMED.get(check["check"])
    if named is None:
        raise KeyError(f"the claims table has no name for the estimate of {check['check']!r} (add it to NAMED)")
    value = check["estimate"]
    if check["check"] in POOLED:
        value = _pooled_estimate(value, check["verdict"])
    text = Named("{}", "", named.unit).show(value) if bare else named.show(value)
    notes = [named.data] if data and named.data else []
    if check.get("interval") is not None:
        low, high = (named.unit.format(v) for v in check["interval"])
        text += f" [{low}, {high}]"
    elif named.no_interval != COUNT:
        notes.insert(0, f"no CI: {named.no_interval or 'none given'}")
    return f"{text} ({'; '.join(notes)})" if notes else text


def headline_verdict(row: Mapping) -> tuple[str | None, list[dict]]:
    """A claim's verdict in the claims table: its headline part's (its first), by section 4's majority rule.

    A part tested by one check takes its verdict. A part tested by several (independent evaluations of the
    same statement) holds if it holds on a strict majority of those that could test it, does not hold if it
    fails on a strict majority, and is inconclusive otherwise
    (:func:`compendium.analyses.reliability.rules.pooled_verdict`). A part no check tests is not testable
    here; a claim no real data bear on has no verdict (``None``: simulated only). Returns the verdict and
    the checks it rests on.
    """
    from compendium.analyses.reliability.rules import pooled_verdict

    part = row["parts"][0]
    if part.get("whole"):
        return None, []
    if not part["real"]:
        return ledger.NOT_TESTABLE, []
    return pooled_verdict([c["verdict"] for c in part["real"]]), part["real"]


def _section(place: str) -> str:
    """The claim's section, from its place: "abstract; §4.2" -> "§4.2", "§4.3, Figure 1c" -> "§4.3"."""
    return re.split(r"[;,]\s*", place)[-1] if "abstract" in place else re.split(r",\s*", place)[0]


def _table_row(chapter: str, row: Mapping, claim: PaperClaim) -> dict:
    verdict, checks = headline_verdict(row)
    if verdict is None:
        evidence = [SIMULATED_ONLY]
    elif not checks:
        evidence = [re.split(r"[;(]", row["parts"][0]["untested"], maxsplit=1)[0].strip()]
    else:
        same = len({NAMED[c["check"]].data for c in checks if c["check"] in NAMED}) == 1 < len(checks)
        whats = [NAMED[c["check"]].what if c["check"] in NAMED else c["check"] for c in checks]
        evidence = [named_estimate(c, data=not same, bare=i > 0 and whats[i] == whats[0])
                    for i, c in enumerate(checks)]
        if same:  # one data set named once, at the end
            evidence[-1] += f" ({NAMED[checks[0]['check']].data})"
    return {"chapter": chapter, "place": _section(claim.place), "claim": claim.headline, "paraphrase": claim.paraphrase,
            "quote": claim.quote, "verdict": verdict, "evidence": evidence,
            "more_parts": len(row["parts"]) - 1, "consistency": row["consistency"], "sounder": row["sounder"]}


def table_rows(chapter: str | None = None, *, real_checks, paper_checks: pd.DataFrame, sounder_rows=None,
               claims: Sequence[PaperClaim] = CLAIMS) -> list[dict]:
    """The claims table: one row per claim of a box (``chapter``'s, or every chapter's), built from its records.

    Every chapter's: a claim two boxes list (section 4's, in chapters 2 and 10) is one row, under the first
    chapter, with ``also`` naming the other. Each row: the claim (:attr:`PaperClaim.headline`), its place,
    the verdict of its headline part (:func:`headline_verdict`; ``None``: simulated only) with the evidence
    (each check's :func:`named_estimate`, or why no check tests it), how many more parts the box lists, the
    paper's own numbers (consistency) and whether the sounder analysis changes the conclusion.
    """
    chapters = [chapter] if chapter else list(CHAPTERS)
    out, seen = [], {}
    for name in chapters:
        mine = [c for c in claims if c.chapter == name]
        rows = claim_rows(name, real_checks=real_checks, paper_checks=paper_checks, sounder_rows=sounder_rows,
                          claims=claims)
        for claim, row in zip(mine, rows):
            if chapter is None and claim.quote in seen:
                seen[claim.quote].setdefault("also", []).append(name)
                continue
            out.append(_table_row(name, row, claim))
            seen[claim.quote] = out[-1]
    return out


def _badge_html(verdict: str) -> str:
    colour = BADGES[verdict].removeprefix("bdg-")
    return f'<span class="sd-sphinx-override sd-badge sd-bg-{colour} sd-bg-text-{colour}">{verdict}</span>'


def _claim_text(row: Mapping) -> str:
    return f"{row['claim']} (paraphrase)" if row["paraphrase"] else f"“{row['claim']}”"


def _real_cell(row: Mapping, *, html: bool, parts: bool = True) -> str:
    evidence = "; ".join(row["evidence"])
    if row["verdict"] is None:
        text = evidence
    else:
        badge = _badge_html(row["verdict"]) if html else f"**{row['verdict']}**"
        text = f"{badge}: {escape(evidence) if html else evidence}"
    if parts and row["more_parts"]:
        text += f" (+{row['more_parts']} {'part' if row['more_parts'] == 1 else 'parts'} in the box)"
    return text


#: The claims table's columns: what a card on a phone labels each cell with (``data-label``).
COLUMNS = ("Claim", "On real data [95% CI]", "Paper's own numbers", "Sounder analysis changes it")


def table_html(rows: Sequence[Mapping], *, groups: bool = True) -> str:
    """The claims table as HTML (a raw block in MyST): on a phone, each row becomes a card (assets/compendium.css).

    ``groups``: a heading row per chapter linking to its verdict box (the introduction); without, the rows of
    one chapter (its box).
    """
    head = "".join(f"<th>{c}</th>" for c in COLUMNS)
    lines = [f'<table class="claims-table"><thead><tr>{head}</tr></thead><tbody>']
    chapter = None
    for row in rows:
        if groups and row["chapter"] != chapter:
            chapter = row["chapter"]
            section, title = CHAPTERS[chapter]
            also = "".join(f" · also in <a href=\"{o}.html#verdict\">{CHAPTERS[o][1]}</a>"
                           for o in row.get("also", ()))
            lines.append(f'<tr class="claims-group"><th colspan="{len(COLUMNS)}"><a href="{chapter}.html#verdict">'
                         f"{escape(title)}</a> (§{section}){also}</th></tr>")
        cells = (f"{escape(_claim_text(row))} ({escape(row['place'])})", _real_cell(row, html=True, parts=groups),
                 row["consistency"], row["sounder"])
        lines.append('<tr class="claims-row">' + "".join(
            f'<td data-label="{label}">{cell}</td>' for label, cell in zip(COLUMNS, cells)) + "</tr>")
    lines.append("</tbody></table>")
    return "\n".join(lines) + "\n"


def table_markdown(rows: Sequence[Mapping]) -> str:
    """The claims table as Markdown for the README: a bold row per chapter, linked to its notebook."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|---|---|---|---|"]
    chapter = None
    for row in rows:
        if row["chapter"] != chapter:
            chapter = row["chapter"]
            section, title = CHAPTERS[chapter]
            also = "".join(f" · also in [{CHAPTERS[o][1]}](notebooks/{o}.py)" for o in row.get("also", ()))
            lines.append(f"| **[{title}](notebooks/{chapter}.py)** (§{section}){also} | | | |")
        cells = (f"{_claim_text(row)} ({row['place']})", _real_cell(row, html=False), row["consistency"],
                 row["sounder"])
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def rollup(rows: Sequence[Mapping], real_checks) -> str:
    """The sentence above the claims table: how the ledger's checks on real data roll up into its verdicts."""
    return (f"The {len(_records(real_checks))} checks on real data in the {{ref}}`ledger <ledger-real-data>` "
            f"decide the verdicts of these {len(rows)} claims: each takes the verdict of its headline part, by "
            "majority where several evaluations test it.")


def readme_table(text: str) -> str:
    """The README's copy: what lies between :data:`README_START` and :data:`README_END` (stripped)."""
    if README_START not in text or README_END not in text:
        raise ValueError("the README has no claims-table markers")
    return text.split(README_START, 1)[1].split(README_END, 1)[0].strip() + "\n"


def write_readme(path: str | os.PathLike, table: str) -> bool:
    """Put ``table`` between the README's markers; True when the file changed.

    Written whole (:func:`compendium.data._files.write_text_atomic`), and only when the table differs.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if readme_table(text) == table.strip() + "\n":
        return False
    head, rest = text.split(README_START, 1)
    tail = rest.split(README_END, 1)[1]
    write_text_atomic(path, f"{head}{README_START}\n{table.strip()}\n{README_END}{tail}")
    return True

