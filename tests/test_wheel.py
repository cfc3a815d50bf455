"""The audit as an installed tool: build the wheel, install it into a fresh virtual environment, audit from elsewhere.

The new environment gets the wheel alone (``--no-deps``); its dependencies come
from this project's environment through a ``.pth`` line that adds that
environment's site-packages directory (the ``.pth`` files there, including the
editable install of the checkout, are not run, so ``compendium`` is imported
from the wheel). The audit then runs from a directory outside the checkout,
with no ``COMPENDIUM_*`` variable set, on data/real's SummEval coherence table.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from compendium.audit import core as audit
from compendium.data import real

ROOT = Path(__file__).resolve().parents[1]
COHERENCE = ROOT / "data" / "real" / "summeval_coherence.csv"
COLUMNS = ["--item", "item", "--system", "system", "--rater", "rater", "--rating", "rating"]
N_BOOT = 200


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    # Build from a copy of what the wheel is made of, so that the build's scratch directory stays out of the
    # checkout; copying follows the link templates/08_audit.py -> notebooks/08_audit.py, as the build does.
    source = base / "source"
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    wheels = base / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
                    "--wheel-dir", str(wheels), str(source)], check=True, capture_output=True)
    wheel = next(wheels.glob("compendium-*.whl"))
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  check=True, capture_output=True, text=True).stdout.strip())
    (purelib / "project_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--quiet",
                    "--disable-pip-version-check", str(wheel)], check=True, capture_output=True)
    work = base / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPENDIUM_")}
    return env_dir, work, env


def _run(installed, *args):
    env_dir, work, env = installed
    return subprocess.run([str(env_dir / "bin" / "compendium"), *args], cwd=work, env=env,
                          capture_output=True, text=True, timeout=900)


def test_the_wheel_is_what_the_environment_imports(installed):
    env_dir, work, env = installed
    where = subprocess.run([str(env_dir / "bin" / "python"), "-c", "import compendium.audit.core as a; print(a.__file__); "
                            "print(a.TEMPLATE.is_file())"], cwd=work, env=env, capture_output=True, text=True, check=True)
    module, template = where.stdout.split()
    assert Path(module).is_relative_to(env_dir) and template == "True"


def test_installed_audit_writes_json_and_checklist_without_a_kernel(installed):
    env_dir, work, _ = installed
    done = _run(installed, "audit", str(COHERENCE), *COLUMNS, "--format", "json", "--n-boot", str(N_BOOT), "--out", "report")
    assert done.returncode == 0, done.stderr
    summary = json.loads((work / "report" / "audit.json").read_text(encoding="utf-8"))
    expected = audit.audit(real.load_summeval("coherence", real_dir=COHERENCE.parent), n_boot=N_BOOT,
                           item="item", system="system", rater="rater", rating="rating")
    assert summary["G"] == pytest.approx(expected["G"], rel=1e-12)
    assert summary["alpha_ci"] == pytest.approx(expected["alpha_ci"], rel=1e-12)
    assert summary["loao"]["winner_changes"] == expected["loao"]["winner_changes"] == 2
    checklist = (work / "report" / "checklist.csv").read_text(encoding="utf-8").splitlines()
    assert checklist[0] == "id,recommendation,status,reason" and len(checklist) == 7
    assert "G 0.892" in done.stdout and "observed, as in the paper: 0.902" in done.stdout
    assert not list(work.glob("report/*.ipynb"))


def test_installed_audit_reports_bad_input_by_file_column_and_line(installed):
    env_dir, work, _ = installed
    bad = work / "bad.csv"
    bad.write_text("item,system,rater,rating\n1,a,r1,5\n1,a,r2,five\n", encoding="utf-8")
    done = _run(installed, "audit", str(bad), *COLUMNS, "--format", "json")
    assert done.returncode == 1
    assert "bad.csv, column 'rating': ratings that are not numbers on 1 line: line 3 'five'" in done.stderr


def test_installed_audit_renders_the_html_report_from_its_packaged_notebook(installed):
    env_dir, work, _ = installed
    done = _run(installed, "audit", str(COHERENCE), *COLUMNS, "--n-boot", str(N_BOOT), "--out", "html")
    assert done.returncode == 0, done.stderr
    page = (work / "html" / "audit.html").read_text(encoding="utf-8")
    assert "Audit your own benchmark" in page and "compendium 0.1.0" in page
    assert json.loads((work / "html" / "audit.json").read_text(encoding="utf-8"))["n_raters"] == 3
