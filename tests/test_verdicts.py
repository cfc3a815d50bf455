"""Verdict first: the chapters' verdict boxes and the claims table (compendium.book.verdicts)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pandas as pd
import pytest

from compendium.analyses.ledger import claims, paper_checks
from compendium.book import verdicts

PAPER_TEXT = Path(__file__).resolve().parents[2] / "shared" / "paper" / "000_c2f5aaa7ebcb5025.txt"


def _check(check, verdict, estimate=0.5, interval=(0.1, 0.9), data="WMT23 en-de MQM (real); more"):
    return {"check": check, "section": "5", "claims": [], "data": data, "paper": "p", "quantity": "q",
            "paper_value": "v", "rule": "r", "smallest_effect": None, "computed": "c", "estimate": estimate,
            "interval": list(interval) if interval else None, "no_interval": None if interval else "a count",
            "verdict": verdict}


@pytest.fixture(scope="module")
def checked():
    return paper_checks.checks()


def test_every_tie_names_a_chapter_a_paper_check_and_a_registry_id(checked):
    names = set(checked["check"])
    registry = claims.registry()
    for claim in verdicts.CLAIMS:
        assert claim.chapter in verdicts.CHAPTERS
        assert set(claim.paper_checks) <= names, claim.paper_checks
        assert set(claim.sounder) <= set(registry), claim.sounder
        assert all(re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_]+)+", i) for i in claim.real_checks)
    assert {c.chapter for c in verdicts.CLAIMS} == set(verdicts.CHAPTERS), "every section chapter has a claim"


@pytest.mark.skipif(not PAPER_TEXT.exists(), reason="the paper's text lies outside the repository")
def test_every_quote_is_the_papers_words():
    def norm(text):
        # the text is a rendering of the paper's HTML: escapes, emphasis, dashes and spacing differ
        text = text.replace("\\", "").replace("*", "").replace("—", "").replace("–", "-").replace("−", "-")
        return re.sub(r"\s+", "", text)

    paper = norm(PAPER_TEXT.read_text(encoding="utf-8"))
    for claim in verdicts.CLAIMS:
        for segment in re.split(r"\[…\]", claim.quote):  # words left out ("[…]") split the quote in segments
            quote = norm(re.sub(r"\s*\[[^\]]*\]", "", segment))  # an editorial [insertion] is not the paper's
            pieces = [p for p in re.split(r"±|“|”|-|[\d.]+", quote) if len(p) > 3]  # math numbers are rendered twice
            assert all(p in paper for p in pieces), quote


def test_consistency_is_inconsistent_if_any_tied_check_is(checked):
    inconsistent = checked.loc[checked["verdict"] == "inconsistent", "check"].iloc[0]
    consistent = checked.loc[checked["verdict"] == "consistent", "check"].iloc[0]
    claim = verdicts.PaperClaim("03_length", "§5", "q", paper_checks=(consistent,))
    rows = lambda c: verdicts.claim_rows("03_length", real_checks=[], paper_checks=checked, claims=[c])[0]
    assert rows(claim)["consistency"] == "consistent"
    assert rows(verdicts.PaperClaim("03_length", "§5", "q", paper_checks=(consistent, inconsistent)))["consistency"] \
        == "inconsistent"
    assert rows(verdicts.PaperClaim("03_length", "§5", "q"))["consistency"] == "unverifiable"
    with pytest.raises(KeyError, match="no paper check"):
        rows(verdicts.PaperClaim("03_length", "§5", "q", paper_checks=("No such check",)))


def test_the_sounder_column_is_computed_from_the_rows(checked):
    claim = verdicts.PaperClaim("02_reliability", "§4", "q", sounder=("dstudy.G", "dstudy.raters_for_G80"))
    row = lambda rows: verdicts.claim_rows("02_reliability", real_checks=[], paper_checks=checked,
                                           sounder_rows=rows, claims=[claim])[0]["sounder"]
    assert row([]) == "not run here"
    assert row([{"claim": "dstudy.G", "conclusion_changes": False}]) == "no"
    assert row([{"claim": "dstudy.G", "conclusion_changes": False, "data": "simulated"},
                {"claim": "dstudy.raters_for_G80", "conclusion_changes": True, "data": "simulated"}]) \
        == "yes (simulated)"
    assert row(pd.DataFrame([{"claim": "other.id", "conclusion_changes": True}])) == "not run here"


def test_a_box_whose_real_data_live_in_another_chapter_links_there(checked):
    records = [_check("anova.real_random_raters", claims.DOES_NOT_HOLD, "PandaLM does not hold", None)]
    here = verdicts.box("02_reliability", real_checks=records, paper_checks=checked)
    there = verdicts.box("02_reliability", real_checks=records, paper_checks=checked, real_from="10_real_benchmarks")
    assert "The rules and numbers: the real-data section below." in here
    assert "The rules and numbers: {doc}`10_real_benchmarks`." in there and "below" not in there


def test_a_claim_without_real_data_says_so(checked):
    text = verdicts.box("03_length", real_checks=[], paper_checks=checked)
    assert "**On real data**: {bdg-muted}`not testable here`: simulated only: no public data" in text
    assert f"<td data-label=\"{verdicts.COLUMNS[1]}\">simulated only: no public data</td>" in text
    assert text.startswith("::::{admonition} Verdict first: §5") and text.rstrip().endswith("::::")
    unrecorded = verdicts.box("05_geometry", real_checks=[], paper_checks=checked)
    assert "*anisotropy differences vanish under mean-centring*: {bdg-muted}`not testable here`: its check was " \
           "not run in this build" in unrecorded


def test_a_part_gives_its_checks_or_why_none_tests_it():
    with pytest.raises(ValueError, match="either its real-data checks or why"):
        verdicts.ClaimPart("a part")
    with pytest.raises(ValueError, match="either its real-data checks or why"):
        verdicts.ClaimPart("a part", ("x.y",), untested="and a reason")
    claim = verdicts.PaperClaim("07_leakage", "§9", "q", parts=(
        verdicts.ClaimPart("one", ("a.b", "c.d")), verdicts.ClaimPart("two", untested="why"),
        verdicts.ClaimPart("three", ("c.d",))))
    assert claim.real_checks == ("a.b", "c.d")


def test_a_check_lends_its_verdict_only_to_the_part_it_tests(checked):
    """The inflation check lends its verdict to the inflation, never to "change the top-ranked system", which
    has a check of its own; the decodability checks test that affect is decodable, never the stability of the
    systems' rankings across seeds."""
    records = [_check("leakage.real_mqm_rowwise_inflation", claims.HOLDS, 13.4, (8.2, 18.5)),
               _check("leakage.real_mqm_top_system_changes", claims.INCONCLUSIVE)]
    text = verdicts.box("07_leakage", real_checks=records, paper_checks=checked)
    assert "- *multi-view row-wise splits inflate macro-F1 by 3.1 points*: {bdg-success}`holds`: q: 13.4" in text
    top_line = next(line for line in text.splitlines() if line.strip().startswith("- *and change the top-ranked"))
    assert "`inconclusive`" in top_line and "`holds`" not in top_line
    records = [_check(f"ead.human_decodable_{c}", claims.HOLDS) for c in ("goemotions", "emomix3l", "sentmix3l")]
    text = verdicts.box("04_decodability", real_checks=records, paper_checks=checked)
    assert "- *its rankings are stable to ±0.003 macro-F1 across seeds*: {bdg-muted}`not testable here`" in text


