"""Every loose tolerance in the tests says why it is that loose (CONTRIBUTING.md, "Tolerances").

A comparison of floats at a relative or absolute tolerance of 1e-5 or more (``rel=``, ``abs=``, ``rtol=``,
``atol=``) is no longer about rounding: it stands for an optimiser's stopping rule, a printed value's digits,
a Monte Carlo error or two approximations of one quantity, and a reader must be told which. Such a line needs
a comment on itself or on one of the three lines above it. Tighter tolerances are rounding, justified once in
CONTRIBUTING.md, and make test's narrow CPU profile (tests/narrow_cpu.py) checks them on a second instruction
set.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
LOOSE = 1e-5
TOLERANCE = re.compile(r"\b(?:rel|abs|rtol|atol)=([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)")


def unexplained(text: str) -> list[tuple[int, str]]:
    """The lines of ``text`` with a tolerance of at least :data:`LOOSE` and no comment on or just above them."""
    lines = text.splitlines()
    found = []
    for number, line in enumerate(lines, start=1):
        values = [float(v) for v in TOLERANCE.findall(line.split("#", 1)[0])]
        if not values or max(values) < LOOSE:
            continue
        if "#" in line or any(lines[k].lstrip().startswith("#") for k in range(max(0, number - 4), number - 1)):
            continue
        found.append((number, line.strip()))
    return found


def test_the_scan_finds_an_unexplained_loose_tolerance_and_passes_an_explained_one():
    bad = "def test_x():\n    x = 1\n    y = 2\n    z = 3\n    assert a == pytest.approx(b, rel=1e-3)\n"
    good = ("def test_x():\n    # two optimisers stop a square root of their tolerance apart\n"
            "    assert a == pytest.approx(b, rel=1e-3)\n")
    tight = "def test_x():\n    x = 1\n    y = 2\n    z = 3\n    assert a == pytest.approx(b, abs=1e-12)\n"
    assert unexplained(bad) == [(5, "assert a == pytest.approx(b, rel=1e-3)")]
    assert unexplained(good) == [] and unexplained(tight) == []


def test_every_loose_tolerance_in_the_tests_has_its_reason_beside_it():
    missing = [f"{path.name}:{number}: {line}" for path in sorted(TESTS.glob("test_*.py"))
               if path.name != Path(__file__).name  # its own examples
               for number, line in unexplained(path.read_text(encoding="utf-8"))]
    assert not missing, "tolerances of 1e-5 or more without a comment saying why:\n" + "\n".join(missing)
