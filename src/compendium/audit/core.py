"""Audit any fully crossed item x system x rater rating study (paper sections 4, 5, 10).

``compendium audit RATINGS`` runs the analyses of the paper's sections 4 and 5
on a user's own human evaluation -- any numbers of items, systems and raters,
any numeric rating scale -- and marks each of the six recommendations of
section 10 as met, not met or not applicable for that study. This module holds
everything except the command line and the notebook:

* :func:`read_judgements`, :func:`read_lengths` and :func:`check_design`
  come from :mod:`compendium.data.judgements`, the one reader and validator of
  judgement tables (re-exported here): bad input raises
  :class:`compendium.data.errors.DataError` naming the file, the column and the rows;
* :func:`audit` (and :func:`run_audit`, which also returns the tables the
  report shows) computes the statistics with :mod:`compendium.stats`
  and :mod:`compendium.analyses.length` -- nothing is re-implemented here, so the audit
  of the shipped ratings gives exactly the numbers of the reliability chapter;
* :func:`checklist` turns a summary into the section-10 checklist and
  :func:`summary_lines` says it for the terminal (both in
  :mod:`compendium.audit.checklist`, re-exported here);
* :func:`write_json` writes the summary atomically; :func:`render_html`
  (:mod:`compendium.audit.report`) renders the executed audit notebook.

Missing cells. Krippendorff's alpha is defined with missing ratings, so it is
still reported (with its CI). The variance components, G (both definitions),
the raters needed, the decision study and the leave-one-rater-out leaderboards
are estimated by REML (:func:`compendium.stats.gstudy.incomplete_audit`, in agreement
with lme4), which needs no complete design; ``needs_complete_design`` says
which statistics do and why. Those -- ICC and the classical ANOVA F tests,
whose mean-square ratios have known distributions only when every cell is
observed, and the length analyses -- are reported as ``"not computable:
incomplete design (N missing cells)"``.

Size. Everything is array-based; 10^6 judgements (5,000 items x 8 systems x
25 raters, with lengths) take about 15 s and stay under 1 GB of resident
memory (``make bench``). The unit bootstrap of alpha is exact at any size (it
pools units with equal value counts) and keeps ``n_boot``, so it is not
subsampled. Three limits keep time and memory bounded: Krippendorff's alpha
needs a discrete scale (at most :data:`MAX_ORDINAL_VALUES` distinct values;
the ``krippendorff`` package's cost grows with the square of their number),
so for continuous ratings it is reported as not computable and the
checklist falls back on ICC(2,1); pairwise alpha between raters is computed
only for panels of at most :data:`MAX_PAIRWISE_RATERS` raters; and the
leave-one-rater-out step works on a slim copy (system and rater as
categoricals, the rating in the smallest exact type), one subset per rater:
about 6 bytes per judgement per rater.

Examples
--------
>>> from compendium.audit import core as audit
>>> from compendium.simulate.crossed import simulate_crossed
>>> data = simulate_crossed(30, 4, 3, seed=1, scale=(1, 5))
>>> summary = audit.audit(data, n_boot=200, seed=1)
>>> summary["n_items"], summary["n_systems"], summary["n_raters"]
(30, 4, 3)
>>> [c["status"] for c in summary["checklist"]][4:]
['not applicable', 'not applicable']
"""

from __future__ import annotations

import json
import math
import os
from importlib import resources
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compendium.audit.conventions import SYSTEM_VARIANCE, alpha_level, g_systems_random
from compendium.stats import _workers, agreement, diagnostics, gtheory, pairs, panels, tidy
from compendium.stats import coverage as _coverage
from compendium.stats import gstudy as _gstudy
from compendium.data._files import write_text_atomic
from compendium.audit.checklist import SIGNIFICANCE, checklist, summary_lines, write_checklist  # the facade's
from compendium.audit.outputs import json_ready
from compendium.audit.report import render_html
from compendium.audit.study import Study, read_study
from compendium.audit.wording import rater_pairs
from compendium.data.errors import DataError  # noqa: F401 -- what bad input raises, as audit.DataError
from compendium.data.judgements import (  # the one reader and validator of judgement tables; public names re-exported
    MAX_LISTED,
    Design,
    check_lengths,
    column_roles,
    Source,
    check_design,
    read_judgements,
    read_lengths,
)

__all__ = [
    "NOTEBOOK",
    "DEFAULT_SEED",
    "DEFAULT_N_BOOT",
    "MAX_ORDINAL_VALUES",
    "MAX_PAIRWISE_RATERS",
    "G_INTERVALS",
    "SUMMARY_KEYS",
    "LENGTH_KEYS",
    "AuditResult",
    "read_judgements",
    "read_lengths",
    "check_design",
    "Study",
    "read_study",
    "run_audit",
    "audit",
    "checklist",
    "not_computable",
    "write_json",
    "write_checklist",
    "TEMPLATE",
    "SCHEMA",
    "STATISTICS",
    "render_html",
    "summary_lines",
]

#: The chapter ``compendium audit`` executes (notebooks/08_audit.py).
NOTEBOOK = "08_audit"
#: The same notebook as package data (``compendium/audit/templates/08_audit.py``), so that an installed copy renders
# the report.
TEMPLATE = resources.files(__package__).joinpath("templates").joinpath(f"{NOTEBOOK}.py")
#: The JSON Schema of ``audit.json`` (package data; see the book's page "The audit's manual").
SCHEMA = resources.files(__package__).joinpath("audit.schema.json")

