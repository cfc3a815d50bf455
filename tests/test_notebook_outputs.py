"""Every table and figure of a chapter goes through ``report.Outputs``; every figure has alt text.

These checks read the chapter sources (``notebooks/NN_topic.py`` and the
paired ``.ipynb``) without executing anything:

- a code cell that calls ``out.figure(`` carries non-empty alt text in its
  metadata under ``mystnb: image: alt`` (the key myst-nb reads for
  ``render_image_options``, so the alt lands on the rendered ``<img>``), in
  the ``.py`` and in the paired ``.ipynb``, and shows at most one figure;
- no cell calls ``plt.show()``;
- literal table and figure names are lower-case and unique within a chapter, and
  not repeated by a loop (computed names, e.g. one table per section, are left
  to ``Outputs``, which refuses a repeated or malformed name when it runs);
- no cell displays a pandas ``.style`` expression except as the ``styler`` of
  ``out.table``, and ``out.table`` is given the plain DataFrame, not a Styler;
- no cell shows a bare table: its last expression and its ``display(...)``
  calls show only Markdown, HTML, the data banner or a widget. Callbacks of
  live widgets (code inside a ``def``) are exempt.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import jupytext
import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

from compendium.build import runner

SOURCES = runner.chapter_sources()
NAME = re.compile(r"[a-z0-9][a-z0-9_]*")
#: Calls whose result a cell may show directly: prose, raw HTML, the data banner, widgets.
# The audit report's prose helpers (compendium.audit.core: omitted, design_note, missing_note) return Markdown.
SHOWABLE = {
    "Markdown",
    "HTML",
    "data_banner",
    "banner",
    "VBox",
    "HBox",
    "Output",
    "omitted",
    "design_note",
    "missing_note",
    "g_interval_note",
    "raters_needed_note",
    "cut_note",
}


def parse(source: str) -> ast.Module:
    """A cell's source as Python (IPython magics turned into calls)."""
    return ast.parse(TransformerManager().transform_cell(source))


def code_cells(path: Path) -> list[tuple[int, nbformat.NotebookNode, ast.Module]]:
    nb = jupytext.read(path)
    return [(i, c, parse(c.source)) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def called(node: ast.AST) -> str | None:
    """The name a call is made through: ``f`` for ``f(...)`` and ``a.b.f(...)``."""
    if isinstance(node, ast.Call):
        func = node.func
        return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return None


def receiver(node: ast.Call) -> str | None:
    """``out`` for ``out.table(...)``."""
    func = node.func
    return func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None


def bound_to(cells, callee: str) -> set[str]:
    """Names bound to ``callee(...)`` (e.g. ``report.Outputs``) anywhere in the chapter."""
    names = set()
    for _, _, tree in cells:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and called(node.value) == callee:
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def outputs_names(cells) -> set[str]:
    """Names bound to ``report.Outputs(...)`` anywhere in the chapter."""
    return bound_to(cells, "Outputs") or {"out"}


def output_calls(tree: ast.AST, outs: set[str], method: str) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and called(n) == method and receiver(n) in outs]


def figures_on_one_path(statements, outs: set[str]) -> int:
    """The most figures one execution of a cell can show: the branches of an ``if`` are alternatives."""
    count = 0
    for node in statements:
        if isinstance(node, ast.If):
            count += max(figures_on_one_path(node.body, outs), figures_on_one_path(node.orelse, outs))
        else:
            count += len(output_calls(node, outs, "figure"))
    return count


def uses_style(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "style" for n in ast.walk(node))


def outside_functions(tree: ast.AST):
    """The nodes of a cell, skipping the bodies of functions (widget callbacks)."""
    stack = list(ast.iter_child_nodes(tree))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def shown_last(cell, tree: ast.Module) -> ast.AST | None:
    """The expression IPython displays at the end of the cell.

    A trailing ``;`` does not count as hiding it: nbval re-executes cells
    without history, and IPython then cannot see the semicolon, so the
    re-executed cell shows what the book's did not.
    """
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return None
    return tree.body[-1].value


def recorder_names(cells) -> set[str]:
    """Names bound to ``claims.Recorder(...)``: their ``record()`` displays the record and returns None."""
    return bound_to(cells, "Recorder")


