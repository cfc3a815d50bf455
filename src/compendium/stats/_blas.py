"""BLAS held to one thread for the small matrices of :mod:`~compendium.stats.mixed` and
:mod:`~compendium.stats.decoder`, with the loaded libraries looked up once per process."""

from __future__ import annotations

from threadpoolctl import ThreadpoolController

_CONTROLLER: ThreadpoolController | None = None


def one_blas_thread():
    """A context with BLAS held to one thread: the matrices are small, so threads only cost.

    threadpoolctl reads the loaded libraries each time a ``threadpool_limits`` is entered (about
    3 ms); a bootstrap or a leakage study enters one per fit. Here the libraries are looked up once,
    by the first caller, after numpy and scipy are imported.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")
