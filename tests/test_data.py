"""Tests of compendium.data.benchmark: the tiny valid directory loads; every bad input fails loudly.

Each bad-input test mutates its own copy of the ``tiny_data_dir`` fixture
(see ``conftest.py``), rewrites the MANIFEST (unless the MANIFEST is the
point) and checks that the DataError names the file, the column and the
offending line or row with its value.

Line numbers below are those of the fixture's files (header = line 1). In
``generations.csv`` the second record spans two lines, so data row ``i``
(0-based, ``i >= 2``) starts on line ``i + 3``; elsewhere row ``i`` is on
line ``i + 2``. ``ratings.csv`` rows run sentence x system x annotator
(bn-01..bn-04, schema.SYSTEMS, A1..A3).
"""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compendium.data import schema
from compendium.data.benchmark import (
    ANNOTATOR_DTYPE,
    DATA_DIR_ENV,
    DEFAULT_DATA_DIR,
    LANGUAGE_DTYPE,
    SYSTEM_DTYPE,
    Benchmark,
    load_benchmark,
    read_manifest,
    resolve_data_dir,
)
from compendium.data.errors import DataError

SENTENCES, GENERATIONS, RATINGS, INDEX = (
    schema.SENTENCES_FILE, schema.GENERATIONS_FILE, schema.RATINGS_FILE, schema.EMBEDDING_INDEX_FILE)


class Tiny:
    """A mutable copy of the tiny data directory with editing helpers."""

    def __init__(self, root: Path, refresh_manifest) -> None:
        self.root = root
        self._refresh = refresh_manifest

    def refresh(self, **kwargs) -> None:
        self._refresh(self.root, **kwargs)

    def text(self, file: str, edit, *, manifest: bool = True) -> None:
        """Apply ``edit`` (str -> str) to a text file."""
        path = self.root / file
        old = path.read_text(encoding="utf-8")
        new = edit(old)
        assert new != old, "the edit changed nothing"
        path.write_text(new, encoding="utf-8")
        if manifest:
            self.refresh()

    def replace(self, file: str, old: str, new: str, *, manifest: bool = True) -> None:
        """Replace the first occurrence of ``old``, which must exist."""
        def edit(text: str) -> str:
            assert old in text, f"{old!r} not in {file}"
            return text.replace(old, new, 1)
        self.text(file, edit, manifest=manifest)

    def table(self, file: str, edit, *, manifest: bool = True) -> None:
        """Apply ``edit`` (DataFrame of strings -> DataFrame or None) to a CSV file."""
        path = self.root / file
        before = path.read_bytes()
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        result = edit(frame)
        frame = frame if result is None else result
        frame.to_csv(path, index=False, lineterminator="\n")
        assert path.read_bytes() != before, "the edit changed nothing"
        if manifest:
            self.refresh()

    def set(self, file: str, row: int, column: str, value: str, *, manifest: bool = True) -> None:
        """Set one field (``row`` is the 0-based data row)."""
        def edit(frame: pd.DataFrame) -> None:
            frame.loc[row, column] = value
        self.table(file, edit, manifest=manifest)

    def save_matrix(self, encoder: str, array: np.ndarray) -> None:
        np.save(self.root / schema.embedding_file(encoder), array)
        self.refresh()

    def matrix(self, encoder: str) -> np.ndarray:
        return np.load(self.root / schema.embedding_file(encoder))

    def fails(self, pattern: str, **kwargs) -> DataError:
        """Load, expecting a DataError whose message matches ``pattern``."""
        with pytest.raises(DataError, match=pattern) as info:
            load_benchmark(self.root, **kwargs)
        return info.value


