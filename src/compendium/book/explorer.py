"""A kernel-free annotator explorer for the static book (paper section 4.4).

The reliability chapter lets a reader take annotators off the panel and
watch the leaderboard, the F tests and G change. In Jupyter an ipywidgets
explorer recomputes :func:`compendium.stats.panels.panel_summary` on every
click; in the rendered book there is no kernel, so this module precomputes
the summary of **every non-empty subset** of the annotators (7 for the
paper's three) and, for simulated larger panels, of **every panel size**
(the first *k* annotators drawn), and writes a self-contained HTML fragment
-- inline CSS and JavaScript, the data as inline JSON, nothing loaded from
anywhere -- that looks the ticked subset up in the browser. It works from
``file://`` and without a network.

* :func:`precompute_panels` -- the summaries, as a JSON-serialisable dict
  with rounded floats and a deterministic order;
* :func:`to_json` -- that dict as a deterministic JSON string;
* :func:`find_subset` -- look one subset up (the same lookup the page does);
* :func:`explorer_html` -- the HTML fragment.

Stable hooks for tests and readers: the fragment's root is
``<div class="compendium-explorer" id="compendium-explorer">``; one checkbox
per annotator ``<input type="checkbox" data-annotator="A1">``; the
leaderboard ``<table id="explorer-leaderboard">`` (columns rank, system,
the evaluation's score columns -- the mean, or a REML or Bradley-Terry
score beside a mean -- and the change of rank against the full panel); the
statistics ``#explorer-winner`` and one ``dd`` per line of the panel's
``statistics`` (``#explorer-f-interaction``, ``#explorer-f-residual``,
``#explorer-rater-ratio``, ``#explorer-g`` on a complete design;
``#explorer-f-random`` in place of the two F tests on an incomplete one);
the panel description ``#explorer-panel``; ``#explorer-empty``, shown when
no annotator is ticked or the ticked panel was not computed; the rule of
which panels are held ``#explorer-rule``; the rank picture
``#explorer-ranks``, an inline SVG with one ``line[data-system]`` per system
(``data-rank``: its rank with the ticked panel; the winner's line is 3 px
wide). With several evaluations (:func:`evaluation_set`) the selector is
``#explorer-evaluation`` and its note ``#explorer-evaluation-note``. The
larger-panel part, present only with ``extra_panels``, has ``#explorer-size``
(a range input), ``#explorer-panel-select`` (with several panels) and the
same elements with the prefix ``explorer-sim-``, inside ``#explorer-sim``.
Incomplete and pairwise designs are summarised by
:mod:`compendium.book.explorer_designs`; :func:`panel_html` renders one
panel for JupyterLab's widget from the same data.
"""

from __future__ import annotations

import html
import itertools
import json
import math
from collections.abc import Mapping, Sequence

import pandas as pd

from compendium.data import schema
from compendium.stats import panels, tidy

#: Version of the precomputed structure (bump when its keys change; 3: each panel's statistics as the lines the
#: page shows, any design's score columns and the rule of which subsets are held).
FORMAT_VERSION = 3

#: Every subset of up to this many annotators is precomputed (2**12 - 1 = 4,095 summaries).
MAX_SUBSET_ANNOTATORS = 12

#: Decimal places kept for means, F statistics and G; significant digits kept for p-values.
MEAN_DECIMALS = 4
P_DIGITS = 4

STATISTICS = ("F_vs_residual", "p_vs_residual", "F_vs_interaction", "p_vs_interaction", "G")


def _number(value, decimals: int = MEAN_DECIMALS) -> float | None:
    """A finite float rounded to ``decimals`` places, or None (JSON has no NaN)."""
    if value is None:
        return None
    value = float(value)
    if not math.isfinite(value):
        return None
    return round(value, decimals) + 0.0  # + 0.0 turns -0.0 into 0.0


def _pvalue(value) -> float | None:
    """A p-value rounded to :data:`P_DIGITS` significant digits (tiny p stay non-zero)."""
    if value is None:
        return None
    value = float(value)
    if not math.isfinite(value):
        return None
    return float(f"{value:.{P_DIGITS}g}")


