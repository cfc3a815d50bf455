"""The package's wings and the rule between them, read from the source.

Each wing imports only from the wings below it (``src/compendium/__init__.py``
and CONTRIBUTING.md say why). The imports are read with :mod:`ast`, every
import statement at any depth (a function's lazy import counts), so a test
cannot be dodged by moving an import into a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "compendium"

#: Rank of each wing: a module may import from its own wing and from wings of lower rank.
#: ``stats`` and ``data`` share the bottom and may not import each other.
RANK = {"data": 0, "stats": 0, "simulate": 1, "analyses": 2, "audit": 3, "book": 4, "build": 5, "cli": 6}
#: What the top level may hold besides the wings.
TOP_LEVEL_FILES = {"__init__.py", "__main__.py", "cli.py"}
MAX_TOP_LEVEL = 8


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Dotted name -> file of every module of the package (templates are chapters, not modules)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        if "templates" in rel.parts:
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) of every import of the package in one module, relative ones resolved."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "compendium"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "compendium":
                continue
            # ``from compendium.book import report``: each name may be a module or a name in one;
            # :func:`graph` resolves it to the nearest module that exists
            found += [(node.lineno, f"{target}.{a.name}") for a in node.names]
    return found


def wing(name: str) -> str | None:
    parts = name.split(".")
    if len(parts) < 2:
        return None  # the package itself
    return parts[1]


def graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (a name resolved to the nearest existing module)."""
    mods = modules(root)
    out: dict[str, set[str]] = {}
    for name, path in mods.items():
        targets = set()
        for _, target in imports(name, path):
            while target not in mods and "." in target:
                target = target.rpartition(".")[0]  # `from compendium.x import name`: the module x
            if target in mods and target != name:
                targets.add(target)
        out[name] = targets
    return out


def violations(root: Path = PACKAGE) -> list[str]:
    """Every import that goes up, or sideways between the two bottom wings."""
    mods = modules(root)
    bad = []
    for name, path in mods.items():
        source = wing(name)
        if source is None:
            continue
        for line, target in imports(name, path):
            goal = wing(target)
            if goal is None or goal == source:
                continue
            if goal not in RANK or source not in RANK:
                bad.append(f"{path.name}:{line}: {name} -> {target}: not a wing")
            elif RANK[goal] > RANK[source] or (RANK[goal] == RANK[source]):
                bad.append(f"{path.relative_to(root)}:{line}: {name} ({source}) imports {target} ({goal})")
    return bad


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), or of one importing itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def only_reexports(path: Path) -> bool:
    """Whether a module (not a package's ``__init__``) holds nothing but imports, ``__all__`` and a docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.Assign) and all(getattr(t, "id", "") in ("__all__", "__test__") for t in node.targets):
            continue
        return False
    return True


# ----------------------------------------------------------------------------- the package as it is

def test_no_import_goes_up_a_wing():
    assert violations() == []


def test_no_circle_of_imports():
    assert cycles(graph()) == []


#: The most lines a module may have: past it, split it by what it does.
MAX_MODULE_LINES = 900


def test_no_module_is_over_the_line_limit():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}


def test_top_level_holds_the_wings_and_little_else():
    entries = [p for p in PACKAGE.iterdir() if p.name not in TOP_LEVEL_FILES and p.name != "__pycache__"]
    assert len(entries) <= MAX_TOP_LEVEL, sorted(p.name for p in entries)
    assert sorted(p.name for p in entries if p.is_dir()) == sorted(w for w in RANK if w != "cli")
    assert not [p.name for p in entries if p.suffix == ".py"]


def test_every_wing_states_its_rule():
    for name in RANK:
        if name == "cli":
            continue
        doc = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text(encoding="utf-8")))
        assert doc and ("rule" in doc or "never" in doc), name


def test_no_module_only_reexports_another():
    shims = [str(p.relative_to(PACKAGE)) for p in modules().values() if p.name != "__init__.py" and only_reexports(p)]
    assert shims == []


def test_a_package_init_exposes_only_its_own_submodules():
    """A subpackage's ``__init__`` may gather its own modules' names (as ``sklearn.linear_model`` does), nothing
    else."""
    for name, path in modules().items():
        if path.name != "__init__.py" or name == "compendium":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level only: what the package exposes
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("compendium"):
                assert node.module.startswith(name + "."), f"{name} re-exports {node.module}"


# ----------------------------------------------------------------------------- the checks can fail

def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / "compendium" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "compendium"


def test_an_upward_import_is_found(tmp_path):
    root = _write(tmp_path, {
        "__init__.py": "", "stats/__init__.py": "", "book/__init__.py": "", "book/report.py": "X = 1\n",
        "stats/agreement.py": "def f():\n    from compendium.book import report\n    return report\n",
    })
    found = violations(root)
    assert len(found) == 1 and "compendium.stats.agreement (stats) imports compendium.book.report (book)" in found[0]


def test_a_sideways_import_between_the_bottom_wings_is_found(tmp_path):
    root = _write(tmp_path, {"__init__.py": "", "stats/__init__.py": "", "data/__init__.py": "",
                             "data/schema.py": "X = 1\n", "stats/tidy.py": "from ..data.schema import X\n"})
    assert len(violations(root)) == 1


def test_a_downward_import_passes(tmp_path):
    root = _write(tmp_path, {"__init__.py": "", "stats/__init__.py": "", "analyses/__init__.py": "",
                             "stats/mixed.py": "X = 1\n", "analyses/length.py": "from compendium.stats import mixed\n"})
    assert violations(root) == []


def test_a_circle_is_found(tmp_path):
    root = _write(tmp_path, {"__init__.py": "", "book/__init__.py": "",
                             "book/pipeline.py": "def f():\n    from . import sweep\n",
                             "book/sweep.py": "from compendium.book import pipeline\n"})
    assert cycles(graph(root)) == [["compendium.book.pipeline", "compendium.book.sweep"]]


def test_a_shim_is_found(tmp_path):
    shim = tmp_path / "shim.py"
    shim.write_text('"""Moved."""\nfrom .x import *  # noqa\n__all__ = ["f"]\n', encoding="utf-8")
    real = tmp_path / "real.py"
    real.write_text("from .x import f\n\n\ndef g():\n    return f()\n", encoding="utf-8")
    assert only_reexports(shim) and not only_reexports(real)


@pytest.mark.parametrize("name", ["ITEM", "SYSTEM", "RATER", "RATING"])
def test_the_statistics_default_columns_are_the_schemas(name):
    """``stats.tidy`` spells the ratings table's columns itself, so that stats need not import data."""
    from compendium.data.schema import COLUMNS, RATINGS_FILE
    from compendium.stats import tidy

    assert getattr(tidy, name) == COLUMNS[RATINGS_FILE][["ITEM", "SYSTEM", "RATER", "RATING"].index(name)]


