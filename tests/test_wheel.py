"""The audit as an installed tool: build the wheel, install it into a fresh virtual environment, audit from elsewhere.

Two environments:

* ``light`` -- the wheel *without extras*, as a user installs it (``pip install
two_emojis_compendium-0.1.0-py3-none-any.whl``):
  pip resolves the base dependencies alone, offline (``--no-index``), from a wheelhouse repacked from this project's
  environment (the very files installed here, so the versions are the locked ones). The audit then runs from a
  directory outside the checkout, with no ``COMPENDIUM_*`` variable set, on the shipped real WMT23 MQM file, and the
  environment's size on disk is recorded (``_build/wheel-venv-size.json`` and the test's output).
* ``installed`` -- the wheel alone (``--no-deps``) with this project's environment on the path through a ``.pth``
  line (its ``.pth`` files, including the editable install of the checkout, are not run, so ``compendium`` is
  imported from the wheel): the report's notebook (``--notebook``) needs the book's stack
  (``two-emojis-compendium[book]``).

The wheel is built from a copy of what it is made of into a temporary directory, so no ``build/`` is left in the
checkout.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from compendium.audit import core as audit
from compendium.data import real

ROOT = Path(__file__).resolve().parents[1]
COHERENCE = ROOT / "data" / "real" / "summeval_coherence.csv"
MQM = ROOT / "data" / "real" / "wmt23_mqm_ende.csv"
COLUMNS = ["--item", "item", "--system", "system", "--rater", "rater", "--rating", "rating"]
#: Bootstrap replicates of the installed audits (alpha's): enough for an interval to exist and be checked; the
#: intervals' coverage is tested in tests/test_gstudy.py and tests/test_reliability.py, not here.
N_BOOT = 100
#: The goal for the environment of ``pip install compendium-*.whl`` (issue 25), in MB.
SIZE_GOAL_MB = 300


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
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
    assert not (ROOT / "build").exists() or (ROOT / "build").stat().st_mtime < (base / "source").stat().st_mtime
    return next(wheels.glob("two_emojis_compendium-*.whl"))


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    base = tmp_path_factory.mktemp("full")
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
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPENDIUM_") and k != "PYTHONPATH"}
    return env_dir, work, env


def _requirement_names(requirements) -> list[str]:
    """Names of the unconditional requirements (no extra, no marker that fails here)."""
    from packaging.requirements import Requirement

    names = []
    for text in requirements or []:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        names.append(requirement.name)
    return names


def _repack(dist: metadata.Distribution, wheelhouse: Path) -> Path:
    """A wheel of an installed distribution: its files under site-packages, its metadata, a fresh RECORD."""
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"])
    version = dist.version
    site = Path(dist.locate_file(""))
    info = f"{name}-{version}.dist-info"
    target = wheelhouse / f"{name}-{version}-py3-none-any.whl"
    rows = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
        for file in dist.files or []:
            parts = Path(file).parts
            if parts[0] == ".." or "__pycache__" in parts or file.name in ("RECORD", "INSTALLER", "direct_url.json"):
                continue
            if parts[0].endswith(".dist-info"):
                arcname = "/".join((info, *parts[1:]))
            else:
                arcname = Path(file).as_posix()
            data = (site / file).read_bytes()
            if arcname == f"{info}/WHEEL":
                data = b"Wheel-Version: 1.0\nGenerator: test_wheel\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
            archive.writestr(arcname, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append((arcname, f"sha256={digest}", str(len(data))))
        if f"{info}/WHEEL" not in {r[0] for r in rows}:
            data = b"Wheel-Version: 1.0\nGenerator: test_wheel\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
            archive.writestr(f"{info}/WHEEL", data)
            rows.append((f"{info}/WHEEL", "", ""))
        record = io.StringIO()
        csv.writer(record, lineterminator="\n").writerows([*rows, (f"{info}/RECORD", "", "")])
        archive.writestr(f"{info}/RECORD", record.getvalue())
    return target


def _wheelhouse(wheelhouse: Path) -> list[str]:
    """Repack the base dependencies of pyproject.toml, and theirs, from this environment into ``wheelhouse``."""
    wheelhouse.mkdir()
    todo = list(_requirement_names(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]))
    done: dict[str, metadata.Distribution] = {}
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in done:
            continue
        dist = metadata.distribution(name)
        done[name] = dist
        todo.extend(_requirement_names(dist.requires))
    for dist in done.values():
        _repack(dist, wheelhouse)
    return sorted(done)


def _size_mb(path: Path) -> float:
    return sum(f.lstat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6


@pytest.fixture(scope="module")
def light(wheel, tmp_path_factory):
    """A fresh venv with the wheel and its base dependencies only (no extras), installed offline."""
    base = tmp_path_factory.mktemp("light")
    packages = _wheelhouse(base / "wheelhouse")
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    # --no-compile: byte-compiling all of numpy, scipy, pandas and statsmodels (tests included) took 14 of the
    # install's 18 s; the environment's commands write the byte code of what they import instead, on first use
    # (PYTHONDONTWRITEBYTECODE, which some containers set, is not passed on to them).
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                           "--disable-pip-version-check", "--no-index", "--find-links", str(base / "wheelhouse"),
                           "--no-compile", str(wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    work = base / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("COMPENDIUM_") and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    size = _size_mb(env_dir)
    record = {"venv_mb": round(size, 1), "goal_mb": SIZE_GOAL_MB, "distributions": packages,
              "byte_code": "none: installed with --no-compile (pip's default byte-compiling adds about 120 MB)"}
    out = ROOT / "_build"
    out.mkdir(exist_ok=True)
    (out / "wheel-venv-size.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"\nfresh venv with the wheel, no extras: {size:.1f} MB without byte code ({len(packages)} distributions: "
          f"{', '.join(packages)})")
    return env_dir, work, env, size, packages


def test_the_light_install_has_no_book_stack_and_audits_real_mqm_from_elsewhere(light):
    env_dir, work, env, size, packages = light
    for heavy in ("jupyter-book", "jupyterlab", "sphinx", "papermill", "matplotlib", "myst-nb", "tokenizers",
                  "ipykernel", "pyarrow"):
        assert heavy not in packages
    done = subprocess.run([str(env_dir / "bin" / "compendium"), "audit", str(MQM), *COLUMNS, "--lower-is-better",
                           "--n-boot", str(N_BOOT), "--out", "report"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    # every output, the HTML page with its figures included, with no extra (issue 71)
    assert sorted(p.name for p in (work / "report").iterdir()) == ["audit.html", "audit.json", "checklist.csv"]
    page = (work / "report" / "audit.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 3 and "The REML system test" in page
    summary = json.loads((work / "report" / "audit.json").read_text(encoding="utf-8"))
    assert summary["n_items"] == 104 and summary["n_systems"] == 10 and summary["design_complete"] is False
    # G has its interval on an incomplete design: the noncentral-F interval of the REML fit, no refit
    assert isinstance(summary["G"], float) and len(summary["G_ci"]) == 2
    assert 0 <= summary["G_ci"][0] < summary["G"] < summary["G_ci"][1] <= 1
    assert summary["interval_method_G"].startswith("noncentral-F") and summary["G_ci_df"][0] == 9
    where = subprocess.run([str(env_dir / "bin" / "python"), "-c", "import compendium, sys; print(compendium.__file__);"
                            "import compendium.cli, compendium.audit.core; print('IPython' in sys.modules)"],
                           cwd=work, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert Path(where[0]).is_relative_to(env_dir) and where[1] == "False"


@pytest.mark.parametrize("option", ["--pairwise", "--labels"])
def test_the_light_install_audits_pandalm_and_banemo_with_every_output(light, option):
    """No extras, no kernel: the pairwise and label audits write the HTML page, the summary and the checklist.
    The vendored files are read here with the project's loaders and handed over as the tidy CSV a user writes."""
    from compendium.data import corpora

    env_dir, work, env, *_ = light
    name = "pandalm" if option == "--pairwise" else "banemo"
    table = real.load_pandalm() if name == "pandalm" else corpora.load_banemo()[["item", "rater", "label"]]
    table.to_csv(work / f"{name}.csv", index=False)
    done = subprocess.run([str(env_dir / "bin" / "compendium"), "audit", option, f"{name}.csv", "--n-boot", str(N_BOOT),
                           "--out", f"{name}-report"], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    report = work / f"{name}-report"
    assert sorted(p.name for p in report.iterdir()) == ["audit.html", "audit.json", "checklist.csv"]
    summary = json.loads((report / "audit.json").read_text(encoding="utf-8"))
    assert summary["kind"] == ("pairwise" if name == "pandalm" else "labels") and summary["n_raters"] == 3
    assert summary["n_items"] == (999 if name == "pandalm" else 14999)


def test_the_light_install_with_the_byte_code_of_what_the_audit_imports_is_within_the_goal(light):
    """Issue 56's measure: ``du`` of the fresh venv holding the wheel and no extras, installed with ``--no-compile``
    (the README's command) and after an audit has run, so that it holds the byte code of what the audit imports
    and of nothing else. pip's default byte-compiles every module, tests included (about 90 MB more): recorded
    beside it, not gated."""
    env_dir, work, env, size, packages = light
    done = subprocess.run([str(env_dir / "bin" / "compendium"), "audit", str(COHERENCE), *COLUMNS, "--format", "json",
                           "--n-boot", "20", "--out", "size-probe"], cwd=work, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    used = _size_mb(env_dir)
    assert used > size  # the audit wrote the byte code of what it imported
    record = json.loads((ROOT / "_build" / "wheel-venv-size.json").read_text(encoding="utf-8"))
    record.update(venv_mb_after_an_audit=round(used, 1),
                  byte_code="installed with --no-compile; venv_mb_after_an_audit holds the byte code the audit's "
                            "imports wrote (pip's default byte-compiles every module: about 90 MB more)")
    (ROOT / "_build" / "wheel-venv-size.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"\nthe light venv after an audit: {used:.1f} MB (goal {SIZE_GOAL_MB} MB)")
    assert used <= SIZE_GOAL_MB, f"{used:.0f} MB"


def test_the_notebook_route_without_the_book_stack_says_what_to_install(light):
    env_dir, work, env, *_ = light
    done = subprocess.run([str(env_dir / "bin" / "compendium"), "audit", str(MQM), *COLUMNS, "--notebook", "--out",
                           "html"], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "pip install 'two-emojis-compendium[book]'" in done.stderr and "leave out --notebook" in done.stderr
    assert not (work / "html").exists()


def test_lengths_without_statsmodels_say_what_to_install(light):
    """statsmodels serves --lengths alone: the light install leaves it out, and the audit says which extra adds it."""
    env_dir, work, env, *_ = light
    assert "statsmodels" not in light[4]
    examples = ROOT / "data" / "examples"
    done = subprocess.run([str(env_dir / "bin" / "compendium"), "audit", str(examples / "mt_direct_assessment.csv"),
                           "--item", "segment_id", "--rater", "rater", "--rating", "score",
                           "--lengths", str(examples / "mt_lengths.csv"), "--length", "tokens", "--format", "json",
                           "--out", "with-lengths"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "pip install 'two-emojis-compendium[lengths]'" in done.stderr
    assert not (work / "with-lengths").exists()


def _run(installed, *args):
    env_dir, work, env = installed
    return subprocess.run([str(env_dir / "bin" / "compendium"), *args], cwd=work, env=env,
                          capture_output=True, text=True, timeout=900)


def test_the_wheel_is_what_the_environment_imports(installed):
    env_dir, work, env = installed
    where = subprocess.run(
        [
            str(env_dir / "bin" / "python"),
            "-c",
            "import compendium.audit.core as a; print(a.__file__); print(a.TEMPLATE.is_file())",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    module, template = where.stdout.split()
    assert Path(module).is_relative_to(env_dir) and template == "True"


def test_installed_audit_writes_json_and_checklist_without_a_kernel(installed):
    env_dir, work, _ = installed
    done = _run(
        installed, "audit", str(COHERENCE), *COLUMNS, "--format", "json", "--n-boot", str(N_BOOT), "--out", "report"
    )
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
    assert done.returncode == 2
    assert "bad.csv, column 'rating': ratings that are not numbers on 1 line: line 3 'five'" in done.stderr


def test_installed_audit_renders_the_html_report_from_its_packaged_notebook(installed):
    env_dir, work, _ = installed
    done = _run(installed, "audit", str(COHERENCE), *COLUMNS, "--n-boot", str(N_BOOT), "--notebook", "--out", "html")
    assert done.returncode == 0, done.stderr
    page = (work / "html" / "audit.html").read_text(encoding="utf-8")
    assert "Audit your own benchmark" in page and "compendium 0.1.0" in page
    assert (work / "html" / "08_audit.ipynb").is_file()
    assert json.loads((work / "html" / "audit.json").read_text(encoding="utf-8"))["n_raters"] == 3
