"""Verdict first: each section chapter's verdict box, and the scoreboard that opens the book and the README.

A reader should learn on a chapter's first screen whether the paper's claims
of that section hold on real data, and only then see the paper's analysis
reconstructed on simulated data. Nothing here decides anything: the box and
the scoreboard are built from what the chapters recorded, and from the paper
checked against itself.

- :data:`CLAIMS`: the paper's claims, one per row of a box, each quoted with
  its place in the paper, and tied to the checks that bear on it: the paper
  checks (:mod:`compendium.analyses.ledger.paper_checks`, by name), the real-data checks
  (:mod:`compendium.analyses.ledger.real_checks`, by id) and the sounder analyses
  (:mod:`compendium.analyses.ledger.sounder`, by the registry id of their row). The ties
  are typed here; every verdict and count is computed.
- :func:`claim_rows` / :func:`box`: a chapter's box, as a table and as MyST.
  Per claim: **consistency** (do the paper's own numbers agree on it:
  inconsistent if any tied paper check is, consistent if all are,
  unverifiable with none), **on real data** (the verdict of each tied check
  as a coloured badge, with its estimate, its interval and its data, or
  "simulated only: no public data"), **the sounder analysis** (does it change
  the conclusion: yes if any tied sounder row says so, no if none does, "not
  run here" when the book computes none for the claim), and where each is computed.
- :func:`scoreboard` / :func:`scoreboard_markdown`: one row per paper
  section. The build writes it to ``_build/scoreboard.md`` (the introduction
  includes it) and between the markers :data:`README_START` and
  :data:`README_END` of the README (:func:`write_readme`); a test fails when
  the README's copy differs from the build's.

A chapter shows its box with :func:`glue_box` at its end, pasted under its
title by ``{glue:md}`` (myst-nb's glue resolves within a page, whatever the
order), so the box reads the chapter's own records once they exist.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from compendium.analyses.ledger import claims as ledger
from compendium.analyses.ledger.real_checks import format_estimate, format_interval
from compendium.data._files import write_text_atomic

__all__ = ["ClaimPart", "PaperClaim", "NO_OUTPUTS", "CLAIMS", "CHAPTERS", "GLUE_NAME", "README_START",
           "README_END", "claim_rows", "box",
           "glue_box", "scoreboard", "scoreboard_markdown", "write_readme", "readme_scoreboard"]

#: The name under which a chapter glues its box (``{glue:md} verdict_box`` under its title).
GLUE_NAME = "verdict_box"
#: The README's copy of the scoreboard lies between these lines (written by the build).
README_START = "<!-- scoreboard: written by `make book` (compendium.book.verdicts); do not edit by hand -->"
README_END = "<!-- scoreboard: end -->"

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
    check tests one of them. Each box line names the part its check tests, and a part no check tests reads
    "not testable here" with its reason, instead of borrowing the verdict of a check about another part.

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
    """

    chapter: str
    place: str
    quote: str
    paper_checks: tuple[str, ...] = ()
    parts: tuple[ClaimPart, ...] = ()
    sounder: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()

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
               paper_checks=("Design counts",)),
    PaperClaim("01_design", "App. B",
               "naive per-codepoint segmentation inflates the mean emoji count by 15.0% overall, but unevenly "
               "across systems",
               parts=(ClaimPart("naive per-codepoint segmentation inflates the mean emoji count by 15.0% overall",
                                ("seg.real_inflation_range",)),
                      ClaimPart("unevenly across systems", untested=NO_OUTPUTS)),
               phrases=("inflates the mean emoji count", "inflates the emoji count")),
    PaperClaim("02_reliability", "abstract; §4.2",
               "the conventional analysis declares 19 of 28 pairwise differences significant",
               parts=(ClaimPart("the conventional analysis declares 19 of 28 pairwise differences significant",
                                untested="a count over the paper's own 28 pairs of eight systems, whose ratings are not "
                                         "public; another evaluation has other systems and other pairs (its "
                                         "fixed-rater F is beside the random one in the claim above)"),)),
    *(PaperClaim(chapter, "abstract; §4.2",
                 "Treating annotators as a random rather than a fixed factor, no system differs significantly from "
                 "any other",
                 paper_checks=("F test of systems against the system x rater interaction",),
                 parts=(ClaimPart("treated as random rather than fixed, the annotators leave no system significantly "
                                  "different from any other: significance the fixed analysis finds is lost",
                                  ("anova.real_random_raters",)),),
                 sounder=("anova.p_vs_interaction", "anova.F_vs_residual") if chapter == "02_reliability" else (),
                 phrases=("no system differs significantly", "no system differs from any other"))
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
                        "ratings track length", "length, not quality")),
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
               phrases=("ranks systems stably",)),
    PaperClaim("04_decodability", "§6",
               "we claim only that the emoji channel is competitive at matched sample size, not that it is superior",
               parts=(ClaimPart("the emoji channel is competitive at matched sample size",
                                ("ead.real_emoji_vs_embedding",)),),
               phrases=("channel is competitive", "competitive at matched sample size")),
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
                        "not about tokenizer fairness")),
    PaperClaim("06_cost", "§8",
               "the other seven systems average 1.4–4.4 [completion tokens per emoji]",
               paper_checks=("Grok-4-Fast's completion tokens per emoji",),
               parts=(ClaimPart("the other seven systems average 1.4–4.4 completion tokens per emoji",
                                ("cost.real_tokens_per_emoji",)),),
               phrases=("average 1.4–4.4", "average 1.4-4.4")),
    PaperClaim("07_leakage", "abstract; §9",
               "multi-view row-wise splits inflate macro-F1 by 3.1 points and change the top-ranked system",
               paper_checks=("Expected leaked share of test rows at V = 8", "Expected leaked share of test rows at V = 5",
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
    """yes / no / not run here, with the data the sounder rows were computed on: "yes (simulated data)"."""
    tied = [r for r in rows if r.get("claim") in ids]
    if not tied:
        return NO_SOUNDER
    answer = "yes" if any(bool(r.get("conclusion_changes")) for r in tied) else "no"
    data = sorted({str(r["data"]) for r in tied if r.get("data")})
    return f"{answer} ({' and '.join(data)} data)" if data else answer


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
        out.append({"place": claim.place, "quote": claim.quote, "parts": parts,
                    "consistency": _consistency(claim.paper_checks, paper_checks),
                    "real": [c for part in parts for c in part["real"]],
                    "sounder": _sounder(claim.sounder, sounder_rows)})
    return out


def _badge(verdict: str) -> str:
    return f"{{{BADGES[verdict]}}}`{verdict}`"


def _real_check(check: dict) -> str:
    estimate = format_estimate(check["estimate"])
    interval = "" if check.get("interval") is None else f", 95% CI {format_interval(check['interval'])}"
    return (f"{_badge(check['verdict'])}: {estimate}{interval}; {_short_data(check['data'])} "
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
    """``chapter``'s verdict box as MyST: an admonition holding one entry per claim of its paper section.

    Each entry: the claim quoted with its place; a line "On real data" (badges with estimate, interval and
    data); a line with consistency and the sounder analysis; links to the ledger, where both are computed.
    A list, not a table, so that it reads on a phone without scrolling sideways.
    """
    section, _ = CHAPTERS[chapter]
    rows = claim_rows(chapter, real_checks=real_checks, paper_checks=paper_checks, sounder_rows=sounder_rows,
                      claims=claims)
    lines = [f":::{{admonition}} Verdict first: the paper's claims of section {section}",
             ":class: verdict-box", ""]
    for i, row in enumerate(rows, 1):
        lines += [f"{i}. “{row['quote']}” ({row['place']})",
                  *_real_lines(row["parts"], "   "),
                  f"   - **The paper's own numbers**: {row['consistency']}; **the sounder analysis changes the "
                  f"conclusion**: {row['sounder']}", ""]
    has_real = any(row["real"] for row in rows)
    where = (f"{{doc}}`{real_from}`" if real_from else "this chapter's real-data section")
    if not has_real:
        below = "Below the box, the paper's analysis is reconstructed on **simulated** data."
    elif real_from:
        below = (f"The real data are audited in {{doc}}`{real_from}`; below the box, the paper's analysis is "
                 "reconstructed on **simulated** data.")
    else:
        below = "Below the box come the **real** data, then the paper's analysis reconstructed on **simulated** data."
    # Where the ledger keeps the paper checks and the sounder analyses is said once, in the introduction's
    # "How to read a chapter"; the box names only this chapter's places.
    lines += [f"Each verdict's rule and numbers: {where} and the {{ref}}`ledger <ledger-real-data>`. " + below, ":::"]
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


# --- the scoreboard ---------------------------------------------------------------------------


def scoreboard(*, real_checks, paper_checks: pd.DataFrame, sounder_rows=None,
               claims: Sequence[PaperClaim] = CLAIMS) -> pd.DataFrame:
    """One row per section chapter: claims, paper checks consistent / inconsistent, real-data verdicts by
    category, whether a sounder analysis changes a conclusion.

    Paper checks and real-data checks are counted once per chapter (a check tied to two claims counts once),
    and each part of a claim that no check tests once, as "not testable here". The counts are for the
    rendering, which shows which verdicts occur and never how many (:func:`scoreboard_markdown`).
    """
    real = {c["check"]: c for c in _records(real_checks)}
    sounder_rows = _records(sounder_rows)
    verdicts = paper_checks.set_index("check")["verdict"]
    out = []
    for chapter, (section, title) in CHAPTERS.items():
        mine = [c for c in claims if c.chapter == chapter]
        names = sorted({n for c in mine for n in c.paper_checks})
        ids = sorted({i for c in mine for i in c.real_checks if i in real})
        sounder = [_sounder(c.sounder, sounder_rows) for c in mine]
        row = {"chapter": chapter, "title": title, "section": section, "claims": len(mine),
               "consistent": int(sum(verdicts[n] == CONSISTENT for n in names)),
               "inconsistent": int(sum(verdicts[n] == INCONSISTENT for n in names))}
        row.update({v: sum(real[i]["verdict"] == v for i in ids) for v in ledger.VERDICTS})
        # A part of a claim that no check tests is "not testable here" too (a claim with no parts declared is
        # simulated only, as before).
        row[ledger.NOT_TESTABLE] += sum(1 for c in mine for part in c.parts if not part.real_checks)
        answers = [a.split(" ", 1)[0] for a in sounder]
        row["sounder_changes"] = ("yes" if "yes" in answers else "no" if "no" in answers else NO_SOUNDER)
        out.append(row)
    return pd.DataFrame(out)


def scoreboard_markdown(board: pd.DataFrame, *, link: str = "doc") -> str:
    """The scoreboard as a Markdown table.

    ``link="doc"`` links each title to its chapter with ``{doc}`` (the book); ``link="readme"`` to the
    chapter's source under ``notebooks/`` (the README, read where the book is not built).
    """
    # Words in a few columns: they wrap at their spaces, where ten narrow columns would break their headers
    # mid-word. No column tallies verdicts: it says which occur.
    lines = ["| Chapter (paper section) | Claims | The paper's own numbers | Real data | Sounder analysis changes "
             "a conclusion |", "|---|--:|---|---|---|"]
    for row in board.to_dict("records"):
        if link == "doc":
            chapter = f"{{doc}}`{row['title']} <{row['chapter']}>`"
        else:
            chapter = f"[{row['title']}](notebooks/{row['chapter']}.py)"
        own = (("some inconsistent" if row[INCONSISTENT] else "all consistent")
               if row[CONSISTENT] + row[INCONSISTENT] else "none checked")
        real = _present(row, ledger.VERDICTS, "no verdict")
        lines.append(f"| {chapter} (§{row['section']}) | {row['claims']} | {own} | {real} | {row['sounder_changes']} |")
    if link == "doc":  # the book: in a box that scrolls sideways on a phone instead of squeezing the columns
        lines = ["```{container} compendium-scoreboard", *lines, "```"]
    return "\n".join(lines) + "\n"


def _present(row: Mapping, keys: Sequence[str], empty: str) -> str:
    """``"holds, does not hold"``: which of ``keys`` occur in ``row``, in their order, or ``empty``.

    Which verdicts a section's checks reach, never how many: the checks differ in data, rule and weight, so a
    tally of them would mean nothing (each claim's verdicts are in its chapter's box and in the ledger).
    """
    present = [k for k in keys if row[k]]
    return ", ".join(present) if present else empty


def readme_scoreboard(text: str) -> str:
    """The README's copy: what lies between :data:`README_START` and :data:`README_END` (stripped)."""
    if README_START not in text or README_END not in text:
        raise ValueError("the README has no scoreboard markers")
    return text.split(README_START, 1)[1].split(README_END, 1)[0].strip() + "\n"


def write_readme(path: str | os.PathLike, table: str) -> bool:
    """Put ``table`` between the README's markers; True when the file changed.

    Written whole (:func:`compendium.data._files.write_text_atomic`), and only when the table differs.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if readme_scoreboard(text) == table.strip() + "\n":
        return False
    head, rest = text.split(README_START, 1)
    tail = rest.split(README_END, 1)[1]
    write_text_atomic(path, f"{head}{README_START}\n{table.strip()}\n{README_END}{tail}")
    return True

