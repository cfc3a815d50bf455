"""Three real, public human evaluations: the source files and the tables derived from them.

``data/real/`` holds three releases, unchanged, with their SHA-256 in
``data/real/MANIFEST``, and the long-form judgement tables derived from them
by :func:`derive` (``data/real/derive.py`` is the command). The derivation
uses only the standard library and writes the same bytes on every run; a test
re-derives every table and compares it byte for byte with the committed copy.

SummEval (Fabbri et al. 2021, MIT licence)
    ``summeval_metrics.jsonl``: 100 CNN/DailyMail documents x 16 summarisers,
    each summary rated 1-5 on coherence, consistency, fluency and relevance by
    3 experts (a list per dimension) and 5 crowd workers. Derived:
    ``summeval_<dimension>.csv`` (experts; the rater is the position in the
    list, named ``E1``-``E3``: the release has no annotator ids, so that the
    same position is the same person is an inference) and
    ``summeval_crowd.csv`` (all four dimensions; the rater is the position,
    ``C1``-``C5``, which is *not* a fixed person: crowd workers are anonymous).

WMT23 English-German MQM, three ratings per segment (Google, Apache 2.0)
    ``wmt23_mqm_sxs_ende.tsv.tar.gz``: one row per error a professional
    translator marked in one system's translation of one segment. Derived:
    ``wmt23_mqm_ende.csv``, one MQM score per (segment, system condition,
    rater), from the published weights (:data:`MQM_WEIGHTS`). Lower is
    better. Two decisions: ``HOTW-test`` rows (attention checks with known
    answers, not judgements of the translation) are excluded; ``Source
    issue`` rows (a problem in the source, not in the translation) weigh 0.
    Every (segment, system, rater) cell keeps at least one row, so all
    3,120 cells of the design are scored.

WMT23 Chinese-English MQM, three ratings per segment (Google, Apache 2.0)
    ``wmt23_mqm_sxs_zhen.tsv.tar.gz``: the same kind of release, from the same
    source and method, for a second language pair: 377 segments x 10 systems,
    3 of 8 raters per segment. Derived: ``wmt23_mqm_zhen.csv``, by the same
    weights and decisions; all 11,310 cells are scored.

Every derived table has the columns ``item, system, rater, rating``
(``summeval_crowd.csv`` has ``dimension`` first), sorted, UTF-8, ``\\n``
line ends.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import tarfile
from pathlib import Path

__all__ = [
    "SOURCES",
    "MQM_MEMBER",
    "MQM_MEMBER_SHA256",
    "MQM_RELEASES",
    "MQM_WEIGHTS",
    "SUMMEVAL_DIMENSIONS",
    "SUMMEVAL_SYSTEMS",
    "DERIVED",
    "COLUMNS",
    "mqm_weight",
    "derive_tables",
    "derive",
    "manifest_text",
    "ENCODED",
    "stored_encoded",
]

#: The source files and their SHA-256, as published (see data/real/README.md).
SOURCES = {
    "summeval_metrics.jsonl": "e05def5f78b1398c36e52f812377cc91aec24fa7dc171b8d77b28fd91f0d212e",
    "wmt23_mqm_sxs_ende.tsv.tar.gz": "df9f5af3e6498bb9dddc998acc292ea4a34161f8637dd107de6d692ed319222c",
    "wmt23_mqm_sxs_zhen.tsv.tar.gz": "beb5eb98a34a79ec36212488d9044361ec21c8a2c54f50d509c086246244b3e2",
}
#: Files vendored unchanged from their upstream releases (each folder keeps its licence; the datasheet
#: ``data/real/README.md`` says where each came from), with their SHA-256: nothing is derived from them here.
VENDORED = {
    "tokenizers/cl100k_base.tiktoken.gz": "cf6144481f5670eaeccd8e3664165323fd3bb99d40ceb850789ea6e7b7c63af3",
    "tokenizers/claude_legacy.tokenizer.json.gz": "70a8724947f33f32c740c7dd6d7bb1f2d7a2dc46a98c0b9e945094f0d3316a34",
    "tokenizers/deepseek_v3.tokenizer.json.gz": "98f37c1ec8cdfae1887d1619a386fa52bc56e27c618fe4cc67a94272956bb1c2",
    "tokenizers/gemma3.tokenizer.json.gz": "bbb41f4edeb4e1c461b9e8cead456b3f1bde558df82c0eed93562aca0b6ab93f",
    "tokenizers/mistral_tekken_240911.json.gz": "62e42c2a0002ceb6d59581bd3abca61f22a456a6032de4cfc1ffe7ec80d338fa",
    "tokenizers/o200k_base.tiktoken.gz": "d6e1076513d1ebd773d00f4595efb2751aa27573d5e42adf4c9d7b603d2792db",
    "tokenizers/qwen3.tokenizer.json.gz": "211b8a4dffbe4ed45f2f500684b1e5b522e19dd9602464821c9d707ec220f7c8",
    "ntrex/newstest2019-ref.ben.txt": "7fae73a2d1d24fdcb47f68a0691253cda05fa55c5ca944bc3cdf8eb2945825f1",
    "ntrex/newstest2019-ref.hin.txt": "10d612b3960dc1f90d297aff7e3c6d39e6eb7221b912cef0c053d9f510e41bbc",
    "ntrex/newstest2019-src.eng.txt": "389e8f5796c66db4f646dfad33e1ec622d74767af5ef112b42a1f2cd814df3cc",
    "emoji2vec/emoji2vec.bin": "ca13da2b9a5329ee346d75f49a821e56c990373f637086a7e70cbc96c2fda11c",
    "emoji2vec/frequencies_w_emoji.txt": "f1256b05815726859d62440458fa9f7d229808449d870648cc6b74615e740023",
    "emotag/EmoTag1200-scores.csv": "9c154a7dcd1098ebacbf361a4658e383d2107061d7d92421d14f8a102b74491d",
    "goemotions/dev.tsv": "011e6579adc4d9bb2ffd908879b99e1594e7647b262cbb2e1c5c9c1c4d7d8bcc",
    "goemotions/labels.txt": "5ecd91c315ebf550ac798f06549e35a6ee1fb90866608fd640c24d520dc6aa0c",
    "goemotions/test.tsv": "f9f9b91827fe134259469368b93abddc2a52e2e2a87beab661023b06cf490baa",
    "goemotions/train.tsv": "bb74d10aec0975674c665205741ba9fe644cd70f682214624997f3770fd9e53f",
    "emomix3l/emo_1k.csv": "99b97276eddf67870b76de65f866bb6d92dd314be575b23d2a7220e33e6481cd",
    "sentmix3l/sen_1k.csv": "aa36f60c05a4471f43dc2a3af417c3ae5c731f710a0d467da8a35c24af426887",
    "squality/all-responses.jsonl": "fdefc51dae186097b35d09af1e9e355c19e422d4291a9899d2e7adcc87024f02",
    "pandalm/testset-v1.json": "cc154f9067c7382d7ea86f8f246511a5e1ac87e1fddd845c5938d789505b07a4",
    "banemo/BANEmo_Dataset.csv": "4c45e2d96a92a828d901787b67598fa03f03ade6be17c907a2b6dad69d64ca9a",
}
#: The one member of the en-de MQM archive, and its SHA-256.
MQM_MEMBER = "sxs_mqm_generalMT2023_ende.3ratingsPerSegment.tsv"
MQM_MEMBER_SHA256 = "377dd3b86f0d0faa135faa628cb5255b070a36266a915817dc6695de466b1356"
#: Each MQM release: archive -> (its one member, the member's SHA-256, the derived table).
MQM_RELEASES = {
    "wmt23_mqm_sxs_ende.tsv.tar.gz": (MQM_MEMBER, MQM_MEMBER_SHA256, "wmt23_mqm_ende.csv"),
    "wmt23_mqm_sxs_zhen.tsv.tar.gz": ("sxs_mqm_generalMT2023_zhen.3ratingsPerSegment.tsv",
                                      "b5a4edc8da8939ab12a227df591c2e036c7871bac261b8b4314a56b6ce47ae8a",
                                      "wmt23_mqm_zhen.csv"),
}

#: The published MQM weights (google/wmt-mqm-human-evaluation README; Freitag
#: et al. 2021, table 2), with the two decisions of this compendium: rows of
#: severity ``HOTW-test`` are excluded (weight None), category ``Source issue``
#: weighs 0.
MQM_WEIGHTS = {
    "Major": 5.0,
    "Minor": 1.0,
    "Minor Fluency/Punctuation": 0.1,
    "Non-translation! (any severity)": 25.0,
    "No-error": 0.0,
    "Source issue (any severity)": 0.0,
    "HOTW-test (excluded)": None,
}

SUMMEVAL_DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")
#: SummEval's model table: id -> name.
SUMMEVAL_SYSTEMS = {
    "M0": "LEAD-3", "M1": "NEUSUM", "M2": "BanditSum", "M5": "RNES", "M8": "Pointer-Generator",
    "M9": "Fast-abs-rl", "M10": "Bottom-Up", "M11": "Improve-abs", "M12": "Unified-ext-abs",
    "M13": "ROUGESal", "M14": "Multi-task", "M15": "Closed-book decoder", "M17": "T5", "M20": "GPT-2",
    "M22": "BART", "M23": "Pegasus",
}

COLUMNS = ("item", "system", "rater", "rating")
#: Each derived table: file name -> what it holds.
DERIVED = {
    **{f"summeval_{d}.csv": f"SummEval expert {d} (raters E1-E3 = list position)" for d in SUMMEVAL_DIMENSIONS},
    "summeval_crowd.csv": "SummEval crowd ratings, all four dimensions (raters C1-C5 = list position, anonymous)",
    "wmt23_mqm_ende.csv": "WMT23 en-de MQM segment scores (lower is better)",
    "wmt23_mqm_zhen.csv": "WMT23 zh-en MQM segment scores (lower is better)",
}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check(name: str, data: bytes, expected: str) -> None:
    found = _sha256(data)
    if found != expected:
        raise ValueError(f"{name}: SHA-256 {found} is not the published {expected}; restore the file from its source")


def _natural(text: str) -> tuple:
    """Sort key that orders ``M2`` before ``M10`` and ``rater2`` before ``rater10``."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def _csv(rows: list[tuple], header: tuple[str, ...]) -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def _summeval(data: bytes) -> dict[str, bytes]:
    experts: dict[str, list] = {d: [] for d in SUMMEVAL_DIMENSIONS}
    crowd: list = []
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        item, system = record["instance_id"], record["summarizer_id"]
        for group, size, prefix in (("expert", 3, "E"), ("turker", 5, "C")):
            for dimension in SUMMEVAL_DIMENSIONS:
                ratings = record["metrics"][group][dimension]
                if len(ratings) != size or not all(isinstance(r, int) and 1 <= r <= 5 for r in ratings):
                    raise ValueError(f"summeval_metrics.jsonl line {number}: {group} {dimension} = {ratings!r}, "
                                     f"expected {size} integers 1-5")
                for position, rating in enumerate(ratings, start=1):
                    row = (item, system, f"{prefix}{position}", rating)
                    if group == "expert":
                        experts[dimension].append(row)
                    else:
                        crowd.append((dimension, *row))

    def key(row):
        return (row[0], _natural(row[1]), _natural(row[2]))

    tables = {f"summeval_{d}.csv": _csv(sorted(rows, key=key), COLUMNS) for d, rows in experts.items()}
    order = {d: i for i, d in enumerate(SUMMEVAL_DIMENSIONS)}
    crowd.sort(key=lambda r: (order[r[0]], *key(r[1:])))
    tables["summeval_crowd.csv"] = _csv(crowd, ("dimension", *COLUMNS))
    return tables


