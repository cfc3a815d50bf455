"""The README is a front door (issue 69): short, and every command it shows runs.

What moved out of it (the build's detail, re-runs, sweeps, the audit's manual, the layout) lives in the book's
pages ``book/running.md`` and ``book/audit_manual.md`` and in ``CONTRIBUTING.md``; a pinned list of the commands
the README used to show checks that none was lost on the way.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: Issue 69: the README's length.
MAX_LINES = 250
#: Where the README's former sections live now.
MOVED_TO = (ROOT / "book" / "running.md", ROOT / "book" / "audit_manual.md", ROOT / "CONTRIBUTING.md")
#: Every command the README showed before issue 69 (as written there, comments cut).
FORMER_COMMANDS = (
    ".venv/bin/compendium audit --labels labels.csv",
    ".venv/bin/compendium audit --pairwise prefs.csv",
    ".venv/bin/compendium audit ratings.csv --item segment --system model --rater judge --rating score",
    ".venv/bin/compendium build --data-dir /path/to/release",
    ".venv/bin/compendium run --data-dir /path/to/release --out /tmp/real",
    ".venv/bin/compendium run 02_reliability --help",
    ".venv/bin/compendium run 02_reliability --seed 7",
    ".venv/bin/compendium run 02_reliability -p n_boot 500 -p exclude_annotators '[A2]'",
    ".venv/bin/compendium sweep --data-seeds 0-1 01_design --out /tmp/data-sweep",
    ".venv/bin/compendium sweep --data-seeds 0-9",
    ".venv/bin/compendium sweep --seeds 0-4,11 04_decodability 07_leakage --out /tmp/sweep",
    ".venv/bin/compendium sweep --seeds 0-9",
    "make book", "make lab", "make lab LAB_ARGS='--port 8899 --no-browser'", "make sweep", "make test",
    "python -m pip wheel --no-deps -w /tmp/wheels .", "python -m venv ~/audit-env",
)


def commands(text: str) -> list[str]:
    """The commands in ``text``'s bash blocks: one per line (a trailing backslash joins lines), comments cut."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line:
                out.append(" ".join(line.split()))
    return out


def test_the_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, len(lines)


def test_the_command_scan_reads_blocks_and_joins_continued_lines():
    text = "x\n```bash\nmake book   # a comment\na --b \\\n    c\n```\n```python\nnot_this()\n```\n"
    assert commands(text) == ["make book", "a --b c"]


def test_no_command_the_readme_showed_is_lost():
    shown = commands(README.read_text(encoding="utf-8"))
    for path in MOVED_TO:
        shown += commands(path.read_text(encoding="utf-8"))
    flat = " \n".join(shown)
    lost = [c for c in FORMER_COMMANDS if c not in flat]
    assert not lost, f"commands the README showed that no page shows now: {lost}"


def test_every_file_the_readme_points_to_exists():
    text = README.read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:book|data|src|tests|notebooks)/[\w./-]+|[A-Z]+[\w]*\.(?:md|cff))`", text))
    named |= set(re.findall(r"\]\(((?!https?:)[^)#]+)\)", text))
    assert named, "the README names no file"
    missing = sorted(n for n in named if not (ROOT / n).exists())
    assert not missing, missing


def _runs(command: str) -> None:
    words = shlex.split(command)
    if words[0] == "make":
        targets = re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
        assert words[1] in targets, f"no make target {words[1]!r}"
        return
    assert words[0].endswith("compendium"), f"a README command this test cannot check: {command}"
    # --help is enough: the command, its subcommand and (for run) its chapter are parsed, nothing executes
    head = words[1:3] if words[1] == "run" and not words[2].startswith("-") else words[1:2]  # run NN_chapter
    done = subprocess.run([sys.executable, "-m", "compendium.cli", *head, "--help"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and "usage:" in done.stdout, (command, done.stderr[-500:])


@pytest.mark.parametrize("command", commands(README.read_text(encoding="utf-8")))
def test_every_command_the_readme_shows_runs(command):
    _runs(command)
