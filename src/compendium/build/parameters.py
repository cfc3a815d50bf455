"""Each chapter's parameters, declared: what ``compendium run -p NAME VALUE`` may set, and what it changes.

A chapter's ``parameters`` cell holds its defaults; :data:`DECLARED` says, for every name there, its type,
the values it may take, and whether it changes any result of that chapter. ``compendium run``,
``compendium build`` and ``compendium sweep`` check what they are given with :func:`check` before anything
runs, and refuse, naming the parameter and the values it takes:

* a name no chapter of the run declares, with the nearest declared name (:func:`difflib.get_close_matches`);
* a value of the wrong type (``true`` for a number of replicates; a bare word for a list);
* a value out of range, or one not among the allowed choices;
* an annotator to exclude that the chapter's data do not have, or an exclusion that leaves fewer than two;
* more replicates than the parameter's cap, which keeps a typo (``100000000``) from starting a run of days.

A parameter that changes nothing in a chapter (chapter 1's seed: it draws nothing at random) is accepted
with a warning. :func:`describe` lists a chapter's parameters for ``compendium run CHAPTER --help``.
A test reads every chapter's parameters cell and checks that it declares exactly these names and defaults.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Parameter", "DECLARED", "ParameterError", "check", "describe", "is_books_own"]

#: The book's analysis seed: every chapter's default.
BOOK_SEED = 20260929


class ParameterError(ValueError):
    """A parameter ``compendium run`` refuses; the message names it and the values it takes."""


@dataclass(frozen=True)
class Parameter:
    """One parameter of one chapter.

    ``kind`` is one of ``int``, ``float``, ``bool``, ``str``, ``list[str]``, ``list[int]``, ``list[float]``;
    ``optional`` allows None. ``low``/``high`` bound numbers (and every element of a list of numbers),
    ``open_low`` makes the lower bound strict; ``choices`` lists the allowed strings; ``cap`` is the upper
    bound of a replicate count, said as a cap. ``effect`` says what it changes; None: nothing in this chapter.
    """

    name: str
    kind: str
    default: Any
    help: str
    effect: str | None = "changes results"
    optional: bool = False
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    choices: tuple[str, ...] = ()
    cap: int | None = None
    annotators: bool = False  # values are annotators of the chapter's data

    def allowed(self) -> str:
        """The values it takes, in words."""
        if self.choices:
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.kind == "bool":
            text = "true or false"
        elif self.kind in ("int", "float", "list[int]", "list[float]"):
            what = {"int": "a whole number", "float": "a number", "list[int]": "a list of whole numbers",
                    "list[float]": "a list of numbers"}[self.kind]
            bounds = []
            if self.low is not None:
                bounds.append(f"{'>' if self.open_low else '>='} {_show(self.low)}")
            if self.high is not None:
                bounds.append(f"<= {_show(self.high)}")
            if self.cap is not None:
                bounds.append(f"<= {self.cap:,} (the cap)")
            text = what + (f" {' and '.join(bounds)}" if bounds else "")
        elif self.kind == "list[str]":
            text = "a list of annotators of the data, e.g. [A2]" if self.annotators else "a list of strings"
        else:
            text = "a string"
        return text + (", or null" if self.optional else "")


def _show(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _seed(effect: str | None = "seeds the chapter's random draws") -> Parameter:
    return Parameter("seed", "int", BOOK_SEED, "the analysis seed", effect=effect, low=0, high=2**32 - 1)


def _data_dir(effect: str | None = "reads another simulated benchmark") -> Parameter:
    return Parameter("data_dir", "str", None, "the simulated benchmark's directory (null: data/)", effect=effect,
                     optional=True)


def _n_boot(default: int, what: str, cap: int = 20_000) -> Parameter:
    return Parameter("n_boot", "int", default, what, low=1, cap=cap)


_NOTHING_DRAWN = None

#: Every chapter's parameters, by name, in the order of its parameters cell.
DECLARED: dict[str, dict[str, Parameter]] = {
    chapter: {p.name: p for p in params} for chapter, params in {
        "01_design": [_seed(_NOTHING_DRAWN), _data_dir()],
        "02_reliability": [
            _seed("seeds the bootstraps, the simulated panels and the rater splits"), _data_dir(),
            _n_boot(2000, "unit-bootstrap replicates of alpha's interval"),
            Parameter("exclude_annotators", "list[str]", [], "annotators left out of every analysis",
                      annotators=True),
            Parameter("panel_sizes", "list[int]", [3, 9, 27], "simulated panel sizes checked against the decision "
                      "study", low=2, cap=500),
        ],
        "03_length": [
            _seed("seeds the MOS bootstrap and the EAD cross-validation"), _data_dir(),
            Parameter("tie_rule", "str", "half", "length-matched ties", choices=("half", "drop", "loss")),
            _n_boot(5000, "bootstrap replicates of the MOS intervals", cap=50_000),
        ],
        "04_decodability": [
            _seed("seeds the folds, bootstraps and subsamples"), _data_dir(),
            Parameter("n_seeds", "int", 10, "seeds of the stability analysis", low=1, cap=100),
            _n_boot(2000, "item-bootstrap replicates of the EAD intervals"),
            Parameter("C_emoji", "float", 4.0, "inverse regularisation on TF-IDF emoji features", low=0,
                      open_low=True),
            Parameter("C_embedding", "float", 1.0, "inverse regularisation on embeddings", low=0, open_low=True),
            Parameter("n_permutations_real", "int", 100, "label permutations of each real corpus's null", low=0,
                      cap=10_000),
        ],
        "05_geometry": [
            _seed("seeds the classifiers' folds"), _data_dir(),
            Parameter("C_embedding", "float", 1.0, "inverse regularisation of the probes", low=0, open_low=True),
        ],
        "06_cost": [_seed("seeds the EAD cross-validation of the correlations"), _data_dir()],
        "07_leakage": [
            _seed("seeds the splits and the classifiers' folds"), _data_dir(),
            Parameter("n_replicates", "int", 6, "split replicates per protocol", low=1, cap=200),
            Parameter("split_ratios", "list[float]", [0.5, 0.6, 0.7, 0.8, 0.9], "training fractions of the ratio "
                      "curve", low=0, high=1, open_low=True),
        ],
        "08_audit": [
            _seed("seeds the unit bootstrap of alpha and the item bootstrap of MOS"),
            _data_dir(None),
            Parameter("ratings_path", "str", None, "the ratings to audit (null: the demonstration)", optional=True),
            Parameter("lengths_path", "str", None, "one length per (item, system)", optional=True),
            *(Parameter(name, "str", None, f"the {name} column (null: the default)", optional=True)
              for name in ("item", "system", "rater", "rating", "length")),
            _n_boot(2000, "unit-bootstrap replicates of alpha's interval"),
            Parameter("n_boot_g", "int", 200, "with g_interval bootstrap: replicates of G's interval (REML refits)",
                      low=1, cap=5000),
            Parameter("g_interval", "str", "noncentral-f", "incomplete designs: G's interval",
                      choices=("noncentral-f", "bootstrap")),
            Parameter("higher_is_better", "bool", True, "false for error scores such as MQM"),
            Parameter("summary_json", "str", None, "also write the JSON summary here", optional=True),
            Parameter("missing", "list[str]", None, "strings that mean a missing rating", optional=True),
            Parameter("level", "str", None, "alpha's level of measurement (null: from the scale)", optional=True,
                      choices=("ordinal", "interval", "nominal")),
            Parameter("wide_raters", "list[str]", None, "a wide CSV's rater columns", optional=True),
            Parameter("wide_pattern", "str", None, "a wide CSV's rater columns, by a regular expression",
                      optional=True),
            Parameter("scheduler", "str", None, "a dask.distributed scheduler's address for the REML refits",
                      optional=True),
            Parameter("coverage", "int", None, "simulated studies in which to measure the intervals' coverage",
                      optional=True, low=1, cap=100_000),
        ],
        "09_system_cards": [
            _seed("seeds the EAD folds, bootstraps and permutations, and the MOS bootstraps"), _data_dir(),
            _n_boot(2000, "item-bootstrap replicates of the EAD intervals"),
            Parameter("n_boot_mos", "int", 5000, "item-bootstrap replicates of the MOS intervals", low=1, cap=50_000),
            Parameter("n_permutations", "int", 0, "label permutations of the EAD null per cell", low=0, cap=1000),
        ],
        "10_real_benchmarks": [
            _seed("seeds the audits' bootstraps"), _data_dir(None),
            Parameter("real_dir", "str", None, "the real data's directory (null: data/real)", optional=True),
            _n_boot(2000, "bootstrap replicates"),
        ],
        "97_robustness": [
            _seed(_NOTHING_DRAWN), _data_dir(None),
            Parameter("sweep_file", "str", None, "the seed sweep's claims", optional=True),
            Parameter("data_sweep_dir", "str", None, "the data-seed sweep", optional=True),
            Parameter("claims_file", "str", None, "the book's claims", optional=True),
        ],
        "98_build": [_seed(_NOTHING_DRAWN), _data_dir(None)],
        "99_ledger": [
            _seed(_NOTHING_DRAWN), _data_dir(None),
            Parameter("claims_file", "str", None, "the book's claims", optional=True),
        ],
    }.items()
}


def _type_error(chapter: str, p: Parameter, value: Any) -> ParameterError:
    return ParameterError(f"{chapter}: parameter {p.name!r} = {value!r} is not {p.allowed()}")


def _check_number(chapter: str, p: Parameter, value: Any, integer: bool) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not float(value).is_integer()) \
            or not math.isfinite(value):
        raise _type_error(chapter, p, value)
    value = int(value) if integer else float(value)
    too_low = p.low is not None and (value <= p.low if p.open_low else value < p.low)
    too_high = (p.high is not None and value > p.high) or (p.cap is not None and value > p.cap)
    if too_low or too_high:
        raise ParameterError(f"{chapter}: parameter {p.name!r} = {value!r} is out of range: it takes {p.allowed()}"
                             + (" (a larger run: raise the cap in compendium/build/parameters.py knowingly)"
                                if p.cap is not None and value > p.cap else ""))
    return value


def _check_value(chapter: str, p: Parameter, value: Any, annotators: Sequence[str] | None) -> Any:
    if value is None:
        if p.optional:
            return None
        raise _type_error(chapter, p, value)
    if p.kind == "bool":
        if not isinstance(value, bool):
            raise _type_error(chapter, p, value)
        return value
    if p.kind in ("int", "float"):
        return _check_number(chapter, p, value, p.kind == "int")
    if p.kind == "str":
        if not isinstance(value, str):
            raise _type_error(chapter, p, value)
        if p.choices and value not in p.choices:
            raise ParameterError(f"{chapter}: parameter {p.name!r} = {value!r} is not {p.allowed()}")
        return value
    if not isinstance(value, list):
        raise _type_error(chapter, p, value)
    if p.kind == "list[str]":
        if not all(isinstance(v, str) for v in value):
            raise _type_error(chapter, p, value)
        if p.annotators and annotators is not None:
            unknown = [v for v in value if v not in annotators]
            if unknown:
                raise ParameterError(f"{chapter}: parameter {p.name!r}: no annotator {', '.join(map(repr, unknown))} "
                                     f"in the data; its annotators are {', '.join(annotators)}")
            if len(set(annotators) - set(value)) < 2:
                raise ParameterError(f"{chapter}: parameter {p.name!r} = {value!r} leaves fewer than two of the "
                                     f"annotators {', '.join(annotators)}; agreement needs two")
        return value
    return [_check_number(chapter, p, v, p.kind == "list[int]") for v in value]


def _annotators(data_dir: str | None) -> list[str] | None:
    """The annotators of the simulated benchmark's ratings (None when there is no ratings file to read)."""
    import pandas as pd

    from compendium.data.benchmark import resolve_data_dir

    path = Path(resolve_data_dir(data_dir)) / "ratings.csv"
    if not path.exists():
        return None
    from compendium.data.schema import COLUMNS, RATINGS_FILE

    rater = COLUMNS[RATINGS_FILE][2]
    return sorted(pd.read_csv(path, usecols=[rater], dtype=str)[rater].unique())