def mqm_weight(category: str, severity: str) -> int | None:
    """Weight of one MQM annotation row in tenths of a point (None: the row is excluded).

    Implements :data:`MQM_WEIGHTS`: Major 5, Minor 1, Minor
    ``Fluency/Punctuation`` 0.1, ``Non-translation!`` 25, ``No-error`` 0,
    ``Source issue`` 0, ``HOTW-test`` excluded. Integers keep the sums exact.

    >>> mqm_weight("Fluency/Punctuation", "Minor"), mqm_weight("Accuracy/Mistranslation", "Major")
    (1, 50)
    """
    if severity == "HOTW-test":
        return None
    if category in ("No-error", "Source issue"):
        return 0
    if category == "Non-translation!":
        return 250
    if severity == "Major":
        return 50
    if severity == "Minor":
        return 1 if category == "Fluency/Punctuation" else 10
    raise ValueError(f"MQM row with category {category!r} and unknown severity {severity!r}")


def _mqm(archive: bytes, name: str = "wmt23_mqm_sxs_ende.tsv.tar.gz") -> dict[str, bytes]:
    member_name, member_sha256, table = MQM_RELEASES[name]
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        member = tar.extractfile(member_name)
        if member is None:
            raise ValueError(f"{name}: no member {member_name}")
        data = member.read()
    _check(member_name, data, member_sha256)
    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = next(reader)
    col = {name: header.index(name) for name in ("system", "globalSegId", "rater", "category", "severity")}
    scores: dict[tuple, int] = {}
    for number, row in enumerate(reader, start=2):
        cell = (int(row[col["globalSegId"]]), row[col["system"]], row[col["rater"]])
        weight = mqm_weight(row[col["category"]], row[col["severity"]])
        if weight is None:
            continue
        scores[cell] = scores.get(cell, 0) + weight
    rows = [
        (item, system, rater, f"{tenths // 10}.{tenths % 10}")
        for (item, system, rater), tenths in sorted(
            scores.items(), key=lambda kv: (kv[0][0], _natural(kv[0][1]), _natural(kv[0][2]))
        )
    ]
    return {table: _csv(rows, COLUMNS)}


