"""Build artefacts (compendium.data.cache): stored once, read back, keyed by content and code."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from compendium.data import cache, store
from compendium.analyses.ead import core as ead_core
from compendium.stats import decoder


def test_off_without_the_environment_variable(monkeypatch):
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    assert cache.location() is None


def _labels_and_outputs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.array(["joy", "fear", "anger"])[rng.integers(0, 3, n)]
    face = {"joy": "😀", "fear": "😱", "anger": "😡"}
    out = [face[lab] * int(rng.integers(1, 3)) if rng.random() < 0.7 else "😐" for lab in y]
    return out, y


def _count_fits(monkeypatch) -> list:
    """Count the decoder's cross-validation runs (one entry per labels-and-seed run) from now on."""
    calls = []
    real = decoder.cross_val_predict_many

    def counting(dsg, runs, **kwargs):
        calls.extend([1] * len(runs))
        return real(dsg, runs, **kwargs)

    monkeypatch.setattr(decoder, "cross_val_predict_many", counting)
    return calls


def test_a_stored_result_is_read_back_and_a_changed_input_recomputed(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    calls = _count_fits(monkeypatch)
    out, y = _labels_and_outputs()
    first = ead_core.ead(out, y, seed=1)
    again = ead_core.ead(out, y, seed=1)
    assert len(calls) == 1  # the second call read the stored predictions
    assert first.macro_f1 == again.macro_f1
    assert (first.oof["predicted"] == again.oof["predicted"]).all()
    ead_core.ead(out, y, seed=2)  # another seed: another key
    out[0] = "🎉"
    ead_core.ead(out, y, seed=1)  # another output: another key
    assert len(calls) == 3
    monkeypatch.delenv(cache.CACHE_ENV)
    uncached = ead_core.ead(out, y, seed=1)
    assert len(calls) == 4 and uncached.macro_f1 == ead_core.ead(out, y, seed=1).macro_f1


def test_the_code_version_names_the_store(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    out, y = _labels_and_outputs()
    ead_core.ead(out, y, seed=1)
    version = cache.code_version(
        "compendium.analyses.ead.core", "compendium.stats.decoder", "compendium.analyses.emoji"
    )
    assert (tmp_path / version).is_dir()
    assert version != cache.code_version("compendium.analyses.ead.core", "compendium.stats.decoder")


def _ead_in_a_process(where: str, seed: int) -> float:
    import os

    os.environ[cache.CACHE_ENV] = where
    out, y = _labels_and_outputs(200, seed=3)
    return ead_core.ead(out, y, seed=seed).macro_f1


def test_processes_asking_at_once_get_one_result(tmp_path):
    with ProcessPoolExecutor(max_workers=3) as pool:
        scores = list(pool.map(_ead_in_a_process, [str(tmp_path)] * 6, [5] * 6))
    assert len(set(scores)) == 1
    stored = [p for p in tmp_path.rglob(store.SEAL)]
    assert len(stored) == 1  # computed once, under the key's lock
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith((".tmp", "~", ".partial"))]
    assert scores[0] == pytest.approx(_ead_in_a_process(str(tmp_path / "other"), 5))


def test_the_stability_seeds_store_their_scores_and_are_read_back(tmp_path, monkeypatch):
    """ead_stability stores the first seed's predictions and the other seeds' scores; a second call with the
    same inputs fits nothing, and gives what the uncached computation gives."""
    import pandas as pd

    out, y = _labels_and_outputs(120, seed=4)
    sentences = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(len(y))], "language": "bn",
                              "labels": y, "shared_single": True})
    generations = pd.DataFrame({"sentence_id": sentences["sentence_id"], "language": "bn", "system": "sys",
                                "output": out})
    kwargs = dict(seeds=[3, 4, 5], languages=["bn"], systems=["sys"], n_jobs=1)
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    fresh = ead_core.ead_stability(sentences, generations, **kwargs)
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    calls = _count_fits(monkeypatch)
    first = ead_core.ead_stability(sentences, generations, **kwargs)
    assert len(calls) == 3
    again = ead_core.ead_stability(sentences, generations, **kwargs)
    assert len(calls) == 3  # the second call read the stored predictions and scores
    pd.testing.assert_frame_equal(first, fresh)
    pd.testing.assert_frame_equal(again, fresh)
    assert fresh["n_seeds"].iloc[0] == 3 and fresh["sd"].iloc[0] >= 0


def test_the_ead_table_stores_its_bootstrap_and_floors_and_reads_back_the_same_table(tmp_path, monkeypatch):
    """Chapters 4 and 9 ask for the same EAD table with its bootstrap CI: the second reads the replicates
    and the floors instead of drawing them again, and the table is what the uncached computation gives."""
    import pandas as pd

    from compendium.analyses.ead import inference

    out, y = _labels_and_outputs(120, seed=5)
    sentences = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(len(y))], "language": "bn",
                              "labels": y, "shared_single": True})
    generations = pd.DataFrame({"sentence_id": sentences["sentence_id"], "language": "bn", "system": "sys",
                                "output": out})
    kwargs = dict(seed=7, languages=["bn"], systems=["sys"], n_boot=500, n_jobs=1)
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    fresh = ead_core.ead_table(sentences, generations, **kwargs)
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    drawn = []
    for name in ("bootstrap_ci", "floors"):
        real = getattr(inference, name)
        monkeypatch.setattr(
            ead_core, name, lambda *a, _real=real, _name=name, **k: drawn.append(_name) or _real(*a, **k)
        )
    first = ead_core.ead_table(sentences, generations, **kwargs)
    assert sorted(drawn) == ["bootstrap_ci", "floors"]
    again = ead_core.ead_table(sentences, generations, **kwargs)
    assert sorted(drawn) == ["bootstrap_ci", "floors"]  # read back, not drawn again
    pd.testing.assert_frame_equal(first, fresh, check_exact=True)
    pd.testing.assert_frame_equal(again, fresh, check_exact=True)
    assert {"ci_lo", "ci_hi", "majority_floor", "stratified_floor"} <= set(fresh.columns)