#: Seed of the alpha bootstrap and the MOS bootstrap (the chapters' seed).
DEFAULT_SEED = 20260929
#: Unit-bootstrap replicates of the alpha CI (the paper's 2,000).
DEFAULT_N_BOOT = 2000
#: Parametric-bootstrap replicates of G's interval on an incomplete design (each one a REML refit).
DEFAULT_N_BOOT_G = _gstudy.G_BOOT
#: G's interval on an incomplete design: the noncentral-F interval (no refit) or the REML-refit bootstrap.
G_INTERVALS = _gstudy.G_INTERVALS
DEFAULT_G_INTERVAL = G_INTERVALS[0]
#: Alpha is computed for scales with at most this many distinct values.
MAX_ORDINAL_VALUES = 256
#: Pairwise alpha between raters is computed for panels up to this size.
MAX_PAIRWISE_RATERS = 12
#: Targets of the decision study.
G_TARGETS = (0.8, 0.9)


#: Keys every summary has.
SUMMARY_KEYS = (
    "n_items",
    "n_systems",
    "n_raters",
    "alpha",
    "alpha_ci",
    "icc_2_1",
    "icc_2_k",
    "F_vs_residual",
    "p_vs_residual",
    "F_vs_interaction",
    "p_vs_interaction",
    "variance_components",
    "G",
    "raters_for_G80",
    "raters_for_G90",
    "G_observed",
    "G_ci",
    "raters_for_G80_observed",
    "raters_for_G90_observed",
    "loao",
)
#: Keys a summary has when lengths were given.
LENGTH_KEYS = ("length_slope", "matched_win_rates")

#: Every statistic of audit.json and its JSON type (besides null, with a ``reasons`` entry saying why). Each key is
#: present in every summary, with one type: a statistic that cannot be computed for a study is ``null`` and
#: ``reasons[key]`` says why in one sentence. ``audit.schema.json`` publishes the same.
STATISTICS = {
    "alpha": "number", "alpha_ci": "interval", "alpha_ci_cluster": "interval", "alpha_n_boot": "integer",
    "icc_2_1": "number", "icc_2_k": "number", "icc": "object", "anova": "object", "error_terms": "object",
    **{f"{stat}_vs_{name}": kind for name in ("residual", "interaction", "quasi", "item_system")
       for stat, kind in (("F", "number"), ("p", "number"), ("df", "interval"))},
    "variance_components": "object",
    "G": "number", "G_observed": "number", "G_systems_random": "number", "G_ci": "interval",
    "G_ci_mc_error": "interval", "G_ci_df": "interval", "raters_for_G80": "integer", "raters_for_G90": "integer",
    "raters_for_G80_observed": "integer", "raters_for_G90_observed": "integer",
    "G_limit_items_unbounded": "number", "G_limit_items_unbounded_observed": "number",
    "system_test_reml": "object", "raters_per_item": "number", "loao": "object",
    "length_slope": "object", "matched_comparisons": "integer", "matched_win_rates": "array", "systems": "array",
    "length_mos_fit": "object", "matched_rho_with_mos": "object", "mos_winner": "array", "matched_winner": "array",
    "coverage": "object",
}
#: Why a complete-design statistic is not on an incomplete one (and the reverse).
_WHY_COMPLETE = ("the design is incomplete ({n} missing cells), and {what} needs every (item, system, rater) cell: "
                 "only then do its mean squares have known expectations and F distributions")
_WHY_REML_ONLY = ("the design is complete, so the system effect is tested by the classical ANOVA F tests (against "
                  "the residual, the system x rater interaction and the quasi-F) and the REML F test is not run")

# --------------------------------------------------------------------------- audit
def not_computable(reason: str) -> str:
    """The value reported for a statistic that cannot be computed."""
    return f"not computable: {reason}"


_NOT_COMPUTABLE = "not computable: "


@dataclass(frozen=True)
class _Missing:
    """What :func:`_stabilise` knows when it words why a statistic is missing."""

    design: Design
    lengths_given: bool
    constant: bool  # every rating is the same value
    reasons: Mapping[str, str]  # the reasons found so far
    n_items: int | None


_CONSTANT = "every rating is the same value, so there is no variance to compare"
#: Results of the length analyses besides :data:`LENGTH_KEYS`.
_LENGTH_RESULTS = ("matched_comparisons", "systems", "length_mos_fit", "matched_rho_with_mos", "mos_winner",
                   "matched_winner")
#: Why a statistic is missing when nothing else said why: the first row whose test holds words it.
_WHY_MISSING: tuple[tuple[Callable[[str, _Missing], bool], Callable[[str, _Missing], str]], ...] = (
    (lambda key, m: key in LENGTH_KEYS or key in _LENGTH_RESULTS,
     lambda key, m: "no per-output lengths were given (--lengths FILE)" if not m.lengths_given else
     "the length-matched comparison has too few equal-length pairs or systems with a win rate"),
    (lambda key, m: key == "system_test_reml" and m.design.complete,
     lambda key, m: _WHY_REML_ONLY),
    (lambda key, m: key == "G_ci_df",
     lambda key, m: "G's interval is a bootstrap percentile interval, which has no degrees of freedom"),
    (lambda key, m: key == "G_ci_mc_error" and m.design.complete,
     lambda key, m: "G's interval on a complete design is computed, not simulated (the noncentral-F interval of "
     "compendium.stats.gtheory.g_interval), so it has no Monte Carlo error"),
    (lambda key, m: key == "coverage",
     lambda key, m: "not measured: --coverage N simulates N studies from this study's fit and says how often each "
     "interval covers"),
    (lambda key, m: key == "raters_per_item" and m.design.complete,
     lambda key, m: f"the design is complete: every item was rated by all {m.design.n_raters} raters"),
    (lambda key, m: not m.design.complete and (key.startswith(("F_vs_", "p_vs_", "df_vs_", "icc"))
                                               or key in ("anova", "error_terms")),
     lambda key, m: _WHY_COMPLETE.format(n=f"{m.design.n_missing:,}", what=(
         "the intraclass correlation" if key.startswith("icc") else
         "the crossed ANOVA" if key in ("anova", "error_terms") else "this classical F test"))),
    (lambda key, m: m.constant and key not in ("alpha_n_boot", "alpha_ci_cluster"),
     lambda key, m: _CONSTANT),
    (lambda key, m: key.startswith("raters_for_G"),
     lambda key, m: f"no number of raters reaches this G at {m.n_items} items"),
    (lambda key, m: key == "alpha_n_boot",
     lambda key, m: m.reasons.get("alpha", "alpha was not computed")),
    (lambda key, m: key == "alpha_ci_cluster",
     lambda key, m: m.reasons.get("alpha", "the item-cluster bootstrap of alpha failed")),
    (lambda key, m: True,
     lambda key, m: "not computed for this study"),
)