def derive_tables(source_dir: str | os.PathLike) -> dict[str, bytes]:
    """The derived tables, as bytes, from the two source files in ``source_dir``.

    Raises
    ------
    ValueError
        If a source file's SHA-256 is not the published one, or a record does
        not have the expected shape.
    """
    source_dir = Path(source_dir)
    contents = {}
    for name, digest in SOURCES.items():
        data = (source_dir / name).read_bytes()
        _check(name, data, digest)
        contents[name] = data
    tables = _summeval(contents["summeval_metrics.jsonl"])
    for name in MQM_RELEASES:
        tables.update(_mqm(contents[name], name))
    return tables


def manifest_text(tables: dict[str, bytes]) -> str:
    """``data/real/MANIFEST``: the sources' and the derived files' SHA-256, ``sha256sum`` format."""
    lines = ["# generator: compendium.data.derive",
             "# sources: SummEval (Fabbri et al. 2021); WMT23 en-de and zh-en MQM (Google); "
             "encoded/: NTREX-128 embedded by the real encoders (compendium.data.encoded)"]
    lines += [f"{digest}  {name}" for name, digest in SOURCES.items()]
    lines += [f"{_sha256(data)}  {name}" for name, data in sorted(tables.items())]
    lines += [f"{digest}  {name}" for name, digest in VENDORED.items()]
    return "\n".join(lines) + "\n"


