"""Where ``compendium audit`` writes, checked before anything is read, and written whole or not at all.

Two promises to the user who runs the audit on a file they care about:

* **Outputs never overwrite inputs.** :func:`plan_outputs` refuses, before
  any statistic is computed, an ``--out`` that is an existing file, a
  ``--json`` that is a directory, and any output path that is the ratings or
  the lengths file itself -- by name, through a symbolic link, or as another
  hard link to the same file (:func:`os.path.samefile`). Each refusal is one
  :class:`OutputError` naming the option and the path; the command prints it
  and exits with code 2, as :mod:`argparse` does for a bad option.
* **Whole or nothing.** :class:`Staging` makes a hidden folder beside the
  report folder; every output is written there first, and only when all of
  them are written are they moved into place, each with one
  :func:`os.replace` (atomic on one file system). A failure before that -- a
  full disk, a cell that raises, an interrupt -- leaves the previous report
  exactly as it was (or no report), and the staging folder is removed in
  every case.

What goes into ``audit.json`` is made JSON-ready once, here (:func:`json_ready`), for every mode of the audit.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compendium.data._files import remove_stale, scratch_dir, write_text_atomic

__all__ = ["OUT_FILES", "JSON_NAME", "OutputError", "OutputPlan", "plan_outputs", "Staging", "json_ready"]

#: The name of the summary inside the report folder (the default of ``--json``).
JSON_NAME = "audit.json"
#: Every file the audit may write into ``--out`` (the executed notebook takes the template's name).
OUT_FILES = ("audit.html", JSON_NAME, "checklist.csv", "08_audit.ipynb")


class OutputError(ValueError):
    """An output path the audit refuses; the message names the option and the path."""

    def __init__(self, option: str, path: Path, why: str):
        super().__init__(f"{option} {path}: {why}; nothing was written")
        self.option, self.path = option, path


@dataclass(frozen=True)
class OutputPlan:
    """The checked output paths: the report folder, the JSON summary, and whether the summary lies inside it."""

    out: Path
    summary_json: Path
    files: tuple[str, ...] = field(default=OUT_FILES)

    @property
    def json_in_out(self) -> bool:
        return self.summary_json.parent == self.out and self.summary_json.name == JSON_NAME


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file: the same resolved path, or (both existing) the same inode."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): it cannot be the other
        return False


def plan_outputs(out: str | os.PathLike, summary_json: str | os.PathLike | None,
                 inputs: Mapping[str, str | os.PathLike | None]) -> OutputPlan:
    """Check the audit's output paths against each other and against its inputs.

    Parameters
    ----------
    out : path-like
        ``--out``: the report folder. It may exist (a previous report, whose
        files are replaced) but must not be a file.
    summary_json : path-like or None
        ``--json``; None puts the summary into ``out`` as ``audit.json``. It
        must not be a directory.
    inputs : mapping
        The files the audit reads, by option (``{"ratings": path, "--lengths":
        path or None}``).

    Returns
    -------
    OutputPlan
        With absolute paths (symbolic links in the folder's own path kept: the
        report goes where the user pointed).

    Raises
    ------
    OutputError
        Naming the option and the path.
    """
    out = Path(os.path.abspath(out))
    if out.exists() and not out.is_dir():
        raise OutputError("--out", out, "is an existing file, not a folder (the report is a folder of files)")
    json_path = Path(os.path.abspath(summary_json)) if summary_json is not None else out / JSON_NAME
    if json_path.is_dir():
        raise OutputError("--json", json_path, "is a directory (give the path of the JSON file to write)")
    if (
        summary_json is not None
        and json_path.parent == out
        and json_path.name in OUT_FILES
        and json_path.name != JSON_NAME
    ):
        raise OutputError("--json", json_path, f"is where the report writes its own {json_path.name}")
    targets = [("--out", out / name) for name in OUT_FILES] + [("--json", json_path)]
    for option, target in targets:
        for source_option, source in inputs.items():
            if source is not None and _same_file(target, Path(source)):
                raise OutputError(option, target, f"is the input file given as {source_option} ({source}); "
                                                  "an output never overwrites an input")
    return OutputPlan(out, json_path)


class Staging:
    """A hidden folder beside the report folder that holds every output until all are written.

    Use as a context manager: write into :attr:`path` (the summary as
    :attr:`json` there), then call :meth:`commit`. Leaving the block without
    a commit -- on an exception too -- removes the folder and touches no
    output.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> plan = plan_outputs(root / "report", None, {"ratings": root / "r.csv"})
    >>> with Staging(plan) as staging:
    ...     _ = (staging.path / "checklist.csv").write_text("id\\n")
    ...     placed = staging.commit()
    >>> [p.relative_to(root).as_posix() for p in placed], sorted(p.name for p in root.iterdir())
    (['report/checklist.csv'], ['report'])
    """

    def __init__(self, plan: OutputPlan):
        self.plan = plan
        self.path: Path | None = None

    @property
    def json(self) -> Path:
        """Where the summary is written while staged (always inside the staging folder)."""
        return self.path / JSON_NAME

    def __enter__(self) -> "Staging":
        parent = self.plan.out.parent
        parent.mkdir(parents=True, exist_ok=True)
        # An audit killed before it finished (SIGKILL runs no clean-up) left its staging folder: remove it.
        remove_stale(parent, f".{self.plan.out.name}.", ".partial")
        self.path = scratch_dir(parent, f".{self.plan.out.name}.", ".partial")
        return self

    def commit(self, names: Iterable[str] | None = None) -> list[Path]:
        """Move the staged outputs into place: the report's files into ``out``, the summary to ``--json``.

        Only files that were staged are moved; a previous report's other files
        stay. Returns the final paths.
        """
        names = [n for n in (names or self.plan.files) if (self.path / n).exists()]
        self.plan.out.mkdir(parents=True, exist_ok=True)
        placed = []
        summary = self.path / JSON_NAME
        if summary.exists() and not self.plan.json_in_out:  # another folder, maybe another file system
            write_text_atomic(self.plan.summary_json, summary.read_text(encoding="utf-8"))
            placed.append(self.plan.summary_json)
        for name in names:
            if name == JSON_NAME and not self.plan.json_in_out:
                continue
            os.replace(self.path / name, self.plan.out / name)
            placed.append(self.plan.out / name)
        return placed

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def json_ready(value: Any) -> Any:
    """A JSON-ready Python value: numpy scalars unwrapped, NaN and inf as None."""
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return [json_ready(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)