def _stabilise(summary: dict, design: Design, lengths_given: bool) -> dict:
    """Every key of :data:`STATISTICS` present with one type; what cannot be computed is None with ``reasons[key]``.

    A value of the form ``"not computable: <why>"`` becomes None and its reason ``<why>``; a number that is NaN or
    infinite (e.g. an F test on ratings that do not vary) becomes None with a reason; a key the study's design does
    not produce is None with the reason :data:`_WHY_MISSING` gives.
    """
    reasons: dict[str, str] = dict(summary.get("reasons") or {})
    constant = summary.get("rating_scale", {}).get("n_values") == 1
    missing = _Missing(design, lengths_given, constant, reasons, summary.get("n_items"))
    for key, kind in STATISTICS.items():
        value = summary.get(key)
        if isinstance(value, str) and value.startswith(_NOT_COMPUTABLE + "incomplete design ("):
            value = summary[key] = None  # worded below, with what the statistic needs
        elif isinstance(value, str) and value.startswith(_NOT_COMPUTABLE):
            summary[key] = None
            reasons.setdefault(key, value[len(_NOT_COMPUTABLE):])
            continue
        if kind in ("number", "integer") and isinstance(value, float) and not math.isfinite(value):
            value = summary[key] = None
            reasons.setdefault(key, _CONSTANT if constant else "the ratio is not a finite number (a mean square is "
                                                               "zero)")
        if kind == "interval" and isinstance(value, (list, tuple)) and not all(
                isinstance(v, (int, float)) and math.isfinite(v) for v in value):
            value = summary[key] = None
            reasons.setdefault(key, _CONSTANT if constant else "the interval's bounds are not finite numbers")
        if value is None and key not in reasons:
            summary[key] = None
            reasons[key] = next(why(key, missing) for applies, why in _WHY_MISSING if applies(key, missing))
    summary["reasons"] = {k: reasons[k] for k in STATISTICS if k in reasons and summary.get(k) is None}
    return summary


def _incomplete(design: Design) -> str:
    return not_computable(f"incomplete design ({design.n_missing} missing cell{'s' if design.n_missing != 1 else ''})")


def _records(frame: pd.DataFrame, roles: Mapping[str, str] | None = None) -> list[dict]:
    """Rows as dicts; the caller's key columns renamed to their roles (``system``, ``rater``, ``rater1`` ...)."""
    names = list(frame.columns)
    if roles:
        rename = {}
        for role in ("item", "system", "rater"):
            column = roles.get(role)
            if column is not None:
                rename.update({column: role, f"{column}1": f"{role}1", f"{column}2": f"{role}2",
                               f"{column}_a": f"{role}_a", f"{column}_b": f"{role}_b"})
        names = [rename.get(c, c) for c in names]
    return [json_ready(dict(zip(names, row))) for row in frame.itertuples(index=False, name=None)]


def _panels(loao: pd.DataFrame, system: str, roles: Mapping[str, str]) -> list[dict]:
    """Each panel's winner and leaderboard, in the panels' order: the rows made JSON-ready at once (one call per
    panel took seconds for thousands of raters)."""
    rows = _records(loao[[system, "mean", "rank"]], roles)
    out: dict[str, dict] = {}
    for panel, winner, row in zip(loao["panel"].tolist(), loao["winner"].tolist(), rows):
        entry = out.setdefault(panel, {"panel": panel, "winner": winner, "leaderboard": []})
        entry["leaderboard"].append(row)
    return list(out.values())


