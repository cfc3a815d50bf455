"""The paper's claims put to real data: one row per check, with a verdict computed from data.

The simulated chapters can show whether the paper's numbers fit together; only
real data can show whether its claims hold. Where a chapter puts a claim of
the paper to real data (a real tokenizer, real parallel text, real human
judgements, a real embedding space), it records one row here:

``check``
    a short id, unique in the book (``cost.parallel_premium``);
``section``
    the paper's section the claim is from (``"8"``);
``claims``
    the registry ids (:mod:`compendium.analyses.ledger.claims`) the check concerns, possibly none;
``data``
    the real data and instrument used, proxies named as proxies;
``paper``
    the paper's statement, quoted;
``computed``
    what was computed, with its number;
``quantity, paper_value, rule, smallest_effect``
    the check's decision rule, stated in code before the result: a
    :class:`compendium.analyses.real.Rule` defined beside the verdict function
    (what is measured and in which units, what the paper claims of it, how the
    estimate decides, and the smallest effect of interest with its source);
``estimate``
    the deciding estimate: a number on the quantity's scale, or a count
    written out ("2 of 4 exact tokenizers") when the rule counts instruments;
``interval`` / ``no_interval``
    its 95% interval ``[low, high]``, or, when it has none, why
    (a whole population, a fixed matrix, a count over instruments);
``verdict``
    one of :data:`VERDICTS`, returned by a tested function of the analysis
    (never typed into a chapter).

Rows are stored in the executed notebook under :data:`REAL_CHECK_MIME`, which
is not rendered (the chapter shows its checks in a table), and gathered by the
build into the top-level list ``real_data_checks`` of ``_build/claims.json``;
the ledger chapter shows them as the group "The paper's claims on real data".

Examples
--------
>>> from compendium.analyses.real import cost
>>> checks = Recorder("06_cost", display=False)
>>> row = checks.record("cost.parallel_premium", section="8", data="NTREX-128, o200k_base",
...                     paper="a statement about Unicode encoding", computed="Bangla 1.9x English",
...                     rule=cost.RULE_PARALLEL_PREMIUM, estimate="1 of 1 exact tokenizers show a premium",
...                     no_interval="a count over tokenizers", verdict="does not hold")
>>> row["verdict"], row["paper_value"][:24]
('does not hold', 'no premium on the same c')
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Sequence

import pandas as pd

from compendium.analyses.real import Rule
from compendium.analyses.ledger.claims import REAL_CHECK_FIELDS as FIELDS
from compendium.analyses.ledger.claims import VERDICTS, NotebookRecorder, finite_number, registry, stored_outputs

__all__ = ["REAL_CHECK_MIME", "RealCheckError", "Recorder", "collect", "frame", "breakable_id", "styled"]

#: MIME type under which a check is stored in a notebook output.
REAL_CHECK_MIME = "application/vnd.compendium.real-check+json"

_CHECK_ID = re.compile(r"[a-z0-9_]+(\.[a-z0-9_]+)+")


class RealCheckError(ValueError):
    """A check that cannot be recorded: unknown verdict or claim id, or a missing field."""


def _section_key(section: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.\s]", str(section)))


class Recorder(NotebookRecorder):
    """Records the real-data checks of one chapter.

    Parameters
    ----------
    notebook : str
        The chapter's name.
    display : bool
        Store each check in the notebook's output (default). Off in tests.
    """

    def __init__(self, notebook: str, *, display: bool = True):
        super().__init__(notebook, data="real", display=display)
        self._registry = registry()

    def record(self, check: str, *, section: str, data: str, paper: str, computed: str, verdict: str,
               rule: Rule, estimate: float | str, interval: Sequence[float] | None = None,
               no_interval: str | None = None, claims: Sequence[str] = ()) -> dict | None:
        """Record one check; see the module's docstring for the fields.

        ``rule`` gives ``quantity, paper_value, rule, smallest_effect``; exactly one of ``interval`` and
        ``no_interval`` is given.

        Raises
        ------
        RealCheckError
            For a verdict not in :data:`VERDICTS`, a claim id not in the
            registry, a malformed check id, an empty field, a missing rule,
            a non-finite estimate, a malformed interval, or an interval given
            with a reason for having none (or neither).
        """
        if not isinstance(check, str) or not _CHECK_ID.fullmatch(check):
            raise RealCheckError(f"check id {check!r}: write it as dotted lower-case words, e.g. "
                                 "'cost.parallel_premium'")
        if verdict not in VERDICTS:
            raise RealCheckError(f"{check}: verdict {verdict!r} is not one of {', '.join(map(repr, VERDICTS))}")
        for name, value in (("section", section), ("data", data), ("paper", paper), ("computed", computed)):
            if not isinstance(value, str) or not value.strip():
                raise RealCheckError(f"{check}: {name} must be a non-empty string, got {value!r}")
        unknown = [c for c in claims if c not in self._registry]
        if unknown:
            raise RealCheckError(f"{check}: unknown claim id(s) {unknown}")
        if not isinstance(rule, Rule) or not all(isinstance(v, str) and v.strip()
                                                  for v in (rule.quantity, rule.paper, rule.rule)):
            raise RealCheckError(f"{check}: rule must be a compendium.analyses.real.Rule stating the quantity, "
                                 f"the paper's value and the rule, got {rule!r}")
        row = {"check": check, "section": str(section), "claims": list(claims), "data": data, "paper": paper,
               **rule.record(), "computed": computed, "estimate": _estimate(check, estimate),
               **_interval(check, interval, no_interval), "verdict": verdict}
        return self._keep(check, row, _display_check)

    def table(self) -> pd.DataFrame:
        """This chapter's checks so far, the verdict first."""
        return frame(list(self.rows.values()))