@pytest.fixture
def tiny(tiny_data_dir: Path, refresh_manifest) -> Tiny:
    return Tiny(tiny_data_dir, refresh_manifest)


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path below ``root`` with its size, modification time and content hash."""
    state = {}
    for path in sorted(root.rglob("*")):
        stat = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        state[path.relative_to(root).as_posix()] = (stat.st_size, stat.st_mtime_ns, digest)
    return state


# --- the valid directory ---------------------------------------------------------------


def test_tiny_directory_loads_with_schema_dtypes_and_shapes(tiny_data_dir):
    bench = load_benchmark(tiny_data_dir)
    assert isinstance(bench, Benchmark)
    assert bench.data_dir == tiny_data_dir
    s, g, r = bench.sentences, bench.generations, bench.ratings
    assert s.shape == (12, 7) and g.shape == (12 * 8, 6) and r.shape == (4 * 8 * 3, 4)
    for frame, file in ((s, SENTENCES), (g, GENERATIONS), (r, RATINGS)):
        assert tuple(frame.columns) == schema.COLUMNS[file]
        assert isinstance(frame.index, pd.RangeIndex)
    assert s["language"].dtype == LANGUAGE_DTYPE
    assert list(s["language"].cat.categories) == list(schema.LANGUAGES)
    assert g["system"].dtype == SYSTEM_DTYPE == r["system"].dtype
    assert list(r["system"].cat.categories) == list(schema.SYSTEMS)
    assert r["annotator"].dtype == ANNOTATOR_DTYPE
    for column in ("shared_single", "human_study", "geometry_sample"):
        assert s[column].dtype == np.dtype(bool)
    for column in ("attempts", "prompt_tokens", "completion_tokens"):
        assert g[column].dtype == np.dtype("int64")
    assert r["rating"].dtype == np.dtype("int64")
    for frame, column in ((s, "sentence_id"), (s, "text"), (s, "labels"), (g, "output")):
        assert pd.api.types.is_string_dtype(frame[column].dtype)
    # values survive the round trip: quoting, multi-line and empty outputs, Bangla text
    assert s.loc[s["sentence_id"] == "bn-03", "labels"].item() == "joy;love"
    assert s.loc[s["sentence_id"] == "en-01", "text"].item() == "I can't believe it, we won!"
    assert s.loc[s["sentence_id"] == "bn-01", "text"].item() == "আমি আজ খুব খুশি।"
    assert g.loc[1, "output"] == "😀\n😊"
    assert g.loc[(g["sentence_id"] == "hi-03") & (g["system"] == "grok-4-fast"), "output"].item() == ""
    assert s["shared_single"].tolist() == [True, True, False, True, True, False,
                                           True, True, False, True, False, False]
    assert s["human_study"].sum() == 4 and s["geometry_sample"].sum() == 6
    assert r["rating"].between(1, 5).all()

    assert list(bench.embeddings) == list(schema.ENCODERS)
    for encoder, frame in bench.embeddings.items():
        assert frame.shape == (6, schema.ENCODERS[encoder])
        assert (frame.dtypes == np.float32).all()
        assert frame.index.name == "sentence_id"
        assert frame.index.tolist() == ["bn-01", "bn-03", "en-01", "en-02", "hi-01", "hi-03"]
        stored = np.load(tiny_data_dir / schema.embedding_file(encoder))
        np.testing.assert_array_equal(frame.to_numpy(), stored)

    assert bench.manifest["generator"].startswith("tests/conftest.py")
    assert bench.manifest["seed"] == 0
    assert set(bench.manifest["files"]) == set(schema.DATA_FILES)
    assert bench.truth is None
    assert bench.is_simulated is False
    assert "sentences=12" in repr(bench)


def test_without_embeddings_the_embedding_files_are_not_read(tiny):
    (tiny.root / schema.embedding_file("openai-3-small")).write_bytes(b"garbage")  # MANIFEST now stale
    bench = load_benchmark(tiny.root, embeddings=False)
    assert bench.embeddings == {}
    assert len(bench.sentences) == 12
    tiny.fails(r"openai-3-small\.npy: SHA-256 .* does not match")


def test_directory_without_manifest_loads_unverified(tiny):
    (tiny.root / schema.MANIFEST_FILE).unlink()
    tiny.set(RATINGS, 0, "rating", "2", manifest=False)  # no checksum to disagree with
    bench = load_benchmark(tiny.root)
    assert bench.manifest is None and bench.is_simulated is False
    assert bench.ratings.loc[0, "rating"] == 2


def test_simulated_data_is_recognised_and_its_truth_loaded(tiny):
    truth = {"system_quality": {s: i / 10 for i, s in enumerate(schema.SYSTEMS)}}
    (tiny.root / schema.SIMULATION_TRUTH_FILE).write_text(json.dumps(truth), encoding="utf-8")
    tiny.refresh(generator="compendium.simulate 0.1.0", seed=20260925)
    bench = load_benchmark(tiny.root)
    assert bench.is_simulated is True
    assert bench.manifest["seed"] == 20260925
    assert bench.truth == truth


def test_verify_manifest_false_skips_the_checksums(tiny):
    tiny.set(RATINGS, 0, "rating", "1", manifest=False)
    tiny.fails(r"ratings\.csv: SHA-256")
    bench = load_benchmark(tiny.root, verify_manifest=False)
    assert bench.ratings.loc[0, "rating"] == 1
    assert bench.manifest is not None  # still read and returned


def test_loading_never_creates_or_modifies_files(tiny):
    before = snapshot(tiny.root)
    load_benchmark(tiny.root)
    load_benchmark(tiny.root, embeddings=False, verify_manifest=False)
    assert snapshot(tiny.root) == before
    tiny.set(RATINGS, 3, "rating", "7")
    before = snapshot(tiny.root)
    tiny.fails(r"ratings\.csv, column 'rating'")
    assert snapshot(tiny.root) == before


# --- the build's store of validated tables -----------------------------------------------------


def _same_benchmark(first: Benchmark, second: Benchmark) -> None:
    for table in ("sentences", "generations", "ratings"):
        pd.testing.assert_frame_equal(getattr(first, table), getattr(second, table))
    assert first.embeddings.keys() == second.embeddings.keys()
    for encoder in first.embeddings:
        pd.testing.assert_frame_equal(first.embeddings[encoder], second.embeddings[encoder])
    assert (first.manifest, first.truth, first.data_dir) == (second.manifest, second.truth, second.data_dir)


def _parse_nothing(monkeypatch):
    """Make any CSV parse fail the test: what follows must read the store."""
    from compendium.data import benchmark

    def refuse(path, file, data):
        raise AssertionError(f"{file} was parsed again")

    monkeypatch.setattr(benchmark, "_read_csv", refuse)


def _entries(store: Path) -> list[Path]:
    """The benchmark store's entries (sealed folders, compendium.data.store) below ``store``."""
    from compendium.data.store import SEAL

    return sorted(path.parent for path in store.rglob(SEAL))