def _slim(judgements: pd.DataFrame, system: str, rater: str, rating: str) -> pd.DataFrame:
    """System, rater and rating only, compactly typed, for the leave-one-out panels.

    Categorical keys stay as they are (their order is the caller's); other
    keys become categoricals with sorted categories, the order the
    reliability functions use for them. The rating is stored in the smallest
    type that holds every value exactly; the functions convert it to float64,
    so the results are those of the full table.
    """
    out = {}
    for column in (system, rater):
        values = judgements[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            out[column] = values.cat.remove_unused_categories().array
        else:
            out[column] = pd.Categorical(values, categories=np.sort(pd.unique(values)))
    y = judgements[rating].to_numpy(dtype=float, na_value=np.nan)
    with np.errstate(invalid="ignore", over="ignore"):
        for dtype in (np.int8, np.int16, np.float32):
            if np.issubdtype(dtype, np.integer) and (np.isnan(y).any() or np.abs(y).max() > np.iinfo(dtype).max):
                continue
            cast = y.astype(dtype)
            if np.array_equal(cast.astype(float), y, equal_nan=True):
                y = cast
                break
    frame = pd.DataFrame({system: out[system], rater: out[rater]})
    frame[rating] = y
    return frame


@dataclass
class AuditResult:
    """What :func:`run_audit` returns.

    Attributes
    ----------
    summary : dict
        The JSON summary (:func:`audit`).
    tables : dict of str to pandas.DataFrame
        The tables of the report: ``raters, pearson, pairwise_alpha`` (small
        panels), ``alpha, icc, anova, f_tests, components, decision,
        dstudy, loao, loao_ranks, kendall``, with lengths ``length_model,
        length_per_rater, systems, win_rates``, and ``checklist``.
        Statistics that are not computable have no table.
    design : Design
    columns : dict
        The role of each column: ``item, system, rater, rating`` (and
        ``length``).
    """

    summary: dict
    tables: dict
    design: Design
    columns: dict


def _try(compute, summary: dict | None = None, key: str | None = None):
    """Run ``compute``; on a numerical failure return None and, if given, record why under ``summary[key]``."""
    try:
        return compute()
    except (ValueError, ZeroDivisionError, np.linalg.LinAlgError, FloatingPointError) as error:
        if summary is not None:
            summary[key] = not_computable(str(error))
        return None


def run_audit(
    judgements: pd.DataFrame | Study,
    lengths: pd.DataFrame | None = None,
    *,
    seed: int | None = DEFAULT_SEED,
    n_boot: int = DEFAULT_N_BOOT,
    n_boot_g: int = DEFAULT_N_BOOT_G,
    item: str = tidy.ITEM,
    system: str = tidy.SYSTEM,
    rater: str = tidy.RATER,
    rating: str = tidy.RATING,
    length: str = "length",
    source: str | None = None,
    higher_is_better: bool = True,
    level: str | None = None,
    g_interval: str = DEFAULT_G_INTERVAL,
    scheduler: str | None = None,
    coverage: int | None = None,
) -> AuditResult:
    """Audit a crossed rating study: the summary of :func:`audit` and the report's tables.

    Parameters and the meaning of the summary as in :func:`audit`. ``judgements`` is a table, checked here, or a
    :class:`~compendium.audit.study.Study` (:func:`~compendium.audit.study.read_study`), checked when it was
    read; a study brings its own column names, and ``item``, ``system``, ``rater``, ``rating`` and ``source``
    are then taken from it. With ``scheduler`` (the address of a dask.distributed scheduler), an incomplete
    design's REML refits -- G's bootstrap and the leave-one-rater-out panels -- run on its workers, with the
    same results as here. With ``coverage`` (a number of studies), the coverage of the audit's intervals is
    measured on studies simulated from this study's own fit (:func:`compendium.stats.coverage.audit_coverage`).
    """
    counts = [("n_boot", n_boot, "bootstrap replicates"), ("n_boot_g", n_boot_g, "bootstrap replicates")]
    if coverage is not None:
        counts.append(("coverage", coverage, "simulated studies"))
    for name, value, what in counts:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a whole number of {what}, at least 1: got {value!r}")
    if g_interval not in G_INTERVALS:
        raise ValueError(f"g_interval must be one of {', '.join(G_INTERVALS)}: got {g_interval!r}")
    # Ratings that do not vary make the mean-square ratios 0/0: those statistics are reported as null with their
    # reason (see _stabilise), not as a RuntimeWarning on the terminal.
    import warnings

    client, executor = _workers.dask_executor(scheduler) if scheduler else (None, None)
    try:
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=RuntimeWarning)
            return _run_audit(judgements, lengths, seed=seed, n_boot=n_boot, n_boot_g=n_boot_g, item=item,
                              system=system, rater=rater, rating=rating, length=length, source=source,
                              higher_is_better=higher_is_better, level=level, g_interval=g_interval,
                              executor=executor, coverage=coverage)
    finally:
        if client is not None:
            client.close()


def _run_audit(judgements: pd.DataFrame | Study, lengths: pd.DataFrame | None, *, seed: int | None, n_boot: int,
               n_boot_g: int, item: str, system: str, rater: str, rating: str, length: str, source: str | None,
               higher_is_better: bool, level: str | None = None, g_interval: str = "noncentral-f",
               executor=None, coverage: int | None = None) -> AuditResult:
    """:func:`run_audit`'s work, with the options it was given (their defaults live there only).

    One function per section of the report, in the report's order; each returns its part of the summary and
    its tables, which are added in that order (so the summary's keys keep the report's order).
    """
    if isinstance(judgements, Study):
        study = judgements
        item, system, rater, rating = (study.roles[k] for k in ("item", "system", "rater", "rating"))
        source = study.source
    else:
        study = Study.from_frame(judgements, item=item, system=system, rater=rater, rating=rating, source=source)
    # The table is checked (once, in the study) and every statistic below reads study.ratings: none checks the
    # columns or pivots the table again.
    roles = column_roles(item, system, rater, rating)
    columns = {**roles, **({"length": length} if lengths is not None else {})}
    if lengths is not None:
        lengths = check_lengths(lengths, item, system, length, Source("the lengths"), judgements=study.judgements,
                                 rating=rating)
    settings = {"seed": seed, "n_boot": int(n_boot), "n_boot_g": int(n_boot_g), "g_interval": g_interval,
                "ci": 0.95, "significance": SIGNIFICANCE, "higher_is_better": bool(higher_is_better)}
    summary, tables = _design_section(study, columns, settings), {}
    level, level_why = alpha_level(study.values(), level)
    summary["settings"]["alpha_level"] = level_why
    summary["settings"]["system_variance"] = SYSTEM_VARIANCE

    def add(part: tuple[dict, dict]) -> None:
        summary.update(part[0])
        tables.update(part[1])

    add(_agreement_section(study, roles, level, seed=seed, n_boot=n_boot))
    if not study.design.complete:
        add(_incomplete_section(study, roles, lengths is not None, seed=seed, n_boot_g=n_boot_g,
                                higher_is_better=higher_is_better, g_interval=g_interval, executor=executor))
    else:
        add(_icc_section(study, roles))
        add(_system_effect_section(study, roles))
        add(_decision_section(tables["anova"], study.design))
        add(_panel_section(study, roles, seed=seed, higher_is_better=higher_is_better))
        if lengths is not None:
            _length_analyses(study.judgements, lengths, summary, tables, seed=seed, n_boot=n_boot,
                             higher_is_better=higher_is_better, **columns)
    if coverage is not None:  # how often the intervals above cover, on studies simulated from this one's fit
        measured = _try(lambda: _coverage.audit_coverage(
            study.ratings, complete=study.design.complete, n_sim=coverage, seed=seed, n_boot=n_boot,
            executor=executor, **roles), summary, "coverage")
        if measured is not None:
            summary["coverage"] = measured
    summary["checklist"] = checklist(summary)
    tables["checklist"] = pd.DataFrame(summary["checklist"])
    return AuditResult(
        json_ready(_stabilise(summary, study.design, lengths is not None)), tables, study.design, columns
    )