def _levels(column: pd.Series) -> list[str]:
    """The observed levels of a column: category order for categoricals, else sorted."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        observed = set(column.dropna().unique())
        return [str(c) for c in column.cat.categories if c in observed]
    return sorted({str(v) for v in column.dropna().unique()})


#: The leaderboard's score columns of a complete design: the plain mean ranks the systems.
MEAN_COLUMNS = [["mean", "Mean rating"]]
#: What a panel of one rater lacks.
ONE_RATER = "undefined with one annotator"
#: Every subset of a complete design's annotators is held.
EVERY_SUBSET = "Every subset of the annotators is held."


def f_text(f_value, p_value, df=None) -> str:
    """An F test as the page shows it: ``F = 21.40, p = 4.0e-18``, with its df when given."""
    dfs = "" if df is None else f" on {df[0]:.4g} and {df[1]:.4g} df"
    return f"F = {_fmt(_number(f_value), 2)}{dfs}, {_fmt_p(_pvalue(p_value))}"


def ratio_text(term: float | None, system: float | None) -> str:
    """A variance term over the systems' as the page shows it.

    >>> ratio_text(1.23, 0.456), ratio_text(2e-11, 1042.7)
    ('2.70 times (1.23 against 0.456)', 'under 0.01 times (0 against 1,043)')
    """
    if term is None or system is None:
        return ONE_RATER
    if system <= 0:
        return f"unbounded: the systems' variance is estimated at 0 (the term: {_short(term)})"
    ratio = term / system
    return f"{'under 0.01' if ratio < 0.005 else f'{ratio:.2f}'} times ({_short(term)} against {_short(system)})"


def _short(value: float) -> str:
    """A variance for the page: three significant digits, whole numbers from 100, and 0 below 10^-6."""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return "0" if abs(value) < 1e-6 else f"{value:.3g}"


def _summarise(data: pd.DataFrame, columns: Mapping[str, str], labels: Mapping[str, str]) -> dict:
    """One panel's :func:`panels.panel_summary`, as plain rounded JSON values and the lines the page shows."""
    system = columns["system"]
    summary = panels.panel_summary(data, **columns)
    board = summary["leaderboard"]
    leaderboard = [
        {
            "system": str(row[system]),
            "label": str(labels.get(str(row[system]), row[system])),
            "mean": _number(row["mean"]),
            "rank": int(row["rank"]),
        }
        for _, row in board.iterrows()
    ]
    single = summary["n_raters"] < 2
    return {
        "n_raters": int(summary["n_raters"]),
        "leaderboard": leaderboard,
        "winner": str(summary["winner"]),
        "winners": [entry["system"] for entry in leaderboard if entry["rank"] == 1],
        "F_vs_residual": _number(summary["F_vs_residual"]),
        "p_vs_residual": _pvalue(summary["p_vs_residual"]),
        "F_vs_interaction": _number(summary["F_vs_interaction"]),
        "p_vs_interaction": _pvalue(summary["p_vs_interaction"]),
        "G": _number(summary["G"]),
        "statistics": [
            ["f-interaction", "Systems, raters random (F against system \u00d7 annotator)",
             ONE_RATER if single else f_text(summary["F_vs_interaction"], summary["p_vs_interaction"])],
            ["f-residual", "Systems, raters fixed (F against the residual)",
             ONE_RATER if single else f_text(summary["F_vs_residual"], summary["p_vs_residual"])],
            ["rater-ratio", "Rater leniency variance over the systems'",
             ratio_text(summary["rater_variance"], summary["system_variance"])],
            ["g", "G of the system mean, this panel", ONE_RATER if single else _fmt(_number(summary["G"]), 3)],
        ],
    }


def _subset_rows(data: pd.DataFrame, rater: str, keep: Sequence[str]) -> pd.DataFrame:
    """The judgements of the raters in ``keep``, with unused categories dropped."""
    sub = data[data[rater].astype(str).isin(list(keep))]
    if isinstance(sub[rater].dtype, pd.CategoricalDtype):
        sub = sub.assign(**{rater: sub[rater].cat.remove_unused_categories()})
    return sub