def check(chapters: Iterable[str], parameters: Mapping[str, Any]) -> tuple[dict, list[str]]:
    """Check ``parameters`` for a run of ``chapters``: the checked values and the warnings.

    Raises
    ------
    ParameterError
        Naming the parameter and the values it takes (see the module's documentation).
    """
    chapters = list(chapters)
    declared = {c: DECLARED.get(c, {}) for c in chapters}
    known = sorted({name for params in declared.values() for name in params})
    checked, warnings = {}, []
    for name, value in parameters.items():
        owners = [c for c in chapters if name in declared[c]]
        if not owners:
            close = difflib.get_close_matches(name, known, n=1)
            raise ParameterError(f"no parameter {name!r} in {', '.join(chapters)}"
                                 + (f"; did you mean {close[0]!r}?" if close else "")
                                 + f"; its parameters are {', '.join(known)} (compendium run CHAPTER --help)")
        for chapter in owners:
            p = declared[chapter][name]
            annotators = _annotators(parameters.get("data_dir")) if p.annotators and value else None
            checked[name] = _check_value(chapter, p, value, annotators)
            if p.effect is None and checked[name] != p.default:
                warnings.append(f"{chapter}: {name} changes nothing in this chapter ({p.help}); its results will "
                                "be the book's")
        for chapter in chapters:
            if chapter not in owners:
                warnings.append(f"{chapter}: has no parameter {name!r}; it runs as in the book")
    return checked, warnings


def is_books_own(chapters: Iterable[str], parameters: Mapping[str, Any]) -> bool:
    """Whether a run with these (checked) parameters is the book's own: every value its chapter's default."""
    for name, value in parameters.items():
        for chapter in chapters:
            p = DECLARED.get(chapter, {}).get(name)
            if p is not None and value != p.default:
                return False
    return True


def describe(chapter: str) -> str:
    """The chapter's parameters, for ``compendium run CHAPTER --help``."""
    lines = [f"{chapter}: parameters (set with -p NAME VALUE; VALUE is read as YAML)"]
    for p in DECLARED.get(chapter, {}).values():
        default = "null" if p.default is None else repr(p.default)
        lines.append(f"  {p.name:<22} {p.help}; default {default}; takes {p.allowed()}")
        lines.append(f"  {'':<22} {'changes nothing in this chapter' if p.effect is None else p.effect}")
    return "\n".join(lines)