def _design_section(study: Study, columns: Mapping[str, str], settings: dict) -> dict:
    """The report's first section: the design, what was read as missing, the columns, the scale and the settings."""
    design, judgements, rating = study.design, study.judgements, study.roles["rating"]
    return {
        "n_items": design.n_items,
        "n_systems": design.n_systems,
        "n_raters": design.n_raters,
        "n_judgements": design.n_judgements,
        "n_cells": design.n_cells,
        "design_complete": design.complete,
        "missing_cells": design.n_missing,
        "missing_cells_listed": [list(c) for c in design.missing_cells(MAX_LISTED)],
        # rows whose rating was read as missing, and the strings that meant missing (--missing; "" = an empty field)
        "missing_ratings": int(judgements[rating].isna().sum()),
        "missing_values": list(judgements.attrs.get("missing_values", [""])),
        "missing_read": dict(judgements.attrs.get("missing_read", {})),
        "columns": dict(columns),
        "rating_scale": dict(study.scale),
        "settings": settings,
    }


def _agreement_section(study: Study, roles: Mapping[str, str], level: str, *, seed: int | None,
                       n_boot: int) -> tuple[dict, dict]:
    """Agreement (section 4.1): each rater, their pairs, each rater against the rest, the system means, alpha."""
    data, design = study.ratings, study.design
    item, rater, rating = roles["item"], roles["rater"], roles["rating"]
    unit = [item, roles["system"]]
    summary: dict[str, Any] = {}
    raters = agreement.rater_summary(data, rater=rater, rating=rating)
    pearson = agreement.pairwise_pearson(data, unit=unit, rater=rater, rating=rating, max_pairs=pairs.MAX_PAIRS,
                                         seed=seed)
    summary["rater_pairs"] = rater_pairs(design.n_raters, len(pearson), seed)
    tables = {"raters": raters, "pearson": pearson}
    summary["rater_summary"] = _records(raters, roles)
    summary["pearson"] = _records(pearson, roles)
    # Each rater against the rest, and each system's mean with a t interval over items and raters (both random):
    # on a complete design from that system's mean squares; on an incomplete one the REML section replaces these
    # plain means with its own (gstudy.system_mean_intervals).
    rest = diagnostics.rater_vs_rest(data, unit=unit, rater=rater, rating=rating)
    if design.complete:
        means = diagnostics.system_mean_intervals(data, item=item, system=roles["system"], rater=rater,
                                                  rating=rating)
    else:
        frame = study.judgements
        means = frame.groupby(roles["system"], sort=False, observed=True)[rating].agg(n="count", mean="mean")
        means = means.reset_index().assign(ci_low=np.nan, ci_high=np.nan)
    tables.update(rater_vs_rest=rest, system_means=means)
    summary["rater_vs_rest"] = _records(rest, roles)
    summary["system_means"] = _records(means, roles)
    summary["alpha_level"] = level
    if study.scale["n_values"] > MAX_ORDINAL_VALUES:
        summary["alpha"] = summary["alpha_ci"] = summary["alpha_ci_cluster"] = not_computable(
            f"{study.scale['n_values']:,} distinct rating values; Krippendorff's alpha is computed for scales of at "
            f"most {MAX_ORDINAL_VALUES} values (its cost grows with the square of their number). For continuous "
            "ratings the intraclass correlations are the bias-sensitive coefficients"
        )
        return summary, tables
    kw = dict(unit=unit, rater=rater, rating=rating, level=level)
    alpha = _try(lambda: agreement.alpha_bootstrap_ci(data, **kw, n_boot=n_boot, seed=seed), summary, "alpha")
    if alpha is not None:
        tables["alpha"] = alpha
        summary["alpha"] = float(alpha["alpha"].iloc[0])
        summary["alpha_ci"] = [float(alpha["ci_low"].iloc[0]), float(alpha["ci_high"].iloc[0])]
        summary["alpha_n_boot"] = int(n_boot)
        # The item-cluster interval (items resampled with all their outputs): the checklist's.
        cluster = _try(lambda: agreement.alpha_cluster_bootstrap_ci(data, cluster=item, **kw, n_boot=n_boot,
                                                                    seed=seed))
        if cluster is not None:
            tables["alpha_cluster"] = cluster
            summary["alpha_ci_cluster"] = [float(cluster["ci_low"].iloc[0]), float(cluster["ci_high"].iloc[0])]
    else:
        summary["alpha_ci"] = summary["alpha"]
    if design.n_raters <= MAX_PAIRWISE_RATERS:
        pair_alpha = _try(lambda: agreement.pairwise_alpha(data, **kw))
        if pair_alpha is not None:
            tables["pairwise_alpha"] = pair_alpha
    return summary, tables