def precompute_panels(
    ratings: pd.DataFrame,
    *,
    extra_panels: Mapping[str, pd.DataFrame] | None = None,
    panel_sizes: Sequence[int] | None = None,
    labels: Mapping[str, str] | None = None,
    item: str = tidy.ITEM,
    system: str = tidy.SYSTEM,
    rater: str = tidy.RATER,
    rating: str = tidy.RATING,
) -> dict:
    """Panel summaries for every subset of annotators, ready for a static page.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Tidy judgements of a complete crossed design (``sentence_id, system,
        annotator, rating``), at most :data:`MAX_SUBSET_ANNOTATORS` raters.
    extra_panels : mapping of str to DataFrame, optional
        Larger (simulated) panels by name, e.g. ``{"27 simulated
        annotators": compendium.simulate.simulate_panel(27, ...)}``. Their
        subsets are too many to enumerate, so each is summarised at each
        panel size *k*, seating its first *k* annotators (in level order).
    panel_sizes : sequence of int, optional
        The sizes *k* for ``extra_panels`` (default: every size from 1 to
        the panel's size; sizes above it are dropped).
    labels : mapping of str to str, optional
        Display names of the systems (default
        :data:`compendium.data.schema.SYSTEM_LABELS`; unknown systems keep their name).
    item, system, rater, rating : str
        Column names.

    Returns
    -------
    dict
        ``format`` (:data:`FORMAT_VERSION`), ``annotators`` (in level
        order), ``systems`` (list of ``{system, label}`` in level order),
        ``subsets`` -- one entry per non-empty subset, the full panel first,
        then by decreasing size and in combination order, each with
        ``annotators``, ``n_raters``, ``leaderboard`` (list of ``{system,
        label, mean, rank}`` in rank order), ``winner`` (as
        :func:`~compendium.stats.panels.panel_summary`), ``winners`` (all
        rank-1 systems), ``F_vs_residual``, ``p_vs_residual``,
        ``F_vs_interaction``, ``p_vs_interaction`` and ``G`` (None where
        undefined, i.e. with one rater) and ``statistics`` (the lines the
        page shows: ``[hook, name, text]``) -- ``design`` (``"complete"``),
        ``columns`` (the leaderboard's score columns, ``[key, header]``),
        ``rule`` (which subsets are held) and ``panels``, one entry per
        extra panel: ``name``, ``annotators``, ``sizes`` (list of the same
        summaries with a ``size`` key). Means, F and G are rounded to
        :data:`MEAN_DECIMALS` places, p-values to :data:`P_DIGITS`
        significant digits; ranks come from the unrounded means.

    Raises
    ------
    KeyError
        If a column is missing.
    ValueError
        If there are no ratings or too many annotators to enumerate.

    Examples
    --------
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> from compendium.book.explorer import precompute_panels
    >>> data = precompute_panels(simulate_crossed(20, 3, 3, seed=0, scale=(1, 5)))
    >>> [s["annotators"] for s in data["subsets"]][:4]
    [['A1', 'A2', 'A3'], ['A1', 'A2'], ['A1', 'A3'], ['A2', 'A3']]
    >>> len(data["subsets"]), data["subsets"][-1]["G"] is None
    (7, True)
    """
    columns = {"item": item, "system": system, "rater": rater, "rating": rating}
    missing = [c for c in columns.values() if c not in ratings.columns]
    if missing:
        raise KeyError(f"ratings lack the column(s) {missing}; they have {list(ratings.columns)}")
    if ratings.empty:
        raise ValueError("no ratings to summarise")
    labels = dict(schema.SYSTEM_LABELS if labels is None else labels)
    annotators = _levels(ratings[rater])
    if len(annotators) > MAX_SUBSET_ANNOTATORS:
        raise ValueError(
            f"{len(annotators)} annotators have {2 ** len(annotators) - 1} subsets; at most "
            f"{MAX_SUBSET_ANNOTATORS} annotators can be enumerated (pass a larger panel as extra_panels)"
        )
    systems = _levels(ratings[system])
    subsets = []
    for size in range(len(annotators), 0, -1):
        for keep in itertools.combinations(annotators, size):
            summary = _summarise(_subset_rows(ratings, rater, keep), columns, labels)
            subsets.append({"annotators": list(keep), **summary})
    panels = []
    for name, panel in (extra_panels or {}).items():
        missing = [c for c in columns.values() if c not in panel.columns]
        if missing:
            raise KeyError(f"extra panel {name!r} lacks the column(s) {missing}")
        seated = _levels(panel[rater])
        sizes = range(1, len(seated) + 1) if panel_sizes is None else panel_sizes
        sizes = sorted({int(k) for k in sizes if 1 <= int(k) <= len(seated)})
        entries = [
            {"size": k, **_summarise(_subset_rows(panel, rater, seated[:k]), columns, labels)} for k in sizes
        ]
        panels.append({"name": str(name), "annotators": seated, "sizes": entries})
    return {
        "format": FORMAT_VERSION,
        "design": "complete",
        "columns": MEAN_COLUMNS,
        "rule": EVERY_SUBSET,
        "annotators": annotators,
        "systems": [{"system": s, "label": str(labels.get(s, s))} for s in systems],
        "subsets": subsets,
        "panels": panels,
    }


def to_json(data: Mapping) -> str:
    """The precomputed dict as deterministic, compact JSON (no NaN, ASCII only)."""
    return json.dumps(data, separators=(",", ":"), allow_nan=False, ensure_ascii=True)


def find_subset(data: Mapping, annotators: Sequence[str]) -> dict:
    """The precomputed summary of the panel made of ``annotators`` (any order).

    Raises
    ------
    KeyError
        If no such subset was precomputed (unknown annotator, or none).
    """
    wanted = set(annotators)
    for subset in data["subsets"]:
        if set(subset["annotators"]) == wanted:
            return subset
    raise KeyError(f"no precomputed panel of {sorted(wanted)}; the annotators are {data['annotators']}")


# ------------------------------------------------------------------ HTML
_CSS = """
.compendium-explorer{border:1px solid rgba(128,128,128,.45);border-radius:6px;padding:.8em 1em;margin:1em 0;max-width:46em}
.compendium-explorer fieldset{border:0;margin:0 0 .5em 0;padding:0}
.compendium-explorer legend{font-weight:bold;font-size:1em;margin-bottom:.2em;padding:0}
.compendium-explorer label.explorer-choice{display:inline-block;margin-right:1.2em;cursor:pointer;white-space:nowrap}
.compendium-explorer label.explorer-choice input{margin-right:.35em}
.compendium-explorer .explorer-quick button{font-size:.85em;margin-right:.5em;padding:.1em .6em;cursor:pointer}
.compendium-explorer table{border-collapse:collapse;margin:.5em 0;min-width:24em}
.compendium-explorer th,.compendium-explorer td{padding:.2em .8em;border-bottom:1px solid rgba(128,128,128,.3);text-align:left}
.compendium-explorer td.num,.compendium-explorer th.num{text-align:right;font-variant-numeric:tabular-nums}
.compendium-explorer tr.explorer-top td{font-weight:bold}
.compendium-explorer .explorer-up{color:#009E73}
.compendium-explorer .explorer-down{color:#D55E00}
.compendium-explorer dl{display:grid;grid-template-columns:minmax(0,19em) minmax(12em,1fr);gap:.15em 1em;margin:.5em 0}
@media (max-width:600px){.compendium-explorer dl{grid-template-columns:1fr}.compendium-explorer dd{margin:0 0 .35em 0;font-weight:600}.compendium-explorer table{min-width:0}.compendium-explorer{padding:.6em .6em;overflow-x:auto}}
.compendium-explorer dt{font-weight:normal;opacity:.85}
.compendium-explorer dd{margin:0;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.compendium-explorer .explorer-empty{font-weight:bold;color:#D55E00}
.compendium-explorer .explorer-note{font-size:.85em;opacity:.85}
.compendium-explorer [hidden]{display:none!important}
.compendium-explorer hr{margin:1em 0;border:0;border-top:1px solid rgba(128,128,128,.45)}
.compendium-explorer .explorer-ranks svg{display:block;width:100%;max-width:26em;height:auto;margin:.3em 0;fill:currentColor}
""".strip()  # noqa: E501 (the CSS lines are the page's, not Python's)

