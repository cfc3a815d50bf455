"""Heavy intermediate results, computed once per build and read by every chapter.

The per-cell out-of-fold predictions of the EAD decoder (chapters 3, 4, 6
and 9 all need the Bangla cells), their bootstrap replicates and label floors
(chapters 4 and 9 draw the same), the scores of each cell's further
stability seeds (chapter 4, and nbval's re-execution of it), and the test-set
predictions of the leakage splits (chapter 7 reads the same splits three
times) are stored in the build's store and read back whenever a call has the
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

Why not ``joblib.Memory``, which this module used before: it stores
pickles, and reading a pickle runs whatever code its bytes name. The store
(:mod:`compendium.data.store`) writes JSON, ``.npy`` and Parquet instead,
sealed with a SHA-256, and checks that a value reads back exactly before it
keeps it. ``jupyter-cache`` would cache whole notebooks, which the build
already skips when nothing changed (``pipeline.build_key``); what it cannot
do is share one table between chapters. joblib still makes the key: its
``hash`` of the arguments' *content* (arrays and frames by their bytes).

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

A cache that cannot lie: a stored result is read only when its bytes match
the SHA-256 written with them, and when it decodes to the shapes the store
writes. Otherwise it is removed and computed again -- so no damaged or
replaced file ever reaches a table or a page -- and one line of
:data:`REPAIRS` names it; the build prints those lines on its terminal
(:func:`repairs`), never inside a chapter. A result the store cannot hold
exactly is not stored (and named there too). The seal guards integrity, not
against someone who can rewrite both a file and its seal (who could as well
edit the package's source).
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import importlib
import os
import shutil
from pathlib import Path

from compendium.data import store

__all__ = ["CACHE_ENV", "location", "code_version", "cached", "stored", "repairs"]

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
    hasher = hashlib.sha256(store.FORMAT.encode() + b"\0")  # a new layout of the store never reads an old one
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
    """Decorator: store the function's results in the build's store when caching is on.

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
            folder = _folder(where, args, kwargs)
            locks = where / "locks"
            locks.mkdir(parents=True, exist_ok=True)
            with open(locks / f"{folder.parent.name}.{folder.name}.lock", "w") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)
                try:
                    if folder.exists():
                        try:
                            return store.read(folder)
                        except store.StoreError as error:  # computed again: a damaged file never reaches a table
                            shutil.rmtree(folder, ignore_errors=True)
                            _note(where, f"{folder}: the stored result cannot be used ({error}); "
                                         "it was computed again")
                    value = func(*args, **kwargs)
                    try:
                        store.write(value, folder)
                    except store.Unstorable as error:
                        _note(where, f"{func.__module__}.{func.__qualname__}: its result is not stored ({error})")
                    except OSError:  # a store that cannot be written is no store: the result is still returned
                        pass
                    return value
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)

        def _folder(where: Path, args, kwargs) -> Path:
            """``where / <code version> / <module.function> / <hash of the arguments' content>``."""
            import joblib  # only with caching on: the audit's light install decorates functions without it
            from joblib.func_inspect import filter_args

            version = code_version(func.__module__, *depends)
            arguments = joblib.hash(filter_args(func, list(ignore), args, kwargs))
            return where / version / f"{func.__module__}.{func.__qualname__}" / arguments

        wrapper.uncached = func
        wrapper.folder = _folder
        return wrapper

    return decorate


#: Lines naming every stored result that failed its check and was computed again (read by the build).
REPAIRS = "repairs.log"


def _note(where: Path, line: str) -> None:
    """One line in :data:`REPAIRS`, which the build prints on its terminal (never on a chapter's output,
    which the book shows)."""
    try:
        with open(where / REPAIRS, "a", encoding="utf-8") as log:
            log.write(line + "\n")
    except OSError:
        pass


def repairs(where: Path | None = None, *, clear: bool = True) -> list[str]:
    """The lines of :data:`REPAIRS` (stored results computed again because they failed their check)."""
    where = where if where is not None else location()
    if where is None or not (where / REPAIRS).exists():
        return []
    lines = (where / REPAIRS).read_text(encoding="utf-8").splitlines()
    if clear:
        (where / REPAIRS).unlink(missing_ok=True)
    return lines


def stored(function, *args, **kwargs) -> bool:
    """Whether a call of ``function`` (decorated with :func:`cached`) would be read from the cache.

    False when caching is off. A caller that would start worker processes for
    the call uses it to stay in its own process when there is nothing to
    compute: reading a stored result takes milliseconds, starting workers
    seconds. (A sealed result whose bytes then fail their check is computed
    in the caller's process.)
    """
    where = location()
    return where is not None and store.sealed(function.folder(where, args, kwargs))