def _incomplete_section(study: Study, roles: Mapping[str, str], lengths_given: bool, *, seed: int | None,
                        n_boot_g: int, higher_is_better: bool, g_interval: str, executor) -> tuple[dict, dict]:
    """Sections 4.2-4.4 on an incomplete design: what needs a crossed table is marked; REML needs none and gives
    the components, G both ways with its interval, the decision study and leave-one-rater-out."""
    gap = _incomplete(study.design)
    summary: dict[str, Any] = dict.fromkeys(SUMMARY_KEYS[5:] + (LENGTH_KEYS if lengths_given else ()), gap)
    tables: dict[str, pd.DataFrame] = {}
    reml = _try(lambda: _gstudy.incomplete_audit(study.ratings, **roles, higher_is_better=higher_is_better,
                                                 n_boot_g=n_boot_g, seed=seed, g_interval=g_interval,
                                                 executor=executor),
                summary, "variance_components")
    if reml is not None:
        summary.update(reml[0])
        summary["system_means"] = _records(reml[1]["system_means"], roles)
        tables.update(reml[1])
    summary["G_systems_random"] = not_computable(
        "the REML model takes the systems as fixed effects; G is the fixed-systems coefficient")
    return summary, tables


def _icc_section(study: Study, roles: Mapping[str, str]) -> tuple[dict, dict]:
    """The intraclass correlations of the outputs (section 4.1), on a complete design."""
    iccs = agreement.icc(study.ratings, target=[roles["item"], roles["system"]], rater=roles["rater"],
                         rating=roles["rating"])
    summary = {
        "icc_2_1": float(iccs.loc["ICC(2,1)", "ICC"]),
        "icc_2_k": float(iccs.loc["ICC(2,k)", "ICC"]),
        "icc": {t: json_ready(iccs.loc[t, ["ICC", "ci_low", "ci_high"]].to_dict()) for t in iccs.index},
    }
    return summary, {"icc": iccs}


def _system_effect_section(study: Study, roles: Mapping[str, str]) -> tuple[dict, dict]:
    """The system effect under each error term (section 4.2): the crossed ANOVA and its F tests."""
    anova = gtheory.anova_table(study.ratings, **roles)
    tests = gtheory.system_f_tests(anova)
    summary: dict[str, Any] = {"anova": {s: json_ready(anova.loc[s].to_dict()) for s in anova.index}, "error_terms": {}}
    for name, error in (("residual", "residual"), ("interaction", "system:annotator"), ("quasi", "quasi"),
                        ("item_system", "item:system")):
        summary[f"F_vs_{name}"] = float(tests.loc[error, "F"])
        summary[f"p_vs_{name}"] = float(tests.loc[error, "pval"])
        summary[f"df_vs_{name}"] = [float(tests.loc[error, "df1"]), float(tests.loc[error, "df2"])]
        summary["error_terms"][name] = tests.loc[error, "error_term"]
    return summary, {"anova": anova, "f_tests": tests}


def _needed(value) -> int | None:
    """A decision study's number of raters, or None where no number reaches the target."""
    return None if not np.isfinite(value) else int(value)


def _decision_section(anova: pd.DataFrame, design: Design) -> tuple[dict, dict]:
    """Variance components, G under both definitions of the system variance and the decision study (section 4.3).

    The unbiased system variance is the checklist's; the observed variance of the system means is the paper's.
    """
    components = gtheory.variance_components(anova)
    summary: dict[str, Any] = {"variance_components": {c: json_ready(components.loc[c].to_dict())
                                                       for c in components.index}}
    n_p, n_r = design.n_items, design.n_raters
    study = gtheory.g_study(anova, targets=G_TARGETS)
    for definition, suffix in (("unbiased", ""), ("observed", "_observed")):
        summary[f"G{suffix}"] = float(study.loc[definition, "G"])
        summary[f"raters_for_G80{suffix}"] = _needed(study.loc[definition, "raters_for_G80"])
        summary[f"raters_for_G90{suffix}"] = _needed(study.loc[definition, "raters_for_G90"])
        summary[f"G_limit_items_unbounded{suffix}"] = float(study.loc[definition, "G_limit"])
    summary["G_ci"] = [float(study.loc["unbiased", "ci_low"]), float(study.loc["unbiased", "ci_high"])]
    quasi = gtheory.system_f_tests(anova).loc["quasi"]  # the interval inverts this F in its noncentrality
    summary["G_ci_df"] = [float(quasi["df1"]), float(quasi["df2"])]
    summary["interval_method_G"] = (
        "noncentral-F interval of the fixed systems' G: the quasi-F of the mean squares inverted in its noncentral "
        "F(k - 1, nu) distribution, nu Satterthwaite's (Steiger 2004)")
    summary["G_systems_random"] = g_systems_random(summary["G"], design.n_systems)
    needed = {t: summary[f"raters_for_G{round(100 * t)}"] for t in G_TARGETS}
    needed_observed = {t: summary[f"raters_for_G{round(100 * t)}_observed"] for t in G_TARGETS}
    unbiased_components = gtheory.variance_components(anova, system_variance="corrected")
    grid_raters = sorted({1, n_r, *(n for n in (*needed.values(), *needed_observed.values()) if n is not None)})
    items_grid = np.unique(np.geomspace(min(10, n_p), max(100_000, 100 * n_p), 60).astype(int))
    decision = gtheory.decision_study(unbiased_components, items_grid, grid_raters)
    decision["G_observed"] = gtheory.decision_study(components, items_grid, grid_raters)["G"].to_numpy()
    tables = {"components": components, "g_study": study, "decision": decision,
              "dstudy": _dstudy_table(summary, needed, needed_observed, n_p, n_r)}
    return summary, tables