def test_stored_says_whether_a_call_would_be_read_and_cached_cells_stay_in_process(tmp_path, monkeypatch):
    """cache.stored is False with caching off or before the first call, True after it, and False for other
    arguments; once every cell's fits are stored, ead_stability asks for no worker process (joblib is not
    called with more than one job) and gives the same table."""
    import pandas as pd

    out, y = _labels_and_outputs(90, seed=6)
    keyed = ead_core._keyed(out, y)
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    assert not cache.stored(ead_core._oof, *keyed, 0, 5, 4.0)
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    assert not cache.stored(ead_core._oof, *keyed, 0, 5, 4.0)
    ead_core._oof(*keyed, 0, 5, 4.0)
    assert cache.stored(ead_core._oof, *keyed, 0, 5, 4.0)
    assert not cache.stored(ead_core._oof, *keyed, 1, 5, 4.0)

    sentences = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(len(y))], "language": "bn",
                              "labels": y, "shared_single": True})
    generations = pd.DataFrame({"sentence_id": sentences["sentence_id"], "language": "bn", "system": "sys",
                                "output": out})
    kwargs = dict(seeds=[3, 4], languages=["bn"], systems=["sys"], n_jobs=2)
    jobs = []
    real_parallel = ead_core.Parallel

    def recording(n_jobs=None, **options):
        jobs.append(n_jobs)
        return real_parallel(n_jobs=n_jobs, **options)

    monkeypatch.setattr(ead_core, "Parallel", recording)
    first = ead_core.ead_stability(sentences, generations, **kwargs)

    def no_design(*args, **kwargs):
        raise AssertionError("a cell whose fits are all stored was segmented and counted again")

    monkeypatch.setattr(ead_core.decoder, "design", no_design)
    again = ead_core.ead_stability(sentences, generations, **kwargs)
    assert jobs == [2, 1]  # computed over two workers, then read in process, without counting the outputs
    pd.testing.assert_frame_equal(first, again)


def test_a_package_version_covers_every_module_below_it(tmp_path, monkeypatch):
    """code_version of a package hashes every .py file under it: editing any of them, however deep, gives
    another version; a module's version is its own file's."""
    import importlib
    import sys

    root = tmp_path / "pkg"
    (root / "deep").mkdir(parents=True)
    for name, text in {"__init__.py": "", "a.py": "A = 1\n", "deep/__init__.py": "", "deep/b.py": "B = 1\n"}.items():
        (root / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    before, module = cache.code_version("pkg"), cache.code_version("pkg.a")
    (root / "deep" / "b.py").write_text("B = 2\n", encoding="utf-8")
    cache.code_version.cache_clear()
    assert cache.code_version("pkg") != before
    assert cache.code_version("pkg.a") == module
    for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
        del sys.modules[name]
    cache.code_version.cache_clear()


def _flip_one_byte(path, at=None):
    data = bytearray(path.read_bytes())
    data[len(data) // 2 if at is None else at] ^= 1
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["array", "structure", "seal", "no seal", "replaced"])
def test_a_damaged_stored_result_is_computed_again_and_named_never_read(tmp_path, monkeypatch, damage):
    """A flipped byte in a stored array, in its structure or in its seal, a missing seal, or another
    result's files copied in: the store never decodes it, the result is computed again and is the clean
    one, and one line naming the folder waits for the build's terminal."""
    where = tmp_path / "cache"
    monkeypatch.setenv(cache.CACHE_ENV, str(where))
    calls = _count_fits(monkeypatch)
    out, y = _labels_and_outputs()
    clean = ead_core.ead(out, y, seed=1)
    (seal,) = list(where.rglob(store.SEAL))  # the one stored call: the decoder's predictions
    folder = seal.parent
    assert sorted(p.name for p in folder.iterdir()) == ["1.npy", "2.npy", store.SEAL, "value.json"]
    if damage == "array":
        _flip_one_byte(folder / "2.npy", at=-1)
    elif damage == "structure":
        (folder / "value.json").write_text((folder / "value.json").read_text().replace("2.npy", "1.npy"))
    elif damage == "seal":
        _flip_one_byte(seal, at=0)
    elif damage == "no seal":
        seal.unlink()
    else:  # a valid result of another call, seal and all, under this call's name
        ead_core.ead(out, y, seed=2)
        (other,) = [p.parent for p in where.rglob(store.SEAL) if p.parent != folder]
        for path in folder.iterdir():
            path.unlink()
        for path in other.iterdir():
            (folder / path.name).write_bytes(path.read_bytes())
    before = len(calls)
    again = ead_core.ead(out, y, seed=1)
    assert len(calls) == before + 1 and again.macro_f1 == clean.macro_f1
    assert (again.oof["predicted"] == clean.oof["predicted"]).all()
    (line,) = cache.repairs(where)
    assert line.startswith(str(folder)) and "computed again" in line
    assert "checksum" in line
    assert cache.repairs(where) == []  # read once, by the build
    assert store.sealed(folder)  # stored afresh


def test_nothing_stored_is_a_pickle(tmp_path, monkeypatch):
    """Every file of a stored result is JSON, .npy without objects, Parquet or the seal."""
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    out, y = _labels_and_outputs()
    ead_core.ead(out, y, seed=1)
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p.parent.name != "locks"]
    assert files and {p.suffix for p in files} <= {".json", ".npy", ".parquet", ".sha256"}
    for path in files:
        if path.suffix == ".npy":
            np.load(path, allow_pickle=False)