# Plain ES2015, no library, no network: looks the ticked subset up in the inline JSON.
_JS = r"""
(function () {
  var script = document.currentScript;
  var root = (script && script.closest(".compendium-explorer")) || document.getElementById("compendium-explorer");
  if (!root || root.getAttribute("data-ready") === "1") { return; }
  var payload = JSON.parse(root.querySelector("script.explorer-data").textContent);
  // One evaluation (format 1) or a choice of them (format 2, see evaluation_set): the ticked subset is looked up
  // in the evaluation the selector names.
  var evaluations = payload.evaluations || [{name: "", kind: "", note: "", data: payload}];
  var data, bySubset, full, fullRank, labelOf, boxes = [];
  function use(evaluation) {
    data = evaluation.data;
    bySubset = {};
    data.subsets.forEach(function (s) { bySubset[JSON.stringify(s.annotators)] = s; });
    full = data.subsets[0];
    fullRank = {};
    full.leaderboard.forEach(function (e) { fullRank[e.system] = e.rank; });
    labelOf = {};
    data.systems.forEach(function (s) { labelOf[s.system] = s.label; });
  }
  use(evaluations[0]);

  function q(id) { return root.querySelector("#" + id); }
  function fmt(x, d) { return x === null || x === undefined ? "\u2013" : x.toFixed(d); }
  function seatedText(panel, k) {
    return "The first " + k + " of the " + panel.annotators.length + " annotators of " + panel.name + " seated.";
  }
  function text(tag, content, cls) {
    var el = document.createElement(tag);
    el.textContent = content;
    if (cls) { el.className = cls; }
    return el;
  }
  function change(system, rank) {
    var d = fullRank[system] - rank;
    if (d > 0) { return ["\u25B2 " + d, "explorer-up"]; }
    if (d < 0) { return ["\u25BC " + (-d), "explorer-down"]; }
    return ["\u2013", ""];
  }
  // The rank picture: each system's rank with the full panel (left) joined to its rank with the ticked panel
  // (right), the winner's line thick and orange; inline SVG markup (the page's HTML parser makes it SVG), so it
  // needs nothing from anywhere. Names from the data are escaped before they enter the markup.
  function esc(value) {
    return String(value).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function drawRanks(prefix, summary) {
    var holder = q(prefix + "ranks");
    if (!holder) { return; }
    holder.hidden = !summary;
    if (!summary) { holder.innerHTML = ""; return; }
    var now = {};
    summary.leaderboard.forEach(function (e) { now[e.system] = e.rank; });
    var row = 18, top = 26, x1 = 34, x2 = 150;
    var parts = ['<svg viewBox="0 0 320 ' + (top + full.leaderboard.length * row) + '" role="img" aria-label="' +
                 "Each system's rank with the full panel (left) and with the ticked panel (right); the winner's " +
                 'line is thick"><text x="0" y="12" font-size="11">full panel</text><text x="' + (x2 - 20) +
                 '" y="12" font-size="11">ticked panel</text>'];
    full.leaderboard.forEach(function (e) {
      var win = summary.winners.indexOf(e.system) >= 0;
      var yFull = top + (e.rank - 1) * row, yNow = top + (now[e.system] - 1) * row;
      parts.push('<line x1="' + x1 + '" y1="' + (yFull - 4) + '" x2="' + x2 + '" y2="' + (yNow - 4) + '" stroke="' +
                 (win ? "#D55E00" : "#0072B2") + '" stroke-width="' + (win ? 3 : 1.2) + '" data-system="' +
                 esc(e.system) + '" data-rank="' + now[e.system] + '"></line>');
      parts.push('<text x="' + (x1 - 6) + '" y="' + yFull + '" font-size="10" text-anchor="end">' + e.rank + "</text>");
      parts.push('<text x="' + (x2 + 6) + '" y="' + yNow + '" font-size="10" font-weight="' + (win ? "bold" : "normal") +
                 '">' + now[e.system] + "  " + esc(labelOf[e.system] || e.system) + (win ? " (winner)" : "") + "</text>");
    });
    holder.innerHTML = parts.join("") + "</svg>";
  }
  function show(prefix, summary, description, missing) {
    drawRanks(prefix, summary);
    var table = q(prefix + "leaderboard");
    var body = table.querySelector("tbody");
    var stats = q(prefix + "stats");
    var empty = q(prefix + "empty");
    q(prefix + "panel").textContent = description;
    if (!summary) {
      table.hidden = true; stats.hidden = true; empty.hidden = false;
      empty.textContent = missing || "No annotator is ticked: tick at least one to see a leaderboard.";
      return;
    }
    table.hidden = false; stats.hidden = false; empty.hidden = true;
    var head = table.querySelector("thead tr");
    while (head.firstChild) { head.removeChild(head.firstChild); }
    head.appendChild(text("th", "Rank", "num"));
    head.appendChild(text("th", "System"));
    data.columns.forEach(function (c) { head.appendChild(text("th", c[1], "num")); });
    head.appendChild(text("th", "Rank change vs full panel", "num"));
    while (body.firstChild) { body.removeChild(body.firstChild); }
    summary.leaderboard.forEach(function (e) {
      var tr = document.createElement("tr");
      tr.setAttribute("data-system", e.system);
      if (e.rank === 1) { tr.className = "explorer-top"; }
      var c = change(e.system, e.rank);
      tr.appendChild(text("td", String(e.rank), "num"));
      tr.appendChild(text("td", e.label));
      data.columns.forEach(function (col) { tr.appendChild(text("td", fmt(e[col[0]], 3), "num")); });
      tr.appendChild(text("td", c[0], ("num " + c[1]).trim()));
      body.appendChild(tr);
    });
    // The statistics are the lines the build wrote for this panel (explorer._summarise and its kin): the same
    // words with or without the script.
    while (stats.firstChild) { stats.removeChild(stats.firstChild); }
    stats.appendChild(text("dt", "Winner"));
    var winner = text("dd", summary.winners.map(function (w) { return labelOf[w] || w; }).join(" / "));
    winner.id = prefix + "winner";
    stats.appendChild(winner);
    summary.statistics.forEach(function (line) {
      stats.appendChild(text("dt", line[1]));
      var dd = text("dd", line[2]);
      dd.id = prefix + line[0];
      stats.appendChild(dd);
    });
  }
  function update() {
    var keep = data.annotators.filter(function (a) {
      return boxes.some(function (b) { return b.checked && b.getAttribute("data-annotator") === a; });
    });
    var summary = keep.length ? bySubset[JSON.stringify(keep)] : null;
    var description = !keep.length ? "No annotator is ticked." :
      keep.length === data.annotators.length ? "Full panel: " + keep.join(", ") + "." :
      "Panel of " + keep.length + ": " + keep.join(", ") + " (without " +
      data.annotators.filter(function (a) { return keep.indexOf(a) < 0; }).join(", ") + ").";
    show("explorer-", summary || null, description, keep.length ? "Not computed for this panel. " + data.rule : "");
  }
  function bind() {
    boxes = Array.prototype.slice.call(root.querySelectorAll("input[data-annotator]"));
    boxes.forEach(function (b) { b.addEventListener("change", update); });
  }
  bind();
  var all = q("explorer-all");
  if (all) { all.addEventListener("click", function () { boxes.forEach(function (b) { b.checked = true; }); update(); }); }
  update();

  var size = q("explorer-size");
  var select = q("explorer-panel-select");
  function updatePanel() {
    if (!size || !data.panels.length) { return; }
    var panel = data.panels[select ? Number(select.value) : 0];
    var sizes = panel.sizes.map(function (s) { return s.size; });
    size.min = String(sizes[0]); size.max = String(sizes[sizes.length - 1]);
    var k = Number(size.value);
    var entry = panel.sizes.reduce(function (best, s) {
      return Math.abs(s.size - k) < Math.abs(best.size - k) ? s : best;
    }, panel.sizes[0]);
    size.value = String(entry.size);
    q("explorer-size-value").textContent = String(entry.size);
    show("explorer-sim-", entry, seatedText(panel, entry.size));
  }
  if (size) { size.addEventListener("input", updatePanel); }
  if (select) { select.addEventListener("change", function () { size.value = size.max; updatePanel(); }); }
  updatePanel();

  // The choice of evaluation: its annotators' boxes are drawn again, all ticked, and the larger simulated panels
  // show only for an evaluation that has them.
  var chooser = q("explorer-evaluation");
  if (chooser) {
    chooser.addEventListener("change", function () {
      var evaluation = evaluations[Number(chooser.value)];
      use(evaluation);
      var holder = q("explorer-boxes");
      while (holder.firstChild) { holder.removeChild(holder.firstChild); }
      data.annotators.forEach(function (a) {
        var label = document.createElement("label");
        label.className = "explorer-choice";
        var input = document.createElement("input");
        input.type = "checkbox"; input.checked = true; input.setAttribute("data-annotator", a);
        label.appendChild(input);
        label.appendChild(document.createTextNode(" " + a));
        holder.appendChild(label);
      });
      bind();
      q("explorer-evaluation-note").textContent = evaluation.note;
      q("explorer-rule").textContent = data.rule;
      var sim = q("explorer-sim");
      if (sim) { sim.hidden = !data.panels.length; }
      if (size && data.panels.length) { size.value = size.max; }
      update();
      updatePanel();
    });
  }
  root.setAttribute("data-ready", "1");
})();
""".strip()  # noqa: E501 (the script's lines are the page's)