def cell_id(path: Path, index: int, cell) -> str:
    return f"{path.name} cell {index} ({cell.source.splitlines()[0][:60]!r})"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_figure_cell_has_alt_text_and_one_figure(source: Path):
    cells = code_cells(source)
    outs = outputs_names(cells)
    paired = nbformat.read(source.with_suffix(".ipynb"), as_version=4).cells
    problems = []
    for index, cell, tree in cells:
        figures = output_calls(tree, outs, "figure")
        if not figures:
            continue
        for where, metadata in (("py", cell.metadata), ("ipynb", paired[index].metadata)):
            alt = metadata.get("mystnb", {}).get("image", {}).get("alt")
            if not (isinstance(alt, str) and alt.strip()):
                problems.append(f"{cell_id(source, index, cell)}: no mystnb.image.alt in the {where} cell metadata")
        shown = figures_on_one_path(tree.body, outs)
        if shown > 1:
            problems.append(f"{cell_id(source, index, cell)}: {shown} figures in one cell share one alt text")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_no_cell_calls_plt_show(source: Path):
    shows = [
        cell_id(source, index, cell)
        for index, cell, tree in code_cells(source)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and called(node) == "show" and receiver(node) in {"plt", "pyplot"}
    ]
    assert not shows, f"plt.show() instead of out.figure(fig, name, caption=...): {shows}"


def in_loop(tree: ast.AST, target: ast.AST) -> bool:
    """Whether ``target`` runs inside a ``for`` or ``while`` loop (or a comprehension) of ``tree``."""
    loops = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    return any(isinstance(loop, loops) and any(n is target for n in ast.walk(loop)) for loop in ast.walk(tree))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_table_and_figure_names_are_unique(source: Path):
    cells = code_cells(source)
    outs = outputs_names(cells)
    seen: dict[str, str] = {}
    problems = []
    for index, cell, tree in cells:
        for call in output_calls(tree, outs, "table") + output_calls(tree, outs, "figure"):
            name = (
                call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "name"), None)
            )
            where = f"{cell_id(source, index, cell)}, line {call.lineno}"
            if name is None:
                problems.append(f"{where}: no name")
            elif not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                continue  # computed: Outputs checks it when the chapter runs
            elif in_loop(tree, call):
                problems.append(f"{where}: the name {name.value!r} is repeated by a loop")
            elif not NAME.fullmatch(name.value):
                problems.append(f"{where}: name {name.value!r} is not [a-z0-9_]+")
            elif name.value in seen:
                problems.append(f"{where}: name {name.value!r} is already used in {seen[name.value]}")
            else:
                seen[name.value] = where
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_styled_tables_are_shown_only_through_out_table(source: Path):
    cells = code_cells(source)
    outs = outputs_names(cells)
    problems = []
    for index, cell, tree in cells:
        where = cell_id(source, index, cell)
        stylers = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and uses_style(n.value)
                   for t in n.targets if isinstance(t, ast.Name)}

        def styled(node):
            return uses_style(node) or any(isinstance(n, ast.Name) and n.id in stylers for n in ast.walk(node))

        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and called(node) == "display" and any(styled(a) for a in node.args):
                problems.append(f"{where}, line {node.lineno}: display() of a Styler")
        for call in output_calls(tree, outs, "table"):
            if call.args and styled(call.args[0]):
                problems.append(f"{where}, line {call.lineno}: out.table() is given a Styler as its frame")
        last = shown_last(cell, tree)
        if last is not None and styled(last) and not (isinstance(last, ast.Call) and receiver(last) in outs):
            problems.append(f"{where}: the cell ends in a .style expression")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_no_cell_shows_a_bare_table(source: Path):
    """Whatever a cell shows itself is prose, HTML, the data banner or a widget: tables go through out.table."""
    cells = code_cells(source)
    outs = outputs_names(cells)
    recorders = recorder_names(cells)
    showable = {
        t.id
        for _, _, tree in cells
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and called(n.value) in SHOWABLE
        for t in n.targets
        if isinstance(t, ast.Name)
    }

    def fine(node) -> bool:
        if isinstance(node, ast.Call):
            return (called(node) in SHOWABLE or receiver(node) in outs
                    or (receiver(node) in recorders and called(node) == "record"))
        if isinstance(node, ast.IfExp):
            return fine(node.body) and fine(node.orelse)
        return isinstance(node, ast.Name) and node.id in showable

    problems = []
    for index, cell, tree in cells:
        where = cell_id(source, index, cell)
        for node in outside_functions(tree):
            if isinstance(node, ast.Call) and called(node) == "display" and not all(fine(a) for a in node.args):
                problems.append(f"{where}, line {node.lineno}: display({ast.unparse(node.args[0])[:60]})")
        last = shown_last(cell, tree)
        if last is not None and not fine(last):
            problems.append(f"{where}: the cell ends in {ast.unparse(last)[:60]!r} (assign it if it should show "
                            "nothing; a trailing ';' is not seen by nbval)")
    assert not problems, "tables must be shown with out.table(frame, name, ...):\n" + "\n".join(problems)
