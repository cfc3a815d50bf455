"""Heavy intermediate results, computed once per build and read by every chapter.

The per-cell out-of-fold predictions of the EAD decoder (chapters 3, 4, 6
and 9 all need the Bangla cells), their bootstrap replicates and label floors
(chapters 4 and 9 draw the same), the scores of each cell's further
stability seeds (chapter 4, and nbval's re-execution of it), and the test-set
predictions of the leakage splits (chapter 7 reads the same splits three
times) are stored by ``joblib.Memory`` and read back whenever a call has the
same inputs. So are the other analyses that take seconds and that ``make
test`` would otherwise compute a second time when nbval re-executes the
chapters: chapter 4's transfer matrix, probes and learning curve, chapter 5's
probe and separability tables, chapter 3's REML length models on MQM, the real
token counts of chapters 1, 3 and 6 (``tokenizers.stored_counts``), the emoji
counts of the benchmark's outputs (chapters 1, 3, 6 and 9 count the same
136,800), and chapter 10's audits. Most name the whole package as their code
(``@cached("compendium")``), so that any change of the package's source
computes them afresh. The benchmark's validated tables are kept in the same
directory by the loader itself (``compendium.data.benchmark._stored_tables``,
keyed by the files' SHA-256).

Why ``joblib.Memory``: it keys each stored result by the function's code
and a hash of its arguments' *content* (here the cell's emoji outputs and
labels, the seed and the decoder's parameters), writes every file
concurrency-safely (a temporary file renamed into place), and is already a
dependency (scikit-learn's). ``jupyter-cache`` would cache whole notebooks,
which the build already skips when nothing changed (``pipeline.build_key``);
what it cannot do is share one table between chapters.

The key, in full:

* the arguments' content: a change of the data changes a cell's outputs or
  labels, so its stored predictions are not found (this is finer than the
  data ``MANIFEST``: a cell whose rows did not change keeps its result);
* the parameters (seed, folds, ``C``, split fraction, replicates);
* the code version: a SHA-256 of the source of the module that defines the
  function and of the modules it names as dependencies (the decoder, the
  emoji segmentation), which picks the store's directory, so that a code
  change never reads a result of the old code.

Caching is on only where ``COMPENDIUM_CACHE`` names a directory: the build
sets it to ``_build/cache`` for the chapters' kernels (``make clean``
removes it); tests and library users compute afresh. Chapters run in
parallel: a per-key file lock (``fcntl.flock``) makes the first caller
compute while the others wait and then read, so each result is computed
once per build.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import importlib
import os
from pathlib import Path

__all__ = ["CACHE_ENV", "location", "code_version", "cached", "stored"]

#: Environment variable naming the cache directory (unset: no caching).
CACHE_ENV = "COMPENDIUM_CACHE"


def location() -> Path | None:
    """The cache directory, or None when caching is off."""
    where = os.environ.get(CACHE_ENV)
    return Path(where) if where else None


@functools.cache
def code_version(*modules: str) -> str:
    """SHA-256 (hex, 16 digits) of the source files of ``modules`` (dotted names), in the order given.

    A package (``"compendium"``, ``"compendium.stats"``) stands for every ``.py`` file below it, in the
    order of their paths: a result that depends on much of the package (an audit) names the package.
    """
    hasher = hashlib.sha256()
    for name in modules:
        module = importlib.import_module(name)
        if not hasattr(module, "__path__"):
            hasher.update(name.encode() + b"\0" + Path(module.__file__).read_bytes() + b"\0")
            continue
        root = Path(module.__file__).parent
        for path in sorted(root.rglob("*.py"), key=lambda f: f.relative_to(root).as_posix()):
            hasher.update(f"{name}/{path.relative_to(root).as_posix()}".encode() + b"\0" + path.read_bytes() + b"\0")
    return hasher.hexdigest()[:16]


def cached(*depends: str, ignore: tuple[str, ...] = ()):
    """Decorator: store the function's results with ``joblib.Memory`` when caching is on.

    Parameters
    ----------
    *depends : str
        Dotted names of the modules whose source (besides the function's
        own module) the result depends on.
    ignore : tuple of str
        Arguments left out of the key (e.g. a precomputed form of another
        argument).
    """

    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            where = location()
            if where is None:
                return func(*args, **kwargs)
            stored = _memorised(where)
            if stored.check_call_in_cache(*args, **kwargs):
                return stored(*args, **kwargs)
            import joblib

            key = joblib.hash((func.__module__, func.__qualname__, stored._get_args_id(*args, **kwargs)))
            locks = where / "locks"
            locks.mkdir(parents=True, exist_ok=True)
            with open(locks / f"{key}.lock", "w") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)
                try:
                    return stored(*args, **kwargs)
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)

        def _memorised(where: Path):
            version = code_version(func.__module__, *depends)
            import joblib  # only with caching on: the audit's light install decorates functions without it

            return joblib.Memory(where / version, verbose=0).cache(func, ignore=list(ignore))

        wrapper.uncached = func
        wrapper.memorised = _memorised
        return wrapper

    return decorate


def stored(function, *args, **kwargs) -> bool:
    """Whether a call of ``function`` (decorated with :func:`cached`) would be read from the cache.

    False when caching is off. A caller that would start worker processes for
    the call uses it to stay in its own process when there is nothing to
    compute: reading a stored result takes milliseconds, starting workers
    seconds.
    """
    where = location()
    return where is not None and function.memorised(where).check_call_in_cache(*args, **kwargs)
