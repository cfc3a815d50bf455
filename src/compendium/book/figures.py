"""The book's figures: one colour-blind-safe palette, one plot style, and the figures several chapters draw.

Nothing here computes a statistic (the figures take computed tables); :mod:`compendium.book.report` gathers
the rest of the chapters' presentation and re-exports these names, so a chapter calls ``report.setup_plots()``.
"""

from __future__ import annotations

from compendium.audit.svg import shown_panels  # noqa: F401 -- the audit's page draws the same panels
from compendium.data import schema

#: Colour-blind-safe qualitative palette (Okabe and Ito, 2008), one colour per system.
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
SYSTEM_COLOURS = dict(zip(schema.SYSTEMS, PALETTE))


def setup_plots() -> None:
    """Use one legible, colour-blind-safe style for every figure, with every text drawn as plain text.

    ``text.parse_math`` is off: names from the data (a system called ``$\\frac{$``, say) become tick labels and
    legend entries, and matplotlib would otherwise read a pair of dollar signs as mathtext, drawing a formula or
    failing on a malformed one. No figure of the book uses mathtext.
    """
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(context="notebook", style="whitegrid", palette=list(PALETTE))
    mpl.rcParams.update(
        {
            "figure.dpi": 110,
            "savefig.dpi": 110,
            "figure.figsize": (7.0, 3.6),
            "axes.titleweight": "bold",
            "text.parse_math": False,
        }
    )


def variance_components_figure(random_shares, ss_shares, *, rater_word: str = "annotator"):
    """Figure 1a: the random variance components' shares, and system, rater and item on the sum-of-squares scale.

    Parameters
    ----------
    random_shares : pandas.Series
        Share of the random-effect variance of each random component
        (``compendium.stats.gtheory.variance_components``, column ``share``),
        indexed by component; components naming ``annotator`` are drawn red.
    ss_shares : pandas.Series
        Share of the total sum of squares of ``system``, ``annotator`` and
        ``item`` (``compendium.stats.gtheory.anova_table``, column ``share``).
    rater_word : str
        What the raters are called in the labels.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [3, 2]})
    random_part = random_shares.sort_values()
    axes[0].barh(random_part.index, 100 * random_part.to_numpy(),
                 color=[PALETTE[5] if "annotator" in name else PALETTE[4] for name in random_part.index])
    axes[0].set_xlabel("share of random-effect variance (%)")
    axes[0].set_title(f"(a) Variance components; {rater_word} terms in red")
    ss = ss_shares.loc[["system", "annotator", "item"]] * 100
    axes[1].bar(["system", rater_word, "item"], ss.to_numpy(), color=[PALETTE[2], PALETTE[5], PALETTE[4]])
    axes[1].set_ylabel("share of total sum of squares (%)")
    axes[1].set_title("System on the sum-of-squares scale")
    fig.tight_layout()
    return fig


def leave_one_out_figure(ranks, *, rater_word: str = "annotator", colours=None):
    """Figure 1b: each system's rank across the panels that leave out one rater.

    Parameters
    ----------
    ranks : pandas.DataFrame
        One row per system (drawn in this order), one column per panel
        (``"all"``, left out of the x axis, and the leave-one-out panels).
    rater_word : str
        What the raters are called in the title.
    colours : mapping, optional
        System to colour; by default :data:`PALETTE` in row order.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt
    import matplotlib.ticker as mticker

    fig, ax = plt.subplots(figsize=(7, 3.8))
    panels = [p for p in ranks.columns if p != "all"]
    for i, name in enumerate(ranks.index):
        colour = colours[name] if colours else PALETTE[i % len(PALETTE)]
        ax.plot(panels, ranks.loc[name, panels], marker="o", color=colour, label=str(name))
    ax.invert_yaxis()
    ax.yaxis.set_major_locator(mticker.MaxNLocator(integer=True))  # ranks are whole numbers
    ax.set_ylabel("rank (1 = best)")
    ax.set_title(f"(b) System rank by which {rater_word} is left out")
    ax.tick_params(axis="x", labelrotation=45 if len(panels) > 6 else 0)
    ax.legend(bbox_to_anchor=(1.02, 1), loc="upper left", fontsize=10)
    fig.tight_layout()
    return fig