def test_with_a_store_a_second_load_reads_the_validated_tables(tiny, tmp_path, monkeypatch):
    from compendium.data.cache import CACHE_ENV

    fresh = load_benchmark(tiny.root)
    fresh_light = load_benchmark(tiny.root, embeddings=False)
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "store"))
    _same_benchmark(load_benchmark(tiny.root), fresh)  # parsed, checked and stored
    _same_benchmark(load_benchmark(tiny.root, embeddings=False), fresh_light)  # its own entry
    assert len(_entries(tmp_path / "store" / "benchmark")) == 2
    with monkeypatch.context() as patch:
        _parse_nothing(patch)
        _same_benchmark(load_benchmark(tiny.root), fresh)
        _same_benchmark(load_benchmark(tiny.root, embeddings=False), fresh_light)
    # The matrices are not stored: a damaged one is found on a load whose tables are stored.
    encoder = next(iter(schema.ENCODERS))
    matrix = tiny.matrix(encoder)
    matrix[0, 0] = np.nan
    tiny.save_matrix(encoder, matrix)
    with monkeypatch.context() as patch:
        _parse_nothing(patch)
        tiny.fails("non-finite values")


def test_with_a_store_bad_input_fails_as_without_it_and_stores_nothing(tiny, tmp_path, monkeypatch):
    from compendium.data.cache import CACHE_ENV

    store = tmp_path / "store"
    load_benchmark(tiny.root)
    tiny.set(RATINGS, 3, "rating", "7")
    expected = tiny.fails(r"ratings\.csv, column 'rating'")
    monkeypatch.setenv(CACHE_ENV, str(store))
    stored = tiny.fails(r"ratings\.csv, column 'rating'")
    assert (str(stored), stored.file, stored.column, stored.rows, stored.values) == (
        str(expected), expected.file, expected.column, expected.rows, expected.values)
    assert not _entries(store)
    # Valid tables stored, then a file changed: the change is parsed and reported, not read from the store.
    tiny.set(RATINGS, 3, "rating", "2")
    load_benchmark(tiny.root)
    assert len(_entries(store)) == 1
    tiny.set(RATINGS, 3, "rating", "7", manifest=False)
    tiny.fails(r"ratings\.csv: SHA-256 .* does not match")
    error = tiny.fails(r"ratings\.csv, column 'rating': value outside 1-5", verify_manifest=False)
    assert error.rows == (5,)


def test_the_store_can_be_named_instead_of_taken_from_the_environment(tiny, tmp_path, monkeypatch):
    fresh = load_benchmark(tiny.root)
    _same_benchmark(load_benchmark(tiny.root, store=tmp_path / "named"), fresh)
    assert len(_entries(tmp_path / "named" / "benchmark")) == 1
    with monkeypatch.context() as patch:
        _parse_nothing(patch)
        _same_benchmark(load_benchmark(tiny.root, store=tmp_path / "named"), fresh)


def test_an_unreadable_store_entry_is_computed_again(tiny, tmp_path, monkeypatch):
    from compendium.data import store
    from compendium.data.cache import CACHE_ENV

    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "store"))
    fresh = load_benchmark(tiny.root)
    (entry,) = _entries(tmp_path / "store" / "benchmark")
    part = next(entry.glob("*.parquet"))
    part.write_bytes(part.read_bytes()[:100])  # as if cut short (the store renames whole folders into place)
    _same_benchmark(load_benchmark(tiny.root), fresh)
    sentences, generations, ratings, _ = store.read(entry)  # and stored whole again
    for table, stored in zip((fresh.sentences, fresh.generations, fresh.ratings), (sentences, generations, ratings)):
        pd.testing.assert_frame_equal(stored.reset_index(drop=True), table.reset_index(drop=True),
                                      check_exact=True)


