"""The real data of data/real/: checksums, the byte-for-byte derivation, the design, the MQM weights.

Every test reads data/real/ of this checkout, never a copy elsewhere.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from compendium.data import derive as realdata
from compendium.data import real as realdata_loader

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _manifest() -> dict[str, str]:
    files = {}
    for line in (REAL / "MANIFEST").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            digest, name = line.split("  ", 1)
            files[name] = digest
    return files


def test_manifest_lists_every_file_and_every_checksum_holds():
    files = _manifest()
    expected = (
        set(realdata.SOURCES) | set(realdata.DERIVED) | set(realdata.VENDORED) | set(realdata.stored_encoded(REAL))
    )
    assert set(files) == expected and any(name.startswith("encoded/ntrex_") for name in expected)
    data_files = {".csv", ".jsonl", ".json", ".gz", ".txt", ".tsv", ".bin", ".npy"}
    on_disk = {str(p.relative_to(REAL)) for p in REAL.rglob("*") if p.suffix in data_files
               and p.name not in ("LICENSE", "LICENSES.md") and not p.name.startswith("README")}
    assert on_disk == expected
    for name, digest in files.items():
        assert hashlib.sha256((REAL / name).read_bytes()).hexdigest() == digest, name


def test_sources_have_their_published_checksums():
    # The README of the release copy states these; they are typed here, not read from the module.
    assert _manifest()["summeval_metrics.jsonl"] == "e05def5f78b1398c36e52f812377cc91aec24fa7dc171b8d77b28fd91f0d212e"
    assert (
        _manifest()["wmt23_mqm_sxs_ende.tsv.tar.gz"]
        == "df9f5af3e6498bb9dddc998acc292ea4a34161f8637dd107de6d692ed319222c"
    )


def test_derivation_reproduces_every_committed_table_byte_for_byte(tmp_path):
    tables = realdata.derive_tables(REAL)
    assert set(tables) == set(realdata.DERIVED)
    for name, data in tables.items():
        assert data == (REAL / name).read_bytes(), f"{name} differs from a fresh derivation"
    encoded = realdata.stored_encoded(REAL)
    assert realdata.manifest_text({**tables, **encoded}) == (REAL / "MANIFEST").read_text(encoding="utf-8")
    # and the script writes the same files into a fresh directory, keeping the derived embeddings it finds there
    for name in [*realdata.SOURCES, *encoded]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes((REAL / name).read_bytes())
    written = realdata.derive(tmp_path)
    assert {p.name for p in written} == set(realdata.DERIVED) | {"MANIFEST"}
    for path in written:
        assert path.read_bytes() == (REAL / path.name).read_bytes()


def test_derivation_refuses_a_changed_source(tmp_path):
    for name in realdata.SOURCES:
        (tmp_path / name).write_bytes((REAL / name).read_bytes())
    with open(tmp_path / "summeval_metrics.jsonl", "ab") as out:
        out.write(b"\n")
    with pytest.raises(ValueError, match="summeval_metrics.jsonl: SHA-256"):
        realdata.derive_tables(tmp_path)


def _rows(name):
    with open(REAL / name, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("dimension", realdata.SUMMEVAL_DIMENSIONS)
def test_summeval_expert_tables_are_the_release_lists_in_position_order(dimension):
    rows = _rows(f"summeval_{dimension}.csv")
    assert len(rows) == 100 * 16 * 3
    derived = {(r["item"], r["system"], r["rater"]): int(r["rating"]) for r in rows}
    # independent reading of the release: position k of the list is rater E(k+1)
    n = 0
    for line in (REAL / "summeval_metrics.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for k, value in enumerate(record["metrics"]["expert"][dimension]):
            assert derived[(record["instance_id"], record["summarizer_id"], f"E{k + 1}")] == value
            n += 1
    assert n == len(derived)
    assert {r["system"] for r in rows} == set(realdata.SUMMEVAL_SYSTEMS)


def test_summeval_coherence_position_means_match_the_readme():
    rows = _rows("summeval_coherence.csv")
    means = {}
    for rater in ("E1", "E2", "E3"):
        values = [int(r["rating"]) for r in rows if r["rater"] == rater]
        means[rater] = round(sum(values) / len(values), 2)
    assert means == {"E1": 3.81, "E2": 3.39, "E3": 3.05}


def test_summeval_crowd_table_has_five_positions_per_summary_and_dimension():
    rows = _rows("summeval_crowd.csv")
    assert len(rows) == 4 * 1600 * 5
    assert {r["rater"] for r in rows} == {f"C{k}" for k in range(1, 6)}
    assert [d for d in dict.fromkeys(r["dimension"] for r in rows)] == list(realdata.SUMMEVAL_DIMENSIONS)


def _mqm_source_rows():
    with tarfile.open(REAL / "wmt23_mqm_sxs_ende.tsv.tar.gz") as tar:
        text = tar.extractfile(realdata.MQM_MEMBER).read().decode("utf-8")
    return list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))


def test_mqm_table_is_the_incomplete_design_of_the_readme():
    rows = _rows("wmt23_mqm_ende.csv")
    assert len(rows) == 3120
    items = {r["item"] for r in rows}
    assert len(items) == 104
    assert len({r["system"] for r in rows}) == 10
    assert len({r["rater"] for r in rows}) == 10
    per_item = {}
    for r in rows:
        per_item.setdefault(r["item"], set()).add(r["rater"])
    assert {len(v) for v in per_item.values()} == {3}
    cells = {(r["item"], r["system"], r["rater"]) for r in rows}
    assert len(cells) == 3120


def _hand_scored(source: list[dict]) -> dict[tuple, float]:
    """Each (segment, system, rater) cell's MQM score from the source rows, the weights written out here in points,
    independent of realdata.mqm_weight: HOTW-test rows excluded, No-error and Source issue 0, Non-translation! 25,
    Major 5, Minor 1 (Fluency/Punctuation 0.1)."""
    def weight(row):
        if row["severity"] == "HOTW-test":
            return None
        if row["category"] in ("No-error", "Source issue"):
            return 0.0
        if row["category"] == "Non-translation!":
            return 25.0
        if row["severity"] == "Major":
            return 5.0
        return 0.1 if row["category"] == "Fluency/Punctuation" else 1.0

    expected: dict[tuple, float] = {}
    for row in source:
        w = weight(row)
        if w is not None:
            key = (row["globalSegId"], row["system"], row["rater"])
            expected[key] = expected.get(key, 0.0) + w
    return expected


def test_mqm_scores_follow_the_published_weights_and_the_two_decisions():
    source = _mqm_source_rows()
    expected = _hand_scored(source)
    derived = {(r["item"], r["system"], r["rater"]): float(r["rating"]) for r in _rows("wmt23_mqm_ende.csv")}
    assert set(derived) == set(expected)
    assert max(abs(derived[k] - expected[k]) for k in derived) < 1e-9
    assert sum(row["severity"] == "HOTW-test" for row in source) == 245
    assert sum(row["category"] == "Source issue" for row in source) == 520


def test_zhen_mqm_is_the_design_of_the_shared_readme_and_follows_the_same_weights():
    """WMT23 zh-en (datasheet section 13): 377 segments x 10 systems, exactly 3 of 8 raters per segment, every
    rater of a segment scoring all 10 outputs; 11,310 cells, each the sum of the published weights (written out
    here, independent of realdata.mqm_weight), HOTW-test rows excluded."""
    with tarfile.open(REAL / "wmt23_mqm_sxs_zhen.tsv.tar.gz") as tar:
        member = realdata.MQM_RELEASES["wmt23_mqm_sxs_zhen.tsv.tar.gz"][0]
        text = tar.extractfile(member).read().decode("utf-8")
    source = list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    assert len(source) == 25060 and sum(r["severity"] == "HOTW-test" for r in source) == 461

    expected = _hand_scored(source)
    rows = _rows("wmt23_mqm_zhen.csv")
    derived = {(r["item"], r["system"], r["rater"]): float(r["rating"]) for r in rows}
    assert len(rows) == len(derived) == 11310 and set(derived) == set(expected)
    assert max(abs(derived[k] - expected[k]) for k in derived) < 1e-9
    assert len({r["item"] for r in rows}) == 377 and len({r["system"] for r in rows}) == 10
    assert len({r["rater"] for r in rows}) == 8
    per_item = {}
    for r in rows:
        per_item.setdefault(r["item"], set()).add(r["rater"])
    assert {len(v) for v in per_item.values()} == {3}
    frame = realdata_loader.load_mqm("zhen")
    assert frame.shape == (11310, 4) and frame["rating"].min() >= 0


def test_mqm_weight_rejects_an_unknown_severity():
    assert realdata.mqm_weight("Found", "HOTW-test") is None
    assert realdata.mqm_weight("Source issue", "Major") == 0
    assert realdata.mqm_weight("Non-translation!", "Major") == 250
    with pytest.raises(ValueError, match="unknown severity 'Critical'"):
        realdata.mqm_weight("Accuracy/Mistranslation", "Critical")
