"""Results stored as data, never as code: JSON, NumPy ``.npy`` and Parquet, sealed with a SHA-256.

The build keeps its heavy intermediate results (:mod:`compendium.data.cache`)
and the benchmark's validated tables (:mod:`compendium.data.benchmark`) in
``_build/cache``. A pickle there would run whatever code its bytes name when
it is read back, so nothing there is a pickle. A stored value is a folder:

* ``value.json``: the value's structure. JSON's own numbers, strings,
  ``true``/``false`` and ``null`` stand for themselves (a float is written
  with Python's shortest round-trip ``repr``, and ``NaN``/``Infinity`` as
  Python's :mod:`json` writes them); everything else is an object tagged
  ``"$"``: ``list``, ``tuple``, ``dict`` (its items as pairs, so keys of any
  storable type survive), ``scalar`` (a NumPy scalar and its dtype),
  ``ndarray`` and ``frame``/``series`` (naming a file beside it), and
  ``dataclass`` (a dataclass of this package, by module and name, and its
  fields).
* ``<n>.npy``: each array, written and read with ``allow_pickle=False``
  (:func:`numpy.save`): numbers, booleans and fixed-width strings only.
* ``<n>.parquet``: each pandas frame or series (pyarrow, with pandas' own
  metadata: dtypes, categories, index).
* :data:`SEAL`: the SHA-256 of the folder's own name (and its parent's)
  and of every other file's name and bytes, written last. A sealed value
  copied under another name fails its check.

:func:`write` refuses (:class:`Unstorable`) any value it cannot write this
way, and any value that does not read back *exactly* as it was -- the same
types, dtypes, index, and bits -- so a stored result is always the computed
one. :func:`read` checks the seal before it decodes a byte, and raises
:class:`StoreError` on any difference, missing file or unexpected shape:
the caller then computes the value again.

Reading decodes data only: it imports no module but this package's own
dataclasses (their module must lie below ``compendium``), and builds them
without calling their ``__init__``, as :mod:`pickle` would.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["FORMAT", "SEAL", "StoreError", "Unstorable", "read", "sealed", "write"]

#: The layout's version: part of every cache key, so a new layout never reads an old one.
FORMAT = "compendium-store 1"
#: The file holding the SHA-256 of the folder's other files.
SEAL = "compendium.sha256"
_VALUE = "value.json"
#: NumPy dtype kinds a stored array or scalar may have: booleans, integers, floats, complex, strings.
_ARRAY_KINDS = frozenset("biufcSU")
_SCALAR_KINDS = frozenset("biufU")


class StoreError(ValueError):
    """A stored value that does not read back: its seal, a file or its structure is not what was written."""


class Unstorable(TypeError):
    """A value that cannot be written as data, or would not read back exactly."""


def write(value, folder: str | os.PathLike[str]) -> None:
    """Store ``value`` in a new folder ``folder``, whole or not at all.

    The files are written into a scratch folder beside ``folder``, sealed,
    checked by reading them back, and renamed into place; a folder that
    already exists (another process stored the same value first) is left as
    it is.

    Raises
    ------
    Unstorable
        The value holds a type this store does not write, or would not read
        back identical. Nothing is left behind.
    OSError
        The folder cannot be written. Nothing is left behind.
    """
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = folder.with_name(f".{folder.name}.{os.getpid()}.partial")
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    try:
        files: list[int] = [0]
        tree = _encode(value, scratch, files)
        (scratch / _VALUE).write_text(json.dumps(tree, ensure_ascii=False, allow_nan=True), encoding="utf-8")
        (scratch / SEAL).write_text(_digest(scratch, _name(folder)), encoding="utf-8")
        back = _read(scratch, _name(folder))
        reason = _difference(value, back)
        if reason is not None:
            raise Unstorable(f"{type(value).__name__} does not read back identical: {reason}")
        try:
            os.rename(scratch, folder)
        except OSError:
            if not folder.is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def read(folder: str | os.PathLike[str]):
    """The value stored in ``folder`` by :func:`write`.

    Raises
    ------
    StoreError
        The seal is missing or does not match the files, or a file or the
        structure is not one :func:`write` produces.
    """
    folder = Path(folder)
    return _read(folder, _name(folder))


def _name(folder: Path) -> str:
    """What the seal binds the files to: the folder's name and its parent's (in the build's cache, the
    function and the hash of its arguments), so that a sealed value copied under another name is refused."""
    return f"{folder.parent.name}/{folder.name}"


def _read(folder: Path, name: str):
    try:
        seal = (folder / SEAL).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise StoreError("it has no checksum") from None
    except (OSError, UnicodeDecodeError) as error:
        raise StoreError(f"its checksum cannot be read ({error})") from None
    try:
        if seal != _digest(folder, name):
            raise StoreError("its bytes do not match their checksum")
        tree = json.loads((folder / _VALUE).read_text(encoding="utf-8"))
        return _decode(tree, folder)
    except StoreError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ImportError, IndexError) as error:
        raise StoreError(f"it cannot be read ({type(error).__name__}: {error})") from None


def sealed(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` holds a sealed value (its checksum is not verified here: :func:`read` does)."""
    return (Path(folder) / SEAL).is_file()


