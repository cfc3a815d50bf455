"""The rated audit report's figures, drawn as inline SVG without a plotting library (issue 71).

The report of ``compendium audit`` is written in the process that read the ratings, with the base install only, so
its figures cannot come from matplotlib (the book's chapter 8 draws the same figures with matplotlib,
:mod:`compendium.book.figures`). A :class:`Chart` is one set of axes: numeric, logarithmic or categorical scales,
lines, points, bars, error bars, reference lines, labels and a legend below the plot, in the book's
colour-blind-safe palette (Okabe and Ito, 2008). Every text from the data is escaped
(:func:`compendium.data.escape.html_text`), and the SVG holds no script, no link and no event attribute, so the
page stays inert (:func:`compendium.audit.report.check_inert`). Each chart carries ``role="img"`` and an
``aria-label`` describing it, as the book's figures carry alt text.

Ticks follow Heckbert's loose labelling (1, 2 or 5 times a power of ten; P. Heckbert, "Nice numbers for graph
labels", *Graphics Gems*, 1990); a logarithmic axis ticks at powers of ten written as plain numbers (``1,000``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from compendium.data.escape import html_text

__all__ = ["Chart", "PALETTE", "RED", "BLUE", "GREEN", "figure", "nice_ticks", "log_ticks", "shown_panels"]

#: Okabe and Ito's colour-blind-safe palette, as :data:`compendium.book.figures.PALETTE`.
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
RED, BLUE, GREEN = PALETTE[5], PALETTE[4], PALETTE[2]
_FONT = 12
_CHAR = 0.6 * _FONT  # the width of a character, roughly, for margins and legends
_DASH = {"solid": None, "dashed": "6 4", "dotted": "2 3"}


def _nice(x: float, rounded: bool) -> float:
    """Heckbert's nice number near ``x``: 1, 2, 5 or 10 times a power of ten, rounded or at least ``x``."""
    power = 10.0 ** math.floor(math.log10(x))
    f = x / power
    if rounded:
        return (1 if f < 1.5 else 2 if f < 3 else 5 if f < 7 else 10) * power
    return (1 if f <= 1 else 2 if f <= 2 else 5 if f <= 5 else 10) * power


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round numbers covering ``[low, high]``: Heckbert's loose labelling (the step a nice
    number near the range over ``count - 1``, the ends the multiples of it around the data).

    >>> nice_ticks(0.0, 1.0)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> nice_ticks(-0.3, 0.45, 4)
    [-0.5, 0.0, 0.5]
    >>> nice_ticks(2.7, 2.96)
    [2.7, 2.8, 2.9, 3.0]
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"the axis' limits must be finite, not {low}, {high}")
    if high <= low:
        low, high = low - 0.5, high + 0.5
    step = _nice(_nice(high - low, False) / max(count - 1, 1), True)
    first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
    return [round(k * step, 12) + 0.0 for k in range(first, last + 1)]


def log_ticks(low: float, high: float) -> list[float]:
    """The powers of ten that cover ``[low, high]`` (both positive).

    >>> log_ticks(20, 3000)
    [10.0, 100.0, 1000.0, 10000.0]
    """
    if low <= 0 or high <= 0:
        raise ValueError(f"a logarithmic axis needs positive limits, not {low}, {high}")
    return [10.0 ** k for k in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)]


def _number(value: float) -> str:
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.6g}"


