"""Messages, not tracebacks: inputs the audit cannot use are named, with exit code 2 and nothing written."""

from __future__ import annotations

import pytest

from compendium import cli

GOOD = "item,system,rater,rating\n" + "".join(
    f"{i},{s},{a},{(i + len(s) + len(a)) % 5 + 1}\n" for i in range(1, 5) for s in ("sa", "sbb") for a in ("x", "yy"))


@pytest.mark.parametrize("make, message", [
    (lambda tmp: tmp, "is a directory; give the table's file"),
    (lambda tmp: "/dev/null", "is not a regular file (a device or a pipe)"),
    (lambda tmp: (tmp / "r.csv").write_text(GOOD.replace(",x,1\n", ",x,1e308\n", 1)) and tmp / "r.csv",
     "column 'rating': ratings too large to compute with on 1 line: line "),
])
def test_unusable_ratings_files_get_a_message_and_exit_code_2(tmp_path, capsys, make, message):
    (tmp_path / "r.csv").write_text(GOOD)
    given = make(tmp_path)
    out = tmp_path / "report"
    assert cli.main(["audit", str(given), "--format", "json", "--n-boot", "20", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and not out.exists()


def _dead_pid() -> int:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_scratch_folders_of_killed_runs_are_removed_and_live_ones_kept(tmp_path):
    import os
    import time

    from compendium.data import _files

    killed = tmp_path / ".02_reliability.abc"
    killed.mkdir()
    (killed / _files.OWNER).write_text(str(_dead_pid()))
    live = _files.scratch_dir(tmp_path, ".02_reliability.")
    young, old = tmp_path / ".02_reliability.young", tmp_path / ".02_reliability.old"
    young.mkdir()
    old.mkdir()
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    other = tmp_path / ".03_length.xyz"
    other.mkdir()
    assert sorted(_files.remove_stale(tmp_path, ".02_reliability.")) == sorted([killed, old])
    assert live.exists() and young.exists() and other.exists()


def test_an_audit_killed_before_it_finished_leaves_nothing_after_the_next(tmp_path, capsys):
    from compendium.data import _files

    (tmp_path / "r.csv").write_text(GOOD)
    left = tmp_path / ".report.k1ll.partial"  # what a SIGKILL during an audit leaves beside --out
    left.mkdir()
    (left / _files.OWNER).write_text(str(_dead_pid()))
    (left / "audit.json").write_text("{")
    assert cli.main(["audit", str(tmp_path / "r.csv"), "--format", "json", "--n-boot", "20",
                     "--out", str(tmp_path / "report")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "report"]


def test_make_clean_removes_the_hidden_scratch_folders_of_chapters():
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    recipe = subprocess.run(["make", "-n", "-C", str(root), "--no-print-directory", "clean"],
                            capture_output=True, text=True).stdout
    assert "book/.[0-9][0-9]_*" in recipe and "_build" in recipe


@pytest.mark.parametrize("code, words", [(28, "the disk is full"), (13, "not writable for this user"),
                                         (30, "the file system is read-only")])
def test_a_full_disk_or_a_read_only_folder_is_one_line_with_exit_code_2(tmp_path, capsys, monkeypatch, code, words):
    """A write that fails (ENOSPC, EACCES, EROFS), made to fail here rather than by filling a disk: one line
    naming the file, exit code 2, and nothing half-written beside the report."""
    import errno
    import os

    from compendium.audit import core

    assert code == {28: errno.ENOSPC, 13: errno.EACCES, 30: errno.EROFS}[code]
    (tmp_path / "r.csv").write_text(GOOD)

    def failing(path, text):
        raise OSError(code, os.strerror(code), str(path))

    monkeypatch.setattr(core, "write_text_atomic", failing)
    out = tmp_path / "report"
    assert cli.main(["audit", str(tmp_path / "r.csv"), "--format", "json", "--n-boot", "20", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "cannot write" in err and "audit.json" in err and words in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]  # no report, no staging folder