def decision_study_figure(curves, *, solid: tuple[str, str], dashed: tuple[str, str], n_items: int,
                          targets=(0.8,), xlabel: str = "number of items (log scale)", n_raters: int | None = None,
                          max_panels: int = 4):
    """Figure 1c: G of the system mean against the number of items, two lines per panel size.

    At most ``max_panels`` panel sizes are drawn (:func:`shown_panels`: the smallest, the largest, the study's
    and evenly spread others), so at most eight lines: an audit's grid can hold eight sizes, whose sixteen lines
    lay over one another where G saturates. The decision-study table gives every size.

    Parameters
    ----------
    curves : pandas.DataFrame
        A decision study (``compendium.stats.gtheory.decision_study``): columns
        ``n_raters``, ``n_items`` and the two G columns named below.
    solid, dashed : (str, str)
        The column of each line style and the words that name it in the
        legend, e.g. ``("G", "unbiased")``.
    n_items : int
        The study's number of items (a dotted vertical line).
    targets : sequence of float
        G levels marked by dashed horizontal lines.
    xlabel : str
        The x-axis label.
    n_raters : int, optional
        The study's panel size, always drawn when it is in ``curves``.
    max_panels : int
        The most panel sizes drawn.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    shown = shown_panels(curves["n_raters"].unique(), n_raters, max_panels)
    curves = curves[curves["n_raters"].isin(shown)]
    for i, (raters_n, part) in enumerate(curves.groupby("n_raters")):
        colour = PALETTE[i % len(PALETTE)]
        raters = f"{raters_n} rater{'s' if raters_n > 1 else ''}"
        ax.plot(part["n_items"], part[solid[0]], label=f"{raters}, {solid[1]}", color=colour)
        ax.plot(part["n_items"], part[dashed[0]], label=f"{raters}, {dashed[1]}", color=colour, linestyle="--")
    for target in targets:
        ax.axhline(target, color="grey", linestyle="--", linewidth=1)
    ax.axvline(n_items, color="grey", linestyle=":", linewidth=1)
    log_axis(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("G of the system mean")
    ax.set_title("(c) Decision study: G saturates in the number of items")
    # Below the plot in columns, at the axes' text size: beside it, the legend shrank the plot and read at 6 px.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=min(4, 2 * curves["n_raters"].nunique()),
              fontsize=10, frameon=False)
    fig.tight_layout()
    return fig


def log_axis(ax, which: str = "x") -> None:
    """A logarithmic axis whose tick labels are plain numbers (``1,000``), not mathtext.

    matplotlib's log ticks are mathtext (``$\\mathdefault{10^{3}}$``), which :func:`setup_plots` turns off with
    ``text.parse_math`` (so that names from the data stay text): they would print as their raw source.
    """
    import matplotlib.ticker as mticker

    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    axis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(mticker.NullFormatter())


def smallest_text_px(figure, *, drawn: bool = False) -> float | None:
    """The size in image pixels of the smallest visible text of a matplotlib figure (titles, ticks, legends,
    annotations), at the figure's own dpi (the resolution the notebook's PNG is drawn at); None without text.

    Tick labels get their text only when the figure is drawn: the figure is laid out first (nothing is
    rasterised) unless ``drawn`` says it has just been drawn, e.g. into the PNG a notebook shows.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(dpi=72)
    >>> _ = ax.set_title("t", fontsize=20); _ = ax.text(0, 0, "small", fontsize=6); _ = ax.set_xticks([])
    >>> _ = ax.set_yticks([]); smallest_text_px(fig)
    6.0
    >>> plt.close(fig)
    """
    from matplotlib.text import Text

    if not drawn:
        figure.draw_without_rendering()
    sizes = [t.get_fontsize() for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip()
             and (t.axes is None or t.axes.get_visible())]
    return min(sizes) * figure.dpi / 72 if sizes else None
