"""Nothing changes unseen: every pinned input is checked on every build, and make test's system prerequisites
are checked before anything is built (compendium.data.inputs, .ci/prerequisites)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from compendium.build import pipeline, runner
from compendium.data import inputs
from compendium.data.errors import DataError

ROOT = Path(__file__).resolve().parents[1]


def test_the_shipped_inputs_match_their_manifests():
    counted = inputs.verify_inputs(ROOT)
    assert counted["data/real"] >= 30 and counted["data/examples"] == 2


def _pinned(tmp_path: Path) -> Path:
    """A project root whose data/examples holds a copy of the demonstration's files and MANIFEST."""
    folder = tmp_path / "data" / "examples"
    folder.mkdir(parents=True)
    for name in ("MANIFEST", "mt_direct_assessment.csv", "mt_lengths.csv"):
        shutil.copy(ROOT / "data" / "examples" / name, folder / name)
    shutil.copytree(ROOT / "data" / "real", tmp_path / "data" / "real", copy_function=os.symlink)  # links: cheap
    return tmp_path


def test_one_changed_byte_names_the_file_both_checksums_and_the_way_to_restore_or_re_pin(tmp_path):
    root = _pinned(tmp_path)
    path = root / "data" / "examples" / "mt_direct_assessment.csv"
    pinned = hashlib.sha256(path.read_bytes()).hexdigest()
    data = bytearray(path.read_bytes())
    data[-3] = ord("9") if data[-3] != ord("9") else ord("8")
    path.write_bytes(bytes(data))
    with pytest.raises(DataError) as caught:
        inputs.verify_folder(root / "data" / "examples", "data/examples")
    message = str(caught.value)
    assert "data/examples/mt_direct_assessment.csv: the file changed" in message
    assert pinned in message and hashlib.sha256(bytes(data)).hexdigest() in message
    assert "git checkout -- data/examples/mt_direct_assessment.csv" in message and "sha256sum" in message
    path.unlink()
    with pytest.raises(DataError, match="no such file, but data/examples/MANIFEST lists it"):
        inputs.verify_folder(root / "data" / "examples", "data/examples")


def test_a_build_with_every_chapter_up_to_date_still_stops_on_a_changed_input(tmp_path, monkeypatch):
    root = _pinned(tmp_path)
    mqm = root / "data" / "real" / "wmt23_mqm_ende.csv"
    text = mqm.read_bytes()
    mqm.unlink()  # the link to the shipped file, replaced by a changed copy
    mqm.write_bytes(text.replace(b"0.1", b"0.2", 1))
    assert inputs.verify_folder(root / "data" / "examples") == 2
    monkeypatch.setattr(inputs, "project_root", lambda: root)
    monkeypatch.setattr("compendium.data.benchmark.load_benchmark", lambda *a, **k: None)
    monkeypatch.setattr(runner, "execute", lambda *a, **k: pytest.fail("a chapter ran on a changed input"))
    with pytest.raises(DataError, match="data/real/wmt23_mqm_ende.csv: the file changed"):
        pipeline.build_book({}, html=False)