def test_a_changed_or_swapped_store_entry_is_never_decoded_and_is_named(tiny, tmp_path, monkeypatch, capsys):
    """The store's seal covers the entry's name and files: one flipped byte, or another key's valid entry
    copied in, is read again from the CSV files, with one line naming the entry; nothing in it is a pickle."""
    from compendium.data import store
    from compendium.data.cache import CACHE_ENV

    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "store"))
    fresh = load_benchmark(tiny.root)
    (entry,) = _entries(tmp_path / "store" / "benchmark")
    assert {path.suffix for path in entry.iterdir()} <= {".json", ".parquet", ".npy", ".sha256"}
    good = {path.name: path.read_bytes() for path in entry.iterdir()}
    part = next(entry.glob("*.parquet"))
    flipped = bytearray(good[part.name])
    flipped[len(flipped) // 2] ^= 1
    part.write_bytes(bytes(flipped))
    decode = store._decode

    def refuse_the_entry(tree, folder):
        assert folder != entry, "a changed entry was decoded"
        return decode(tree, folder)

    monkeypatch.setattr(store, "_decode", refuse_the_entry)
    _same_benchmark(load_benchmark(tiny.root), fresh)
    err = capsys.readouterr().err
    assert f"{entry}: the stored tables cannot be used (its bytes do not match their checksum)" in err
    monkeypatch.undo()
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "store"))
    assert {path.name: path.read_bytes() for path in entry.iterdir()} == good  # stored afresh, whole
    without = load_benchmark(tiny.root, embeddings=False)  # another key: a second entry
    (other,) = set(_entries(tmp_path / "store" / "benchmark")) - {entry}
    for path in other.iterdir():
        path.unlink()
    for name, data in good.items():  # a valid entry of the first key, under the second key's name
        (other / name).write_bytes(data)
    again = load_benchmark(tiny.root, embeddings=False)
    assert (f"{other}: the stored tables cannot be used (its bytes do not match their "
            "checksum)") in capsys.readouterr().err
    assert again.ratings.equals(without.ratings)


# --- locating the data and reading the MANIFEST ---------------------------------------------


def test_resolve_data_dir_prefers_argument_then_environment_then_repository(monkeypatch, tmp_path):
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    assert resolve_data_dir() == DEFAULT_DATA_DIR
    assert DEFAULT_DATA_DIR == Path(__file__).resolve().parents[1] / "data"
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "release"))
    assert resolve_data_dir() == tmp_path / "release"
    assert resolve_data_dir(tmp_path / "other") == tmp_path / "other"
    monkeypatch.setenv(DATA_DIR_ENV, "")
    assert resolve_data_dir() == DEFAULT_DATA_DIR


def test_environment_variable_selects_the_directory_to_load(monkeypatch, tiny_data_dir):
    monkeypatch.setenv(DATA_DIR_ENV, str(tiny_data_dir))
    assert load_benchmark().data_dir == tiny_data_dir


def test_read_manifest_parses_header_and_sha256sum_lines(tmp_path):
    digest = "ab" * 32
    (tmp_path / "MANIFEST").write_text(
        "# generator: compendium.simulate 0.1.0\n# seed: 42\n# parameters_sha256: xyz\n"
        "# a free comment line\n\n"
        f"{digest}  sentences.csv\n{digest.upper()} *embeddings/index.csv\n{digest}  ./ratings.csv\n",
        encoding="utf-8")
    manifest = read_manifest(tmp_path)  # a directory or the file itself
    assert manifest == read_manifest(tmp_path / "MANIFEST")
    assert manifest["generator"] == "compendium.simulate 0.1.0"
    assert manifest["seed"] == 42
    assert manifest["parameters_sha256"] == "xyz"
    assert manifest["files"] == {"sentences.csv": digest, "embeddings/index.csv": digest,
                                 "ratings.csv": digest}


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("d41d8cd98f00b204e9800998ecf8427e  sentences.csv", "not a '<sha256>  <path>' line"),
        ("sentences.csv  " + "0" * 64, "not a '<sha256>  <path>' line"),
        ("0" * 64 + "  ../secrets.csv", "path outside the data directory"),
        ("0" * 64 + "  ratings.csv", "file listed twice"),
    ],
)
def test_malformed_manifest_line_is_named(tiny, line, problem):
    tiny.text(schema.MANIFEST_FILE, lambda t: t + line + "\n", manifest=False)
    n_lines = len((tiny.root / schema.MANIFEST_FILE).read_text(encoding="utf-8").splitlines())
    error = tiny.fails(rf"MANIFEST: {re.escape(problem)} on 1 line: line {n_lines} ")
    assert error.file == "MANIFEST" and error.rows == (n_lines,)


# --- files, encoding, structure ---------------------------------------------------------------