_BADGE = re.compile(r"\{bdg-[a-z]+\}`")


def _badge_lines_outside_a_part(box: str) -> list[str]:
    """The lines of a box with a verdict badge that neither name a part (``- *part*: ...``) nor sit under one."""
    out, under_part = [], None
    for line in box.splitlines():
        indent = len(line) - len(line.lstrip())
        if line.lstrip().startswith("- *") and not line.lstrip().startswith("- **") and "*:" in line:
            under_part = indent
            continue
        if under_part is not None and indent > under_part and line.lstrip().startswith("- "):
            continue
        under_part = None
        if _BADGE.search(line) and "**On real data**: {bdg-muted}`not testable here`" not in line:
            out.append(line.strip())
    return out


def test_the_scan_of_a_box_finds_a_verdict_that_names_no_part():
    loose = "1. “q” (§5)\n   - **On real data**: {bdg-success}`holds` 1.0; WMT (`x.y`)\n"
    named = ("1. “q” (§5)\n   - **On real data**, part by part:\n     - *a part*: {bdg-success}`holds` 1.0; WMT "
             "(`x.y`)\n")
    nested = named.replace("*a part*: {bdg", "*a part*:\n       - {bdg")
    assert _badge_lines_outside_a_part(loose) and not _badge_lines_outside_a_part(named)
    assert not _badge_lines_outside_a_part(nested)


