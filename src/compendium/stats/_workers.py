"""Worker processes that end with the process that started them.

The chapters fit their decoders over two joblib workers (loky). loky keeps
idle workers alive for five minutes (``idle_worker_timeout``) so that the
next ``Parallel`` call finds them ready. When the kernel that started them
is killed -- a build stopped with SIGKILL, a kernel killed by Jupyter --
nothing tells them: each worker, about 300 MB, lived on for those minutes.

Every pool this package starts passes :func:`options` to ``Parallel``: each
worker runs :func:`_end_with_parent` once as loky's initializer, which
starts a daemon thread that checks twice a second whether the worker's
parent is still the process that started the pool, and ends the worker
(``os._exit``) when it is not (Linux gives an orphan a new parent). A
killed build's workers are gone within a second.

Why a thread and not ``prctl(PR_SET_PDEATHSIG)``: that signal follows the
death of the parent's *thread* that started the worker, and loky may start
workers from a thread that ends while the pool lives on; it is also
Linux-only, through ``ctypes``. ``os.getppid`` is plain POSIX.
"""

from __future__ import annotations

import os
import threading
import time

__all__ = ["options", "POLL_SECONDS", "dask_executor"]

#: How often a worker checks that its parent lives.
POLL_SECONDS = 0.5


def options() -> dict:
    """Keyword arguments for ``joblib.Parallel`` (or scikit-learn's) that make its loky workers end with
    this process. The same arguments on every call, so that joblib reuses one pool."""
    return {"initializer": _end_with_parent, "initargs": (os.getpid(),)}


def _end_with_parent(parent: int) -> None:
    """loky's initializer: end this worker as soon as ``parent`` is no longer its parent."""
    if os.getppid() != parent:  # started by another process than the one that asked (not loky's way)
        return

    def watch() -> None:
        while True:
            time.sleep(POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="compendium-end-with-parent", daemon=True).start()


def dask_executor(address: str):
    """``(client, executor)`` on the dask.distributed scheduler at ``address``: a ``concurrent.futures``
    executor whose tasks run on the cluster's workers (which must have this package). ``compendium sweep
    --scheduler`` and ``compendium audit --scheduler`` both connect through it; close the client when done.
    ImportError without dask.distributed (the ``cluster`` extra)."""
    from distributed import Client

    client = Client(address)
    return client, client.get_executor()