def test_missing_data_directory(tmp_path):
    with pytest.raises(DataError, match=r"nowhere: no such data directory\. Run `compendium simulate`"):
        load_benchmark(tmp_path / "nowhere")


@pytest.mark.parametrize("file", schema.DATA_FILES)
def test_missing_file_without_manifest(tiny, file):
    (tiny.root / schema.MANIFEST_FILE).unlink()
    (tiny.root / file).unlink()
    error = tiny.fails(rf"{re.escape(file)}: no such file; .*`compendium simulate`")
    assert error.file == file


def test_missing_file_listed_in_manifest(tiny):
    (tiny.root / RATINGS).unlink()
    tiny.fails(r"ratings\.csv: listed in .*MANIFEST but missing\. .*`sha256sum -c MANIFEST`")


def test_data_file_not_listed_in_manifest(tiny):
    tiny.text(schema.MANIFEST_FILE,
              lambda t: "".join(x for x in t.splitlines(True) if not x.endswith(" ratings.csv\n")),
              manifest=False)
    tiny.fails(r"MANIFEST: does not list ratings\.csv, so it cannot be verified")


def test_checksum_mismatch_of_a_real_release_points_to_sha256sum(tiny):
    tiny.text(GENERATIONS, lambda t: t.replace(",1,", ",2,", 1), manifest=False)
    error = tiny.fails(r"generations\.csv: SHA-256 [0-9a-f]{12}\.\.\. does not match [0-9a-f]{12}\.\.\. "
                       r"in .*MANIFEST: the file changed .*`sha256sum -c MANIFEST` run inside it")
    assert error.file == GENERATIONS


def test_checksum_mismatch_of_simulated_data_points_to_the_simulator(tiny):
    tiny.refresh(generator="compendium.simulate 0.1.0")
    np.save(tiny.root / schema.embedding_file("mistral-embed-2312"), np.zeros((6, 1024), np.float32))
    tiny.fails(r"embeddings/mistral-embed-2312\.npy: SHA-256 .* This is the simulated benchmark: "
               r"run `compendium simulate`")


def test_non_utf8_text_names_byte_offset_and_line(tiny):
    path = tiny.root / SENTENCES
    data = path.read_bytes()
    offset = data.index(b"so angry")
    path.write_bytes(data[:offset] + "é".encode("latin-1") + data[offset:])
    tiny.refresh()
    error = tiny.fails(rf"sentences\.csv: not valid UTF-8 at byte offset {offset} \(line 9\): "
                       r"bytes b'\\xe9'")
    assert error.rows == (9,) and error.unit == "line"


def test_file_truncated_inside_a_character(tiny):
    path = tiny.root / GENERATIONS
    data = path.read_bytes()
    path.write_bytes(data[: data.index("😀\n".encode()) + 2])
    tiny.refresh()
    tiny.fails(r"generations\.csv: not valid UTF-8 at byte offset \d+ \(line 3\).*it is truncated")


def test_file_truncated_mid_record(tiny):
    lines = (tiny.root / GENERATIONS).read_text(encoding="utf-8").split("\n")
    partial = lines[40][: lines[40].index(",", lines[40].index(",") + 1) + 2]  # 3 fields
    tiny.text(GENERATIONS, lambda t: "\n".join(lines[:40] + [partial]))
    error = tiny.fails(r"generations\.csv: wrong number of fields \(the header has 6\) on 1 line: "
                       r"line 41 \(3 fields\)")
    assert error.column is None and error.rows == (41,)


def test_file_truncated_inside_a_quoted_field(tiny):
    tiny.text(GENERATIONS, lambda t: t[: t.index("😀\n") + 2])
    tiny.fails(r"generations\.csv: unreadable CSV at line 3: unexpected end of data\. The file is truncated")


@pytest.mark.parametrize(
    ("edit", "shown"),
    [
        (lambda t: t.replace("\nbn-02,", "\nbn-02,extra,", 1), r"line 26 \(5 fields\)"),
        (lambda t: t.replace("\nbn-02,", "\n\nbn-02,", 1), r"line 26 blank"),
    ],
    ids=["extra-field", "blank-line"],
)
def test_records_with_the_wrong_number_of_fields(tiny, edit, shown):
    tiny.text(RATINGS, edit)
    tiny.fails(rf"ratings\.csv: wrong number of fields \(the header has 4\) on 1 line: {shown}")


def test_empty_file(tiny):
    tiny.text(RATINGS, lambda t: "")
    tiny.fails(r"ratings\.csv: the file is empty; expected a header line naming the columns "
               r"sentence_id, system, annotator, rating")


def test_sentences_with_only_a_header(tiny):
    tiny.text(SENTENCES, lambda t: t.split("\n")[0] + "\n")
    tiny.fails(r"sentences\.csv: no sentences")