def _estimate(check: str, value) -> float | str:
    if isinstance(value, str):
        if not value.strip():
            raise RealCheckError(f"{check}: estimate must be a number or a non-empty count, got {value!r}")
        return value
    return finite_number(value, f"{check}: estimate", RealCheckError, " (give a number or a non-empty count)")


def _interval(check: str, interval, no_interval) -> dict:
    if (interval is None) == (no_interval is None):
        raise RealCheckError(f"{check}: give the estimate's interval or say why it has none (no_interval=...), "
                             "not both and not neither")
    if interval is None:
        if not isinstance(no_interval, str) or not no_interval.strip():
            raise RealCheckError(f"{check}: no_interval must say why there is no interval, got {no_interval!r}")
        return {"interval": None, "no_interval": no_interval}
    try:
        low, high = (float(v) for v in interval)
    except (TypeError, ValueError):
        raise RealCheckError(f"{check}: interval must be two numbers [low, high], got {interval!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and low <= high):
        raise RealCheckError(f"{check}: interval must be finite with low <= high, got {interval!r}")
    return {"interval": [low, high], "no_interval": None}


def _display_check(row: dict) -> None:
    from IPython.display import display

    display({REAL_CHECK_MIME: row}, raw=True)


def collect(notebooks: Iterable[str | os.PathLike]) -> list[dict]:
    """Every check stored in executed notebooks, ordered by the paper's section, then by check id.

    A check id recorded twice keeps its later row (in the order of ``notebooks``).
    """
    rows = {row["check"]: {k: row.get(k) for k in FIELDS} for row, _ in stored_outputs(notebooks, REAL_CHECK_MIME)}
    return sorted(rows.values(), key=lambda r: (_section_key(r["section"]), r["check"]))


def frame(rows: list[dict]) -> pd.DataFrame:
    """Checks as a table: the verdict first, the deciding estimate and its interval, then what was computed,
    the paper's words, the rule and the data."""
    columns = ["verdict", "section", "check", "estimate", "interval", "computed", "paper", "rule", "smallest_effect",
               "data", "claims"]  # the last five are long: notes under the table
    out = pd.DataFrame(rows, columns=list(FIELDS))
    out["interval"] = [format_interval(i, reason) for i, reason in zip(out["interval"], out["no_interval"])]
    out["estimate"] = out["estimate"].map(format_estimate)
    out = out[columns]
    out["claims"] = out["claims"].map(lambda c: ", ".join(c) if isinstance(c, (list, tuple)) else "")
    # The paper's words, the rule, the data and the registry ids are long: the book lists them as notes under
    # the table, so that it fits a laptop's width.
    out.attrs["notes"] = ["paper", "rule", "smallest_effect", "data", "claims"]
    return out


def breakable_id(check) -> str:
    """A check id that may break after its dots and underscores (``<wbr>``, a break opportunity that copies as
    nothing), so the longest ids do not widen a table's column past a laptop's width.

    >>> breakable_id("cost.real_parallel_premium")
    'cost.<wbr>real_<wbr>parallel_<wbr>premium'
    """
    return str(check).replace(".", ".<wbr>").replace("_", "_<wbr>")


def styled(table: pd.DataFrame):
    """The Styler every chapter shows its checks with: no index, breakable check ids (:func:`breakable_id`)."""
    return table.style.hide(axis="index").format({"check": breakable_id} if "check" in table.columns else {})


def format_estimate(value) -> str:
    """An estimate as shown: four significant digits, or the count as written.

    >>> format_estimate(-0.18063), format_estimate(13.391), format_estimate("2 of 4 exact tokenizers")
    ('-0.1806', '13.39', '2 of 4 exact tokenizers')
    """
    return value if isinstance(value, str) else f"{value:.4g}"


def format_interval(interval, no_interval=None) -> str:
    """A 95% interval as shown, ``[-0.592, 0.231]``, or "none" when the check has none.

    >>> format_interval([-0.59213, 0.23055]), format_interval(None, "a count over tokenizers")
    ('[-0.5921, 0.2306]', 'none')
    """
    if interval is None:
        return "none"
    low, high = interval
    return f"[{low:.4g}, {high:.4g}]"