@pytest.mark.book
def test_every_verdict_in_every_box_names_the_part_of_the_claim_its_check_tests(checked):
    from compendium.build import runner

    records = claims.read_real_checks(runner.CLAIMS_FILE)
    for chapter in verdicts.CHAPTERS:
        text = verdicts.box(chapter, real_checks=records, paper_checks=checked)
        assert not _badge_lines_outside_a_part(text), (chapter, _badge_lines_outside_a_part(text))
        for claim in (c for c in verdicts.CLAIMS if c.chapter == chapter):
            assert all(f"*{part.text}*" in text or part.text == claim.quote for part in claim.all_parts())


def test_changing_one_verdict_in_a_copy_of_the_records_changes_the_box_and_the_table(checked):
    records = [_check("length.real_pandalm_longer_wins", claims.HOLDS, 0.662, (0.630, 0.693)),
               _check("length.real_mqm_tracks_length_no_omission", claims.DOES_NOT_HOLD, -0.38, (-0.76, -0.01)),
               _check("length.real_mqm_tracks_length", claims.INCONCLUSIVE, -0.18, (-0.59, 0.23))]
    changed = copy.deepcopy(records)
    changed[1]["verdict"] = claims.HOLDS
    before = verdicts.box("03_length", real_checks=records, paper_checks=checked)
    after = verdicts.box("03_length", real_checks=changed, paper_checks=checked)
    assert "{bdg-warning}`inconclusive`: q: -0.18; 95% CI [-0.59, 0.23]; WMT23 en-de MQM" in before
    assert "{bdg-success}`holds`: q: -0.38" in after and before != after
    row = lambda r: verdicts.table_rows("03_length", real_checks=r, paper_checks=checked)[0]
    # a tie between PandaLM (holds) and MQM (does not hold) is inconclusive; two that hold, holds
    assert (row(records)["verdict"], row(changed)["verdict"]) == (claims.INCONCLUSIVE, claims.HOLDS)
    assert row(records)["evidence"] == ["the longer response wins 66.2% of non-tied judgements (lowest rater) "
                                        "[63.0%, 69.3%] (PandaLM)", "slope of −MQM without omissions, per 100 "
                                        "characters: -0.38 [-0.76, -0.01] (WMT23 en-de MQM)"]
    assert "**inconclusive**" in verdicts.table_markdown([row(records)])
    assert "**holds**" in verdicts.table_markdown([row(changed)])


def test_a_claims_verdict_is_its_headline_parts_by_majority():
    part = lambda *v: {"parts": [{"real": [{"verdict": x} for x in v], "untested": "", "whole": False}]}
    assert verdicts.headline_verdict(part(claims.HOLDS))[0] == claims.HOLDS
    assert verdicts.headline_verdict(part(claims.HOLDS, claims.HOLDS, claims.DOES_NOT_HOLD))[0] == claims.HOLDS
    assert verdicts.headline_verdict(part(claims.HOLDS, claims.DOES_NOT_HOLD))[0] == claims.INCONCLUSIVE
    assert verdicts.headline_verdict(part(claims.NOT_TESTABLE, claims.DOES_NOT_HOLD))[0] == claims.DOES_NOT_HOLD
    assert verdicts.headline_verdict(part())[0] == claims.NOT_TESTABLE  # a part no check tests
    whole = {"parts": [{"real": [], "untested": verdicts.SIMULATED_ONLY, "whole": True}]}
    assert verdicts.headline_verdict(whole) == (None, [])


def test_every_claim_is_short_and_a_short_quote_is_the_papers_words():
    for claim in verdicts.CLAIMS:
        assert len(claim.headline.split()) <= verdicts.SHORT_WORDS, claim.headline
        if not claim.paraphrase:
            pieces = [p.strip(" ,") for p in claim.headline.split("…")]
            assert all(p in claim.quote for p in pieces), claim.headline


def test_every_check_that_decides_a_claim_names_its_estimate():
    headline = {i for c in verdicts.CLAIMS for i in c.all_parts()[0].real_checks}
    assert headline <= set(verdicts.NAMED), sorted(headline - set(verdicts.NAMED))
    assert set(verdicts.NAMED) <= {i for c in verdicts.CLAIMS for i in c.real_checks}, "a name of no check"
    with pytest.raises(KeyError, match="no name for the estimate"):
        verdicts.named_estimate({"check": "x.unnamed", "estimate": 1.0})


