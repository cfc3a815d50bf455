"""A killed process's joblib workers end with it (compendium.stats._workers), within seconds, not loky's five
minutes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

_START = """
import os, sys
from joblib import Parallel, delayed
from compendium.stats import _workers as workers
options = workers.options() if sys.argv[1] == "ours" else {}
pids = set(Parallel(n_jobs=2, **options)(delayed(os.getpid)() for _ in range(8)))
print(" ".join(map(str, sorted(pids))), flush=True)
import time
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    """Running, not a zombie that nobody has reaped yet."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return "Z" not in state.split()[1]


def _workers_of_a_killed_process(which: str, wait: float = 5) -> tuple[set[int], float]:
    """Start a process whose Parallel call leaves idle loky workers, SIGKILL it, and wait (5 s): the
    workers still alive then, and how long the others took."""
    process = subprocess.Popen([sys.executable, "-c", _START, which], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        pids = {int(pid) for pid in process.stdout.readline().split()}
    finally:
        process.kill()
        process.wait()
    assert pids and process.pid not in pids
    start = time.monotonic()
    while time.monotonic() - start < wait and any(_alive(pid) for pid in pids):
        time.sleep(0.1)
    return {pid for pid in pids if _alive(pid)}, time.monotonic() - start


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_workers_end_within_seconds_of_a_killed_parent():
    left, seconds = _workers_of_a_killed_process("ours")
    assert not left and seconds < 3


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_without_the_initializer_loky_workers_outlive_their_killed_parent():
    """The case the initializer is for (and the proof that the test above can fail)."""
    left, _ = _workers_of_a_killed_process("plain", wait=2)
    try:
        assert left
    finally:
        for pid in left:
            os.kill(pid, signal.SIGKILL)
