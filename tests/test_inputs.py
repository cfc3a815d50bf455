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

from compendium.book import pipeline, runner
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