def _short(text: str, limit: int = 24) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Chart:
    """One set of axes drawn as an SVG element.

    Parameters
    ----------
    title : str
        Drawn above the plot.
    alt : str
        The chart's description for screen readers (``aria-label``).
    x, y : (float, float) or sequence of str
        A numeric axis' data range (padded to round ticks) or a categorical axis' categories, in order.
    xlog : bool
        A logarithmic x axis.
    xlabel, ylabel : str
    invert_y : bool
        The first category or the smallest number at the top (ranks: 1 = best at the top).
    width, height : int
        The plot's size in SVG units; the margins and the legend are added around it.
    """

    def __init__(self, title: str, alt: str, *, x, y, xlog: bool = False, xlabel: str = "", ylabel: str = "",
                 invert_y: bool = False, width: int = 420, height: int = 240):
        self.title, self.alt, self.xlabel, self.ylabel = title, alt, xlabel, ylabel
        self.width, self.height, self.xlog, self.invert_y = width, height, xlog, invert_y
        self.xcats = [str(c) for c in x] if not _is_range(x) else None
        self.ycats = [str(c) for c in y] if not _is_range(y) else None
        if self.xcats is None:
            lo, hi = float(x[0]), float(x[1])
            self.xticks = log_ticks(lo, hi) if xlog else nice_ticks(lo, hi)
            self.xlim = (lo, hi) if xlog else (self.xticks[0], self.xticks[-1])
        if self.ycats is None:
            self.yticks = nice_ticks(float(y[0]), float(y[1]))
            self.ylim = (self.yticks[0], self.yticks[-1])
        ylabels = self.ycats if self.ycats is not None else [_number(t) for t in self.yticks]
        self.left = 14 + (22 if ylabel else 0) + _CHAR * max(len(_short(t)) for t in ylabels)
        self.rotate = self.xcats is not None and (sum(len(_short(c)) for c in self.xcats) * _CHAR > 0.9 * width)
        self.bottom = 28 + (18 if xlabel else 0) + (
            _CHAR * 0.75 * max(len(_short(c)) for c in self.xcats) if self.rotate else 0)
        self.top = 30
        self.elements: list[str] = []
        self.legend: list[tuple[str, str, str, bool]] = []

    # ------------------------------------------------------------------ scales
    def sx(self, value) -> float:
        """The x position of a number or a category."""
        if self.xcats is not None:
            return self.left + (self.xcats.index(str(value)) + 0.5) * self.width / len(self.xcats)
        lo, hi = self.xlim
        if self.xlog:
            share = (math.log10(value) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        else:
            share = (value - lo) / (hi - lo)
        return self.left + share * self.width

    def sy(self, value) -> float:
        """The y position of a number or a category."""
        if self.ycats is not None:
            k = self.ycats.index(str(value))
            k = k if self.invert_y else len(self.ycats) - 1 - k
            return self.top + (k + 0.5) * self.height / len(self.ycats)
        lo, hi = self.ylim
        share = (value - lo) / (hi - lo)
        return self.top + (share if self.invert_y else 1 - share) * self.height

    def band(self, axis: str) -> float:
        """The width of one category of a categorical axis."""
        cats = self.xcats if axis == "x" else self.ycats
        return (self.width if axis == "x" else self.height) / len(cats)

    # ------------------------------------------------------------------ marks
    def line(self, xs: Sequence, ys: Sequence, colour: str, *, style: str = "solid", markers: bool = False,
             label: str | None = None) -> Chart:
        """A polyline through the finite points, optionally with a dot at each."""
        points = [(self.sx(a), self.sy(b)) for a, b in zip(xs, ys) if _finite(a, b)]
        dash = _DASH[style]
        if points:
            self.elements.append(
                f'<polyline fill="none" stroke="{colour}" stroke-width="2"'
                + (f' stroke-dasharray="{dash}"' if dash else "")
                + ' points="' + " ".join(f"{a:.1f},{b:.1f}" for a, b in points) + '"/>')
        if markers:
            self.elements += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3.5" fill="{colour}"/>' for a, b in points]
        if label is not None:
            self.legend.append((label, colour, style, markers))
        return self

    def points(self, xs: Sequence, ys: Sequence, colour: str, *, labels: Sequence | None = None,
               radius: float = 4) -> Chart:
        """Dots, each with its label beside it when ``labels`` are given."""
        for k, (a, b) in enumerate(zip(xs, ys)):
            if not _finite(a, b):
                continue
            cx, cy = self.sx(a), self.sy(b)
            self.elements.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{radius}" fill="{colour}"/>')
            if labels is not None:
                self.text(cx + 5, cy - 5, _short(labels[k]), size=11)
        return self

    def bars(self, categories: Sequence, values: Sequence, colours: Sequence[str], *,
             horizontal: bool = False) -> Chart:
        """Bars from zero, one per category (vertical on a categorical x axis, horizontal on a categorical y)."""
        for cat, value, colour in zip(categories, values, colours):
            if not _finite(value, value):
                continue
            if horizontal:
                h = 0.7 * self.band("y")
                a, b = sorted((self.sx(0), self.sx(value)))
                self.elements.append(f'<rect x="{a:.1f}" y="{self.sy(cat) - h / 2:.1f}" width="{b - a:.1f}" '
                                     f'height="{h:.1f}" fill="{colour}"/>')
            else:
                w = 0.6 * self.band("x")
                a, b = sorted((self.sy(0), self.sy(value)))
                self.elements.append(f'<rect x="{self.sx(cat) - w / 2:.1f}" y="{a:.1f}" width="{w:.1f}" '
                                     f'height="{b - a:.1f}" fill="{colour}"/>')
        return self

    def xerror(self, low: Sequence, high: Sequence, ys: Sequence, colour: str = "grey") -> Chart:
        """Horizontal interval bars with caps."""
        for a, b, y in zip(low, high, ys):
            if not _finite(a, b):
                continue
            x0, x1, cy = self.sx(a), self.sx(b), self.sy(y)
            self.elements.append(f'<path stroke="{colour}" stroke-width="1.5" fill="none" d="M{x0:.1f},{cy:.1f}'
                                 f'H{x1:.1f}M{x0:.1f},{cy - 4:.1f}V{cy + 4:.1f}M{x1:.1f},{cy - 4:.1f}V{cy + 4:.1f}"/>')
        return self

    def rule(self, axis: str, value: float, *, style: str = "dashed", colour: str = "grey") -> Chart:
        """A reference line across the plot at ``value`` of ``axis``."""
        dash = _DASH[style]
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        if axis == "x":
            x = self.sx(value)
            self.elements.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{self.top}" y2="{self.top + self.height}" '
                                 f'stroke="{colour}"{extra}/>')
        else:
            y = self.sy(value)
            self.elements.append(f'<line x1="{self.left:.1f}" x2="{self.left + self.width:.1f}" y1="{y:.1f}" '
                                 f'y2="{y:.1f}" stroke="{colour}"{extra}/>')
        return self

    def text(self, x: float, y: float, text: str, *, size: int = _FONT, anchor: str = "start",
             extra: str = "") -> Chart:
        """Text at a position in SVG units (escaped)."""
        self.elements.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>'
                             f"{html_text(text)}</text>")
        return self

    # ------------------------------------------------------------------ the whole
    def _axes(self) -> list[str]:
        out, left, top, w, h = [], self.left, self.top, self.width, self.height
        bottom = top + h
        if self.xcats is None:
            for t in self.xticks:
                x = self.sx(t)
                out += _gridline((x, top), (x, bottom), (x, bottom + 16), "middle", _number(t))
        else:
            for c in self.xcats:
                x = self.sx(c)
                label = html_text(_short(c))
                if self.rotate:
                    out.append(f'<text x="{x:.1f}" y="{bottom + 12}" font-size="{_FONT - 1}" text-anchor="end" '
                               f'transform="rotate(-40 {x:.1f} {bottom + 12})">{label}</text>')
                else:
                    out.append(f'<text x="{x:.1f}" y="{bottom + 16}" font-size="{_FONT - 1}" text-anchor="middle">'
                               f"{label}</text>")
        if self.ycats is None:
            for t in self.yticks:
                y = self.sy(t)
                out += _gridline((left, y), (left + w, y), (left - 6, y + 4), "end", _number(t))
        else:
            for c in self.ycats:
                out.append(f'<text x="{left - 6:.1f}" y="{self.sy(c) + 4:.1f}" font-size="{_FONT - 1}" '
                           f'text-anchor="end">{html_text(_short(c))}</text>')
        out.append(f'<rect x="{left:.1f}" y="{top}" width="{w}" height="{h}" fill="none" stroke="#999"/>')
        out.append(f'<text x="{left + w / 2:.1f}" y="18" font-size="{_FONT + 1}" font-weight="bold" '
                   f'text-anchor="middle">{html_text(self.title)}</text>')
        if self.xlabel:
            out.append(f'<text x="{left + w / 2:.1f}" y="{bottom + self.bottom - 6:.1f}" font-size="{_FONT}" '
                       f'text-anchor="middle">{html_text(self.xlabel)}</text>')
        if self.ylabel:
            cy = top + h / 2
            out.append(f'<text x="14" y="{cy:.1f}" font-size="{_FONT}" text-anchor="middle" '
                       f'transform="rotate(-90 14 {cy:.1f})">{html_text(self.ylabel)}</text>')
        return out

    def _legend(self, y0: float, total: float) -> tuple[list[str], float]:
        if not self.legend:
            return [], 0.0
        widest = max(len(_short(label, 32)) for label, *_ in self.legend) * _CHAR + 34
        columns = max(1, int((total - 20) // widest))
        out = []
        for k, (label, colour, style, marker) in enumerate(self.legend):
            x, y = 10 + (k % columns) * widest, y0 + 16 * (k // columns) + 8
            dash = _DASH[style]
            out.append(f'<line x1="{x:.1f}" x2="{x + 22:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="{colour}" '
                       'stroke-width="2"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
            if marker:
                out.append(f'<circle cx="{x + 11:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"/>')
            out.append(f'<text x="{x + 28:.1f}" y="{y + 4:.1f}" font-size="{_FONT - 1}">'
                       f"{html_text(_short(label, 32))}</text>")
        return out, 16 * math.ceil(len(self.legend) / columns) + 6

    def svg(self) -> str:
        """The chart as one ``<svg>`` element that scales down with its container."""
        # room for the last tick's label on the right and for a title longer than the plot
        total_w = max(self.left + self.width + 28, self.left + self.width / 2 + 0.6 * len(self.title) * _CHAR + 12)
        axes = self._axes()
        legend, legend_h = self._legend(self.top + self.height + self.bottom, total_w)
        total_h = self.top + self.height + self.bottom + legend_h
        return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{html_text(self.alt)}" '
                f'viewBox="0 0 {total_w:.0f} {total_h:.0f}" width="{total_w:.0f}" height="{total_h:.0f}" '
                f'font-family="system-ui, sans-serif" style="max-width:100%;height:auto">'
                + "".join(axes) + "".join(self.elements) + "".join(legend) + "</svg>")


def shown_panels(sizes, study: int | None = None, most: int = 4) -> list[int]:
    """The panel sizes a decision-study figure draws: all of ``sizes`` when there are at most ``most``; otherwise
    the smallest, the largest, ``study`` (when among them) and others evenly spread over the rest, in order.

    >>> shown_panels([1, 2, 3, 5, 8, 13, 21, 34], study=3)
    [1, 3, 8, 34]
    """
    import numpy as np

    sizes = sorted(int(s) for s in sizes)
    if len(sizes) <= most:
        return sizes
    keep = {sizes[0], sizes[-1], *([int(study)] if study in sizes else [])}
    rest = [s for s in sizes if s not in keep]
    free = most - len(keep)
    if free > 0:
        keep.update(rest[int(round(k))] for k in np.linspace(0, len(rest) - 1, free + 2)[1:-1])
    return sorted(keep)


def figure(charts: Sequence[Chart], caption: str) -> str:
    """One or more charts side by side (stacked on a narrow screen) with a caption."""
    return ('<figure class="compendium-figure">' + "".join(c.svg() for c in charts)
            + f"<figcaption>{html_text(caption)}</figcaption></figure>")


def _gridline(start, end, at, anchor: str, label: str) -> list[str]:
    """A light grid line across the plot and its tick label (a number) at ``at``."""
    return [f'<line x1="{start[0]:.1f}" x2="{end[0]:.1f}" y1="{start[1]:.1f}" y2="{end[1]:.1f}" stroke="#e6e6e6"/>',
            f'<text x="{at[0]:.1f}" y="{at[1]:.1f}" font-size="{_FONT - 1}" text-anchor="{anchor}">{label}</text>']


def _is_range(axis) -> bool:
    return (isinstance(axis, tuple) and len(axis) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in axis))


def _finite(a, b) -> bool:
    try:
        return all(math.isfinite(float(v)) for v in (a, b) if not isinstance(v, str))
    except (TypeError, ValueError):
        return False