@pytest.mark.parametrize(
    ("file", "edit", "expected", "column"),
    [
        (RATINGS, lambda tiny: tiny.replace(RATINGS, "annotator,rating", "annotator,score"),
         "missing column 'rating'; unexpected column 'score'", "rating"),
        (GENERATIONS, lambda tiny: tiny.table(GENERATIONS, lambda f: f.drop(columns="output")),
         "missing column 'output'", "output"),
        (SENTENCES, lambda tiny: tiny.table(SENTENCES, lambda f: f.assign(notes="x")),
         "unexpected column 'notes'", "notes"),
        (SENTENCES, lambda tiny: tiny.replace(SENTENCES, "geometry_sample\n", "geometry_sample,notes\n"),
         "unexpected column 'notes'", "notes"),
        (RATINGS, lambda tiny: tiny.table(RATINGS, lambda f: pd.concat([f, f[["rating"]]], axis=1)),
         "repeated column 'rating'", "rating"),
    ],
    ids=["renamed", "missing", "extra", "extra-in-header-only", "repeated"],
)
def test_wrong_columns(tiny, file, edit, expected, column):
    edit(tiny)
    error = tiny.fails(rf"{re.escape(file)}: {re.escape(expected)} in the header \(line 1\)\. "
                       r"The header must name exactly these columns")
    assert error.column == column


# --- types and ranges ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "row", "column", "value", "problem", "line"),
    [
        (RATINGS, 4, "rating", "five", "not an integer", 6),
        (RATINGS, 10, "rating", "3.5", "not an integer", 12),
        (RATINGS, 0, "rating", "", "not an integer", 2),
        (GENERATIONS, 5, "attempts", "two", "not an integer", 8),
        (GENERATIONS, 20, "prompt_tokens", "1e3", "not an integer", 23),
        (GENERATIONS, 0, "completion_tokens", "12.0", "not an integer", 2),
        (SENTENCES, 2, "human_study", "yes", "not a boolean (True or False)", 4),
        (SENTENCES, 7, "geometry_sample", "", "not a boolean (True or False)", 9),
        (RATINGS, 7, "rating", "0", "value outside 1-5", 9),
        (RATINGS, 95, "rating", "6", "value outside 1-5", 97),
        (GENERATIONS, 3, "attempts", "0", "value outside 1-3", 6),
        (GENERATIONS, 95, "attempts", "4", "value outside 1-3", 98),
        (GENERATIONS, 12, "prompt_tokens", "-1", "negative value (must be >= 0)", 15),
        (GENERATIONS, 1, "completion_tokens", "-7", "negative value (must be >= 0)", 3),
    ],
)
def test_wrong_types_and_values_out_of_range(tiny, file, row, column, value, problem, line):
    tiny.set(file, row, column, value)
    error = tiny.fails(rf"{re.escape(file)}, column '{column}': {re.escape(problem)} on 1 line: "
                       rf"line {line} '{re.escape(value)}' \(line numbers of the file; the header is line 1\)")
    assert (error.file, error.column, error.rows, error.values) == (file, column, (line,), (value,))


def test_many_offending_rows_are_summarised(tiny):
    tiny.table(RATINGS, lambda f: f.assign(rating=["9"] * 7 + f["rating"].tolist()[7:]))
    error = tiny.fails(r"ratings\.csv, column 'rating': value outside 1-5 on 7 lines: line 2 '9', "
                       r"line 3 '9', line 4 '9', line 5 '9', line 6 '9' and 2 more \(")
    assert error.rows == tuple(range(2, 9))


@pytest.mark.parametrize(
    ("file", "row", "column", "value", "line", "allowed"),
    [
        (GENERATIONS, 9, "system", "gpt-5", 12, "claude-3-haiku, deepseek-v3.2"),
        (RATINGS, 0, "system", "Claude-3-Haiku", 2, "claude-3-haiku, deepseek-v3.2"),
        (RATINGS, 2, "annotator", "A4", 4, "A1, A2, A3"),
        (SENTENCES, 3, "language", "bd", 5, "bn, en, hi"),
    ],
)
def test_unknown_names(tiny, file, row, column, value, line, allowed):
    tiny.set(file, row, column, value)
    tiny.fails(rf"{re.escape(file)}, column '{column}': unknown {column} \(allowed: {re.escape(allowed)}"
               rf".*\) on 1 line: line {line} '{re.escape(value)}'")


