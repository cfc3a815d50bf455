"""The rated audit's ``audit.html``, written in the process that read the ratings, with no kernel (issue 71).

``compendium audit ratings.csv`` reads and checks the table once (:func:`compendium.audit.core.read_study`),
computes the audit (:func:`compendium.audit.core.run_audit`) and renders the page here from that one result: the
sections, tables, figures and sentences of the book's chapter 8 (the notebook
``compendium/audit/templates/08_audit.py``, which ``--notebook`` still executes in a kernel). The sections' prose
is read from that notebook's Markdown cells, so the two routes cannot drift apart in what they say; each section's
tables and figures are drawn by one function here, named in :data:`SECTIONS` by the section's heading. The
figures are inline SVG (:mod:`compendium.audit.svg`), so the page needs nothing beyond the base install.

Every name from the data reaches the page through :func:`compendium.data.escape.html_text`, and the page is
refused unless inert (:func:`compendium.audit.report.check_inert`). Numbers are written by the book's formatter
(:func:`compendium.data.numbers.format_number`); p values by :func:`compendium.data.numbers.format_p`.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from compendium.audit import svg, wording
from compendium.audit.checklist import LOW_AGREEMENT, STATUSES
from compendium.audit.report import _CSS, check_inert
from compendium.data.escape import html_text, markdown_text
from compendium.data.numbers import format_number, format_p

__all__ = ["Report", "render", "prose", "markdown", "SECTIONS"]

#: A table whose narrowest layout (each column as wide as its longest unbroken word or number, at about 8 px a
#: character of the tables' 0.85rem font, plus a cell's padding and border) is wider than a phone's text column
#: (390 px less the page's margins) carries the cue that it scrolls sideways, shown on narrow screens only.
_PX_PER_CHAR, _PX_PER_CELL, _WIDE_PX = 8, 18, 358


@dataclass
class Report:
    """What the page is made from.

    Attributes
    ----------
    result : compendium.audit.core.AuditResult
        The audit of the study: ``summary``, ``tables``, ``design`` and ``columns``.
    source : str
        What the ratings were read from (a file's name, or "a DataFrame").
    digest : str or None
        The first 12 hex digits of the ratings file's SHA-256, for the provenance line.
    lengths : str or None
        What the lengths were read from, when given.
    parameters : dict
        The settings as run, listed in the provenance line.
    """

    result: object
    source: str = "a table"
    digest: str | None = None
    lengths: str | None = None
    parameters: dict = field(default_factory=dict)

    @classmethod
    def from_file(cls, result, ratings: str | Path, lengths: str | Path | None = None, **parameters) -> Report:
        """A report on a file: its name and checksum in the data box and the provenance line."""
        path = Path(ratings)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        return cls(result, path.name, digest, Path(lengths).name if lengths else None,
                   {k: v for k, v in parameters.items() if v is not None})


# --------------------------------------------------------------------------- prose: the notebook's Markdown cells
def prose() -> list[tuple[int, str, str]]:
    """The report notebook's Markdown cells after its introduction: (heading level, heading, body as Markdown)."""
    from compendium.audit.core import TEMPLATE

    text = TEMPLATE.read_text(encoding="utf-8")
    cells = []
    for block in re.split(r"^# %%", text, flags=re.M)[1:]:
        header, _, body = block.partition("\n")
        if "[markdown]" not in header:
            continue
        lines = [re.sub(r"^# ?", "", line) for line in body.rstrip().splitlines()]
        cells.append("\n".join(lines).strip())
    sections = []
    for cell in cells[1:]:  # the first is the chapter's introduction, about the command itself
        heading, _, body = cell.partition("\n")
        level = len(heading) - len(heading.lstrip("#"))
        sections.append((level, heading.lstrip("#").strip(), body.strip()))
    return sections


_INLINE = re.compile(r"\\(?P<escaped>[!-/:-@\[-`{-~])|(?P<fence>`+)|(?P<strong>\*\*)|(?P<em>\*)")


def _inline(text: str) -> str:
    """CommonMark's inline subset the report's prose uses: backslash escapes, code spans, ``**strong**`` and
    ``*emphasis*``; everything else is text (escaped)."""
    out, open_tags, position = [], [], 0
    while True:
        match = _INLINE.search(text, position)
        if match is None:
            out.append(html.escape(text[position:], quote=False))
            break
        out.append(html.escape(text[position:match.start()], quote=False))
        position = match.end()
        if match.group("escaped"):
            out.append(html.escape(match.group("escaped")))
        elif match.group("fence"):
            fence = match.group("fence")
            close = re.compile(rf"(?<!`){fence}(?!`)").search(text, position)
            if close is None:  # an unmatched fence is text
                out.append(fence)
                continue
            code = text[position:close.start()]
            if len(code) > 2 and code.startswith(" ") and code.endswith(" "):
                code = code[1:-1]
            out.append(f"<code>{html.escape(code)}</code>")
            position = close.end()
        else:
            tag = "strong" if match.group("strong") else "em"
            if open_tags and open_tags[-1] == tag:
                out.append(f"</{open_tags.pop()}>")
            else:
                open_tags.append(tag)
                out.append(f"<{tag}>")
    out += [f"</{tag}>" for tag in reversed(open_tags)]
    return "".join(out)


def markdown(text: str) -> str:
    """Paragraphs of :func:`_inline` Markdown as HTML.

    >>> markdown("Pearson's *r* is `r`.\\n\\nA \\\\<b\\\\> **name**.")
    "<p>Pearson's <em>r</em> is <code>r</code>.</p>\\n<p>A &lt;b&gt; <strong>name</strong>.</p>"
    """
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    return "\n".join(f"<p>{_inline(p)}</p>" for p in paragraphs)


# --------------------------------------------------------------------------- tables
def _cell(value, column: str, formats: Mapping[str, Callable]) -> str:
    if column in formats and value is not None and not (isinstance(value, float) and value != value):
        try:
            return html_text(formats[column](value))
        except (TypeError, ValueError):
            pass
    if isinstance(value, (list, tuple)):
        return html_text(", ".join(format_number(v) for v in value))
    if column in ("p", "pval") or column.startswith("p_"):
        return html_text(format_p(value))
    return html_text(format_number(value))


def _unbroken(text: str) -> int:
    """The longest run of a cell's text that a browser will not break across lines."""
    return max((len(word) for word in str(text).split()), default=0)


def table(frame: pd.DataFrame, caption: str, *, formats: Mapping[str, Callable] | None = None,
          index: bool | None = None) -> str:
    """A table with its caption; the index is a first column unless it is a plain range. Cells are escaped;
    numbers written by the book's formatter unless ``formats`` gives a column its own."""
    formats = formats or {}
    index = not isinstance(frame.index, pd.RangeIndex) if index is None else index
    head = ([str(frame.index.name or "")] if index else []) + [str(c) for c in frame.columns]
    rows, widths = [], [_unbroken(h) for h in head]
    for label, values in zip(frame.index, frame.itertuples(index=False, name=None)):
        cells = [_cell(v, str(c), formats) for c, v in zip(frame.columns, values)]
        texts = ([html_text(label)] if index else []) + cells
        widths = [max(w, _unbroken(html.unescape(t))) for w, t in zip(widths, texts)]
        shown = ([f"<th>{texts[0]}</th>"] if index else []) + [
            f'<td class="text">{t}</td>' if isinstance(v, str) else f"<td>{t}</td>"
            for t, v in zip(cells, values)]
        rows.append("<tr>" + "".join(shown) + "</tr>")
    wide = sum(_PX_PER_CHAR * w + _PX_PER_CELL for w in widths) > _WIDE_PX
    return (f'<div class="compendium-table{" compendium-wide" if wide else ""}">'
            + ('<p class="compendium-wide-cue">Wide table: it scrolls sideways</p>' if wide else "")
            + f"<table><caption>{html_text(caption)}</caption><thead><tr>"
            + "".join(f"<th>{html_text(h)}</th>" for h in head) + "</tr></thead><tbody>" + "".join(rows)
            + "</tbody></table></div>")


def _fixed(digits: int, sign: bool = False) -> Callable:
    return lambda v: f"{v:{'+' if sign else ''}.{digits}f}"


def _percent(v) -> str:
    return f"{v:.1%}"


def _note(text: str | None) -> str:
    return markdown(text) if text else ""


# --------------------------------------------------------------------------- the sections
def _design(r: Report) -> list[str]:
    result = r.result
    summary, design = result.summary, result.design
    out = [_note(markdown_text(design.describe())), _note(wording.missing_text(summary)),
           _note(wording.design_text(summary))]
    if not design.complete:
        out.append(table(design.missing.head(20), "The first missing (item, system, rater) cells"))
    return out


def _agreement(r: Report) -> list[str]:
    summary, tables = r.result.summary, r.result.tables
    out = [table(wording.shown(tables["raters"]), "Each rater's mean and SD on the scale",
                 formats={"mean": _fixed(2), "sd": _fixed(2)}),
           _note(wording.cut_text(tables["raters"], "raters", "rater_summary"))]
    pairs = tables.get("pairwise_alpha", tables["pearson"])
    out += [table(wording.shown(pairs), "Agreement of each pair of raters: Pearson's r and, where computable, "
                                        "Krippendorff's α", formats={"alpha": _fixed(3), "r": _fixed(3)}),
            _note(wording.cut_text(pairs, "pairs of raters", "pearson"))]
    if summary["rater_pairs"]["sampled"]:
        out.append(_note(markdown_text(summary["rater_pairs"]["note"])))
    if "alpha" in tables:
        out.append(table(tables["alpha"], f"Krippendorff's α ({summary['alpha_level']}) over all (item, system) "
                                          "units, with a unit-bootstrap CI", index=False))
    out.append(markdown(f"α is computed at the **{summary['alpha_level']}** level: "
                        f"{markdown_text(summary['settings']['alpha_level'])}."))
    if "icc" in tables:
        out.append(table(tables["icc"], "Shrout–Fleiss intraclass correlations, the (item, system) output as the "
                                        "target"))
    else:
        out.append(_note(wording.omitted_text(summary, "icc", "The intraclass correlation")))
    return out


def _rater_vs_rest(r: Report) -> list[str]:
    tables = r.result.tables
    rest = tables["rater_vs_rest"]
    out = [table(wording.shown(rest), "Each rater against the mean of the others on the outputs both rated",
                 formats={"offset": _fixed(3, sign=True), "r": _fixed(3)}),
           _note(wording.cut_text(rest, "raters", "rater_vs_rest"))]
    finite = rest[["offset", "r"]].astype(float).dropna()
    if len(finite):
        span = max(float(finite["offset"].abs().max()), 1e-9)
        chart = svg.Chart("Each rater against the rest", "Scatter plot, one labelled point per rater: mean offset "
                          "from the other raters on the x axis, Pearson's r with the others' mean on the y axis",
                          x=(-span, span), y=(min(float(finite["r"].min()), 0.0), 1.0),
                          xlabel="mean offset from the other raters (positive: more lenient)",
                          ylabel="r with the others' mean")
        chart.rule("x", 0.0, style="solid")
        labelled = len(rest) <= wording.MAX_SHOWN
        chart.points(rest["offset"], rest["r"], svg.BLUE, labels=list(rest.iloc[:, 0]) if labelled else None,
                     radius=4 if labelled else 2)
        out.append(svg.figure([chart], "Each rater's mean offset from the other raters against the correlation of "
                                       "their ratings with the others' mean"))
    out.append(table(tables["system_means"], "Each system's mean rating with its 95% t interval, items and raters "
                                             "random (Satterthwaite df)",
                     formats={**{k: _fixed(3) for k in ("mean", "estimate", "se", "ci_low", "ci_high")},
                              "df": _fixed(1)}))
    return out


def _f_tests(r: Report) -> list[str]:
    result = r.result
    summary, tables = result.summary, result.tables
    if not result.design.complete:
        return [_note(wording.omitted_text(summary, "F_vs_interaction", "Table 1 (the classical F tests)"))]
    anova, f_tests = tables["anova"], tables["f_tests"]
    interaction, system = anova.loc["system:annotator", "MS"], anova.loc["system", "MS"]
    bigger = interaction > system
    return [table(anova, "Table 1: three-way crossed ANOVA (item × system × rater)",
                  formats={"SS": _fixed(2), "MS": _fixed(2), "share": _percent}),
            table(f_tests, "Table 1: the system effect, each F test against its error mean square (named in the "
                           "last column)", formats={"F": _fixed(2), "df2": _fixed(1), "error_MS": _fixed(3)}),
            markdown(f"The system × rater mean square ({interaction:.2f}) is {'larger' if bigger else 'smaller'} "
                     f"than the system mean square ({system:.2f}): "
                     + ("raters disagree about the systems more than the systems differ." if bigger else
                        "the systems differ more than raters disagree about them."))]


def _reml_test(r: Report) -> list[str]:
    summary = r.result.summary
    test = summary.get("system_test_reml")
    if not isinstance(test, dict):
        return [_note(wording.omitted_text(summary, "system_test_reml", "The REML system test"))]
    frame = pd.DataFrame([{k: test.get(k) for k in ("F", "df1", "df2", "p", "error")}])
    return [table(frame, "The system effect by REML, items and raters random (Satterthwaite df)",
                  formats={"F": _fixed(2), "df2": _fixed(1)})]


def _g_chart(curves: pd.DataFrame, n_items: int, n_raters: int) -> str:
    """Figure 1c: G against the number of items, two lines per shown panel size (as the book's figure)."""
    shown = svg.shown_panels(curves["n_raters"].unique(), n_raters)
    curves = curves[curves["n_raters"].isin(shown)]
    chart = svg.Chart("Decision study: G against the number of items",
                      "Line chart of the generalisability coefficient G of the system mean against the number of "
                      "items on a log scale, two lines per panel size, solid for G from the unbiased system variance "
                      "and dashed for the paper's G from the observed variance of the system means; grey dashed "
                      "horizontal lines mark G = 0.8 and 0.9 and a dotted vertical line the study's number of items",
                      x=(float(curves["n_items"].min()), float(curves["n_items"].max())), y=(0.0, 1.0), xlog=True,
                      xlabel="number of items (log scale); dotted: this study", ylabel="G of the system mean",
                      width=460, height=260)
    for k, (size, part) in enumerate(curves.groupby("n_raters")):
        colour = svg.PALETTE[k % len(svg.PALETTE)]
        raters = f"{size} rater{'s' if size > 1 else ''}"
        chart.line(part["n_items"], part["G"], colour, label=f"{raters}, unbiased")
        chart.line(part["n_items"], part["G_observed"], colour, style="dashed", label=f"{raters}, observed (paper)")
    for target in (0.8, 0.9):
        chart.rule("y", target)
    chart.rule("x", n_items, style="dotted")
    return svg.figure([chart], "Decision study: G of the system mean against the number of items for at most four "
                               "panel sizes (the smallest, the largest, this study's and others between). Solid: "
                               "unbiased system variance (the checklist's); dashed: the paper's observed variance "
                               "of the system means")


def _components(r: Report) -> list[str]:
    result = r.result
    summary, tables, design = result.summary, result.tables, result.design
    formats = {"raw": _fixed(4), "variance": _fixed(4), "share": _percent}
    out = []
    if design.complete:
        components = tables["components"]
        out.append(table(components, "Expected-mean-square variance components (negative estimates set to zero)",
                         formats=formats))
        shares = components["share"].dropna().sort_values()
        left = svg.Chart("Variance components; rater terms in red", "Horizontal bars of each random variance "
                         "component's share of the random-effect variance, rater terms in red and the others in blue",
                         x=(0.0, max(100 * float(shares.max()), 1.0)), y=list(shares.index)[::-1],
                         xlabel="share of random-effect variance (%)", invert_y=True, width=300, height=200)
        left.bars(shares.index, 100 * shares.to_numpy(),
                  [svg.RED if "annotator" in name else svg.BLUE for name in shares.index], horizontal=True)
        ss = 100 * tables["anova"]["share"].loc[["system", "annotator", "item"]]
        right = svg.Chart("System on the sum-of-squares scale", "Vertical bars of the system, rater and item shares "
                          "of the total sum of squares", x=["system", "rater", "item"],
                          y=(0.0, max(float(ss.max()), 1.0)), ylabel="share of total SS (%)", width=220, height=200)
        right.bars(["system", "rater", "item"], ss.to_numpy(), [svg.GREEN, svg.RED, svg.BLUE])
        out.append(svg.figure([left, right], "As Figure 1a: variance components, and the system beside rater and "
                                             "item on the sum-of-squares scale"))
        out.append(table(tables["dstudy"], "Decision study under both definitions of the system variance: G at this "
                                           "design (unbiased, with its 95% interval) and the panel sizes G ≥ 0.8 "
                                           "and 0.9 need"))
        out.append(_note(wording.raters_needed_text()))
        out.append(_g_chart(tables["decision"], design.n_items, design.n_raters))
        return out
    if "components" in tables:
        out.append(table(tables["components"], "REML variance components (systems fixed; the system row is the "
                                               "unbiased variance of the system means)", formats=formats))
        needs = pd.DataFrame({"statistic": list(summary["needs_complete_design"]),
                              "why it needs the complete design": list(summary["needs_complete_design"].values())})
        out.append(table(needs, "What REML cannot replace"))
        out.append(_note(wording.omitted_text(summary, "anova", "Figure 1a (the sums of squares)")))
    else:
        out.append(_note(wording.omitted_text(summary, "variance_components", "The variance components")))
    if "dstudy" not in tables:
        return out + [_note(wording.omitted_text(summary, "G", "The decision study"))]
    out.append(_note(wording.g_interval_text(summary)))
    out.append(table(tables["dstudy"], "G of the design as run (unbiased, with its 95% interval; and observed), and "
                                       "the crossed panel sizes G ≥ 0.8 and 0.9 need"))
    out.append(_note(wording.raters_needed_text()))
    curves = tables["decision"]
    unbiased = curves[curves["definition"] == "unbiased"].reset_index(drop=True)
    unbiased["G_observed"] = curves.loc[curves["definition"] == "observed", "G"].to_numpy()
    out.append(_g_chart(unbiased, design.n_items, design.n_raters))
    return out


def _ranks_chart(ranks: pd.DataFrame, title: str) -> str:
    panels = [p for p in ranks.columns if p != "all"]
    values = ranks[panels].to_numpy(dtype=float)
    whole = bool(((values == values.round()) | (values != values)).all())
    n = len(ranks)
    y = [str(k) for k in range(1, n + 1)] if whole else (1.0, float(n))
    chart = svg.Chart(title, "Line chart of each system's rank, one line per system, across the panels that leave "
                             "out one rater; rank 1 is at the top", x=panels, y=y, ylabel="rank (1 = best)",
                      invert_y=True, width=max(260, min(60 * len(panels), 560)), height=30 * n + 40)
    for k, name in enumerate(ranks.index):
        ys = [str(int(v)) if whole and v == v else v for v in ranks.loc[name, panels]]
        chart.line(panels, ys, svg.PALETTE[k % len(svg.PALETTE)], markers=True, label=str(name))
    return svg.figure([chart], title)


def _leave_one_out(r: Report) -> list[str]:
    result = r.result
    summary, tables, design = result.summary, result.tables, result.design
    if "loao_ranks" not in tables:
        return [_note(wording.omitted_text(summary, "loao", "The leave-one-rater-out leaderboards"))]
    loao = summary["loao"]
    changes = (f"Leaving one rater out changes the winner ({markdown_text(loao['winner_all'])}) in "
               f"{loao['winner_changes']} of {loao['n_panels']} panels.")
    if design.complete:
        ranks = wording.shown(tables["loao_ranks"].sort_values("all"), axis=1)
        kendall = tables["kendall"]
        return [table(ranks, "As Table 2: system ranks with all raters and with each rater left out (1 = best)"),
                _note(wording.cut_text(tables["loao_ranks"], "panels", "loao.panels", axis=1)),
                table(wording.shown(kendall), "Kendall's τ between the raters' orderings of the systems",
                      formats={"tau": _fixed(2), "pval": _fixed(2)}),
                _note(wording.cut_text(kendall, "pairs of raters", "loao.kendall")),
                markdown(changes),
                _ranks_chart(ranks, "As Figure 1b: system rank by which rater is left out")]
    ranks = tables["loao_ranks"].sort_values("all")
    return [table(ranks, "System ranks with all raters and with each rater left out (GLS estimates over the "
                         "ratings each panel has; 1 = best)"),
            markdown(changes + " Kendall's τ between raters is omitted: with cells missing, two raters' orderings "
                               "rest on different items."),
            _ranks_chart(wording.shown(ranks, axis=1), "System rank (REML) by which rater is left out")]


def _lengths(r: Report) -> list[str]:
    result = r.result
    summary, tables = result.summary, result.tables
    if "systems" not in tables and "length_model" not in tables:
        if r.lengths is None:
            return [markdown("No lengths were given (`--lengths FILE`), so this section is skipped.")]
        return [_note(wording.omitted_text(summary, "length_slope", "The length analysis"))]
    out = []
    if "length_model" in tables:
        out.append(table(tables["length_model"], "Mixed model of every judgement on output length (random item and "
                                                 "rater intercepts)"))
    if "length_per_rater" in tables:
        out.append(table(tables["length_per_rater"], "Each rater's length slope"))
    systems = tables["systems"]
    out.append(table(systems, "Per system: mean rating with its CI, mean length and length-matched win rate"))
    system = result.columns["system"]
    lo, hi = float(systems["mean_count"].min()), float(systems["mean_count"].max())
    ylo, yhi = float(systems["mos"].min()), float(systems["mos"].max())
    scatter = svg.Chart("Mean output length against mean rating", "Scatter plot of each system's mean rating "
                        "against the mean length of its rated outputs, one labelled point per system",
                        x=(lo, hi), y=(ylo, yhi), xlabel=f"mean {result.columns.get('length', 'length')} of the "
                                                         "rated outputs", ylabel="mean rating", width=300)
    scatter.points(systems["mean_count"], systems["mos"], svg.BLUE, labels=list(systems[system]))
    charts = [scatter]
    if "win_rates" in tables:
        ordered = tables["win_rates"].sort_values("win_rate")
        names = [str(s) for s in ordered[system]]
        wins = svg.Chart(f"Length-matched win rates ({summary['matched_comparisons']:,} comparisons)",
                         "Dot plot of each system's length-matched win rate with 95% Wilson interval bars and a "
                         "dotted line at one half", x=(0.0, 1.0), y=names[::-1], invert_y=True,
                         xlabel="length-matched win rate (95% Wilson CI)", width=300, height=26 * len(names) + 20)
        wins.rule("x", 0.5, style="dotted")
        wins.xerror(ordered["ci_low"], ordered["ci_high"], names)
        wins.points(ordered["win_rate"], names, svg.BLUE)
        charts.append(wins)
    out.append(svg.figure(charts, "As Figures 2a and 2c: mean output length against mean rating, and length-matched "
                                  "win rates"))
    return out


def _coverage(r: Report) -> list[str]:
    summary = r.result.summary
    measured = summary.get("coverage")
    if not isinstance(measured, Mapping):
        return [_note(wording.omitted_text(summary, "coverage", "The measured coverage"))]
    covered = pd.DataFrame(measured["intervals"])[["interval", "system", "coverage", "mc_error", "below", "above",
                                                   "median_width"]]
    return [table(covered, f"Coverage of the 95% intervals in {measured['n_measured']} studies simulated from this "
                           "study's fit", formats={k: _fixed(3) for k in ("coverage", "mc_error", "below", "above")}),
            markdown(wording.coverage_text(summary))]


def _checklist(r: Report) -> list[str]:
    checks = r.result.tables["checklist"]
    counts = checks["status"].value_counts()
    shown = [s for s in STATUSES if counts.get(s) or s != LOW_AGREEMENT]
    return [markdown(", ".join(f"**{counts.get(s, 0)}** {s}" for s in shown) + "."),
            table(checks, "The paper's six recommendations, judged for this study", index=False)]


def _summary(r: Report) -> list[str]:
    from compendium.audit.core import SUMMARY_KEYS

    summary = r.result.summary
    rows = {}
    for key in SUMMARY_KEYS:
        value = summary[key]
        if isinstance(value, dict) or (isinstance(value, list) and key != "alpha_ci"):
            continue
        if value is None and key in summary.get("reasons", {}):
            value = f"not computable: {summary['reasons'][key]}"
        rows[key] = ", ".join(format_number(v) for v in value) if isinstance(value, list) else value
    frame = pd.Series(rows, name="value", dtype=object).to_frame()
    return [table(frame.rename_axis(""), "The headline numbers of audit.json")]


#: Each section of the notebook, by the start of its heading, and the function that draws its tables and figures.
SECTIONS: dict[str, Callable[[Report], list[str]]] = {
    "The design": _design,
    "Agreement": _agreement,
    "Each rater against the rest": _rater_vs_rest,
    "The system effect against the right error term": _f_tests,
    "The REML system test": _reml_test,
    "Variance components and the decision study": _components,
    "Does the winner depend on who is on the panel": _leave_one_out,
    "What the ratings track": _lengths,
    "How often these intervals cover": _coverage,
    "The checklist": _checklist,
    "The summary": _summary,
}


def _drawer(heading: str) -> Callable[[Report], list[str]]:
    for start, draw in SECTIONS.items():
        if heading.startswith(start):
            return draw
    raise KeyError(f"the report notebook has a section this page does not draw: {heading!r}")


def _data_box(r: Report) -> str:
    lengths = f" and the output lengths in <code>{html_text(r.lengths)}</code>" if r.lengths else ""
    return ('<div class="admonition"><p class="admonition-title">Data</p><p>Every number below is computed from '
            f"the judgements in <code>{html_text(r.source)}</code>{lengths}.</p></div>")


def _provenance(r: Report) -> str:
    from compendium.data.paths import revision

    parts = [f"ratings file <code>{html_text(r.source)}</code>"
             + (f" (SHA-256 <code>{r.digest}</code>)" if r.digest else "")]
    if r.parameters:
        parts.append("parameters " + html_text(", ".join(f"{k}={v!r}" for k, v in r.parameters.items())))
    parts.append(f"revision <code>{html_text(revision())}</code>")
    return f'<p class="provenance"><small>Provenance: {" · ".join(parts)}</small></p>'


_PAGE_CSS = (
    "caption{caption-side:top;text-align:left;font-weight:bold;padding:.2rem 0}td.text{text-align:left}"
    "figure{margin:1rem 0}figure svg{display:inline-block;vertical-align:top;margin-right:1rem}"
    "figcaption{font-size:.9rem;color:#444}"
)


def render(report: Report) -> str:
    """The rated audit's page: the data box, then each section of the report notebook (heading, prose, tables,
    figures), the provenance line at the end; refused unless inert."""
    body = ["<h1>Audit of a rating study</h1>", _data_box(report)]
    for level, heading, text in prose():
        body.append(f"<h{level}>{_inline(heading)}</h{level}>")
        body.append(markdown(text))
        body += [part for part in _drawer(heading)(report) if part]
    body.append(_provenance(report))
    page = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Audit of a rating study</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_CSS}{_PAGE_CSS}</style>'
            "</head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n")
    return check_inert(page)