def test_a_pooled_estimate_counts_the_evaluations_its_verdict_rests_on():
    check = {"check": "loao.real_winner_changes_some", "verdict": claims.INCONCLUSIVE, "interval": None,
             "estimate": "SummEval holds; WMT23 en-de MQM not testable here; WMT23 zh-en MQM inconclusive; "
                         "SQuALITY does not hold; PandaLM does not hold"}
    assert verdicts.named_estimate(check) == "holds on 1, fails on 2 of 4 evaluations"
    assert verdicts.named_estimate({**check, "verdict": claims.DOES_NOT_HOLD}) == "fails on 2 of 4 evaluations"
    with pytest.raises(ValueError, match="no verdict at the end"):
        verdicts.evaluation_verdicts("SummEval maybe")


def test_a_claim_two_boxes_list_is_one_row_of_the_table(checked):
    beside = [{"claim": "dstudy.G", "conclusion_changes": True, "data": "simulated"}]
    rows = verdicts.table_rows(real_checks=[], paper_checks=checked, sounder_rows=beside)
    assert len(rows) == len({c.quote for c in verdicts.CLAIMS}) < len(verdicts.CLAIMS)
    section4 = [r for r in rows if r.get("also")]
    assert section4 and all(r["chapter"] == "02_reliability" and r["also"] == ["10_real_benchmarks"]
                            for r in section4)
    there = verdicts.table_rows("10_real_benchmarks", real_checks=[], paper_checks=checked, sounder_rows=beside)
    with_sounder = {r["claim"] for r in section4 if r["sounder"] != verdicts.NO_SOUNDER}
    assert with_sounder and {r["sounder"] for r in there if r["claim"] in with_sounder} == {"see chapter 2"}
    html = verdicts.table_html(rows)
    assert html.count('class="claims-group"') == len({r["chapter"] for r in rows})
    assert 'href="02_reliability.html#verdict"' in html and 'href="10_real_benchmarks.html#verdict"' in html
    assert html.count('class="claims-row"') == len(rows)


@pytest.mark.book
def test_the_table_agrees_with_the_ledger_by_construction():
    """Read straight from ``_build/claims.json``: the roll-up sentence counts its checks, and each row's verdict
    is the majority of its headline checks' verdicts there."""
    import json

    from compendium.analyses.reliability import real as rel_real
    from compendium.build import pipeline, runner

    ledger = json.loads(runner.CLAIMS_FILE.read_text(encoding="utf-8"))["real_data_checks"]
    by_id = {c["check"]: c for c in ledger}
    text = pipeline.CLAIMS_TABLE_FILE.read_text(encoding="utf-8")
    assert text.startswith(f"The {len(ledger)} checks on real data")
    rows = verdicts.table_rows(real_checks=ledger, paper_checks=paper_checks.checks())
    assert f"these {len(rows)} claims" in text and text.count('class="claims-row"') == len(rows)
    for claim in {c.quote: c for c in verdicts.CLAIMS}.values():
        row = next(r for r in rows if r["quote"] == claim.quote)
        tested = [by_id[i]["verdict"] for i in claim.all_parts()[0].real_checks]
        tested = [v for v in tested if v != claims.NOT_TESTABLE]
        expected = (None if not claim.parts else claims.NOT_TESTABLE if not tested
                    else next((v for v in (claims.HOLDS, claims.DOES_NOT_HOLD)
                               if 2 * tested.count(v) > len(tested)), claims.INCONCLUSIVE))
        assert row["verdict"] == expected, claim.quote
    for base in verdicts.POOLED:  # the parse of a pooled estimate agrees with the evaluations' own checks
        for evaluation, verdict in verdicts.evaluation_verdicts(by_id[base]["estimate"]).items():
            child = by_id.get(f"{base}.{rel_real.slug(evaluation)}")
            assert child is None or child["verdict"] == verdict, (base, evaluation)