def seated_text(panel: Mapping, k: int) -> str:
    """What a larger panel's slider shows, as the script's ``seatedText`` says it.

    >>> seated_text({"name": "a simulated panel", "annotators": ["A1", "A2", "A3"]}, 2)
    'The first 2 of the 3 annotators of a simulated panel seated.'
    """
    return f"The first {k} of the {len(panel['annotators'])} annotators of {panel['name']} seated."


def _fmt(value, decimals: int) -> str:
    return "\u2013" if value is None else f"{value:.{decimals}f}"


def _fmt_p(value) -> str:
    """A p-value as the page shows it (exponent without a leading zero, as JavaScript's toExponential)."""
    if value is None:
        return "p = \u2013"
    if value == 0:
        return "p < 1e-300"
    if value >= 0.001:
        return f"p = {value:.3f}"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"p = {mantissa}e{int(exponent)}"


def _results_html(prefix: str, summary: Mapping, description: str, caption: str, full: Mapping,
                  columns: Sequence[Sequence[str]]) -> str:
    """The leaderboard and statistics of one panel (what the script redraws)."""
    esc = html.escape
    full_rank = {e["system"]: e["rank"] for e in full["leaderboard"]}
    rows = []
    for e in summary["leaderboard"]:
        delta = full_rank.get(e["system"], e["rank"]) - e["rank"]
        change, cls = (f"\u25b2 {delta}", " explorer-up") if delta > 0 else (
            (f"\u25bc {-delta}", " explorer-down") if delta < 0 else ("\u2013", ""))
        top = ' class="explorer-top"' if e["rank"] == 1 else ""
        scores = "".join(f'<td class="num">{_fmt(e.get(key), 3)}</td>' for key, _ in columns)
        rows.append(
            f'<tr data-system="{esc(e["system"])}"{top}>'
            f'<td class="num">{e["rank"]}</td><td>{esc(e["label"])}</td>'
            f'{scores}<td class="num{cls}">{change}</td></tr>'
        )
    winners = " / ".join(next((e["label"] for e in summary["leaderboard"] if e["system"] == w), w)
                         for w in summary["winners"])
    lines = "".join(f'<dt>{esc(name)}</dt><dd id="{prefix}{hook}">{esc(value)}</dd>'
                    for hook, name, value in summary["statistics"])
    heads = "".join(f'<th class="num">{esc(header)}</th>' for _, header in columns)
    return (
        f'<p id="{prefix}panel" aria-live="polite">{esc(description)}</p>'
        f'<p id="{prefix}empty" class="explorer-empty" hidden>No annotator is ticked: tick at least one '
        "to see a leaderboard.</p>"
        f'<div id="{prefix}ranks" class="explorer-ranks"></div>'
        f'<table id="{prefix}leaderboard"><caption class="explorer-note">{esc(caption)}</caption>'
        f'<thead><tr><th class="num">Rank</th><th>System</th>{heads}'
        '<th class="num">Rank change vs full panel</th></tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table>'
        f'<dl id="{prefix}stats">'
        f'<dt>Winner</dt><dd id="{prefix}winner">{esc(winners)}</dd>{lines}'
        "</dl>"
    )


