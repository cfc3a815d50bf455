"""Writing a text file atomically, and scratch folders that a killed process does not leave behind.

:func:`write_text_atomic` (a temporary file beside the target, then a rename) is shared by the audit and
the book, so that a failed write never leaves a half-written file. :func:`scratch_dir` makes the hidden
folders the chapters and the audit stage their outputs in, each with its owner's process id inside;
:func:`remove_stale` removes those whose owner is gone (a SIGKILL runs no clean-up), and every new
run calls it first.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

__all__ = ["write_text_atomic", "sha256_file", "scratch_dir", "remove_stale"]

#: The file inside a scratch folder that names the process owning it.
OWNER = ".owner-pid"
#: A scratch folder without its owner file is someone else's only while it is this young (it is being made).
_GRACE_SECONDS = 60.0


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically, creating its directory; return the path.

    The file gets mode 0644 (``mkstemp`` makes it 0600: an audit's outputs are for every reader); on any
    failure the temporary file is removed and ``path`` is left as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def sha256_file(path: str | os.PathLike) -> str:
    """The SHA-256 (hex) of a file's bytes, read in blocks of 1 MiB (the MANIFESTs' checksum)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def scratch_dir(parent: str | os.PathLike, prefix: str, suffix: str = "") -> Path:
    """A new hidden scratch folder in ``parent`` (``prefix*suffix``) that records this process as its owner."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, suffix=suffix, dir=parent))
    (folder / OWNER).write_text(str(os.getpid()), encoding="utf-8")
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def remove_stale(parent: str | os.PathLike, prefix: str, suffix: str = "") -> list[Path]:
    """Remove the scratch folders ``prefix*suffix`` in ``parent`` whose owner process has ended; return them.

    A folder without an owner file counts as stale once it is older than a minute (an older version made
    it, or its owner was killed between making it and writing the file).
    """
    parent = Path(parent)
    removed = []
    if not parent.is_dir():
        return removed
    for folder in parent.glob(f"{prefix}*{suffix}"):
        if not folder.is_dir() or folder.is_symlink():
            continue
        try:
            pid = int((folder / OWNER).read_text(encoding="utf-8").strip())
            stale = not _alive(pid)
        except (OSError, ValueError):
            try:
                stale = time.time() - folder.stat().st_mtime > _GRACE_SECONDS
            except OSError:
                continue
        if stale:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
