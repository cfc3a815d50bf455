"""The list of independent references (shown in the build appendix) matches the test files."""

from compendium.book import references
from compendium.build import runner


def test_every_listed_reference_is_used_by_its_test_file():
    table = references.references()
    assert len(table) >= 10
    for row in table.itertuples():
        path = runner.ROOT / row.test_file
        assert path.exists(), f"{row.reference}: {row.test_file} does not exist"
        assert row.marker in path.read_text(encoding="utf-8"), f"{row.reference}: {row.test_file} lacks {row.marker!r}"


def test_the_references_the_readme_names_are_listed():
    """The README and the build appendix say agreement with outside references shows the pipeline is right:
    Krippendorff 2011, Shrout & Fleiss, statsmodels and the EMS algebra must be among them."""
    text = " ".join(references.references()["reference"])
    for name in ("Krippendorff (2011)", "Shrout & Fleiss (1979)", "statsmodels", "Expected-mean-square algebra"):
        assert name in text
