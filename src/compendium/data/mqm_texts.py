"""The texts and error rows of the raw WMT23 en-de MQM release (``data/real/wmt23_mqm_sxs_ende.tsv.tar.gz``).

:func:`compendium.data.real.load_mqm` gives one MQM score per (segment,
system, rater); the raw release it is derived from also holds the source and
target texts of every rated segment and the severity of every error. This
module reads them, checking the archive against ``data/real/MANIFEST`` and the
TSV member against its published SHA-256 (:data:`compendium.data.derive.MQM_MEMBER_SHA256`),
so a changed copy is rejected with a :class:`~compendium.data.errors.DataError`
that names the file.

Text cleaning (the one decision here): the interface marks an error span
inside the text with ``<v>`` ... ``</v>``; the tags are removed and the text
stripped of surrounding white space. After that every (segment, system) has
exactly one target text and every segment one source text over all its rows
(checked: a disagreement is a ``DataError``).
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import tarfile

import pandas as pd

from compendium.data.derive import MQM_MEMBER, MQM_MEMBER_SHA256
from compendium.data.errors import DataError
from compendium.data.real import real_data_dir, verify

__all__ = ["ARCHIVE", "clean_text", "load_mqm_rows", "load_mqm_texts", "texts_from_rows"]

#: The raw release's file name under ``data/real/``.
ARCHIVE = "wmt23_mqm_sxs_ende.tsv.tar.gz"
_COLUMNS = ("system", "doc", "globalSegId", "rater", "source", "target", "category", "severity")


def clean_text(text: str) -> str:
    """Remove the interface's error-span tags ``<v>``/``</v>`` and surrounding white space.

    >>> clean_text(" Die Polizei<v>.</v> ")
    'Die Polizei.'
    """
    return text.replace("<v>", "").replace("</v>", "").strip()


def load_mqm_rows(*, real_dir: str | os.PathLike | None = None, verify_checksum: bool = True) -> pd.DataFrame:
    """Every annotation row of the raw MQM release, texts cleaned (:func:`clean_text`).

    Parameters
    ----------
    real_dir : path, optional
        The real-data directory (default ``data/real`` of the project).
    verify_checksum : bool, default True
        Check the archive against ``MANIFEST`` (the TSV member is always
        checked against its published SHA-256).

    Returns
    -------
    DataFrame
        One row per annotation row: ``item`` (``globalSegId``, int),
        ``system, doc, rater, source, target, category, severity``. HOTW-test
        rows are kept (``severity == "HOTW-test"``); callers decide.

    Raises
    ------
    DataError
        The archive changed (MANIFEST), has no TSV member, the member's
        SHA-256 is not the published one, or a row is malformed.
    """
    root = real_data_dir(real_dir)
    path = root / ARCHIVE
    if verify_checksum:
        verify(root, [ARCHIVE])
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            member = tar.extractfile(MQM_MEMBER)
            if member is None:
                raise KeyError(MQM_MEMBER)
            data = member.read()
    except (KeyError, tarfile.TarError, OSError, EOFError) as err:
        raise DataError(f"{path}: cannot read the member {MQM_MEMBER} ({err})", file=ARCHIVE) from err
    found = hashlib.sha256(data).hexdigest()
    if found != MQM_MEMBER_SHA256:
        raise DataError(f"{path}: member {MQM_MEMBER} has SHA-256 {found[:12]}..., not the published "
                        f"{MQM_MEMBER_SHA256[:12]}...; restore the archive from its source", file=ARCHIVE)
    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = next(reader)
    try:
        col = [header.index(c) for c in _COLUMNS]
    except ValueError as err:
        raise DataError(f"{path}: {MQM_MEMBER} lacks a column ({err})", file=ARCHIVE) from err
    records, bad = [], []
    for number, row in enumerate(reader, start=2):
        if len(row) <= max(col):
            bad.append(number)
            continue
        records.append([row[i] for i in col])
    if bad:
        raise DataError(f"{path}: {MQM_MEMBER} lines {bad[:5]} have too few fields", file=ARCHIVE, rows=bad)
    frame = pd.DataFrame(records, columns=list(_COLUMNS)).rename(columns={"globalSegId": "item"})
    frame["item"] = frame["item"].astype(int)
    frame["source"] = frame["source"].map(clean_text)
    frame["target"] = frame["target"].map(clean_text)
    for key, text in ((["item", "system"], "target"), (["item"], "source")):
        n = frame.groupby(key)[text].nunique()
        if (n != 1).any():
            cells = [k if isinstance(k, tuple) else (k,) for k in n[n != 1].index[:5]]
            raise DataError(f"{path}: {text} text differs between rows of {cells}", file=ARCHIVE,
                            column=text, values=cells)
    return frame[["item", "system", "doc", "rater", "source", "target", "category", "severity"]]


def load_mqm_texts(*, real_dir: str | os.PathLike | None = None, verify_checksum: bool = True) -> pd.DataFrame:
    """The source and target text of every rated (segment, system): 104 x 10 = 1,040 rows.

    Returns
    -------
    DataFrame
        ``item, system, doc, source, target``, sorted by item and system.

    Raises
    ------
    DataError
        As :func:`load_mqm_rows`.
    """
    return texts_from_rows(load_mqm_rows(real_dir=real_dir, verify_checksum=verify_checksum))


def texts_from_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """:func:`load_mqm_texts` from rows already loaded by :func:`load_mqm_rows` (one read of the archive)."""
    texts = rows.drop_duplicates(["item", "system"])[["item", "system", "doc", "source", "target"]]
    return texts.sort_values(["item", "system"]).reset_index(drop=True)