# --- labels -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "labels", "problem", "shown"),
    [
        (10, "love", "label outside the language's scheme (hi: anger, disgust, fear, joy, neutral, "
                     "sadness, surprise)", "line 12 'love' (hi)"),
        (8, "neutral", "label outside the language's scheme (en: anger, fear, joy, love, sadness, "
                       "surprise)", "line 10 'neutral' (en)"),
        (0, "Joy", "label outside the language's scheme (bn:", "line 2 'Joy' (bn)"),
        (2, "joy;", "empty label in a ';'-joined list", "line 4 'joy;' (bn)"),
        (2, "joy;joy", "a label repeated", "line 4 'joy;joy' (bn)"),
        (1, "", "empty labels", "line 3 ''"),
    ],
    ids=["hi-love", "en-neutral", "capitalised", "empty-part", "repeated", "empty"],
)
def test_bad_labels(tiny, row, labels, problem, shown):
    tiny.set(SENTENCES, row, "labels", labels)
    error = tiny.fails(rf"sentences\.csv, column 'labels': {re.escape(problem)}.* on 1 line: "
                       rf"{re.escape(shown)}")
    assert error.column == "labels"


@pytest.mark.parametrize(
    ("row", "flag", "shown"),
    [(2, "True", "line 4 True for labels 'joy;love'"),   # multi-label is never shared-single
     (5, "True", "line 7 True for labels 'love'"),       # love is not a shared emotion
     (0, "False", "line 2 False for labels 'joy'")],
)
def test_shared_single_must_match_labels(tiny, row, flag, shown):
    tiny.set(SENTENCES, row, "shared_single", flag)
    tiny.fails(r"sentences\.csv, column 'shared_single': shared_single must be True exactly when "
               rf".* on 1 line: {re.escape(shown)}")


# --- keys and completeness --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "row", "column", "value", "shown"),
    [
        (SENTENCES, 8, "sentence_id", "en-02", "line 9 'en-02', line 10 'en-02'"),
        (GENERATIONS, 10, "system", "deepseek-v3.2",
         "line 12 ('bn-02', 'deepseek-v3.2'), line 13 ('bn-02', 'deepseek-v3.2')"),
        (RATINGS, 1, "annotator", "A1",
         "line 2 ('bn-01', 'claude-3-haiku', 'A1'), line 3 ('bn-01', 'claude-3-haiku', 'A1')"),
        (INDEX, 3, "sentence_id", "en-01", "line 4 'en-01', line 5 'en-01'"),
    ],
)
def test_duplicate_keys(tiny, file, row, column, value, shown):
    tiny.set(file, row, column, value)
    tiny.fails(rf"{re.escape(file)}, column '[a-z_, ]+': duplicate .* on 2 lines: {re.escape(shown)}")


def test_empty_sentence_id(tiny):
    tiny.set(RATINGS, 5, "sentence_id", "")
    tiny.fails(r"ratings\.csv, column 'sentence_id': empty id on 1 line: line 7 ''")


def test_incomplete_crossed_design_lists_missing_cells(tiny):
    gone = [("bn-03", "qwen3-vl-235b", "A2"), ("bn-04", "grok-4-fast", "A1")]
    tiny.table(RATINGS, lambda f: f[~pd.Series(list(zip(f.sentence_id, f.system, f.annotator))).isin(gone)])
    error = tiny.fails(r"ratings\.csv: 2 \(sentence_id, system, annotator\) combinations have no row: "
                       r"\('bn-03', 'qwen3-vl-235b', 'A2'\), \('bn-04', 'grok-4-fast', 'A1'\)\. "
                       r"The design is fully crossed")
    assert error.values == tuple(gone)
    assert error.column == "sentence_id, system, annotator"


def test_human_study_sentence_without_any_rating(tiny):
    tiny.set(SENTENCES, 4, "human_study", "True")  # bn-05: flagged, never rated
    tiny.fails(r"ratings\.csv: 24 \(sentence_id, system, annotator\) combinations have no row: "
               r"\('bn-05', 'claude-3-haiku', 'A1'\), .* and 19 more")


def test_ratings_for_a_sentence_not_in_sentences(tiny):
    tiny.set(RATINGS, 0, "sentence_id", "bn-99")
    tiny.fails(r"ratings\.csv, column 'sentence_id': sentence not in sentences\.csv on 1 line: line 2 'bn-99'")


def test_ratings_for_a_sentence_not_in_the_human_study(tiny):
    tiny.table(RATINGS, lambda f: f.assign(sentence_id=f["sentence_id"].replace("bn-04", "bn-05")))
    tiny.fails(r"ratings\.csv, column 'sentence_id': sentence not flagged human_study in sentences\.csv "
               r"on 24 lines: line 74 'bn-05', .* and 19 more")


def test_generations_for_a_sentence_not_in_sentences(tiny):
    tiny.set(GENERATIONS, 95, "sentence_id", "hi-04")
    tiny.fails(r"generations\.csv, column 'sentence_id': sentence not in sentences\.csv on 1 line: "
               r"line 98 'hi-04'")


def test_missing_generation_rows(tiny):
    tiny.table(GENERATIONS, lambda f: f.drop(index=[17, 94]))
    error = tiny.fails(r"generations\.csv: 2 \(sentence_id, system\) combinations have no row: "
                       r"\('bn-03', 'deepseek-v3.2'\), \('hi-03', 'qwen3-vl-235b'\)\. "
                       r"Every sentence of sentences\.csv needs one generation per system")
    assert error.column == "sentence_id, system"


