"""The chapter sources: paired and in sync, parameterised, and thin."""

from pathlib import Path

import jupytext
import nbformat
import pytest

from compendium.build import runner

SOURCES = runner.chapter_sources()


def test_there_are_chapters():
    assert [s.stem for s in SOURCES][:1] == ["01_design"] and SOURCES[-1].stem == runner.LEDGER_NOTEBOOK


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_paired_notebook_is_in_sync(source: Path):
    """notebooks/NN_topic.py and NN_topic.ipynb hold the same cells (run `make sync` if this fails)."""
    paired = source.with_suffix(".ipynb")
    assert paired.exists(), f"{paired.name} is missing; run `make sync`"
    from_py = jupytext.read(source)
    from_ipynb = nbformat.read(paired, as_version=4)
    assert [(c.cell_type, c.source) for c in from_py.cells] == [(c.cell_type, c.source) for c in from_ipynb.cells], (
        f"{source.name} and {paired.name} differ; run `make sync`"
    )
    assert all(not c.get("outputs") for c in from_ipynb.cells if c.cell_type == "code"), (
        f"{paired.name} carries outputs; executed notebooks belong in book/, written by the pipeline"
    )


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_chapter_has_a_parameters_cell_with_seed_and_data_dir(source: Path):
    nb = jupytext.read(source)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, f"{source.name}: exactly one cell must be tagged 'parameters'"
    names = {line.split("=")[0].strip() for line in tagged[0].source.splitlines() if "=" in line}
    assert {"seed", "data_dir"} <= names


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_notebook_cells_stay_thin(source: Path):
    """Statistics live in src/compendium: a code cell longer than a screen belongs in the module."""
    nb = jupytext.read(source)
    long_cells = [
        c.source.splitlines()[0] for c in nb.cells if c.cell_type == "code" and len(c.source.splitlines()) > 40
    ]
    assert not long_cells, f"{source.name}: code cells over 40 lines: {long_cells}"


def test_resolve_notebook_accepts_names_and_reports_the_known_ones():
    assert runner.resolve_notebook("01_design").name == "01_design.py"
    assert runner.resolve_notebook("design").name == "01_design.py"
    assert runner.resolve_notebook("notebooks/01_design.ipynb").name == "01_design.py"
    with pytest.raises(FileNotFoundError, match="01_design"):
        runner.resolve_notebook("no_such_chapter")