def test_the_readme_copy_is_written_between_the_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\nintro\n\n{verdicts.README_START}\nold\n{verdicts.README_END}\n\n## Next\n",
                      encoding="utf-8")
    assert verdicts.write_readme(readme, "| a |\n|---|\n")
    assert verdicts.readme_table(readme.read_text(encoding="utf-8")) == "| a |\n|---|\n"
    assert readme.read_text(encoding="utf-8").endswith(f"{verdicts.README_END}\n\n## Next\n")
    assert not verdicts.write_readme(readme, "| a |\n|---|\n"), "an unchanged table is not rewritten"
    readme.write_text("no markers\n", encoding="utf-8")
    with pytest.raises(ValueError, match="markers"):
        verdicts.write_readme(readme, "| a |")


def _title_cell(name: str) -> str:
    source = (Path(__file__).resolve().parents[1] / "notebooks" / f"{name}.py").read_text(encoding="utf-8")
    return source.split("# %% [markdown]\n", 1)[1].split("\n# %%", 1)[0]


@pytest.mark.parametrize("chapter", list(verdicts.CHAPTERS))
def test_each_section_chapter_opens_with_its_neutral_title_and_the_box(chapter):
    cell = _title_cell(chapter).splitlines()
    assert cell[0] == f"# # {verdicts.CHAPTERS[chapter][1]}"
    assert cell[1:5] == ["#", f"# ```{{glue:md}} {verdicts.GLUE_NAME}", "# :format: myst", "# ```"]
    source = (Path(__file__).resolve().parents[1] / "notebooks" / f"{chapter}.py").read_text(encoding="utf-8")
    assert f'verdicts.glue_box("{chapter}"' in source


def test_the_toc_and_readme_use_the_chapters_titles():
    root = Path(__file__).resolve().parents[1]
    readme = root / "README.md"
    table = verdicts.readme_table(readme.read_text(encoding="utf-8"))
    for chapter, (_, title) in verdicts.CHAPTERS.items():
        assert f"[{title}](notebooks/{chapter}.py)" in table


@pytest.mark.book
def test_the_readme_table_is_the_builds(tmp_path):
    """The README's table between the markers is what the build computes from its records."""
    from compendium.build import pipeline, runner

    executed = [runner.BOOK_DIR / f"{s.stem}.ipynb" for s in runner.analysis_sources()]
    table = pipeline.write_claims_table(executed, out=tmp_path / "claims_table.md")
    assert verdicts.readme_table((runner.ROOT / "README.md").read_text(encoding="utf-8")) == table
    assert pipeline.CLAIMS_TABLE_FILE.read_text(encoding="utf-8") == \
        (tmp_path / "claims_table.md").read_text(encoding="utf-8")


@pytest.mark.book
def test_every_real_data_check_of_the_build_is_in_a_box():
    from compendium.build import runner

    built = {c["check"] for c in claims.read_real_checks(runner.CLAIMS_FILE)}
    tied = {i for c in verdicts.CLAIMS for i in c.real_checks}
    # a check per evaluation ("anova.real_random_raters.summeval_coherence") is shown by its pooled line
    shown = {c for c in built if c in tied or c.rsplit(".", 1)[0] in tied}
    assert shown == built and tied <= built


# --- the paper's voice and real data first (issue "Real data first") ---------------------------------

#: The prose of chapters 3 and 6 before it was put in the paper's voice: the voice test must reject it.
OLD_CHAPTER_3 = ("If the panel cannot tell the systems apart (chapter 2), what produces the ordering it does report? "
                 "This chapter shows that the ordering follows how many emojis each system emits, that a comparison "
                 "restricted to outputs of equal length reorders the leaderboard.")
OLD_CHAPTER_6 = ("Both statements are true at once, because Bangla script takes between two and three UTF-8 bytes per "
                 "character where English takes one; the \"token premium\" of earlier work is a statement about "
                 "Unicode encoding, not about the fairness of a tokenizer.")


def _phrases():
    return [p for c in verdicts.CLAIMS if c.real_checks for p in c.phrases]


def test_the_voice_test_rejects_the_old_prose_of_chapters_3_and_6():
    assert verdicts.unattributed(OLD_CHAPTER_3, _phrases())
    assert verdicts.unattributed(OLD_CHAPTER_6, _phrases())
    attributed = OLD_CHAPTER_3.replace("This chapter shows", "The paper argues")
    assert not verdicts.unattributed(attributed, _phrases())


def test_every_claim_with_real_data_names_its_phrases():
    for claim in verdicts.CLAIMS:
        if claim.real_checks:
            assert claim.phrases and all(p == p.lower() for p in claim.phrases), claim.quote