def _dstudy_table(summary: Mapping, needed: Mapping, needed_observed: Mapping, n_p: int, n_r: int) -> pd.DataFrame:
    """The report's decision-study table: G, the raters each target needs and G's limit, under both definitions."""

    def raters(n):
        return str(n) if n is not None else f"none at {n_p} items"

    ci_text = "" if not all(np.isfinite(summary["G_ci"])) else \
        f" [{summary['G_ci'][0]:.3f}, {summary['G_ci'][1]:.3f}]"
    return pd.DataFrame(
        {
            "unbiased system variance (checklist)": [
                f"{summary['G']:.3f}{ci_text}", raters(needed[0.8]), raters(needed[0.9]),
                f"{summary['G_limit_items_unbounded']:.3f}"],
            "observed system variance (the paper's)": [
                f"{summary['G_observed']:.3f}", raters(needed_observed[0.8]), raters(needed_observed[0.9]),
                f"{summary['G_limit_items_unbounded_observed']:.3f}"],
        },
        index=pd.Index(
            [f"G at {n_p} items, {n_r} raters", "raters for G >= 0.8", "raters for G >= 0.9",
             f"G with {n_r} raters as items -> infinity"],
            name="decision study",
        ),
    )


def _panel_section(study: Study, roles: Mapping[str, str], *, seed: int | None,
                   higher_is_better: bool) -> tuple[dict, dict]:
    """The winner depends on who is on the panel (section 4.4): leave-one-rater-out and Kendall's tau."""
    system, rater, rating = roles["system"], roles["rater"], roles["rating"]
    slim = study.ratings.derived(_slim(study.judgements, system, rater, rating))
    loao = panels.leave_one_annotator_out(slim, system=system, rater=rater, rating=rating,
                                          higher_is_better=higher_is_better)
    kendall = panels.kendall_between_raters(slim, system=system, rater=rater, rating=rating,
                                            max_pairs=pairs.MAX_PAIRS, seed=seed)
    winners = loao.groupby("panel", sort=False)["winner"].first()
    summary = {"loao": {
        "winner_all": winners["all"],
        "winner_changes": int((winners.drop("all") != winners["all"]).sum()),
        "n_panels": int(len(winners) - 1),
        "winners": json_ready(winners.to_dict()),
        "panels": _panels(loao, system, roles),
        "kendall": _records(kendall, roles),
        "kendall_tau_min": float(kendall["tau"].min()) if len(kendall) else None,
        "kendall_tau_max": float(kendall["tau"].max()) if len(kendall) else None,
    }}
    tables = {"loao": loao, "kendall": kendall, "loao_ranks": loao.pivot(index=system, columns="panel", values="rank")}
    return summary, tables


def _length_analyses(judgements, lengths, summary, tables, *, seed, n_boot, item, system, rater, rating, length,
                     higher_is_better=True):
    from compendium.analyses import length as _length  # here: only --lengths needs it (and statsmodels)

    kw = dict(item=item, system=system, rater=rater, rating=rating, length=length)
    model = _try(lambda: _length.length_mixed_model(judgements, lengths, **kw), summary, "length_slope")
    if model is not None:
        per_rater = _try(lambda: _length.per_annotator_slopes(judgements, lengths, **kw))
        tables["length_model"] = model
        row = model.iloc[0]
        summary["length_slope"] = {
            k: json_ready(row[k])
            for k in (
                "slope",
                "se",
                "z",
                "p",
                "ci_low",
                "ci_high",
                "n_obs",
                "var_item",
                "var_rater",
                "var_residual",
                "converged",
            )
        }
        if per_rater is not None:
            tables["length_per_rater"] = per_rater
            summary["length_slope"]["per_rater"] = _records(per_rater[[rater, "slope", "se", "p"]], kw)
    # A win is the better rating: with lower-is-better scores the comparisons run on the negated ratings.
    compared = judgements if higher_is_better else judgements.assign(**{rating: -judgements[rating]})
    comparisons = _length.length_matched_comparisons(compared, lengths, **kw)
    summary["matched_comparisons"] = int(len(comparisons))
    if len(comparisons) == 0:
        summary["matched_win_rates"] = not_computable("no two systems produced outputs of equal length for the same "
                                                      "item")
        win = None
    else:
        win = _length.matched_win_rates(comparisons, system=system)
        tables["win_rates"] = win
        summary["matched_win_rates"] = _records(win, kw)
    systems = _length.system_summary(judgements, lengths, win_rates=win, n_boot=n_boot, seed=seed, **kw)
    if not higher_is_better:  # rank 1 = the lowest mean rating
        systems["rank_mos"] = systems["mos"].rank(ascending=True, method="min").astype("Int64")
        systems = systems.sort_values("rank_mos", kind="stable").reset_index(drop=True)
    tables["systems"] = systems
    summary["systems"] = _records(systems, kw)
    fit = _try(lambda: _length.count_mos_fit(systems))
    if fit is not None:
        summary["length_mos_fit"] = json_ready(fit.iloc[0][["rho", "rho_p", "r2"]].to_dict())
    if win is not None and systems["win_rate"].notna().sum() >= 2:
        order = _try(lambda: _length.ordering_correlation(systems.dropna(subset=["win_rate"]), x="win_rate", y="mos"))
        if order is not None:
            summary["matched_rho_with_mos"] = json_ready(order.iloc[0].to_dict())
        summary["mos_winner"] = [str(s) for s in systems.loc[systems["rank_mos"] == 1, system]]
        summary["matched_winner"] = [str(s) for s in systems.loc[systems["rank_win"] == 1, system]]


