"""The build's store (compendium.data.store): data, not code, read back exactly or not at all.

Exactness is judged by pandas' own testing functions (assert_frame_equal, assert_series_equal,
assert_index_equal with exact dtypes) and numpy.array_equal, not by the store's round-trip check.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from compendium.audit.core import AuditResult
from compendium.data import store
from compendium.data.judgements import Design


def _frames():
    categories = pd.CategoricalDtype(["bn", "en", "hi"])
    yield "numbers", pd.DataFrame({"a": [1, 2, 3], "b": [0.1, np.nan, -0.0], "c": [True, False, True]})
    yield "strings and categories", pd.DataFrame({
        "s": pd.array(["x", None, "z"], dtype="str"),
        "lang": pd.Series(["bn", "hi", "bn"], dtype=categories),
        "n": pd.array([1, None, 3], dtype="Int64"),
    })
    yield "Python objects", pd.DataFrame({"item": np.array([50827, 3, 7], dtype=object), "x": [1.5, 2.5, 3.5]})
    yield "empty objects", pd.DataFrame({"item": pd.Series([], dtype=object), "rater": pd.Series([], dtype="str")})
    yield "a named string index", pd.DataFrame({"v": [1.0, 2.0]}, index=pd.Index(["p", "q"], name="key"))
    yield "labels that are not strings", pd.DataFrame({0: [1, 2], 1: ["a", "b"]})
    yield "no columns", pd.DataFrame(index=range(3))


@pytest.mark.parametrize("name,frame", list(_frames()), ids=[name for name, _ in _frames()])
def test_frames_read_back_exactly(tmp_path, name, frame):
    store.write(frame, tmp_path / "x")
    back = store.read(tmp_path / "x")
    pd.testing.assert_frame_equal(back, frame, check_exact=True, check_index_type=True, check_column_type=True)


def test_nested_values_read_back_with_their_types(tmp_path):
    value = {
        "floats": [0.1, float("nan"), float("inf"), -0.0, 1e308],
        ("a", 1): (np.int64(7), np.float32(0.5), np.bool_(True), np.str_("ü")),
        3: {"array": np.arange(6, dtype=np.int16).reshape(2, 3), "labels": np.array(["😀", "😱"])},
        "series": pd.Series([1.0, 2.0], index=pd.Index(["a", "b"]), name="score"),
        "index": pd.Index(["s1", "s2"], name="sentence_id"),
        "range": pd.RangeIndex(2, 10, 2),
        "none": None,
        "big": 2**80,
    }
    store.write(value, tmp_path / "x")
    back = store.read(tmp_path / "x")
    assert list(back) == list(value)
    floats = back["floats"]
    assert floats[0] == 0.1 and np.isnan(floats[1]) and floats[2] == np.inf and floats[4] == 1e308
    assert str(floats[3]) == "-0.0"
    scalars = back[("a", 1)]
    assert type(scalars) is tuple and [type(x) for x in scalars] == [np.int64, np.float32, np.bool_, np.str_]
    assert scalars == value[("a", 1)]
    assert np.array_equal(back[3]["array"], value[3]["array"]) and back[3]["array"].dtype == np.int16
    assert back[3]["labels"].tolist() == ["😀", "😱"]
    pd.testing.assert_series_equal(back["series"], value["series"], check_exact=True)
    pd.testing.assert_index_equal(back["index"], value["index"], exact=True)
    pd.testing.assert_index_equal(back["range"], value["range"], exact=True)
    assert back["none"] is None and back["big"] == 2**80


def test_this_packages_dataclasses_read_back(tmp_path):
    design = Design(n_items=2, n_systems=1, n_raters=1, n_judgements=2,
                    missing=pd.DataFrame({"item": np.array([5, 6], dtype=object)}), columns=("item", "system", "rater"))
    result = AuditResult(summary={"n": 2}, tables={"raters": pd.DataFrame({"r": ["A"]})}, design=design,
                         columns={"item": "item"})
    store.write(result, tmp_path / "x")
    back = store.read(tmp_path / "x")
    assert type(back) is AuditResult and type(back.design) is Design
    pd.testing.assert_frame_equal(back.design.missing, design.missing, check_exact=True)
    assert back.summary == result.summary and back.columns == result.columns


@dataclass
class _Foreign:  # defined in the tests, not in the package
    x: int = 1


@pytest.mark.parametrize("value,why", [
    (lambda: 1, "function"),
    (np.array([{"a": 1}], dtype=object), "dtype object"),
    (_Foreign(), "another package"),
    ({1, 2}, "set"),
    (pd.DataFrame({"a": [object()]}, index=pd.MultiIndex.from_tuples([(1, 2)])), "MultiIndex"),
])
def test_what_cannot_be_stored_as_data_is_refused_and_leaves_nothing(tmp_path, value, why):
    with pytest.raises(store.Unstorable, match=why):
        store.write(value, tmp_path / "x")
    assert list(tmp_path.iterdir()) == []


def _reseal(folder):
    """Write the seal a store would have written for the folder's present files (as an attacker could)."""
    (folder / store.SEAL).write_text(store._digest(folder, store._name(folder)), encoding="utf-8")


@pytest.mark.parametrize("tree,why", [
    ({"$": "dataclass", "module": "os", "name": "system", "fields": {}}, "another package"),
    ({"$": "dataclass", "module": "compendium.data.store", "name": "Path", "fields": {}}, "not a dataclass"),
    ({"$": "ndarray", "file": "../../etc/passwd"}, "no store writes"),
    ({"$": "frame", "file": "value.json"}, "no store writes"),
    ({"$": "pickle", "v": "gASV"}, "unknown tag"),
    ({"not": "tagged"}, "tagged value"),
])
def test_reading_decodes_data_only(tmp_path, tree, why):
    """Even with a matching seal, a structure the store never writes is refused before it imports or opens
    anything it names."""
    folder = tmp_path / "x"
    store.write(0, folder)
    (folder / "value.json").write_text(json.dumps(tree), encoding="utf-8")
    _reseal(folder)
    with pytest.raises(store.StoreError, match=why):
        store.read(folder)


def test_an_array_holding_objects_is_never_loaded(tmp_path):
    folder = tmp_path / "x"
    store.write(np.arange(3), folder)
    np.save(folder / "1.npy", np.array([object()], dtype=object), allow_pickle=True)
    _reseal(folder)
    with pytest.raises(store.StoreError, match="allow_pickle"):
        store.read(folder)


@pytest.mark.parametrize("damage", ["flip", "truncate", "extra file", "no seal", "renamed"])
def test_a_changed_store_is_refused(tmp_path, damage):
    folder = tmp_path / "f" / "x"
    store.write({"a": np.arange(100), "t": pd.DataFrame({"v": range(50)})}, folder)
    if damage == "flip":
        data = bytearray((folder / "1.npy").read_bytes())
        data[-1] ^= 1
        (folder / "1.npy").write_bytes(bytes(data))
    elif damage == "truncate":
        (folder / "2.parquet").write_bytes((folder / "2.parquet").read_bytes()[:50])
    elif damage == "extra file":
        (folder / "3.npy").write_bytes(b"")
    elif damage == "no seal":
        (folder / store.SEAL).unlink()
    else:  # a valid store under another name
        folder = folder.rename(folder.with_name("y"))
    with pytest.raises(store.StoreError, match="checksum"):
        store.read(folder)
