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

A cache that cannot lie: when joblib stores a result, a seal beside it
(:data:`SEAL`) records the SHA-256 of its bytes. Before a stored result is
read, the seal is checked; a result whose bytes changed, or that has no
seal (stored by an older version), is removed and computed again -- joblib
never unpickles it, so no damaged file ever reaches a table or a page --
and a changed one is named in one line of :data:`REPAIRS`, which the build
prints on its terminal (:func:`repairs`). The results are still pickles (joblib's format, which
holds arrays and frames of any shape); the seal guards their integrity, not
against someone who rewrites both file and seal.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import importlib
import os
import shutil
from pathlib import Path

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
            import joblib
            from joblib.memory import _build_func_identifier

            args_id = stored._get_args_id(*args, **kwargs)
            result = Path(stored.store_backend.location) / _build_func_identifier(func) / args_id
            key = joblib.hash((func.__module__, func.__qualname__, args_id))
            locks = where / "locks"
            locks.mkdir(parents=True, exist_ok=True)
            with open(locks / f"{key}.lock", "w") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)
                try:
                    _check_sealed(result, where)  # a stored result that is not what was stored is computed again
                    value = stored(*args, **kwargs)
                    _seal(result)
                    return value
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


#: The file beside a stored result that holds the SHA-256 of its bytes, written when it was stored.
SEAL = "compendium.sha256"
#: Lines naming every stored result that failed its check and was computed again (read by the build).
REPAIRS = "repairs.log"


def _digest(result: Path) -> str:
    """SHA-256 over a stored result's files (name and bytes), but joblib's metadata and the seal."""
    hasher = hashlib.sha256()
    for path in sorted(result.iterdir()):
        if path.name in (SEAL, "metadata.json") or not path.is_file():
            continue
        hasher.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return hasher.hexdigest()


def _seal(result: Path) -> None:
    """Record the checksum of a result joblib has just stored (once: a sealed result is not re-sealed)."""
    try:
        if result.is_dir() and not (result / SEAL).exists():
            (result / SEAL).write_text(_digest(result), encoding="utf-8")
    except OSError:  # a store that cannot be written is no store: the result is still returned
        pass


def _check_sealed(result: Path, where: Path) -> None:
    """Remove a stored result whose bytes differ from its seal, or that has none, so that joblib computes it
    again; name a changed one in one line of :data:`REPAIRS` (never on the chapter's output, which the book
    shows)."""
    if not result.is_dir():
        return
    try:
        seal = (result / SEAL).read_text(encoding="utf-8").strip() if (result / SEAL).exists() else None
        if seal is not None and seal == _digest(result):
            return
        shutil.rmtree(result, ignore_errors=True)
        if seal is None:  # stored before seals existed, or its writer died before sealing: computed again, quietly
            return
        with open(where / REPAIRS, "a", encoding="utf-8") as log:
            log.write(f"{result}: the stored result does not match its checksum; it was computed again\n")
    except OSError:
        shutil.rmtree(result, ignore_errors=True)


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
    seconds.
    """
    where = location()
    return where is not None and function.memorised(where).check_call_in_cache(*args, **kwargs)