@pytest.mark.book
def test_the_book_states_the_papers_claims_only_in_the_papers_voice():
    """Where a real-data check bears on a claim, the book's own prose never states it as a fact."""
    from compendium.build import runner

    pages = [runner.BOOK_DIR / f"{c}.ipynb" for c in verdicts.CHAPTERS]
    pages += sorted(runner.BOOK_DIR.glob("*.md"))
    found = []
    for page in pages:
        texts = verdicts.prose_of_notebook(page) if page.suffix == ".ipynb" else [page.read_text(encoding="utf-8")]
        found += [f"{page.name}: {s[:160]}" for text in texts for s in verdicts.unattributed(text, _phrases())]
    assert not found, found


def _source(name: str) -> str:
    return (Path(__file__).resolve().parents[1] / "notebooks" / f"{name}.py").read_text(encoding="utf-8")


SIMULATED_HEADING = "# ## The paper's analysis, reconstructed on simulated data"


@pytest.mark.parametrize("chapter", [c for c in verdicts.CHAPTERS if c != "10_real_benchmarks"])
def test_real_data_comes_before_the_simulated_reconstruction(chapter):
    source = _source(chapter)
    if "real_checks.Recorder(" not in source:
        assert "*No real data in this chapter:*" in _title_cell(chapter)
        return
    real = source.index("\n# ## On real data")
    assert SIMULATED_HEADING in source, chapter
    assert real < source.index(SIMULATED_HEADING) < source.index("data_banner(benchmark)"), chapter
    assert source.count(SIMULATED_HEADING) == 1


# --- no tally of verdicts (issue 67) ----------------------------------------------------------------

#: A number in front of a verdict word ("3 does not hold", "4 consistent"), or "N of M claims/checks ... hold".
_TALLY = re.compile(r"\b\d+\s+(?:holds?|do(?:es)? not hold|inconclusive|not testable here|consistent|inconsistent)\b"
                    r"|\b\d+ of \d+ (?:claims|checks|sounder analyses)\b[^.;:]*\b(?:holds?|consistent|changes?)\b",
                    re.IGNORECASE)


def tallies(text: str) -> list[str]:
    """The places where ``text`` counts verdicts across checks or claims."""
    return [m.group(0) for m in _TALLY.finditer(" ".join(text.split()))]


def test_the_tally_scan_catches_the_old_ledger_and_scoreboard():
    assert tallies("On real data, 18 of 72 claims put to it hold.")
    assert tallies("| 3 does not hold, 1 inconclusive |") and tallies("4 consistent, 2 inconsistent")
    assert tallies("**5 of 23 sounder analyses change the paper's conclusion**")
    assert not tallies("| does not hold, inconclusive | 2 | all consistent |")
    assert not tallies("holds on 12 of 12 rows; 2,599 pairs; n = 400")
    assert not tallies("2 of 37 claims moved against the book's run: 5 tables changed")  # a rerun, not verdicts


@pytest.mark.book
def test_no_page_of_the_book_or_the_readme_tallies_verdicts():
    from compendium.build import runner

    pages = sorted(runner.BOOK_DIR.glob("*.ipynb")) + sorted(runner.BOOK_DIR.glob("*.md"))
    found = []
    for page in pages:
        texts = verdicts.prose_of_notebook(page) if page.suffix == ".ipynb" else [page.read_text(encoding="utf-8")]
        found += [f"{page.name}: {t}" for text in texts for t in tallies(text)]
    found += [f"README.md: {t}" for t in tallies((runner.ROOT / "README.md").read_text(encoding="utf-8"))]
    table = (runner.BUILD_DIR / "claims_table.md").read_text(encoding="utf-8")
    found += [f"claims_table.md: {t}" for t in tallies(table)]
    assert not found, found


def test_the_glossary_defines_every_word_a_box_or_the_table_prints():
    """Issue 69: the verdicts on real data, the paper's own numbers and the sounder column, each defined once."""
    from compendium.analyses.real import VERDICTS as REAL_VERDICTS

    text = (Path(__file__).resolve().parents[1] / "book" / "glossary.md").read_text(encoding="utf-8")
    words = [*REAL_VERDICTS, verdicts.CONSISTENT, verdicts.INCONSISTENT, verdicts.UNVERIFIABLE, verdicts.NO_SOUNDER]
    assert [w for w in words if f"\n{w}\n  " not in text] == []
