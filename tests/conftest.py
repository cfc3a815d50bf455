"""Shared fixtures: a tiny, valid benchmark data directory.

``tiny_data_dir`` writes, with plain pandas and numpy (independently of
``compendium.simulate``), a data directory with the full layout of
:data:`compendium.data.schema.DATA_FILES` plus a correct ``MANIFEST``:

* ``sentences.csv``: 12 sentences, 6 Bangla (one multi-label, ``joy;love``,
  and one single non-shared label, ``love``), 3 English, 3 Hindi (incl.
  ``disgust`` and ``neutral``). Sentences ``bn-01`` to ``bn-04`` are flagged
  ``human_study``; two sentences per language are flagged ``geometry_sample``.
  One English text holds a comma, so it is quoted in the file.
* ``generations.csv``: every sentence x all 8 systems (96 rows). One output
  (``bn-01``, ``deepseek-v3.2``) spans two lines, so CSV line numbers after it
  are not data-row numbers + 1, and one output is empty.
* ``ratings.csv``: the fully crossed 4 items x 8 systems x 3 annotators
  design (96 rows), ratings 1-5.
* ``embeddings/``: ``index.csv`` with the 6 geometry-sample ids and one
  ``float32`` matrix per encoder with that encoder's dimension.

The content is deterministic (fixed seed), so tests may pin values. To mutate
a copy, edit the files under the fixture's path (each test gets its own
``tmp_path``) and call ``refresh_manifest(path)`` afterwards, unless the test
is about the MANIFEST itself. ``tiny_benchmark`` is the loaded directory.

At the end: the xdist scopes of ``make test``, the browser tests' fixtures (``built_book``, ``browser``,
``book_pages``: one Chromium per test process and the book's pages as it read them, tests/browser_pages.py),
and nbval's kernels forked like the book's (``fork_nbval_kernels``).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

# pytest keeps the test modules it has rewritten (their asserts) as bytecode beside them, unless
# PYTHONDONTWRITEBYTECODE is set, as some containers and CI images set it: then each of make test's
# workers parses and rewrites every test module again on every run (about 4 s of collecting's 9).
# As runner.compile_package does for the package, the tests' bytecode is written regardless (to
# tests/__pycache__, which git ignores); the modules below are imported after this line.
sys.dont_write_bytecode = False

from compendium.data import schema

#: (sentence_id, language, text, labels, human_study, geometry_sample)
TINY_SENTENCES: tuple[tuple[str, str, str, str, bool, bool], ...] = (
    ("bn-01", "bn", "আমি আজ খুব খুশি।", "joy", True, True),
    ("bn-02", "bn", "সে অন্ধকারে ভয় পেয়েছে।", "fear", True, False),
    ("bn-03", "bn", "তোমাকে পেয়ে আমি আনন্দিত, ভালোবাসি।", "joy;love", True, True),
    ("bn-04", "bn", "এটা খুব দুঃখের খবর।", "sadness", True, False),
    ("bn-05", "bn", "আমি ভীষণ রেগে আছি।", "anger", False, False),
    ("bn-06", "bn", "মায়ের প্রতি ভালোবাসা।", "love", False, False),
    ("en-01", "en", "I can't believe it, we won!", "surprise", False, True),
    ("en-02", "en", "This makes me so angry.", "anger", False, True),
    ("en-03", "en", "I love you, my friend.", "love", False, False),
    ("hi-01", "hi", "मुझे अंधेरे से डर लगता है।", "fear", False, True),
    ("hi-02", "hi", "यह बहुत घिनौना है।", "disgust", False, False),
    ("hi-03", "hi", "आज मौसम ठीक है।", "neutral", False, True),
)

TINY_N_SENTENCES = len(TINY_SENTENCES)
TINY_HUMAN_STUDY = tuple(s[0] for s in TINY_SENTENCES if s[4])
TINY_GEOMETRY = tuple(s[0] for s in TINY_SENTENCES if s[5])
TINY_GENERATOR = "tests/conftest.py (tiny_data_dir)"

_EMOJIS = ("😀", "😢", "😡", "😱", "😍", "😮", "🤢", "😐", "❤️", "🎉")


def sha256_file(path: Path) -> str:
    """SHA-256 hex digest of a file."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_manifest(data_dir: Path, *, generator: str = TINY_GENERATOR, seed: int = 0) -> Path:
    """(Re)write ``data_dir/MANIFEST`` for every file below ``data_dir``.

    The format is the simulator's: ``# key: value`` header comments, then
    ``sha256sum`` lines (``<digest>  <relative path>``), sorted by path.
    """
    data_dir = Path(data_dir)
    files = sorted(
        p.relative_to(data_dir).as_posix()
        for p in data_dir.rglob("*")
        if p.is_file() and p.name != schema.MANIFEST_FILE
    )
    lines = [
        f"# generator: {generator}",
        f"# seed: {seed}",
        f"# parameters_sha256: {hashlib.sha256(b'tiny').hexdigest()}",
        *(f"{sha256_file(data_dir / f)}  {f}" for f in files),
    ]
    path = data_dir / schema.MANIFEST_FILE
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_tiny_data_dir(data_dir: Path, *, seed: int = 0) -> Path:
    """Write the tiny valid data directory described in the module docstring."""
    rng = np.random.default_rng(seed)
    data_dir = Path(data_dir)
    (data_dir / schema.EMBEDDINGS_DIR).mkdir(parents=True, exist_ok=True)

    sentences = pd.DataFrame(
        TINY_SENTENCES,
        columns=["sentence_id", "language", "text", "labels", "human_study", "geometry_sample"],
    )
    labels = sentences["labels"].str.split(schema.LABEL_SEPARATOR)
    sentences["shared_single"] = (labels.str.len() == 1) & labels.str[0].isin(schema.SHARED_EMOTIONS)
    sentences = sentences[list(schema.COLUMNS[schema.SENTENCES_FILE])]

    rows = []
    for sid, _, text, *_ in TINY_SENTENCES:
        for system in schema.SYSTEMS:
            n = int(rng.integers(1, 6))
            output = "".join(rng.choice(_EMOJIS, size=n))
            rows.append((sid, system, output, int(rng.choice([1, 1, 1, 2, 3])),
                         40 + len(text.encode()) // 3, int(rng.integers(2, 30))))
    generations = pd.DataFrame(rows, columns=list(schema.COLUMNS[schema.GENERATIONS_FILE]))
    multi_line = (generations["sentence_id"] == "bn-01") & (generations["system"] == "deepseek-v3.2")
    generations.loc[multi_line, "output"] = "😀\n😊"
    empty = (generations["sentence_id"] == "hi-03") & (generations["system"] == "grok-4-fast")
    generations.loc[empty, "output"] = ""

    ratings = pd.DataFrame(
        [(sid, system, annotator, int(rng.integers(1, 6)))
         for sid in TINY_HUMAN_STUDY for system in schema.SYSTEMS for annotator in schema.ANNOTATORS],
        columns=list(schema.COLUMNS[schema.RATINGS_FILE]),
    )

    for frame, file in ((sentences, schema.SENTENCES_FILE), (generations, schema.GENERATIONS_FILE),
                        (ratings, schema.RATINGS_FILE),
                        (pd.DataFrame({"sentence_id": TINY_GEOMETRY}), schema.EMBEDDING_INDEX_FILE)):
        frame.to_csv(data_dir / file, index=False, lineterminator="\n", encoding="utf-8")
    for encoder, dim in schema.ENCODERS.items():
        matrix = rng.standard_normal((len(TINY_GEOMETRY), dim)).astype(np.float32)
        np.save(data_dir / schema.embedding_file(encoder), matrix)
    write_manifest(data_dir)
    return data_dir


@pytest.fixture
def tiny_data_dir(tmp_path: Path) -> Path:
    """A fresh tiny valid data directory (``tmp_path / "data"``), safe to mutate."""
    return write_tiny_data_dir(tmp_path / "data")


@pytest.fixture
def refresh_manifest():
    """The function ``write_manifest(data_dir, *, generator=..., seed=0)``."""
    return write_manifest


@pytest.fixture
def tiny_benchmark(tiny_data_dir: Path):
    """``compendium.data.benchmark.load_benchmark`` of ``tiny_data_dir``."""
    from compendium.data.benchmark import load_benchmark

    return load_benchmark(tiny_data_dir)


@pytest.fixture(autouse=True)
def _no_build_cache(monkeypatch):
    """Tests compute afresh: ``make test`` names the build's cache for nbval's kernels only.

    (nbval's cells are not test functions, so this fixture does not reach
    them; the chapters they re-execute read ``_build/cache``.)
    """
    from compendium.data.cache import CACHE_ENV

    monkeypatch.delenv(CACHE_ENV, raising=False)


#: The unit of the browser tests: they share one Chromium per test process and the pages it has read
#: (tests/browser_pages.py).
BROWSER_SCOPE = "browser"
#: Test modules whose tests share a costly fixture, by the name of the unit that keeps them together: the wheel
#: built and installed (test_wheel), and the Chromium and the pages it has read (:data:`BROWSER_SCOPE`).
#: ``make test`` keeps each unit on one worker, so the fixture is made once.
ONE_WORKER_MODULES = {
    "tests/test_wheel.py": "tests/test_wheel.py",
    "tests/test_audit_browser.py": BROWSER_SCOPE,
    "tests/test_book_layout.py": BROWSER_SCOPE,
    "tests/test_browser.py": BROWSER_SCOPE,
}


def xdist_scope(nodeid: str) -> str:
    """The unit ``make test`` hands to one xdist worker: a notebook's cells together (one kernel runs them
    in order), the modules of :data:`ONE_WORKER_MODULES` that share a unit together (under that unit's name),
    every other test on its own."""
    path = nodeid.split("::", 1)[0]
    if path.endswith(".ipynb"):
        return path
    return ONE_WORKER_MODULES.get(path, nodeid)


#: The units ``make test`` hands out first, longest first (about how many seconds each takes on two busy cores,
#: from ``--durations``); every other unit follows in collection order. xdist's loadscope would order units by
#: their number of tests, which puts the long single tests last, where one worker runs them alone after the
#: other has finished.
LONGEST_FIRST = (
    BROWSER_SCOPE,  # 75 s: every page of the book at two widths, the audit reports, the explorer
    "tests/test_wheel.py",  # 42 s: the wheel built and installed twice
    "tests/test_lab.py::test_a_student_runs_chapter_2_and_the_widget_follows_the_kernel_free_explorer",  # 23 s
    "tests/test_sweep.py::test_a_data_seed_sweep_works_from_a_fresh_clone",  # 22 s
    "tests/test_gstudy.py::test_g_bootstrap_interval_covers_the_true_g_on_incomplete_designs",  # 21 s
    "book/04_decodability.ipynb",  # 19 s
    # 15 s
    "tests/test_book.py::test_the_rerun_example_reports_the_reversal_of_section_2_6_and_leaves_the_book_untouched",
    "book/03_length.ipynb",  # 12 s
    "book/06_cost.ipynb",
    "tests/test_book.py::test_rerun_with_another_seed_elsewhere_leaves_the_book_untouched_and_gives_the_same_bytes",
    "book/01_design.ipynb",  # 11 s
    "book/08_audit.ipynb",
    "book/09_system_cards.ipynb",
    "tests/test_corpora.py::test_every_tokenizer_and_loader_works_without_network",  # 10 s
    "tests/test_pipeline.py::test_chapters_run_side_by_side_in_one_directory_keep_to_their_own_kernels",
    "tests/test_pipeline.py::test_the_robustness_chapter_shows_a_sweep",
    "book/02_reliability.ipynb",  # 8 s
    "book/07_leakage.ipynb",
    "book/05_geometry.ipynb",
    "tests/test_audit.py::test_command_end_to_end",
    "tests/test_audit_trust.py::test_command_takes_missing",
)


def pytest_configure_node(node):
    """The controller of a ``--dist loadscope`` run asks its workers, which collect the tests, to put
    :data:`LONGEST_FIRST` first (a worker's own ``dist`` option reads "no")."""
    node.workerinput["longest_first"] = node.config.getvalue("dist") == "loadscope"


def pytest_collection_modifyitems(config, items):
    """In a worker of ``make test``'s ``--dist loadscope``, the units of :data:`LONGEST_FIRST` come first, in
    its order (a stable sort: a notebook's cells keep theirs); :func:`pytest_xdist_make_scheduler` keeps the
    order. A run without workers keeps pytest's."""
    if not getattr(config, "workerinput", {}).get("longest_first"):
        return
    rank = {scope: number for number, scope in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(xdist_scope(item.nodeid), len(rank)))


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadscope`` with the scopes of :func:`xdist_scope` instead of xdist's module-or-class ones,
    handed out in collection order (:func:`pytest_collection_modifyitems`), not by their number of tests.

    (xdist's ``loadgroup`` would do this with ``xdist_group`` marks, but it renames ``item._nodeid``,
    which pytest 9 no longer reads, so its groups are ignored.)"""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False

    class NotebookScopes(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_scope(nodeid)

    return NotebookScopes(config, log)


# --- the browser tests: one Chromium per test process (tests/browser_pages.py) ------------------------------


@pytest.fixture(scope="session")
def built_book() -> Path:
    """``_build/html``; the test fails if the book has not been built (``make book``)."""
    import browser_pages

    return browser_pages.check_built_book()


@pytest.fixture
def browser():
    """The test process's headless Chromium, launched on first use; the test fails if there is none."""
    import browser_pages

    return browser_pages.CHROMIUM_SESSION.browser()


@pytest.fixture
def book_pages(built_book):
    """The pages of the built book as read at 1280 px and 390 px, each visit made once per test process (the
    Chromium is launched only when a page not read yet is asked for)."""
    import browser_pages

    browser_pages.check_chromium()
    return browser_pages.RECORDS


def _is_browser_test(item) -> bool:
    return item is not None and ONE_WORKER_MODULES.get(item.nodeid.split("::", 1)[0]) == BROWSER_SCOPE


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """Once the next test is not a browser test, close the shared Chromium (after the test's own fixtures): a
    running Playwright leaves an event loop marked running, which ``asyncio.run`` and another ``sync_playwright``
    (tests/test_lab.py) refuse. The pages it has read stay for the rest of the process."""
    try:
        return (yield)
    finally:
        if not _is_browser_test(nextitem) and "browser_pages" in sys.modules:
            sys.modules["browser_pages"].CHROMIUM_SESSION.close()


def pytest_sessionfinish(session):
    """The shared Chromium is closed at the end in any case."""
    if "browser_pages" in sys.modules:
        sys.modules["browser_pages"].CHROMIUM_SESSION.close()


def pytest_configure(config):
    """Under ``make test``'s ``--nbval --nbval-current-env``, nbval's kernels are forked like the book's
    (:func:`fork_nbval_kernels`)."""
    if config.getoption("nbval", default=False) and config.getoption("nbval_current_env", default=False):
        fork_nbval_kernels()


def fork_nbval_kernels() -> None:
    """Start each kernel nbval re-executes a chapter in from this process's kernel server, as the build does.

    nbval starts a kernel from ipykernel's kernelspec of the current environment
    (``ipykernel.kernelspec.get_kernel_dict``); the spec returned here names the launcher of
    :mod:`compendium.build.kernels` in place of ``ipykernel_launcher``. The server is started (or, if this
    process's environment has changed since, started again) as each kernel starts, with this process's
    environment, which is the kernel's; a kernel the server would not start as a fresh one would be (see
    :func:`compendium.build.kernels.differences`) starts the ordinary way. Each kernel then skips importing
    numpy, pandas, SciPy, matplotlib, scikit-learn and statsmodels: nbval over the book took 58 s instead of
    77 s in one process. ``COMPENDIUM_FORK_KERNELS=0`` switches it off.
    """
    import ipykernel.kernelspec

    from compendium.build import kernels

    plain = ipykernel.kernelspec.get_kernel_dict

    def get_kernel_dict(extra_arguments=None, python_arguments=None):
        spec = plain(extra_arguments, python_arguments)
        argv = spec["argv"]
        if argv[1:3] == ["-m", "ipykernel_launcher"]:
            server = kernels.server_socket(dict(os.environ))
            if server is not None:
                spec = {**spec, "argv": [argv[0], "-m", "compendium.build.kernels", "launch", server, *argv[3:]]}
        return spec

    ipykernel.kernelspec.get_kernel_dict = get_kernel_dict
