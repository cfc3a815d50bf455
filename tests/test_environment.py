"""The environment is written down exactly, and its three descriptions agree."""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)$")


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(requirements) -> dict[str, str]:
    pins = {}
    for line in requirements:
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("-e"):
            continue
        match = PIN.match(line)
        assert match, f"not an exact pin: {line!r}"
        pins[_normalise(match[1])] = match[2]
    return pins


def _pyproject_pins() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = project["dependencies"] + [d for extra in project["optional-dependencies"].values() for d in extra]
    return _pins(deps)


def test_every_direct_dependency_is_pinned_exactly():
    pins = _pyproject_pins()
    for package in ["jupyter-book", "jupytext", "papermill", "pandas", "seaborn", "statsmodels", "pingouin",
                    "scikit-learn", "ipywidgets", "nbval", "krippendorff", "regex", "emoji"]:
        assert package in pins, f"{package} is not a pinned dependency in pyproject.toml"


def test_jupyter_book_is_version_1():
    assert _pyproject_pins()["jupyter-book"].startswith("1."), "Jupyter Book 2 cannot build offline"


def test_environment_yml_carries_the_same_pins():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "python=3.11" in env["dependencies"]
    assert _pins(pip_section) == _pyproject_pins()


def test_lock_file_pins_every_direct_dependency_at_the_same_version():
    lock = _pins((ROOT / "requirements.lock").read_text().splitlines())
    for name, version in _pyproject_pins().items():
        assert lock.get(name) == version, f"{name}: pyproject {version}, requirements.lock {lock.get(name)}"


def test_installed_versions_are_the_locked_ones():
    from importlib.metadata import PackageNotFoundError, version

    lock = _pins((ROOT / "requirements.lock").read_text().splitlines())
    wrong = {}
    for name, pinned in lock.items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            wrong[name] = (pinned, None)
            continue
        if installed != pinned:
            wrong[name] = (pinned, installed)
    assert not wrong, f"installed versions differ from requirements.lock: {wrong}"


def test_make_test_keeps_a_notebooks_cells_on_one_worker_and_spreads_the_rest():
    """nbval runs a notebook's cells in order in one kernel: the scheduler of ``make test`` must never split
    them; a module with a costly module fixture stays whole; any other test is a unit of its own."""
    from conftest import xdist_scope

    assert xdist_scope("book/04_decodability.ipynb::Cell 6") == xdist_scope("book/04_decodability.ipynb::Cell 0") \
        == "book/04_decodability.ipynb"
    assert xdist_scope("tests/test_wheel.py::test_the_wheel_is_what_the_environment_imports") == "tests/test_wheel.py"
    one, other = (
        "tests/test_book.py::test_ledger_lists_every_registry_id",
        "tests/test_book.py::test_every_chapter_table_is_written_as_csv",
    )
    assert xdist_scope(one) == one and xdist_scope(other) == other
    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text(encoding="utf-8")
    assert "--dist loadscope" in makefile, "the scopes above are read only under --dist loadscope"


def test_the_units_handed_out_first_exist():
    """Each unit of conftest.LONGEST_FIRST names a notebook, a module or a test function that is there: a renamed
    test must not silently fall back to the end of the queue."""
    from conftest import BROWSER_SCOPE, LONGEST_FIRST, ONE_WORKER_MODULES

    root = Path(__file__).resolve().parents[1]
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    for unit in LONGEST_FIRST:
        if unit == BROWSER_SCOPE:
            assert BROWSER_SCOPE in ONE_WORKER_MODULES.values()
            continue
        path, _, name = unit.partition("::")
        assert (root / path).is_file(), unit
        if name:
            assert f"def {name}(" in (root / path).read_text(encoding="utf-8"), unit


def test_the_rewritten_test_modules_are_kept_as_bytecode_whatever_the_environment_says():
    """conftest.py lets pytest keep this module, as it rewrote it, in tests/__pycache__ (PYTHONDONTWRITEBYTECODE or
    not), so that the next run's workers read it instead of parsing and rewriting it again."""
    assert sys.dont_write_bytecode is False
    cached = list((Path(__file__).parent / "__pycache__").glob(f"{Path(__file__).stem}.*-pytest-*.pyc"))
    assert cached, "pytest wrote no rewritten bytecode of this module"