def panel_html(data: Mapping, annotators: Sequence[str]) -> str:
    """The leaderboard and statistics of one held panel as static HTML: what JupyterLab's widget shows
    (chapter 2), from the same data as the page, so the two cannot differ.

    ``data`` is one evaluation (:func:`precompute_panels` or :mod:`compendium.book.explorer_designs`);
    ``annotators`` the ticked ones. A panel that is not held (or none ticked) gets a sentence saying so.

    >>> from compendium.simulate.crossed import simulate_crossed
    >>> data = precompute_panels(simulate_crossed(20, 3, 3, seed=0, scale=(1, 5)))
    >>> "without A3" in panel_html(data, ["A1", "A2"]), panel_html(data, [])
    (True, '<p>No annotator is ticked: tick at least one to see a leaderboard.</p>')
    """
    keep = [a for a in data["annotators"] if a in set(annotators)]
    if not keep:
        return "<p>No annotator is ticked: tick at least one to see a leaderboard.</p>"
    try:
        summary = find_subset(data, keep)
    except KeyError:
        return f"<p>Not computed for this panel. {html.escape(data['rule'])}</p>"
    left = [a for a in data["annotators"] if a not in keep]
    description = (f"Full panel: {', '.join(keep)}." if not left else
                   f"Panel of {len(keep)}: {', '.join(keep)} (without {', '.join(left)}).")
    return _results_html("lab-", summary, description, "Leaderboard of the ticked panel (rank 1 is best)",
                         data["subsets"][0], data["columns"])


#: Version of a choice of evaluations (:func:`evaluation_set`).
SET_FORMAT_VERSION = 4
#: What an evaluation's data are: a real evaluation's judgements, or the simulated benchmark.
KINDS = ("real", "simulated")


def evaluation_set(entries: Sequence[tuple[str, str, str, Mapping]]) -> dict:
    """Several evaluations for one explorer, the first shown when the page opens (issue 70: a real one).

    Parameters
    ----------
    entries : sequence of (name, kind, note, data)
        ``name`` as the selector lists it; ``kind`` one of :data:`KINDS`; ``note`` one sentence on the data,
        shown under the selector; ``data`` the output of :func:`precompute_panels`.

    Raises
    ------
    ValueError
        No entry, an unknown kind, a repeated name, or data that is not :func:`precompute_panels`'s.

    Examples
    --------
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> data = precompute_panels(simulate_crossed(20, 3, 3, seed=0, scale=(1, 5)))
    >>> chosen = evaluation_set([("A", "real", "One.", data), ("B", "simulated", "Two.", data)])
    >>> [e["name"] for e in chosen["evaluations"]], chosen["format"]
    (['A', 'B'], 4)
    """
    if not entries:
        raise ValueError("give at least one evaluation")
    names = [str(e[0]) for e in entries]
    if len(set(names)) != len(names):
        raise ValueError(f"evaluation names repeat: {names}")
    out = []
    for name, kind, note, data in entries:
        if kind not in KINDS:
            raise ValueError(f"evaluation {name!r}: kind {kind!r} is not one of {KINDS}")
        if data.get("format") != FORMAT_VERSION:
            raise ValueError(f"evaluation {name!r}: expected the output of precompute_panels")
        out.append({"name": str(name), "kind": kind, "note": str(note), "data": data})
    return {"format": SET_FORMAT_VERSION, "evaluations": out}