def _path_without(tmp_path: Path, hidden: str) -> str:
    """A PATH with links to the tools .ci/prerequisites may look for, except ``hidden``."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("bash", "node", "npm", "chromium", "make"):
        found = shutil.which(tool)
        if found and tool != hidden:
            os.symlink(found, folder / tool)
    return str(folder)


@pytest.mark.parametrize("hidden, command", [("chromium", "apt-get install chromium"),
                                             ("node", "apt-get install nodejs npm")])
def test_make_test_stops_at_once_without_a_prerequisite_naming_its_install_command(tmp_path, hidden, command):
    if shutil.which("make") is None or shutil.which(hidden) is None and hidden != "chromium":
        pytest.skip(f"{hidden} or make is not on this machine's PATH to hide")
    env = {k: v for k, v in os.environ.items() if k != "COMPENDIUM_CHROMIUM"}
    env["PATH"] = _path_without(tmp_path, hidden)
    start = time.monotonic()
    done = subprocess.run([shutil.which("make"), "-C", str(ROOT), "--no-print-directory", "test"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and time.monotonic() - start < 10
    assert command in done.stderr and "pytest" not in done.stdout


def test_the_prerequisites_pass_on_this_machine():
    done = subprocess.run([str(ROOT / ".ci" / "prerequisites")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


_DOCUMENTS = ("MANIFEST", "COMMIT", "derive.py", "make_mt_example.py", "simulation.yml")


def test_every_data_file_under_data_is_pinned_by_a_manifest():
    """Every file of data/ but licences, read-mes, the scripts that made the data and the MANIFESTs
    themselves is listed in its folder's MANIFEST; the simulation's parameters are pinned by the simulated
    MANIFEST's header."""
    from compendium.data.benchmark import read_manifest

    for folder, others in (("data/real", ()), ("data/examples", ()), ("data", ("real", "examples"))):
        manifest = read_manifest(ROOT / folder / "MANIFEST")
        listed = set(manifest["files"])
        files = {path.relative_to(ROOT / folder).as_posix() for path in (ROOT / folder).rglob("*") if path.is_file()}
        data = {name for name in files if name.split("/", 1)[0] not in others
                and not Path(name).name.startswith(("LICENSE", "README")) and not name.endswith(".LICENSE")
                and Path(name).name not in _DOCUMENTS}
        assert data - listed == set(), f"{folder}: files no MANIFEST pins"
        assert listed <= files
    from compendium.simulate.benchmark import manifest_is_current

    assert manifest_is_current(ROOT / "data", ROOT / "data" / "simulation.yml")  # its header pins simulation.yml


def _chapter_ten_root(tmp_path: Path, version: str) -> Path:
    """A project root for chapter 10 beside the checkout's: links to its data and chapters, copies of the
    chapter's executed notebook, tables and claims, and of its stored results (``version``)."""
    root = tmp_path / "root"
    (root / "book").mkdir(parents=True)
    for name in ("data", "notebooks"):
        os.symlink(ROOT / name, root / name)
    for name in ("_toc.yml", "_config.yml"):
        shutil.copy(ROOT / name, root / name)
    shutil.copy(ROOT / "book" / "10_real_benchmarks.ipynb", root / "book")
    (root / "_build").mkdir()
    shutil.copy(runner.CLAIMS_FILE, root / "_build" / "claims.json")
    shutil.copytree(runner.TABLES_DIR / "10_real_benchmarks", root / "_build" / "tables" / "10_real_benchmarks")
    # the chapter's audits and section 4's per-panel statistics (recomputing the latter takes minutes); a
    # result's version is that of its own module and the package (compendium.data.cache.cached)
    from compendium.data import cache

    for module in ("compendium.book.real_benchmarks", "compendium.analyses.reliability.real"):
        own = version if module == "compendium.book.real_benchmarks" else cache.code_version(module, "compendium")
        for stored in (runner.CACHE_DIR / own).glob(module + ".*"):
            shutil.copytree(stored, root / "_build" / "cache" / own / stored.name)
    return root


def test_a_flipped_byte_in_a_stored_result_never_reaches_a_published_number(tmp_path):
    """Chapter 10's verdicts on every real evaluation come from one stored result (real_benchmarks.section4).
    One digit changed in it: the chapter, run again, computes it afresh, names the file on its terminal, and
    every table equals the clean build's."""
    from compendium.data import cache, store

    version = cache.code_version("compendium.book.real_benchmarks", "compendium")
    if not (runner.CACHE_DIR / version).is_dir():
        pytest.fail("needs `make book` with the present source (make test builds it first)")
    root = _chapter_ten_root(tmp_path, version)
    (folder,) = (root / "_build" / "cache" / version / "compendium.book.real_benchmarks.section4").iterdir()
    value = folder / "value.json"
    text = value.read_text(encoding="utf-8")
    at = text.index("0.") + 2
    value.write_text(text[:at] + ("9" if text[at] != "9" else "8") + text[at + 1:], encoding="utf-8")
    with pytest.raises(store.StoreError, match="checksum"):
        store.read(folder)
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "compendium"), "run", "10_real_benchmarks",
                           "--out", str(root / "rerun")], env={**os.environ, "COMPENDIUM_ROOT": str(root)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{folder}: the stored result cannot be used (its bytes do not match their checksum)" in done.stderr
    assert "0 tables changed beyond a relative tolerance" in done.stdout
    assert "0 computed sentences changed" in done.stdout
    assert store.read(folder) is not None  # stored afresh, sealed