def _digest(folder: Path, name: str) -> str:
    hasher = hashlib.sha256(FORMAT.encode() + b"\0" + name.encode() + b"\0")
    for path in sorted(folder.iterdir()):
        if path.name == SEAL:
            continue
        if not path.is_file():
            raise StoreError(f"it holds {path.name!r}, which is not a file")
        hasher.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return hasher.hexdigest()


# --- encoding ---------------------------------------------------------------------------------


def _file(files: list[int], suffix: str) -> str:
    files[0] += 1
    return f"{files[0]}{suffix}"


def _encode(value, folder: Path, files: list[int]):
    if value is None or type(value) in (bool, str):
        return value
    if type(value) in (int, float):
        return value
    if isinstance(value, np.generic):
        dtype = value.dtype
        if dtype.kind not in _SCALAR_KINDS:
            raise Unstorable(f"a NumPy scalar of dtype {dtype}")
        return {"$": "scalar", "dtype": dtype.str, "v": value.item()}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in _ARRAY_KINDS:
            raise Unstorable(f"an array of dtype {value.dtype}")
        name = _file(files, ".npy")
        np.save(folder / name, value, allow_pickle=False)
        return {"$": "ndarray", "file": name}
    if isinstance(value, pd.DataFrame):
        if type(value) is not pd.DataFrame:
            raise Unstorable(f"a {type(value).__name__}")
        name = _file(files, ".parquet")
        try:
            value.to_parquet(folder / name, engine="pyarrow")
            if _difference(value, pd.read_parquet(folder / name, engine="pyarrow")) is None:
                return {"$": "frame", "file": name}
        except Exception:  # pyarrow's own errors (ArrowInvalid, ArrowTypeError) derive from Exception
            pass
        # Parquet infers a type for a column of Python objects (ints become int64), and refuses labels that
        # are not strings: such a frame is stored column by column instead.
        (folder / name).unlink(missing_ok=True)
        return _encode_columns(value, folder, files)
    if isinstance(value, pd.Series):
        if type(value) is not pd.Series:
            raise Unstorable(f"a {type(value).__name__}")
        frame = _encode(value.to_frame(name="values"), folder, files)
        return {"$": "series", "frame": frame, "name": _encode(value.name, folder, files)}
    if type(value) in (pd.Index, pd.RangeIndex):
        return {"$": "pandas-index", "index": _encode_index(value, folder, files)}
    if type(value) is list:
        return {"$": "list", "v": [_encode(item, folder, files) for item in value]}
    if type(value) is tuple:
        return {"$": "tuple", "v": [_encode(item, folder, files) for item in value]}
    if type(value) is dict:
        return {"$": "dict", "v": [[_encode(key, folder, files), _encode(item, folder, files)]
                                   for key, item in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        if not _ours(cls.__module__):
            raise Unstorable(f"a dataclass of another package ({cls.__module__}.{cls.__qualname__})")
        return {"$": "dataclass", "module": cls.__module__, "name": cls.__qualname__,
                "fields": {field.name: _encode(getattr(value, field.name), folder, files)
                           for field in dataclasses.fields(value)}}
    raise Unstorable(f"a {type(value).__module__}.{type(value).__qualname__}")


def _encode_columns(frame: pd.DataFrame, folder: Path, files: list[int]):
    """A frame as its columns (each an array, a list of Python values, or a one-column Parquet file), its
    labels and its index."""
    if isinstance(frame.index, pd.MultiIndex) or isinstance(frame.columns, pd.MultiIndex):
        raise Unstorable("a frame with a MultiIndex that Parquet cannot hold")
    return {"$": "columns",
            "labels": _encode_index(frame.columns, folder, files),
            "index": _encode_index(frame.index, folder, files),
            "data": [_encode_column(frame.iloc[:, position], folder, files) for position in range(frame.shape[1])]}


def _encode_index(index: pd.Index, folder: Path, files: list[int]):
    if type(index) is pd.RangeIndex:
        return {"$": "range", "start": index.start, "stop": index.stop, "step": index.step,
                "name": _encode(index.name, folder, files)}
    if type(index) is not pd.Index:
        raise Unstorable(f"a frame with a {type(index).__name__} that Parquet cannot hold")
    return {"$": "index", "values": _encode_column(pd.Series(index, copy=False), folder, files),
            "name": _encode(index.name, folder, files)}


def _encode_column(column: pd.Series, folder: Path, files: list[int]):
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype == object:  # noqa: E721 -- NumPy's dtype equality, not a type check
        return {"$": "objects", "v": [_encode(item, folder, files) for item in column.tolist()]}
    if isinstance(dtype, np.dtype):
        return _encode(column.to_numpy(), folder, files)
    return _encode(column.reset_index(drop=True).to_frame(name="values"), folder, files)


def _decode_column(tree, folder: Path) -> pd.Series:
    if isinstance(tree, dict) and tree.get("$") == "objects":
        values = [_decode(item, folder) for item in tree["v"]]
        return pd.Series(np.array(values + [None], dtype=object)[:-1], dtype=object, copy=False)
    value = _decode(tree, folder)
    if isinstance(value, np.ndarray):
        return pd.Series(value, copy=False)
    if isinstance(value, pd.DataFrame) and list(value.columns) == ["values"]:
        return value["values"]
    raise StoreError("a column is stored as neither an array, a list nor one Parquet column")


def _decode_index(index_tree, folder: Path) -> pd.Index:
    if index_tree.get("$") == "range":
        return pd.RangeIndex(index_tree["start"], index_tree["stop"], index_tree["step"],
                             name=_decode(index_tree["name"], folder))
    if index_tree.get("$") == "index":
        return pd.Index(_decode_column(index_tree["values"], folder).rename(_decode(index_tree["name"], folder)))
    raise StoreError("an index is stored in no known form")


def _decode_columns(tree, folder: Path) -> pd.DataFrame:
    index = _decode_index(tree["index"], folder)
    columns = [_decode_column(item, folder) for item in tree["data"]]
    labels = _decode_index(tree["labels"], folder)
    if len(labels) != len(columns) or any(len(column) != len(index) for column in columns):
        raise StoreError("a frame's columns, labels and index differ in length")
    frame = pd.concat([column.reset_index(drop=True) for column in columns], axis=1) if columns \
        else pd.DataFrame(index=range(len(index)))
    frame.columns = labels
    frame.index = index
    return frame


def _ours(module: str) -> bool:
    return module == "compendium" or module.startswith("compendium.")


# --- decoding ---------------------------------------------------------------------------------


def _path(folder: Path, name) -> Path:
    if not isinstance(name, str) or "/" in name or name.startswith(".") or name in (_VALUE, SEAL):
        raise StoreError(f"it names a file {name!r} that no store writes")
    return folder / name


def _decode(tree, folder: Path):
    if tree is None or isinstance(tree, (bool, str, int, float)):
        return tree
    if not isinstance(tree, dict) or "$" not in tree:
        raise StoreError(f"it holds a {type(tree).__name__} where a tagged value belongs")
    tag = tree["$"]
    if tag == "list":
        return [_decode(item, folder) for item in tree["v"]]
    if tag == "tuple":
        return tuple(_decode(item, folder) for item in tree["v"])
    if tag == "dict":
        return {_decode(key, folder): _decode(item, folder) for key, item in tree["v"]}
    if tag == "scalar":
        dtype = np.dtype(tree["dtype"])
        if dtype.kind not in _SCALAR_KINDS:
            raise StoreError(f"it holds a scalar of dtype {dtype}")
        return dtype.type(tree["v"])
    if tag == "ndarray":
        return np.load(_path(folder, tree["file"]), allow_pickle=False)
    if tag == "frame":
        return pd.read_parquet(_path(folder, tree["file"]), engine="pyarrow")
    if tag == "columns":
        return _decode_columns(tree, folder)
    if tag == "pandas-index":
        return _decode_index(tree["index"], folder)
    if tag == "series":
        frame = _decode(tree["frame"], folder)
        if not isinstance(frame, pd.DataFrame) or list(frame.columns) != ["values"]:
            raise StoreError("a series is not stored as one column")
        return frame["values"].rename(_decode(tree["name"], folder))
    if tag == "dataclass":
        module, name = tree["module"], tree["name"]
        if not _ours(module):
            raise StoreError(f"it names a class of another package ({module}.{name})")
        cls = importlib.import_module(module)
        for part in name.split("."):
            cls = getattr(cls, part)
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            raise StoreError(f"{module}.{name} is not a dataclass")
        fields = tree["fields"]
        if set(fields) != {field.name for field in dataclasses.fields(cls)}:
            raise StoreError(f"the fields stored for {module}.{name} are not the class's")
        value = cls.__new__(cls)
        for key, item in fields.items():
            object.__setattr__(value, key, _decode(item, folder))
        return value
    raise StoreError(f"it holds an unknown tag {tag!r}")


# --- the round-trip check ---------------------------------------------------------------------


def _difference(a, b, where: str = "value") -> str | None:
    """Why ``b`` (read back) is not exactly ``a`` (written), or None."""
    if type(a) is not type(b):
        return f"{where} is a {type(b).__name__}, not a {type(a).__name__}"
    if isinstance(a, pd.DataFrame) or isinstance(a, pd.Series):
        try:
            check = pd.testing.assert_frame_equal if isinstance(a, pd.DataFrame) else pd.testing.assert_series_equal
            extra = {"check_column_type": True} if isinstance(a, pd.DataFrame) else {}
            check(a, b, check_exact=True, check_index_type=True, check_flags=True, check_freq=True, **extra)
        except AssertionError as error:
            return f"{where}: {str(error).splitlines()[0]}"
        if a.attrs != b.attrs:
            return f"{where}: its attrs differ"
        return None
    if isinstance(a, pd.Index):
        try:
            pd.testing.assert_index_equal(a, b, exact=True, check_exact=True, check_categorical=True)
        except AssertionError as error:
            return f"{where}: {str(error).splitlines()[0]}"
        return None
    if isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{where}: dtype or shape differs"
        same = np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        return None if same else f"{where}: values differ"
    if isinstance(a, np.generic):
        if a.dtype != b.dtype:
            return f"{where}: dtype differs"
        return None if (a == b or (a != a and b != b)) else f"{where}: value differs"
    if isinstance(a, float):
        same = a == b or (math.isnan(a) and math.isnan(b))
        return None if same and math.copysign(1, a) == math.copysign(1, b) else f"{where}: {b!r} is not {a!r}"
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return f"{where}: length differs"
        for index, (x, y) in enumerate(zip(a, b)):
            reason = _difference(x, y, f"{where}[{index}]")
            if reason:
                return reason
        return None
    if isinstance(a, dict):
        if list(a) != list(b) or [type(key) for key in a] != [type(key) for key in b]:
            return f"{where}: keys differ"
        for key in a:
            reason = _difference(a[key], b[key], f"{where}[{key!r}]")
            if reason:
                return reason
        return None
    if dataclasses.is_dataclass(a):
        for field in dataclasses.fields(a):
            reason = _difference(getattr(a, field.name), getattr(b, field.name), f"{where}.{field.name}")
            if reason:
                return reason
        return None
    try:
        return None if bool(a == b) else f"{where}: {b!r} is not {a!r}"
    except (TypeError, ValueError):
        return f"{where}: cannot be compared"