def explorer_html(data: Mapping) -> str:
    """A self-contained HTML fragment: tick annotators, watch the leaderboard change.

    Parameters
    ----------
    data : mapping
        The output of :func:`precompute_panels` (one evaluation), or of :func:`evaluation_set` (a selector
        ``#explorer-evaluation`` lists them; the page opens on the first).

    Returns
    -------
    str
        One ``<div class="compendium-explorer">`` with inline CSS, the data
        as inline JSON and an inline script; no external script, style
        sheet, font or image, so it works from ``file://`` with no network.
        The full panel is rendered in the HTML itself (what a reader sees
        without JavaScript); the script redraws on every tick. See the
        module docstring for the element ids.

    Examples
    --------
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> from compendium.book.explorer import explorer_html, precompute_panels
    >>> page = explorer_html(precompute_panels(simulate_crossed(20, 3, 3, seed=0, scale=(1, 5))))
    >>> 'data-annotator="A2"' in page, "http" in page
    (True, False)
    """
    if data.get("format") == SET_FORMAT_VERSION:
        chosen = data["evaluations"]
    elif data.get("format") == FORMAT_VERSION:
        chosen = [{"name": "", "kind": "", "note": "", "data": data}]
    else:
        raise ValueError(f"expected the output of precompute_panels (format {FORMAT_VERSION}) or of evaluation_set")
    esc = html.escape
    payload = to_json(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    first = chosen[0]
    data = first["data"]
    full = data["subsets"][0]
    boxes = "".join(
        f'<label class="explorer-choice"><input type="checkbox" data-annotator="{esc(a)}" checked> {esc(a)}</label>'
        for a in data["annotators"]
    )
    parts = [
        '<div class="compendium-explorer" id="compendium-explorer">',
        f"<style>{_CSS}</style>",
        f'<script type="application/json" class="explorer-data">{payload}</script>',
    ]
    if len(chosen) > 1 or first["name"]:
        options = "".join(f'<option value="{i}">{esc(e["name"])} ({esc(e["kind"])})</option>'
                          for i, e in enumerate(chosen))
        parts += [f'<label class="explorer-pick">Evaluation <select id="explorer-evaluation">{options}</select>'
                  "</label>", f'<p id="explorer-evaluation-note" class="explorer-note">{esc(first["note"])}</p>']
    parts += [
        '<fieldset><legend>Annotators on the panel</legend>',
        f'<span id="explorer-boxes">{boxes}</span>',
        '<span class="explorer-quick"><button type="button" id="explorer-all">tick all</button></span>',
        "</fieldset>",
        _results_html("explorer-", full, f"Full panel: {', '.join(data['annotators'])}.",
                      "Leaderboard of the ticked panel (rank 1 is best, ties share a rank)", full, data["columns"]),
        f'<p class="explorer-note"><span id="explorer-rule">{esc(data["rule"])}</span> Each panel was computed '
        "when the chapter ran, by the functions the audit uses, so no kernel is needed. G: the generalisability "
        "coefficient of the system mean at the panel's own size.</p>",
    ]
    with_panels = next((e["data"] for e in chosen if e["data"]["panels"]), None)
    if with_panels is not None:  # the larger simulated panels, shown while their evaluation is chosen
        larger = with_panels["panels"][0]
        last = larger["sizes"][-1]
        sizes = [s["size"] for s in larger["sizes"]]
        select = ""
        if len(with_panels["panels"]) > 1:
            options = "".join(f'<option value="{i}">{esc(p["name"])}</option>'
                              for i, p in enumerate(with_panels["panels"]))
            select = f'<label>Panel <select id="explorer-panel-select">{options}</select></label> '
        parts += [
            f'<div id="explorer-sim"{"" if data["panels"] else " hidden"}>',
            "<hr>",
            "<fieldset><legend>Larger simulated panels</legend>",
            select,
            f'<label>Annotators seated: <input type="range" id="explorer-size" min="{sizes[0]}" '
            f'max="{sizes[-1]}" step="1" value="{last["size"]}"> <output id="explorer-size-value">'
            f'{last["size"]}</output></label>',
            "</fieldset>",
            _results_html(
                "explorer-sim-", last, seated_text(larger, last["size"]),
                "Leaderboard of the simulated panel (rank change against the three-annotator full panel above)",
                with_panels["subsets"][0], with_panels["columns"],
            ),
            "</div>",
        ]
    parts += [f"<script>{_JS}</script>", "</div>"]
    return "\n".join(parts)


# ------------------------------------------------------------------ length bias (chapter 3)
#: Which annotator's length slope is taken out: "none" or an annotator id.
NO_ADJUSTMENT = "none"


def length_bias_leaderboard(ratings: pd.DataFrame, lengths: pd.DataFrame, slopes: Mapping[str, float],
                            annotator: str = NO_ADJUSTMENT) -> pd.DataFrame:
    """The MOS leaderboard after one annotator's length slope is taken out of their ratings.

    The same computation serves chapter 3's ipywidgets explorer and its
    kernel-free twin (:func:`precompute_length_bias`), so the two cannot disagree.

    Parameters
    ----------
    ratings, lengths : DataFrame
        As for :func:`compendium.analyses.length.without_length_slope`.
    slopes : mapping of str to float
        Each annotator's estimated length slope (rating points per emoji).
    annotator : str
        Whose slope is removed; ``"none"`` leaves the ratings as they are.

    Returns
    -------
    DataFrame
        ``rank, system, MOS``, best first (rank 1; ties broken by the order of the mean).
    """
    from compendium.analyses import length

    adjusted = ratings if annotator == NO_ADJUSTMENT else length.without_length_slope(
        ratings, lengths, {annotator: slopes[annotator]})
    board = adjusted.groupby("system", observed=True)["rating"].mean().sort_values(ascending=False, kind="stable")
    return pd.DataFrame({"rank": range(1, len(board) + 1), "system": board.index.astype(str), "MOS": board.to_numpy()})


def precompute_length_bias(ratings: pd.DataFrame, lengths: pd.DataFrame, slopes: Mapping[str, float],
                           labels: Mapping[str, str] | None = None) -> dict:
    """Every leaderboard of :func:`length_bias_leaderboard`: unadjusted and with each annotator's slope removed."""
    labels = dict(schema.SYSTEM_LABELS if labels is None else labels)
    boards = []
    for who in [NO_ADJUSTMENT, *sorted(slopes)]:
        board = length_bias_leaderboard(ratings, lengths, slopes, who)
        boards.append(
            {
                "annotator": who,
                "slope": None if who == NO_ADJUSTMENT else _number(slopes[who]),
                "leaderboard": [
                    {
                        "rank": int(r.rank),
                        "system": r.system,
                        "label": labels.get(r.system, r.system),
                        "mean": _number(r.MOS),
                    }
                    for r in board.itertuples()
                ],
            }
        )
    return {"format": FORMAT_VERSION, "boards": boards}


_LENGTH_JS = r"""
(function () {
  var root = document.currentScript.closest(".compendium-explorer");
  var data = JSON.parse(root.querySelector("script.explorer-data").textContent);
  var base = {};
  data.boards[0].leaderboard.forEach(function (e) { base[e.system] = e.rank; });
  var select = root.querySelector("#length-explorer-choice");
  function update() {
    var board = data.boards[Number(select.value)];
    var body = root.querySelector("#length-explorer-leaderboard tbody");
    while (body.firstChild) { body.removeChild(body.firstChild); }
    board.leaderboard.forEach(function (e) {
      var tr = document.createElement("tr");
      if (e.rank === 1) { tr.className = "explorer-top"; }
      var d = base[e.system] - e.rank;
      [[String(e.rank), "num"], [e.label, ""], [e.mean.toFixed(3), "num"],
       [d > 0 ? "\u25B2 " + d : d < 0 ? "\u25BC " + (-d) : "\u2013", "num" + (d > 0 ? " explorer-up" : d < 0 ? " explorer-down" : "")]
      ].forEach(function (c) { var td = document.createElement("td"); td.textContent = c[0]; td.className = c[1]; tr.appendChild(td); });
      body.appendChild(tr);
    });
    root.querySelector("#length-explorer-winner").textContent = board.leaderboard[0].label;
  }
  select.addEventListener("change", update);
  update();
  root.setAttribute("data-ready", "1");
})();
""".strip()  # noqa: E501 (the script's lines are the page's)


def length_bias_html(data: Mapping) -> str:
    """A self-contained HTML fragment: choose an annotator, see the leaderboard without their length bias.

    Stable hooks: root ``#compendium-length-explorer``, the choice
    ``select#length-explorer-choice`` (option values index ``data["boards"]``),
    the table ``#length-explorer-leaderboard`` (rank, system, MOS, rank change)
    and ``#length-explorer-winner``.
    """
    if data.get("format") != FORMAT_VERSION:
        raise ValueError(f"expected the output of precompute_length_bias (format {FORMAT_VERSION})")
    esc = html.escape
    payload = to_json(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    options = "".join(
        f'<option value="{i}">{"no adjustment" if b["annotator"] == NO_ADJUSTMENT else esc(b["annotator"])}</option>'
        for i, b in enumerate(data["boards"]))
    first = data["boards"][0]["leaderboard"]
    rows = "".join(
        f'<tr{" class=explorer-top" if e["rank"] == 1 else ""}><td class="num">{e["rank"]}</td>'
        f'<td>{esc(e["label"])}</td><td class="num">{_fmt(e["mean"], 3)}</td><td class="num">\u2013</td></tr>'
        for e in first
    )
    return "\n".join([
        '<div class="compendium-explorer" id="compendium-length-explorer">',
        f"<style>{_CSS}</style>",
        f'<script type="application/json" class="explorer-data">{payload}</script>',
        '<fieldset><legend>Remove the length bias of</legend>'
        f'<select id="length-explorer-choice">{options}</select></fieldset>',
        '<table id="length-explorer-leaderboard"><caption class="explorer-note">MOS leaderboard after the '
        "chosen annotator's length slope is taken out of their ratings (their mean is kept)</caption>"
        '<thead><tr><th class="num">Rank</th><th>System</th><th class="num">MOS</th>'
        '<th class="num">Rank change vs unadjusted</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>",
        f'<dl><dt>Winner</dt><dd id="length-explorer-winner">{esc(first[0]["label"])}</dd></dl>',
        '<p class="explorer-note">Precomputed for every annotator when the chapter ran; no kernel is needed.</p>',
        f"<script>{_LENGTH_JS}</script>",
        "</div>",
    ])