def test_every_package_directory_tracks_its_init():
    """A package's ``__init__.py`` is in git, not only on this disk.

    An unanchored ``build/`` in ``.gitignore`` once hid ``src/compendium/build/__init__.py``: every test passed
    here, and a clean checkout imported the wing as a namespace package without its docstring.
    """
    import subprocess

    root = PACKAGE.parents[1]
    listed = subprocess.run(["git", "ls-files", "src"], cwd=root, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    tracked = set(listed.stdout.split())
    # templates/ holds notebooks in jupytext's percent format: package data, not modules
    folders = {str(Path(f).parent) for f in tracked if f.endswith(".py") and "/templates" not in f}
    assert folders, "git lists no source files"
    assert sorted(d for d in folders if f"{d}/__init__.py" not in tracked) == []


#: Functions allowed over :data:`MAX_FUNCTION_LINES`, each with the reason it stays whole.
LONG_FUNCTIONS = {
    # One pass of the simulator's draws in a fixed order: the order is the seed stream that made the shipped
    # data (data/MANIFEST); a split that reordered two draws would change every simulated number.
    "simulate.text._emissions": "the draw order is the data",
    # The stacked L-BFGS loop keeps the state of every problem between iterations; split, it would pass a dozen
    # arrays between helpers on each step.
    "stats.decoder.fit_many": "one solver loop over shared state",
}
MAX_FUNCTION_LINES = 100


def test_no_function_is_longer_than_a_reader_holds_in_their_head():
    """Issue 68: no function over 100 lines outside its docstring, except the ones listed with their reason."""
    long = {}
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                        first.value.value, str):
                    length -= first.end_lineno - first.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long[f"{name.removeprefix('compendium.')}.{node.name}"] = length
    assert sorted(long) == sorted(LONG_FUNCTIONS), long