#: The folder of derived embeddings (written by :mod:`compendium.data.encoded`, listed here by name only).
ENCODED = "encoded"


def stored_encoded(directory: str | os.PathLike) -> dict[str, bytes]:
    """The derived embeddings already in ``directory/encoded`` (``.npy``), by path: deriving the tables keeps
    them, and the MANIFEST lists them."""
    folder = Path(directory) / ENCODED
    return {f"{ENCODED}/{path.name}": path.read_bytes() for path in sorted(folder.glob("*.npy"))}


def derive(directory: str | os.PathLike, *, encoded: dict[str, bytes] | None = None) -> list[Path]:
    """Write the derived tables and the MANIFEST into ``directory`` (which holds the sources).

    ``encoded``: freshly derived embeddings to write as well
    (:func:`compendium.data.encoded.derive_encoded`, minutes; ``derive.py --embeddings``). Without them, the
    ones already in ``directory/encoded`` are kept and listed. Each file is written to a temporary name and
    renamed, so an interrupted run leaves the previous files, never half-written ones.
    """
    directory = Path(directory)
    tables = derive_tables(directory)
    listed = {**tables, **(stored_encoded(directory) if encoded is None else encoded)}
    files = {**tables, **(encoded or {}), "MANIFEST": manifest_text(listed).encode("utf-8")}
    written = []
    for name, data in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        written.append(path)
    return written