def audit(
    judgements: pd.DataFrame,
    lengths: pd.DataFrame | None = None,
    *,
    seed: int | None = DEFAULT_SEED,
    n_boot: int = DEFAULT_N_BOOT,
    n_boot_g: int = DEFAULT_N_BOOT_G,
    item: str = tidy.ITEM,
    system: str = tidy.SYSTEM,
    rater: str = tidy.RATER,
    rating: str = tidy.RATING,
    length: str = "length",
    higher_is_better: bool = True,
    level: str | None = None,
    g_interval: str = DEFAULT_G_INTERVAL,
) -> dict:
    """The JSON summary of the audit of a crossed item x system x rater study.

    Every statistic is computed by :mod:`compendium.stats` or
    :mod:`compendium.analyses.length`, exactly as the book's chapters compute it
    (the same functions, options, seed and number of replicates).

    Parameters
    ----------
    judgements : pandas.DataFrame
        One row per rating (:func:`read_judgements`, or e.g. the benchmark's
        ``ratings``). Checked as :func:`read_judgements` checks a file.
    lengths : pandas.DataFrame, optional
        One row per output: ``item, system, length``.
    seed : int or None
        Seeds the unit bootstrap of alpha and the item bootstrap of MOS.
    n_boot : int
        Bootstrap replicates (2,000 as in the paper).
    n_boot_g : int
        Parametric-bootstrap replicates of G's interval on an incomplete
        design with ``g_interval="bootstrap"``
        (:func:`compendium.stats.gstudy.g_bootstrap_ci`; each is a REML
        refit, so they cost far more than ``n_boot``'s).
    g_interval : {"noncentral-f", "bootstrap"}
        G's interval on an incomplete design: the noncentral-F interval of
        the fixed systems' G (:func:`compendium.stats.gstudy.g_noncentral_ci`,
        the default: no refit, close to its nominal coverage in simulations
        from real designs) or the percentile interval of ``n_boot_g``
        parametric-bootstrap refits (narrower, and short of its coverage on
        small designs). A complete design's G has the noncentral-F interval of
        its mean squares (:func:`compendium.stats.gtheory.g_interval`) either way.
    item, system, rater, rating, length : str
        Column names.
    higher_is_better : bool, default True
        Whether a higher rating is better (direct assessment, Likert) or
        worse (error scores such as MQM penalties). Every leaderboard --
        leave-one-rater-out, the MOS and length-matched rankings -- ranks
        by it; recorded as ``settings["higher_is_better"]``.
    level : {"ordinal", "interval", "nominal"}, optional
        Krippendorff's alpha's level of measurement. Default: from the scale
        (:func:`alpha_level`: ordinal for whole numbers on at most 11 values,
        interval otherwise); ``alpha_level`` records it and
        ``settings["alpha_level"]`` says why.

    Returns
    -------
    dict
        JSON-ready (NaN as None). Always: ``n_items, n_systems, n_raters,
        n_judgements, n_cells, design_complete, missing_cells`` (count),
        ``missing_cells_listed`` (the first ten), ``columns``,
        ``rating_scale``, ``settings``, ``rater_summary``, ``pearson``,
        ``alpha_level`` (ordinal, interval or nominal), ``alpha`` (at that
        level), ``alpha_ci`` ([low, high],
        percentile unit bootstrap), ``alpha_ci_cluster`` (item-cluster
        bootstrap, the checklist's; all "not computable" for a scale of more
        than :data:`MAX_ORDINAL_VALUES` values), ``checklist``
        (:func:`checklist`). In lists of records the key columns are named
        by their role (``item``, ``system``, ``rater``, ``rater1`` ...),
        whatever the table calls them. With a
        complete design: ``icc_2_1, icc_2_k, icc`` (all six with CIs),
        ``anova``; ``F_vs_residual, p_vs_residual, df_vs_residual`` (raters
        fixed), ``F_vs_interaction, p_vs_interaction, df_vs_interaction``
        (raters random: error term system x rater), ``F_vs_quasi`` ...
        (items and raters random), ``F_vs_item_system`` ... (error
        MS(item x system): the paired test over items on panel means), and
        ``error_terms`` naming each test's error mean square;
        ``variance_components`` (per component ``raw, variance, share``);
        ``G`` (at the study's numbers of items and raters, from the unbiased
        system variance; :func:`compendium.stats.gtheory.g_study`), ``G_ci`` (its
        95 % interval), ``raters_for_G80``, ``raters_for_G90`` (None if no
        panel reaches it at this many items), ``G_limit_items_unbounded``,
        and the same from the paper's observed variance of the system
        means: ``G_observed``, ``raters_for_G80_observed``,
        ``raters_for_G90_observed``, ``G_limit_items_unbounded_observed``;
        ``loao`` (``winner_all, winner_changes, n_panels, winners, panels``
        with each panel's leaderboard, ``kendall``, ``kendall_tau_min/max``). With
        lengths: ``length_slope`` (mixed-model slope per unit of length,
        with ``per_rater``), ``matched_comparisons``, ``matched_win_rates``,
        ``systems``, ``length_mos_fit``, ``matched_rho_with_mos``,
        ``mos_winner``, ``matched_winner``. With missing cells the
        complete-design keys hold ``"not computable: incomplete design (N
        missing cells)"``.

    Raises
    ------
    compendium.data.errors.DataError
        On a table :func:`read_judgements` would reject.
    ValueError
        When ``n_boot`` or ``n_boot_g`` is not a whole number of at least 1.
    """
    return run_audit(
        judgements, lengths, seed=seed, n_boot=n_boot, n_boot_g=n_boot_g, item=item, system=system, rater=rater,
        rating=rating, length=length, higher_is_better=higher_is_better, level=level, g_interval=g_interval,
    ).summary


# --------------------------------------------------------------------------- output
def write_json(summary: Mapping, path: str | os.PathLike) -> Path:
    """Write ``summary`` as JSON, atomically (a temporary file, then a rename).

    NaN and infinities become ``null``; numpy values become Python values.
    """
    text = json.dumps(json_ready(summary), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    return write_text_atomic(path, text)
