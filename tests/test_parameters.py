"""The chapters' declared parameters and `compendium run`'s refusals (compendium.build.parameters)."""

from __future__ import annotations

import ast

import pytest

from compendium import cli
from compendium.build import parameters, runner


def _parameters_cell(chapter: str) -> dict:
    """The names and default values of a chapter's parameters cell, read from its jupytext source."""
    text = (runner.NOTEBOOKS_DIR / f"{chapter}.py").read_text(encoding="utf-8")
    cell = text.split('# %% tags=["parameters"]\n', 1)[1].split("\n# %%", 1)[0]
    return {node.targets[0].id: ast.literal_eval(node.value) for node in ast.parse(cell).body
            if isinstance(node, ast.Assign)}


@pytest.mark.parametrize("chapter", [s.stem for s in runner.chapter_sources()])
def test_every_chapter_declares_exactly_its_parameters_cell(chapter):
    declared = parameters.DECLARED[chapter]
    assert {name: p.default for name, p in declared.items()} == _parameters_cell(chapter)
    for p in declared.values():  # every default passes its own check
        assert parameters._check_value(chapter, p, p.default, None) == p.default


@pytest.mark.parametrize("given, message", [
    (["-p", "nonexistent", "5"], "no parameter 'nonexistent' in 02_reliability"),
    (["-p", "n_boo", "5"], "did you mean 'n_boot'?"),
    (["-p", "n_boot", "true"], "parameter 'n_boot' = True is not a whole number >= 1"),
    (["-p", "n_boot", "2.5"], "parameter 'n_boot' = 2.5 is not a whole number"),
    (["-p", "n_boot", "0"], "parameter 'n_boot' = 0 is out of range"),
    (["-p", "n_boot", "100000000"], "<= 20,000 (the cap)"),
    (["-p", "panel_sizes", "[3, 1000]"], "parameter 'panel_sizes' = 1000 is out of range"),
    (["-p", "exclude_annotators", "[ZZ]"], "no annotator 'ZZ' in the data; its annotators are A1, A2, A3"),
    (["-p", "exclude_annotators", "A2"], "parameter 'exclude_annotators' = 'A2' is not a list of annotators"),
    (["--seed", "-1"], "parameter 'seed' = -1 is out of range"),
])
def test_run_refuses_a_bad_parameter_naming_it_and_writes_nothing(given, message, capsys, monkeypatch, tmp_path):
    ran = []
    monkeypatch.setattr(runner, "run", lambda *a, **k: ran.append(a))
    monkeypatch.setattr(runner, "BUILD_DIR", tmp_path)
    assert cli.main(["run", "02_reliability", *given]) == 2
    err = capsys.readouterr().err
    assert message in err and "nothing was run or written" in err
    assert ran == [] and list(tmp_path.iterdir()) == []


def test_a_choice_outside_the_allowed_values_is_refused():
    with pytest.raises(parameters.ParameterError, match="'halves' is not one of 'half', 'drop', 'loss'"):
        parameters.check(["03_length"], {"tie_rule": "halves"})


def test_a_parameter_that_changes_nothing_is_accepted_with_a_warning():
    checked, warnings = parameters.check(["01_design"], {"seed": 7})
    assert checked == {"seed": 7}
    assert warnings == ["01_design: seed changes nothing in this chapter (the analysis seed); its results will be "
                        "the book's"]
    assert parameters.check(["02_reliability"], {"seed": 7})[1] == []
    # a parameter only some of the run's chapters have: the others are named
    _, warnings = parameters.check(["02_reliability", "06_cost"], {"n_boot": 100})
    assert warnings == ["06_cost: has no parameter 'n_boot'; it runs as in the book"]


def test_only_the_books_own_settings_run_into_the_book(capsys, monkeypatch, tmp_path):
    outs = []
    monkeypatch.setattr(runner, "run", lambda names, out, params, claims_file: outs.append((out, params)) or [])
    monkeypatch.setattr(runner, "BUILD_DIR", tmp_path)
    monkeypatch.setattr(runner, "CLAIMS_FILE", tmp_path / "claims.json")  # absent: nothing to compare
    assert cli.main(["run", "02_reliability", "--seed", str(parameters.BOOK_SEED)]) == 0
    assert cli.main(["run", "02_reliability", "-p", "n_boot", "2000"]) == 0
    assert [o for o, _ in outs] == [runner.BOOK_DIR, runner.BOOK_DIR]
    assert cli.main(["run", "02_reliability", "--seed", "7"]) == 0
    out, params = outs[-1]
    assert out.parent == tmp_path / "reruns" and params == {"seed": 7}
    assert "the book is not touched" in capsys.readouterr().out


def test_run_help_lists_the_chapters_parameters(capsys):
    assert cli.main(["run", "02_reliability", "--help"]) == 0
    out = capsys.readouterr().out
    assert "exclude_annotators" in out and ("<= 20,000 (the "
                                            "cap)") in out and "01_design" not in out.split("parameters")[-1]


def test_build_and_sweep_check_their_parameters_too(capsys):
    assert cli.main(["sweep", "--seeds", "0", "02_reliability", "-p", "n_boo", "5"]) == 2
    assert "did you mean 'n_boot'?" in capsys.readouterr().err
    assert cli.main(["build", "-p", "n_boot", "true"]) == 2
    assert "parameter 'n_boot' = True" in capsys.readouterr().err
