"""Tests of the simulated benchmark (compendium.simulate): design, schema, determinism, manifest."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from compendium.data import schema
from compendium.analyses.emoji import count_codepoints, count_graphemes
from compendium import simulate as sim


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    return sim.simulate(tmp_path_factory.mktemp("sim") / "data")


@pytest.fixture(scope="module")
def tables(data_dir):
    return {
        "sentences": pd.read_csv(data_dir / schema.SENTENCES_FILE),
        "generations": pd.read_csv(data_dir / schema.GENERATIONS_FILE),
        "ratings": pd.read_csv(data_dir / schema.RATINGS_FILE),
        "index": pd.read_csv(data_dir / schema.EMBEDDING_INDEX_FILE),
    }


def checksums(path):
    return sim.read_manifest(path)[1]


# --- determinism -------------------------------------------------------------------------


def test_same_seed_gives_identical_files(data_dir, tmp_path):
    again = sim.simulate(tmp_path / "again")
    assert checksums(again) == checksums(data_dir)
    assert sim.read_manifest(again)[0] == sim.read_manifest(data_dir)[0]


def test_other_seed_differs(data_dir, tmp_path):
    params, _ = sim.load_parameters()
    other = sim.simulate(tmp_path / "other", seed=int(params["seed"]) + 1)
    a, b = checksums(data_dir), checksums(other)
    for name in (
        schema.SENTENCES_FILE,
        schema.GENERATIONS_FILE,
        schema.RATINGS_FILE,
        schema.embedding_file("qwen3-embedding-8b"),
    ):
        assert a[name] != b[name], name
    assert sim.read_manifest(other)[0]["seed"] == str(int(params["seed"]) + 1)


def test_components_draw_from_independent_streams(data_dir, tmp_path):
    params, _ = sim.load_parameters()
    params["ratings"]["residual_sd"] = float(params["ratings"]["residual_sd"]) * 1.5
    changed = sim.simulate(tmp_path / "changed", parameters=params)
    a, b = checksums(data_dir), checksums(changed)
    assert a[schema.SENTENCES_FILE] == b[schema.SENTENCES_FILE]
    assert a[schema.GENERATIONS_FILE] == b[schema.GENERATIONS_FILE]
    assert a[schema.embedding_file("openai-3-small")] == b[schema.embedding_file("openai-3-small")]
    assert a[schema.RATINGS_FILE] != b[schema.RATINGS_FILE]


# --- the design of section 3 (exact counts) -----------------------------------------------


def test_sentence_counts(tables):
    s = tables["sentences"]
    assert len(s) == 17_100
    assert s["language"].value_counts().to_dict() == {"bn": 5813, "en": 6547, "hi": 4740}
    assert s["sentence_id"].is_unique
    assert all(re.fullmatch(r"(bn|en|hi)-\d{5}", x) for x in s["sentence_id"])
    assert (s["sentence_id"].str[:2] == s["language"]).all()


def test_multilabel_and_shared_single_counts(tables):
    s = tables["sentences"]
    multi = s["labels"].str.contains(schema.LABEL_SEPARATOR, regex=False)
    share = multi[s["language"] == "bn"].mean()
    assert 0.172 <= share <= 0.182
    assert not multi[s["language"] != "bn"].any()
    shared = s[s["shared_single"]]
    assert shared["language"].value_counts().to_dict() == {"bn": 4206, "en": 5380, "hi": 3518}
    expected = ~multi & s["labels"].isin(schema.SHARED_EMOTIONS)
    assert (s["shared_single"] == expected).all()
    for lang, scheme in schema.LABEL_SCHEMES.items():
        labels = s.loc[s["language"] == lang, "labels"].str.split(schema.LABEL_SEPARATOR).explode()
        assert set(labels) <= set(scheme), lang


def test_human_study_sample(tables):
    s = tables["sentences"]
    human = s[s["human_study"]]
    assert len(human) == 290
    assert (human["language"] == "bn").all()
    # stratified: each single label's share within one item of its share in Bangla
    bn = s[s["language"] == "bn"]
    for label in schema.LABEL_SCHEMES["bn"]:
        expected = 290 * (bn["labels"] == label).mean()
        assert abs((human["labels"] == label).sum() - expected) <= 1, label


def test_geometry_sample(tables):
    s = tables["sentences"]
    geo = s[s["geometry_sample"]]
    assert len(geo) == 1202
    assert sorted(geo["language"].value_counts().tolist()) == [400, 401, 401]
    assert geo["shared_single"].all()
    for lang in schema.LANGUAGES:
        pool = s[(s["language"] == lang) & s["shared_single"]]
        part = geo[geo["language"] == lang]
        for label in schema.SHARED_EMOTIONS:
            expected = len(part) * (pool["labels"] == label).mean()
            assert abs((part["labels"] == label).sum() - expected) <= 1, (lang, label)


def test_ratings_fully_crossed(tables):
    r, s = tables["ratings"], tables["sentences"]
    assert len(r) == 6960
    assert r.notna().all().all()
    assert not r.duplicated(["sentence_id", "system", "annotator"]).any()
    assert set(r["sentence_id"]) == set(s.loc[s["human_study"], "sentence_id"])
    assert set(r["system"]) == set(schema.SYSTEMS)
    assert set(r["annotator"]) == set(schema.ANNOTATORS)
    assert r["rating"].between(schema.RATING_MIN, schema.RATING_MAX).all()


def test_generations_one_row_per_sentence_and_system(tables):
    g, s = tables["generations"], tables["sentences"]
    assert len(g) == 17_100 * 8
    assert not g.duplicated(["sentence_id", "system"]).any()
    assert set(g["sentence_id"]) == set(s["sentence_id"])
    assert g["attempts"].between(1, schema.MAX_ATTEMPTS).all()
    assert (g["prompt_tokens"] > 0).all() and (g["completion_tokens"] > 0).all()


def test_retry_rates(tables):
    g = tables["generations"]
    rate = (g["attempts"] > 1).groupby(g["system"]).mean()
    assert 0 <= rate.min() <= 0.005
    assert 0.04 <= rate.max() <= 0.08


def test_outputs_hold_one_to_five_emoji_graphemes(tables):
    g = tables["generations"].sample(4000, random_state=0)
    n = g["output"].map(count_graphemes)
    assert n.between(1, 5).all()
    assert (g["output"].map(count_codepoints) >= n).all()
    # a final answer always has a non-ASCII character (else it would have been retried)
    assert g["output"].map(lambda t: any(ord(c) > 127 for c in t)).all()


def test_text_uses_each_languages_script(tables):
    s = tables["sentences"]
    blocks = {"bn": (0x0980, 0x09FF), "hi": (0x0900, 0x097F)}
    for lang, (lo, hi) in blocks.items():
        text = "".join(s.loc[s["language"] == lang, "text"].head(200))
        letters = [c for c in text if ord(c) > 127 and c != "\u0964"]  # the danda ends Bangla and Hindi sentences
        assert letters and all(lo <= ord(c) <= hi for c in letters), lang
        assert 2.4 < len(text.encode()) / len(text) < 2.9, lang
    assert s.loc[s["language"] == "en", "text"].map(str.isascii).all()


# --- schema -------------------------------------------------------------------------------


def test_columns_and_dtypes(tables):
    files = {
        schema.SENTENCES_FILE: "sentences",
        schema.GENERATIONS_FILE: "generations",
        schema.RATINGS_FILE: "ratings",
        schema.EMBEDDING_INDEX_FILE: "index",
    }
    for name, key in files.items():
        assert tuple(tables[key].columns) == schema.COLUMNS[name], name
    s, g, r = tables["sentences"], tables["generations"], tables["ratings"]
    for col in ("shared_single", "human_study", "geometry_sample"):
        assert s[col].dtype == bool, col
    for col in ("attempts", "prompt_tokens", "completion_tokens"):
        assert g[col].dtype == np.int64, col
    assert r["rating"].dtype == np.int64
    for frame, col in ((s, "text"), (s, "labels"), (g, "output"), (r, "annotator")):
        assert pd.api.types.is_string_dtype(frame[col]), col


def test_embeddings(data_dir, tables):
    s, index = tables["sentences"], tables["index"]
    assert index["sentence_id"].tolist() == s.loc[s["geometry_sample"], "sentence_id"].tolist()
    for encoder, dim in schema.ENCODERS.items():
        x = np.load(data_dir / schema.embedding_file(encoder))
        assert x.dtype == np.float32
        assert x.shape == (1202, dim)
        assert np.isfinite(x).all()


def test_truth_file(data_dir):
    truth = json.loads((data_dir / schema.SIMULATION_TRUTH_FILE).read_text(encoding="utf-8"))
    assert set(truth["system_quality"]) == set(schema.SYSTEMS)
    assert set(truth["population_mos"]) == set(schema.SYSTEMS)
    assert set(truth["annotators"]) == set(schema.ANNOTATORS)
    assert {"location", "length_slope", "interaction"} <= set(truth["annotators"]["A1"])
    assert len(truth["rating_units"]["sentence_id"]) == 290
    assert np.array(truth["rating_units"]["output_effect"]).shape == (290, 8)


# --- manifest and atomic writing --------------------------------------------------------------


def test_manifest_lists_every_file(data_dir):
    header, entries = sim.read_manifest(data_dir)
    assert header["generator"] == "compendium.simulate"
    assert {"seed", "parameters_sha256"} <= set(header)
    assert set(entries) == {*schema.DATA_FILES, schema.SIMULATION_TRUTH_FILE}
    lines = (data_dir / schema.MANIFEST_FILE).read_text().splitlines()
    body = [line for line in lines if not line.startswith("#")]
    assert body == sorted(body, key=lambda line: line.split("  ", 1)[1])
    assert lines[0].startswith("# generator:")
    assert sim.verify_manifest(data_dir) == []
    assert sim.manifest_is_current(data_dir, sim.DEFAULT_PARAMETERS)


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="GNU sha256sum not installed")
def test_manifest_accepted_by_sha256sum(data_dir):
    done = subprocess.run(["sha256sum", "--check", "--quiet", schema.MANIFEST_FILE], cwd=data_dir, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_manifest_detects_modified_and_missing_files(data_dir, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(data_dir, copy)
    with open(copy / schema.RATINGS_FILE, "a", encoding="utf-8") as f:
        f.write("bn-00001,grok-4-fast,A1,5\n")
    (copy / schema.embedding_file("mistral-embed-2312")).unlink()
    assert sim.verify_manifest(copy) == [schema.embedding_file("mistral-embed-2312"), schema.RATINGS_FILE]
    assert not sim.manifest_is_current(copy, sim.DEFAULT_PARAMETERS)


def test_manifest_is_current_checks_parameters(data_dir, tmp_path):
    text = sim.DEFAULT_PARAMETERS.read_text(encoding="utf-8")
    changed = tmp_path / "simulation.yml"
    assert "  jitter: 0.05\n" in text
    changed.write_text(text.replace("  jitter: 0.05\n", "  jitter: 0.06\n"), encoding="utf-8")
    assert not sim.manifest_is_current(data_dir, changed)
    assert not sim.manifest_is_current(tmp_path / "nowhere", sim.DEFAULT_PARAMETERS)
    # A comment or a calibration annotation changes no value, so the data stays current.
    annotated = tmp_path / "annotated.yml"
    annotated.write_text(text.replace("  jitter: 0.05\n", "  jitter:  # edited\n    value: 0.05\n"
                                      "    targets: [cost.tokens_per_byte_bn]\n") + "\n# edited\n", encoding="utf-8")
    assert sim.manifest_is_current(data_dir, annotated)


def test_write_manifest_roundtrip(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "b.txt").write_text("b")
    (tmp_path / "sub" / "a.txt").write_text("a")
    sim.write_manifest(tmp_path, {"generator": "test", "seed": 3})
    header, entries = sim.read_manifest(tmp_path)
    assert header == {"generator": "test", "seed": "3"}
    assert list(entries) == ["b.txt", "sub/a.txt"]
    assert sim.verify_manifest(tmp_path) == []


def test_failure_leaves_no_output(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(sim.benchmark, "_write_embeddings", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        sim.simulate(tmp_path / "data")
    assert list(tmp_path.iterdir()) == []


def test_failure_keeps_existing_directory_untouched(tmp_path, monkeypatch):
    out = tmp_path / "data"
    out.mkdir()
    (out / "datasheet.md").write_text("kept")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(sim.benchmark, "_write_embeddings", broken)
    with pytest.raises(RuntimeError):
        sim.simulate(out)
    assert [p.name for p in tmp_path.iterdir()] == ["data"]
    assert [p.name for p in out.iterdir()] == ["datasheet.md"]


# --- new panels (decision-study check) -----------------------------------------------------------


@pytest.mark.parametrize("n", [1, 9])
def test_simulate_panel_is_crossed(data_dir, n):
    panel = sim.simulate_panel(n, seed=5, data_dir=data_dir)
    assert tuple(panel.columns) == schema.COLUMNS[schema.RATINGS_FILE]
    assert panel["annotator"].nunique() == n
    assert len(panel) == 290 * 8 * n
    assert not panel.duplicated(["sentence_id", "system", "annotator"]).any()
    assert panel["rating"].between(1, 5).all()
    study = pd.read_csv(data_dir / schema.RATINGS_FILE)
    assert set(panel["sentence_id"]) == set(study["sentence_id"])


def test_simulate_panel_reproducible_and_consistent(data_dir):
    a = sim.simulate_panel(3, seed=11, data_dir=data_dir)
    b = sim.simulate_panel(3, seed=11)
    pd.testing.assert_frame_equal(a, b)
    c = sim.simulate_panel(3, seed=12, data_dir=data_dir)
    assert not a["rating"].equals(c["rating"])


def test_one_manifest_reader_serves_the_simulator_and_the_loader(tmp_path):
    from compendium.data.errors import DataError
    from compendium.data.benchmark import read_manifest as load_manifest

    (tmp_path / "a.csv").write_text("x\n1\n", encoding="utf-8")
    sim.write_manifest(tmp_path, {"generator": "compendium.simulate", "seed": 7})
    header, entries = sim.read_manifest(tmp_path)
    loaded = load_manifest(tmp_path)
    assert header == {"generator": "compendium.simulate", "seed": "7"} and loaded["seed"] == 7
    assert entries == loaded["files"] == {"a.csv": hashlib.sha256(b"x\n1\n").hexdigest()}
    with open(tmp_path / schema.MANIFEST_FILE, "a", encoding="utf-8") as handle:
        handle.write("not a checksum line\n")
    with pytest.raises(DataError, match="MANIFEST"):
        sim.read_manifest(tmp_path)


def test_docstring_examples_of_the_small_simulators_run():
    import doctest

    from compendium.simulate import crossed, toy

    results = [doctest.testmod(m, optionflags=doctest.NORMALIZE_WHITESPACE) for m in (crossed, toy)]
    assert sum(r.attempted for r in results) >= 3
    assert sum(r.failed for r in results) == 0