def test_the_audit_needs_only_the_base_dependencies_and_the_book_is_an_extra():
    """`pip install` of the wheel brings the audit's statistics, not the book's stack (``two-emojis-compendium[book]``),
    nor statsmodels, which serves ``--lengths`` alone (the extra ``lengths``)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = _pins(project["dependencies"])
    book = _pins(project["optional-dependencies"]["book"])
    assert project["name"] == "two-emojis-compendium"
    assert {"numpy", "pandas", "scipy", "krippendorff"} <= set(base)
    assert "statsmodels" not in base and "pandera" not in base
    assert "statsmodels" in _pins(project["optional-dependencies"]["lengths"]) and {"statsmodels", "pandera"} <= set(
        book
    )
    for heavy in ("jupyter-book", "jupyterlab", "myst-nb", "papermill", "jupytext", "ipywidgets", "matplotlib",
                  "tiktoken", "tokenizers", "pyarrow", "scikit-learn", "seaborn", "pingouin", "ipykernel"):
        assert heavy not in base, f"{heavy} is in the base dependencies; it belongs in the extra 'book'"
        assert heavy in book, f"{heavy} is missing from the extra 'book'"
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    # make book installs the whole lock, then the checkout without resolving; make lock freezes base + every extra
    assert "-r requirements.lock" in makefile and "--no-deps -e ." in makefile
    assert "-e '.[book,test,cluster]'" in makefile


def test_the_audit_imports_nothing_of_the_book_stack():
    """What `compendium audit --format json` imports runs on the base dependencies: here, with the book's packages
    made unimportable (a faster, narrower twin of tests/test_wheel.py's light install, which installs the wheel
    into an environment without them)."""
    book_only = ["joblib", "sklearn", "matplotlib", "seaborn", "pingouin", "papermill", "nbformat", "jupytext",
                 "ipykernel", "IPython", "ipywidgets", "tokenizers", "tiktoken", "pyarrow", "myst_nb",
                 "statsmodels", "patsy", "pandera"]
    code = (
        "import importlib.abc, sys\n"
        f"BOOK_ONLY = {book_only!r}\n"
        "class Refuse(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in BOOK_ONLY:\n"
        "            raise ImportError(f'{name} belongs to the book, not to the audit')\n"
        "sys.meta_path.insert(0, Refuse())\n"
        "import compendium.cli, compendium.audit.core, compendium.audit.checklist\n"
        "print(sorted(m for m in BOOK_ONLY if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def test_build_outputs_are_ignored():
    """pip's build/ and dist/ at the root are ignored; the package's build wing (src/compendium/build/) is not."""
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    ignored = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert "/build/" in ignored and "/dist/" in ignored
    assert "build/" not in ignored  # unanchored, it hid src/compendium/build/__init__.py from git and ruff


def test_lab_args_keep_allow_root(tmp_path):
    """Setting LAB_ARGS adds options to jupyter lab; --allow-root stays when make runs as root."""
    import os
    import shutil
    import subprocess

    if shutil.which("make") is None:
        import pytest

        pytest.skip("no make")
    # a dry run (-n) of the lab recipe alone: prints the command, runs nothing
    done = subprocess.run(["make", "-n", "-o", "data", "lab", "LAB_ARGS=--port 8899"], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    line = next(l for l in done.stdout.splitlines() if "jupyter lab" in l)
    assert "--port 8899" in line
    assert ("--allow-root" in line) == (os.geteuid() == 0)
    help_text = subprocess.run(["make", "-n", "help"], cwd=ROOT, capture_output=True, text=True).stdout
    assert "LAB_ARGS" in help_text


@pytest.mark.numerics
def test_the_narrow_cpu_profile_is_in_effect_when_make_test_asks_for_it():
    """make test's second step runs the numerics tests under tests/narrow_cpu.py's profile: numpy must then use
    none of its dispatched features and both OpenBLAS copies their SSE4.2 kernels, or that step checks nothing
    the first did not."""
    if os.environ.get("COMPENDIUM_NARROW_CPU") != "1":
        pytest.skip("the narrow CPU profile is not asked for (make test's second step asks for it)")
    import numpy as np
    import scipy.linalg
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    from threadpoolctl import threadpool_info

    assert not any(__cpu_features__.get(feature) for feature in __cpu_dispatch__)
    scipy.linalg.lu_factor(np.eye(3))  # loads SciPy's OpenBLAS
    blas = [info for info in threadpool_info() if info.get("internal_api") == "openblas"]
    assert len(blas) == 2 and {info["architecture"] for info in blas} == {"Nehalem"}


def test_make_test_runs_the_linter_first_and_the_linter_can_fail(tmp_path):
    """`make lint` is a prerequisite of `make test`; the pinned ruff with the project's rules rejects an unused
    import, an undefined name and a line over 120 characters, so a clean `make lint` means something."""
    import subprocess
    import sys

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "\ntest: prerequisites lint book\n" in makefile
    assert "$(BIN)/ruff check --no-cache src tests" in makefile
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f():\n    return undefined_name  # " + "a comment far too long " * 5 + "\n",
                   encoding="utf-8")
    ruff = Path(sys.executable).with_name("ruff")
    found = subprocess.run([str(ruff), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(bad)],
                           capture_output=True, text=True)
    assert found.returncode == 1
    assert "F401" in found.stdout and "F821" in found.stdout and "E501" in found.stdout  # 120 characters at most
