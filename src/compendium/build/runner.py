"""Executing one chapter, or many, with papermill: the build's runner.

Each chapter is a paired jupytext source ``notebooks/NN_topic.py``. To run
one, the source is converted to a notebook, executed by papermill with the
given parameters into a temporary file, and moved to the output directory
only when every cell succeeded, so a failing run never replaces a good
executed notebook. A chapter whose inputs have not changed since its last
execution (:func:`build_key`) is not executed again. :func:`run` executes
several through any :class:`concurrent.futures.Executor`.

The book build (:mod:`compendium.build.pipeline`) and the sweeps
(:mod:`compendium.build.sweep`) both run chapters through this module, so the
build can run the default data-seed sweep without the two importing each other.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from compendium.analyses.ledger import claims, real_checks
from compendium.book import report
from compendium.build import kernels
from compendium.data._files import remove_stale, scratch_dir
from compendium.data.paths import ROOT_ENV, project_root

#: The project's root: $COMPENDIUM_ROOT, else the checkout the command runs in (see compendium.data.paths).
ROOT = project_root()
NOTEBOOKS_DIR = ROOT / "notebooks"
BOOK_DIR = ROOT / "book"
BUILD_DIR = ROOT / "_build"
CLAIMS_FILE = BUILD_DIR / "claims.json"
TABLES_DIR = BUILD_DIR / "tables"

#: The ledger chapter runs after every other chapter, from the aggregate they produce.
LEDGER_NOTEBOOK = "99_ledger"
#: Chapters that summarise the others, in the book's order: they run after them, each from what the
#: chapters produced (the sweeps, the provenance, the claims; ``pipeline.build_book`` says when each starts).
ROBUSTNESS_NOTEBOOK = "97_robustness"
PROVENANCE_NOTEBOOK = "98_build"
SUMMARY_NOTEBOOKS = (ROBUSTNESS_NOTEBOOK, PROVENANCE_NOTEBOOK, LEDGER_NOTEBOOK)

#: Environment of the kernels: one BLAS thread and a fixed hash seed, so that
#: floating-point reductions and set/dict iteration cannot vary between runs.
#: ``NUMPY_MADVISE_HUGEPAGE=0`` changes speed only: numpy otherwise asks Linux for
#: transparent huge pages for every array of 4 MB or more, and where the kernel
#: then compacts memory for each one (THP ``defrag`` set to ``madvise``, as on
#: the 2-core VMs ``make bench`` ran on) a fresh array costs 10-20 times as long to touch
#: (``make bench``, rows "fresh numpy arrays"). The Makefile exports it too.
KERNEL_ENVIRONMENT = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONHASHSEED": "0",
    "NUMPY_MADVISE_HUGEPAGE": "0",
}


#: Where the heavy intermediate results of the chapters are stored (:mod:`compendium.data.cache`).
CACHE_DIR = BUILD_DIR / "cache"


def kernel_environment(cache_dir: str | os.PathLike | None = CACHE_DIR) -> dict[str, str]:
    """The environment a chapter's kernel runs in: this process's, plus :data:`KERNEL_ENVIRONMENT`
    the project root (``ROOT_ENV``) and the cache directory (:data:`compendium.data.cache.CACHE_ENV`; none when
    ``cache_dir`` is None)."""
    from compendium.data.cache import CACHE_ENV

    env = {**os.environ, **KERNEL_ENVIRONMENT, ROOT_ENV: str(ROOT)}  # kernels find the project wherever they run
    if cache_dir is not None:
        env[CACHE_ENV] = str(Path(cache_dir).resolve())
    return env


def compile_package() -> None:
    """Write the package's bytecode (``__pycache__``) now, before any worker or kernel imports it.

    Python writes it on first import, unless ``PYTHONDONTWRITEBYTECODE`` is set, as some
    containers and CI images set it: then every kernel, joblib worker and command compiles
    the package's modules again, about 0.7 s each, and a build starts some sixty of them.
    ``compileall`` writes it regardless and skips files whose bytecode is current; a package
    installed where it cannot write (a wheel in site-packages, compiled by pip) is left alone.
    """
    import compileall

    import compendium

    package = Path(compendium.__file__).resolve().parent
    if os.access(package, os.W_OK):
        compileall.compile_dir(package, quiet=1)


def process_pool(jobs: int | None = None) -> ProcessPoolExecutor:
    """A pool of worker processes that run chapters (each worker drives its own kernels).

    Workers are *spawned*, not forked: a forked worker inherits the parent's threads and
    ZeroMQ/asyncio state, and a kernel client started in one can lose a kernel's reply and
    wait forever on an idle kernel (seen as a chapter that never finishes). The package's
    bytecode is written first (:func:`compile_package`).

    The workers fork their kernels from this process's kernel server (:mod:`compendium.build.kernels`),
    started now if it is not running: its imports (about 3 s of CPU) are made once, in its own process,
    while the workers start, instead of once per worker.
    """
    import multiprocessing

    compile_package()
    env = kernel_environment()
    return ProcessPoolExecutor(max_workers=jobs or os.cpu_count() or 1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_use_kernel_server, initargs=(kernels.server_socket(env), env))


def _use_kernel_server(socket_path: str | None, env: dict) -> None:
    """In a pool worker: fork this worker's kernels from the parent's server at ``socket_path``
    (:func:`compendium.build.kernels.share`); with none (forked kernels switched off), start none."""
    if socket_path is not None:
        kernels.share(socket_path, env)


#: A cell that runs longer than this (seconds) has hung, not worked: the run fails with the cell named
#: instead of holding the build. The slowest cell of the book (chapter 4's ten-seed stability, cold)
#: takes under a minute on two cores, a few minutes on two busy ones.
CELL_TIMEOUT = 600


class NotebookError(RuntimeError):
    """A chapter failed; the message names the notebook, the cell and the error."""


def _kernel_manager_class(socket_dir: str, env: Mapping[str, str] | None = None, fork: bool = True):
    """A kernel manager whose kernels talk over Unix sockets in ``socket_dir`` and start with ``env``.

    With TCP, each kernel picks free ports by binding and releasing them, and
    kernels started at the same moment by parallel chapters can race for a
    port; a sweep of 70 runs once left a chapter waiting forever on a kernel
    that never answered. IPC sockets are files; each run gets its own
    directory for them (jupyter_client's default, ``kernel-ipc`` in the
    working directory, would be shared by chapters run side by side).
    The kernel gets ``env`` (default :func:`kernel_environment`) as its
    environment; the calling process's ``os.environ`` is left alone. With
    ``fork``, it is forked from this process's kernel server
    (:mod:`compendium.build.kernels`), which has the libraries imported, unless
    it would not be the same as a fresh kernel; otherwise, and without
    ``fork``, it starts the ordinary way.
    """
    import time
    from queue import Empty

    from jupyter_client.asynchronous import AsyncKernelClient
    from jupyter_client.manager import AsyncKernelManager
    from jupyter_core.utils import ensure_async
    from traitlets import CaselessStrEnum, default

    class ReadyClient(AsyncKernelClient):
        async def _async_wait_for_ready(self, timeout: float | None = None) -> None:
            """jupyter_client's wait for a kernel it started, without reading IOPub until it is quiet.

            jupyter_client 8 waits for a ``kernel_info`` reply on shell and one message on IOPub (so
            that both are connected), then reads IOPub until it has been silent for 0.2 s: each chapter
            sat idle for 0.2 s. The leftover messages need no draining: nbclient reads IOPub only for
            the replies to its own requests and passes over every other message.
            """
            deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
            while True:
                self.kernel_info()
                try:
                    reply = await ensure_async(self.shell_channel.get_msg(timeout=1))
                except Empty:
                    pass
                else:
                    if reply["msg_type"] == "kernel_info_reply":
                        try:
                            await ensure_async(self.iopub_channel.get_msg(timeout=0.2))
                        except Empty:
                            pass  # IOPub not connected yet: ask again
                        else:
                            self._handle_kernel_info_reply(reply)
                            return
                if not await self._async_is_alive():
                    raise RuntimeError("Kernel died before replying to kernel_info")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Kernel didn't respond in {timeout} seconds")

    class IPCKernelManager(AsyncKernelManager):
        transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

        @default("client_factory")
        def _client_factory_default(self):
            return ReadyClient

        @default("ip")
        def _ip_default(self) -> str:
            return os.path.join(socket_dir, "kernel")

        async def start_kernel(self, **kw):
            kw["env"] = {**kw.get("env", {}), **self._compendium_env}
            return await super().start_kernel(**kw)

        async def _async_interrupt_kernel(self) -> None:
            """Interrupt the kernel, except on the way to stopping it.

            jupyter_client 8's shutdown interrupts the kernel before it kills it
            (``now=True``, the runner's ``shutdown_kernel="immediate"``). The kernel
            is idle by then (every cell has run, or one failed), so the SIGINT
            stops nothing; but when the kernel handles it before the kill arrives,
            ipykernel logs ``ERROR | KeyboardInterrupt caught in kernel`` into the
            build's log, now and then. A timed-out cell is still interrupted
            (nbclient asks for that itself, before any shutdown).
            """
            if self.shutting_down:
                return
            await super()._async_interrupt_kernel()

        def format_kernel_cmd(self, extra_arguments=None):
            command = super().format_kernel_cmd(extra_arguments)
            if fork and command[1:3] == ["-m", "ipykernel_launcher"]:
                server = kernels.server_socket(self._compendium_env)
                if server is not None:
                    return [command[0], "-m", "compendium.build.kernels", "launch", server, *command[3:]]
            return command

    IPCKernelManager._compendium_env = kernel_environment() if env is None else dict(env)

    return IPCKernelManager


@dataclass(frozen=True)
class RunResult:
    """What one chapter run produced."""

    notebook: str
    path: Path
    parameters: dict
    executed: bool = True


def chapter_sources(notebooks_dir: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The jupytext sources of all chapters, in book order (the ledger last)."""
    return sorted(notebooks_dir.glob("[0-9][0-9]_*.py"))


def analysis_sources(notebooks_dir: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The chapters that compute from data (every chapter but the summaries), in book order."""
    return [s for s in chapter_sources(notebooks_dir) if s.stem not in SUMMARY_NOTEBOOKS]


def claim_sources(notebooks_dir: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The chapters that record claims of the paper (a ``claims.Recorder``): what a sweep runs by default."""
    return [s for s in analysis_sources(notebooks_dir) if "claims.Recorder(" in s.read_text(encoding="utf-8")]


def resolve_notebook(name: str | os.PathLike, notebooks_dir: Path = NOTEBOOKS_DIR) -> Path:
    """Find a chapter source from its name (``01_design``), file name or path.

    Raises
    ------
    FileNotFoundError
        Naming the chapters that exist.
    """
    candidate = Path(name)
    if candidate.suffix in {".py", ".ipynb"} and candidate.exists():
        return candidate.with_suffix(".py").resolve()
    stem = candidate.stem
    for source in chapter_sources(notebooks_dir):
        if source.stem == stem or source.stem.split("_", 1)[-1] == stem or source.stem.startswith(f"{stem}_"):
            return source
    known = ", ".join(s.stem for s in chapter_sources(notebooks_dir))
    if not known:
        raise FileNotFoundError(
            f"no chapter named {str(name)!r}: {notebooks_dir} holds no chapters. Run the command inside the "
            f"project's checkout, or name the checkout with {ROOT_ENV}=/path/to/checkout")
    raise FileNotFoundError(f"no chapter named {str(name)!r}; the chapters are: {known}")


def _digest(*parts: bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(hashlib.sha256(part).digest())
    return hasher.hexdigest()


def _module_bytes() -> bytes:
    from importlib import resources

    def walk(folder, prefix=""):  # Traversables, not paths: an editable install gives a MultiplexedPath
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            name = prefix + entry.name
            if entry.is_dir():
                # Subpackages (e.g. compendium/simulate/) count too; templates/ holds links to chapters,
                # which are keyed by their own source.
                if entry.name not in ("templates", "__pycache__"):
                    yield from walk(entry, name + "/")
            elif entry.name.endswith((".py", ".csv", ".css")):
                yield name, entry

    return b"".join(name.encode() + entry.read_bytes() for name, entry in walk(resources.files("compendium")))


def _data_dir_of(parameters: Mapping) -> Path:
    from compendium.data.benchmark import resolve_data_dir

    return resolve_data_dir(parameters.get("data_dir"))


def build_key(source: Path, parameters: Mapping, extra: bytes = b"") -> str:
    """What an executed chapter depends on, as one SHA-256.

    A chapter is re-executed only when this changes: its source, its
    parameters, the data MANIFEST (and data/real's), the helper module (every ``.py`` and
    ``.csv`` of ``compendium``) or the locked environment.
    """
    manifest = _data_dir_of(parameters) / "MANIFEST"
    real = ROOT / "data" / "real" / "MANIFEST"  # the real data of data/real (chapter 10)
    lock = ROOT / "requirements.lock"
    return _digest(
        source.read_bytes(),
        json.dumps(dict(parameters), sort_keys=True, default=str).encode(),
        manifest.read_bytes() if manifest.exists() else b"no manifest",
        real.read_bytes() if real.exists() else b"no real data",
        _module_bytes(),
        lock.read_bytes() if lock.exists() else b"no lock",
        extra,
    )


def direct_dependencies() -> list[str]:
    """The packages ``pyproject.toml`` pins for the book: the base (the audit's) and the ``book`` extra, sorted.

    The test, cluster and other extras are left out.
    """
    import re
    from importlib.metadata import requires

    from compendium.data.paths import DISTRIBUTION

    def for_book(requirement: str) -> bool:
        marker = requirement.partition(";")[2]
        return "extra ==" not in marker or re.search(r"extra\s*==\s*[\"']book[\"']", marker) is not None

    names = {re.split(r"[=<>!~;\[ ]", r, maxsplit=1)[0] for r in requires(DISTRIBUTION) or [] if for_book(r)}
    return sorted(names, key=str.lower)


@functools.cache
def _package_versions() -> dict[str, str]:
    """The installed version of each of :func:`direct_dependencies`, read once per process (reading
    the packages' metadata took 70 ms, once per chapter)."""
    from importlib.metadata import version

    return {name: version(name) for name in direct_dependencies()}


def provenance(source: Path, parameters: Mapping, key: str) -> dict:
    """Where an executed chapter came from: stored in its metadata, shown in the book."""
    manifest = _data_dir_of(parameters) / "MANIFEST"
    try:
        revision = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=12"], cwd=ROOT, capture_output=True, text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        revision = "unknown"
    return {
        "source": str(source.relative_to(ROOT)) if source.is_relative_to(ROOT) else str(source),
        "parameters": {k: parameters[k] for k in sorted(parameters)},
        "data_manifest_sha256": hashlib.sha256(manifest.read_bytes()).hexdigest() if manifest.exists() else None,
        "revision": revision,
        "python": sys.version.split()[0],
        "packages": dict(_package_versions()),
        "build_key": key,
    }


def is_current(target: Path, key: str) -> bool:
    """Whether ``target`` is an executed notebook made from exactly this build key.

    Only the key in the notebook's metadata is read (as JSON, not validated as a notebook: that took
    longer than the rest of a build with nothing to run); an unreadable notebook is simply not current.
    """
    try:
        meta = json.loads(target.read_bytes())["metadata"].get("compendium", {})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    return isinstance(meta, dict) and meta.get("build_key") == key


def current_result(source: str | os.PathLike, out_dir: str | os.PathLike = BOOK_DIR,
                   parameters: Mapping | None = None, extra_key: bytes = b"") -> RunResult | None:
    """The result of an incremental :func:`execute` that finds its notebook current, or None if it would run."""
    source = resolve_notebook(source)
    parameters = dict(parameters or {})
    target = Path(out_dir).resolve() / f"{source.stem}.ipynb"
    if is_current(target, build_key(source, parameters, extra_key)):
        return RunResult(source.stem, target, parameters, executed=False)
    return None


def submit_execute(pool: Executor, source: str | os.PathLike, out_dir: str | os.PathLike = BOOK_DIR,
                   parameters: Mapping | None = None, *, incremental: bool = False, extra_key: bytes = b"") -> Future:
    """``pool.submit(execute, ...)``, except that an incremental run of a current chapter is decided here.

    Its future is then returned done, so a build or sweep with nothing to run starts no worker process
    (spawning two and importing the package in them was most of a warm rebuild's time).
    """
    if incremental:
        done = current_result(source, out_dir, parameters, extra_key)
        if done is not None:
            future: Future = Future()
            future.set_result(done)
            return future
    return pool.submit(execute, source, out_dir, parameters, incremental=incremental, extra_key=extra_key)


def execute(
    source: str | os.PathLike,
    out_dir: str | os.PathLike = BOOK_DIR,
    parameters: Mapping | None = None,
    *,
    kernel_name: str = "python3",
    incremental: bool = False,
    extra_key: bytes = b"",
    fork_kernel: bool = True,
) -> RunResult:
    """Execute one chapter with papermill into ``out_dir/<name>.ipynb``.

    Parameters
    ----------
    source : path-like
        The chapter's jupytext source, or its name.
    out_dir : path-like
        Where the executed notebook goes (``book/`` for the book).
    parameters : mapping, optional
        Values injected after the ``parameters`` cell.
    kernel_name : str
        The Jupyter kernel to run.
    incremental : bool
        Skip the execution when ``out_dir`` already holds a notebook made
        with the same :func:`build_key`.
    extra_key : bytes
        Further inputs the result depends on (the ledger's claims file).
    fork_kernel : bool
        Fork the kernel from this process's kernel server
        (:mod:`compendium.build.kernels`), which is started on first use and
        then serves every later chapter of this process. A process that runs a
        single notebook (``compendium audit``) gains nothing from it: False
        starts the kernel the ordinary way.

    Returns
    -------
    RunResult

    Raises
    ------
    NotebookError
        If a cell raised; the previous executed notebook in ``out_dir`` is
        left as it was.
    """
    source = resolve_notebook(source)
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    parameters = dict(parameters or {})
    target = out_dir / f"{source.stem}.ipynb"
    key = build_key(source, parameters, extra_key)
    if incremental and is_current(target, key):
        return RunResult(source.stem, target, parameters, executed=False)
    import jupytext
    import nbformat
    import papermill

    notebook = jupytext.read(source)
    report.fold_code(notebook)  # the book folds every code cell; a reader unfolds the one they want
    notebook.metadata["kernelspec"] = {"name": kernel_name, "display_name": "Python 3", "language": "python"}
    notebook.metadata["compendium"] = provenance(source, parameters, key)
    # A killed run (SIGKILL runs no clean-up) leaves its scratch folder: the next run of the chapter removes it.
    remove_stale(out_dir, f".{source.stem}.")
    with (_scratch(out_dir, f".{source.stem}.") as scratch,
          tempfile.TemporaryDirectory(prefix="compendium-kernel-") as sockets):  # short: socket paths max ~107 bytes
        unexecuted = scratch / "input.ipynb"
        executed = scratch / target.name
        nbformat.write(notebook, unexecuted)
        try:
            papermill.execute_notebook(
                str(unexecuted),
                str(executed),
                parameters=parameters,
                kernel_name=kernel_name,
                cwd=str(out_dir),
                progress_bar=False,
                report_mode=False,
                execution_timeout=CELL_TIMEOUT,
                kernel_manager_class=_kernel_manager_class(sockets, fork=fork_kernel),
                # Every cell has run and its outputs are kept: stop the kernel (and the joblib workers
                # it started) at once, instead of interrupting it and waiting up to 2.5 s for it to exit.
                shutdown_kernel="immediate",
                # The notebook is written once, when every cell has run (or one has failed), not before and
                # after each cell: a scratch copy nobody watches, and each save validated and serialised the
                # whole notebook (about a second of a chapter's time).
                request_save_on_cell_execute=False,
            )
        except papermill.PapermillExecutionError as error:
            previous = "the previous executed notebook is unchanged" if target.exists() else "nothing was written"
            raise NotebookError(
                f"{source.name}: cell {error.exec_count} raised {error.ename}: {error.evalue}\n"
                f"({previous}; the failing cell begins: "
                f"{error.source.strip().splitlines()[0] if error.source.strip() else ''!r})"
            ) from None
        except Exception as error:  # the kernel died, or a cell hung past CELL_TIMEOUT
            previous = "the previous executed notebook is unchanged" if target.exists() else "nothing was written"
            raise NotebookError(f"{source.name}: {type(error).__name__}: {error} ({previous})") from None
        os.replace(executed, target)
    return RunResult(source.stem, target, parameters, executed=True)


@contextlib.contextmanager
def _scratch(parent: Path, prefix: str):
    """A scratch folder owned by this process (:func:`compendium.data._files.scratch_dir`), removed on exit."""
    folder = scratch_dir(parent, prefix)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def execute_many(
    sources: Iterable[str | os.PathLike],
    out_dir: str | os.PathLike,
    parameters: Mapping | None = None,
    *,
    incremental: bool = False,
    jobs: int | None = None,
) -> list[RunResult]:
    """Execute independent chapters concurrently, each in its own process and kernel.

    Every chapter that can run does run; if any failed, a single
    :class:`NotebookError` lists all failures afterwards.
    """
    sources = list(sources)
    jobs = jobs or min(len(sources), os.cpu_count() or 1) or 1
    with process_pool(jobs) as pool:
        return gather(submit(pool, sources, out_dir, parameters, incremental))


#: Chapters queued before the others. Chapter 4 alone takes about a third of a cold build's chapter time;
#: started first, it runs on one worker while the other works through the rest (longest first), instead
#: of starting late and running alone at the end.
LONGEST_FIRST = ("04_decodability",)


def submit(pool: Executor, sources: list, out_dir, parameters, incremental: bool) -> dict:
    """Queue one :func:`execute` per chapter on ``pool``, :data:`LONGEST_FIRST` first: ``{future: position}``."""
    order = sorted(range(len(sources)), key=lambda number: Path(sources[number]).stem not in LONGEST_FIRST)
    return {submit_execute(pool, sources[number], out_dir, parameters, incremental=incremental): number
            for number in order}


def gather(futures: dict) -> list[RunResult]:
    """Wait for the chapters of :func:`_submit`, print each as it ends, and raise one error naming every failure."""
    results: dict[int, RunResult] = {}
    failures: list[str] = []
    for future in as_completed(futures):
        try:
            result = future.result()
        except NotebookError as error:
            failures.append(str(error))
            continue
        results[futures[future]] = result
        print(f"{result.notebook}: {'executed' if result.executed else 'up to date'}", flush=True)
    if failures:
        raise NotebookError("\n".join(failures))
    return [results[n] for n in sorted(results)]


def run(
    names: Iterable[str | os.PathLike],
    out_dir: str | os.PathLike = BOOK_DIR,
    parameters: Mapping | None = None,
    *,
    claims_file: str | os.PathLike | None = None,
) -> list[RunResult]:
    """Execute several chapters, then write the claims they recorded.

    The ledger written to ``claims_file`` (``out_dir/claims.json`` unless
    given) lists every registry id; ids the chapters did not record are
    ``not-run``. When ``out_dir`` is the book, the ledger covers every
    executed chapter in it, not only the ones just run.
    """
    out_dir = Path(out_dir)
    results = execute_many(names, out_dir, parameters)
    if out_dir.resolve() == BOOK_DIR.resolve():
        executed = [BOOK_DIR / f"{s.stem}.ipynb" for s in analysis_sources()]
        paths = [p for p in executed if p.exists()]
        rows = claims.ledger(claims.collect(paths))
    else:
        paths = [r.path for r in results]
        rows = claims.ledger(claims.collect(paths))
    claims.write_ledger(claims_file or out_dir / "claims.json", rows, real_checks.collect(paths))
    return results


