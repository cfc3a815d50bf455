"""A chapter is declared in four places, and a test names each: its notebook (``notebooks/NN_topic.py`` with its
paired ``.ipynb``), the table of contents (``_toc.yml``), its parameters (``compendium.build.parameters.DECLARED``)
and, for a chapter with a verdict box, the box's chapter list (``compendium.book.verdicts.CHAPTERS``).
CONTRIBUTING.md lists the same places under "Adding a chapter"."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from compendium.book import verdicts
from compendium.build import parameters

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = re.compile(r"\d\d_[a-z0-9_]+")


def gaps(notebooks: dict[str, str], paired: set[str], toc_pages: list[str], declared: set[str],
         boxes: set[str]) -> list[str]:
    """Every place a chapter is missing from, as ``"<chapter>: not in <place>"``.

    ``notebooks`` maps each notebook's stem to its text; ``paired`` holds the stems with an ``.ipynb``;
    ``toc_pages`` are ``_toc.yml``'s files; ``declared`` the keys of the parameters; ``boxes`` the keys of the
    verdict boxes' chapter list.
    """
    in_toc = {Path(page).name for page in toc_pages if CHAPTER.fullmatch(Path(page).name)}
    glue = {stem for stem, text in notebooks.items() if "verdicts.glue_box(" in text}
    places = {"notebooks/NN_topic.py": set(notebooks), "a paired notebooks/NN_topic.ipynb": paired,
              "_toc.yml": in_toc, "compendium.build.parameters.DECLARED": declared}
    everything = set().union(*places.values())
    out = [f"{chapter}: not in {place}" for place, have in places.items() for chapter in sorted(everything - have)]
    out += [f"{chapter}: glues a verdict box but is not in compendium.book.verdicts.CHAPTERS"
            for chapter in sorted(glue - boxes)]
    out += [f"{chapter}: in compendium.book.verdicts.CHAPTERS but its notebook glues no verdict box"
            for chapter in sorted(boxes - glue)]
    return out


def _book() -> tuple:
    notebooks = {p.stem: p.read_text(encoding="utf-8") for p in sorted((ROOT / "notebooks").glob("*.py"))}
    paired = {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")}
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages = [toc["root"]] + [entry["file"] for part in toc["parts"] for entry in part["chapters"]]
    return notebooks, paired, pages, set(parameters.DECLARED), set(verdicts.CHAPTERS)


def test_every_chapter_is_declared_in_every_place():
    assert gaps(*_book()) == []


def test_a_chapter_missing_from_one_place_is_named():
    notebooks, paired, pages, declared, boxes = _book()
    assert gaps(notebooks, paired, [p for p in pages if not p.endswith("06_cost")], declared, boxes) == [
        "06_cost: not in _toc.yml"]
    assert gaps(notebooks, paired, pages, declared - {"07_leakage"}, boxes) == [
        "07_leakage: not in compendium.build.parameters.DECLARED"]
    assert gaps({**notebooks, "11_new": "x = 1\n"}, paired, pages, declared, boxes) == [
        "11_new: not in a paired notebooks/NN_topic.ipynb", "11_new: not in _toc.yml",
        "11_new: not in compendium.build.parameters.DECLARED"]
    assert gaps(notebooks, paired, pages, declared, boxes - {"03_length"}) == [
        "03_length: glues a verdict box but is not in compendium.book.verdicts.CHAPTERS"]