# --- embeddings ---------------------------------------------------------------------------------------------


def test_embedding_rows_must_match_the_index(tiny):
    tiny.save_matrix("openai-3-small", tiny.matrix("openai-3-small")[:5])
    error = tiny.fails(r"embeddings/openai-3-small\.npy: 5 rows, but embeddings/index\.csv lists 6 "
                       r"sentence ids")
    assert error.file == "embeddings/openai-3-small.npy"


def test_embedding_dimension_must_match_the_encoder(tiny):
    tiny.save_matrix("mistral-embed-2312", np.zeros((6, 1536), np.float32))
    tiny.fails(r"embeddings/mistral-embed-2312\.npy: 1536 columns, but encoder mistral-embed-2312 "
               r"has dimension 1024")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_embedding_values(tiny, bad):
    matrix = tiny.matrix("qwen3-embedding-8b")
    matrix[2, 17] = bad
    tiny.save_matrix("qwen3-embedding-8b", matrix)
    error = tiny.fails(r"embeddings/qwen3-embedding-8b\.npy, column '17': non-finite values .* on 1 row: "
                       rf"row 3 \(sentence_id 'en-01', column 17: {re.escape(str(bad))}\)")
    assert error.rows == (3,) and error.unit == "row"


@pytest.mark.parametrize(
    ("array", "problem"),
    [
        (np.zeros((6, 3072), np.int64), r"dtype int64; expected floating point"),
        (np.zeros(6 * 3072, np.float32), r"expected a 2-D matrix \(sentences x 3072\), found shape \(18432,\)"),
    ],
    ids=["integer", "one-dimensional"],
)
def test_embedding_matrix_of_the_wrong_kind(tiny, array, problem):
    tiny.save_matrix("openai-3-large", array)
    tiny.fails(rf"embeddings/openai-3-large\.npy: {problem}")


def test_truncated_embedding_matrix(tiny):
    path = tiny.root / schema.embedding_file("gemini-embedding-001")
    path.write_bytes(path.read_bytes()[:5000])
    tiny.refresh()
    tiny.fails(r"embeddings/gemini-embedding-001\.npy: not a readable \.npy array .* truncated")


@pytest.mark.parametrize(
    ("row", "value", "problem"),
    [(2, "xx-01", r"sentence not in sentences\.csv"),
     (3, "en-03", r"sentence not flagged geometry_sample in sentences\.csv")],
)
def test_embedding_index_ids(tiny, row, value, problem):
    tiny.set(INDEX, row, "sentence_id", value)
    tiny.fails(rf"embeddings/index\.csv, column 'sentence_id': {problem} on 1 line: "
               rf"line {row + 2} '{value}'")


def test_geometry_sample_sentence_missing_from_the_index(tiny):
    tiny.table(INDEX, lambda f: f.drop(index=5))
    tiny.fails(r"sentences\.csv, column 'geometry_sample': sentence flagged geometry_sample but missing "
               r"from embeddings/index\.csv on 1 line: line 13 'hi-03'")


def test_malformed_truth_file(tiny):
    (tiny.root / schema.SIMULATION_TRUTH_FILE).write_text('{"system_quality": ', encoding="utf-8")
    tiny.refresh()
    tiny.fails(r"simulation_truth\.json: not valid JSON \(line 1: ")


# --- the error object ---------------------------------------------------------------------------------


def test_data_error_is_a_value_error_that_survives_pickling(tiny):
    tiny.set(RATINGS, 4, "rating", "five")
    error = tiny.fails(r"'five'")
    assert isinstance(error, ValueError)
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error)
    assert (copy.file, copy.column, copy.rows, copy.values, copy.unit) == (
        "ratings.csv", "rating", (6,), ("five",), "line")


@pytest.mark.parametrize("without_pyarrow", [False, True], ids=["pyarrow", "no pyarrow"])
def test_id_lookup_is_pandas_isin(without_pyarrow, monkeypatch):
    """``benchmark._isin`` (pyarrow's hash lookup, or pandas where pyarrow is missing) is ``Series.isin``."""
    import sys

    from compendium.data import benchmark

    if without_pyarrow:
        monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow raises ImportError
    cases = [(pd.Series(["s1", "s2", None, "s9"], dtype="str"), pd.Series(["s2", "s1", "s3"], dtype="str")),
             (pd.Series(["a", 1, 2.5], dtype=object), pd.Series([1, "b"], dtype=object))]  # pyarrow cannot type these
    for values, reference in cases:
        np.testing.assert_array_equal(benchmark._isin(values, reference), values.isin(reference.tolist()).to_numpy())
