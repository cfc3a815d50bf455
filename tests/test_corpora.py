"""The vendored real sources of data/real/: MANIFEST, loaders, checksums, error messages, no network.

Every test reads data/real/ of this checkout (or a copy of part of it in tmp_path).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import re

import numpy as np
import pytest

from compendium.data import corpora as rs
from compendium.data.errors import DataError

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "data" / "real"
FOLDERS = ("tokenizers", "ntrex", "emoji2vec", "emotag", "goemotions", "emomix3l", "sentmix3l", "squality", "pandalm",
           "banemo", "encoded")
UPSTREAM = {
    "tokenizers": {"LICENSES.md"},
    "ntrex": {"LICENSE.md", "README.upstream.md"},
    "emoji2vec": {"LICENSE"},
    "emotag": {"LICENSE"},
    "goemotions": {"LICENSE", "README.upstream.md"},
    "emomix3l": {"LICENSE", "README.upstream.md"},
    "sentmix3l": {"LICENSE", "README.upstream.md"},
    "squality": {"LICENSE", "README.upstream.md", "COMMIT"},
    "pandalm": {"LICENSE", "COMMIT"},
    "banemo": {"LICENSE", "README.upstream.md", "COMMIT"},
    "encoded": {"LICENSE.md"},  # derived: each file takes the licence of the text it embeds
}


def _manifest(root: Path = REAL) -> dict[str, str]:
    files = {}
    for line in (root / "MANIFEST").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            digest, name = line.split("  ", 1)
            files[name] = digest
    return files


# --------------------------------------------------------------------------- files
def test_manifest_lists_every_vendored_data_file_with_its_checksum():
    listed = {k: v for k, v in _manifest().items() if "/" in k}
    on_disk = {str(p.relative_to(REAL)) for folder in FOLDERS for p in (REAL / folder).iterdir()
               if p.name not in UPSTREAM[folder]}
    assert set(listed) == on_disk
    for name, digest in listed.items():
        assert hashlib.sha256((REAL / name).read_bytes()).hexdigest() == digest, name


def test_every_folder_keeps_its_licence():
    for folder, names in UPSTREAM.items():
        for name in names:
            if name == "COMMIT":  # the upstream commit the files were copied at
                assert re.fullmatch(r"[0-9a-f]{40}\n?", (REAL / folder / name).read_text()), f"{folder}/{name}"
            else:
                assert (REAL / folder / name).stat().st_size > 500, f"{folder}/{name}"


def test_ntrex_files_have_their_published_checksums():
    # README-measurement.md states these; typed here.
    files = _manifest()
    assert files["ntrex/newstest2019-src.eng.txt"] == "389e8f5796c66db4f646dfad33e1ec622d74767af5ef112b42a1f2cd814df3cc"
    assert files["ntrex/newstest2019-ref.ben.txt"] == "7fae73a2d1d24fdcb47f68a0691253cda05fa55c5ca944bc3cdf8eb2945825f1"
    assert files["ntrex/newstest2019-ref.hin.txt"] == "10d612b3960dc1f90d297aff7e3c6d39e6eb7221b912cef0c053d9f510e41bbc"


def test_the_real_verify_and_read_manifest_handle_subfolders():
    from compendium.data import real
    from compendium.data.benchmark import read_manifest

    files = read_manifest(REAL / "MANIFEST")["files"]
    assert "goemotions/train.tsv" in files
    assert real.verify(REAL, [k for k in files if "/" in k]) == REAL


# --------------------------------------------------------------------------- loaders
def test_ntrex():
    frame = rs.load_ntrex(real_dir=REAL)
    assert list(frame.columns) == ["sentence", "language", "text"]
    assert frame.shape == (3 * 1997, 3)
    assert list(frame["language"].unique()) == ["en", "bn", "hi"]
    for _, block in frame.groupby("language"):
        assert block["sentence"].tolist() == list(range(1997))
    assert not frame["text"].str.contains("\r").any()
    first = frame[frame["sentence"] == 0].set_index("language")["text"]
    assert first["en"] == "Welsh AMs worried about 'looking like muppets'"


def test_emoji2vec():
    emojis, vectors = rs.load_emoji2vec(real_dir=REAL)
    assert len(emojis) == 1661 and len(set(emojis)) == 1661
    assert vectors.shape == (1661, 300) and vectors.dtype == np.float64
    assert np.isfinite(vectors).all()
    assert emojis[0] == "🇸🇰" and "😂" in emojis
    # the first value, read by hand from the file: bytes fb c0 92 bd after "🇸🇰 "
    assert vectors[0, 0] == pytest.approx(np.frombuffer(bytes.fromhex("fbc092bd"), "<f4")[0])


def test_emoji_frequencies():
    frame = rs.load_emoji_frequencies(real_dir=REAL)
    assert list(frame.columns) == ["emoji", "count"]
    assert len(frame) == 845  # README-measurement.md says 844; the file has 845 distinct lines
    assert frame.iloc[0].tolist() == ["😂", 1357923415]
    assert frame["emoji"].is_unique and (frame["count"] > 0).all()


def test_emotag():
    frame = rs.load_emotag(real_dir=REAL)
    assert list(frame.columns) == ["emoji", "unicode", "name", *rs.PLUTCHIK]
    assert frame.shape == (150, 11) and frame["emoji"].is_unique
    row = frame.set_index("emoji").loc["🌈"]
    assert (row["name"], row["joy"], row["trust"]) == ("rainbow", 0.69, 0.33)


def test_goemotions():
    frame = rs.load_goemotions(real_dir=REAL)
    assert list(frame.columns) == ["split", "id", "text", "labels"]
    assert frame.groupby("split", sort=False).size().to_dict() == {"train": 43410, "dev": 5426, "test": 5427}
    names = {"anger", "disgust", "fear", "joy", "neutral", "sadness", "surprise"}
    assert set().union(*frame["labels"]) == names
    assert frame["labels"].map(len).min() == 1 and frame["labels"].map(len).max() > 1
    assert frame.iloc[0][["id", "labels"]].tolist() == ["eebbqej", ("neutral",)]
    assert len(rs.load_goemotions("dev", real_dir=REAL)) == 5426
    with pytest.raises(ValueError, match="unknown GoEmotions split 'valid'"):
        rs.load_goemotions("valid", real_dir=REAL)


def test_goemotions_is_emoji_poor():
    import emoji

    frame = rs.load_goemotions(real_dir=REAL)
    assert frame["text"].map(emoji.emoji_count).gt(0).sum() == 1062  # about 2 %


@pytest.mark.parametrize("loader,rows,labels,multiline", [
    (rs.load_emomix3l, 1071, {"Happy": 228, "Surprise": 227, "Neutral": 223, "Sad": 205, "Angry": 188}, 379),
    (rs.load_sentmix3l, 1007, {"Positive": 420, "Negative": 353, "Neutral": 234}, 368),
])
def test_three_l(loader, rows, labels, multiline):
    frame = loader(real_dir=REAL)
    assert list(frame.columns) == ["id", "text", "label"]
    assert len(frame) == rows and frame["id"].tolist() == list(range(rows))
    assert frame["label"].value_counts().to_dict() == labels
    assert frame["text"].str.contains("\n").sum() == multiline  # quoted multi-line fields kept whole


# --------------------------------------------------------------------------- checksums and errors
LOADERS = {
    "ntrex/newstest2019-ref.hin.txt": lambda d: rs.load_ntrex(real_dir=d),
    "emoji2vec/emoji2vec.bin": lambda d: rs.load_emoji2vec(real_dir=d),
    "emoji2vec/frequencies_w_emoji.txt": lambda d: rs.load_emoji_frequencies(real_dir=d),
    "emotag/EmoTag1200-scores.csv": lambda d: rs.load_emotag(real_dir=d),
    "goemotions/test.tsv": lambda d: rs.load_goemotions(real_dir=d),
    "emomix3l/emo_1k.csv": lambda d: rs.load_emomix3l(real_dir=d),
    "sentmix3l/sen_1k.csv": lambda d: rs.load_sentmix3l(real_dir=d),
}


def _copy(tmp_path: Path, folder: str) -> Path:
    shutil.copy(REAL / "MANIFEST", tmp_path / "MANIFEST")
    shutil.copytree(REAL / folder, tmp_path / folder)
    return tmp_path


def _rewrite(root: Path, relative: str, data: bytes) -> None:
    """Replace a file and its MANIFEST line, so that only the content check can catch it."""
    (root / relative).write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    lines = [f"{digest}  {relative}" if line.endswith(f"  {relative}") else line
             for line in (root / "MANIFEST").read_text(encoding="utf-8").splitlines()]
    (root / "MANIFEST").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("relative", list(LOADERS))
def test_a_corrupted_copy_fails_its_checksum(tmp_path, relative):
    root = _copy(tmp_path, relative.split("/")[0])
    LOADERS[relative](root)  # the intact copy loads
    path = root / relative
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(DataError, match="does not match") as err:
        LOADERS[relative](root)
    assert err.value.file == relative and relative in str(err.value)


def test_a_missing_file_is_named(tmp_path):
    root = _copy(tmp_path, "emotag")
    (root / "emotag" / "EmoTag1200-scores.csv").unlink()
    with pytest.raises(DataError, match=r"EmoTag1200-scores\.csv: no such file"):
        rs.load_emotag(real_dir=root)


def test_ntrex_files_of_different_lengths(tmp_path):
    root = _copy(tmp_path, "ntrex")
    relative = "ntrex/newstest2019-ref.hin.txt"
    lines = (root / relative).read_bytes().split(b"\r\n")
    _rewrite(root, relative, b"\r\n".join(lines[:10] + lines[11:]))
    with pytest.raises(DataError, match=r"same number of lines.*newstest2019-ref\.hin\.txt 1996"):
        rs.load_ntrex(real_dir=root)


def test_ntrex_empty_line_is_named(tmp_path):
    root = _copy(tmp_path, "ntrex")
    relative = "ntrex/newstest2019-ref.ben.txt"
    lines = (root / relative).read_bytes().split(b"\r\n")
    lines[41] = b"  "
    _rewrite(root, relative, b"\r\n".join(lines))
    with pytest.raises(DataError, match=r"newstest2019-ref\.ben\.txt, column 'text': empty lines on 1 line: line "
                                        r"42") as err:
        rs.load_ntrex(real_dir=root)
    assert err.value.rows == (42,)


def test_emoji2vec_truncated(tmp_path):
    root = _copy(tmp_path, "emoji2vec")
    relative = "emoji2vec/emoji2vec.bin"
    _rewrite(root, relative, (root / relative).read_bytes()[:-100])
    with pytest.raises(DataError, match=r"emoji2vec\.bin: entry 1661 of 1661 is truncated") as err:
        rs.load_emoji2vec(real_dir=root)
    assert err.value.rows == (1661,)


def test_emoji_frequencies_bad_count(tmp_path):
    root = _copy(tmp_path, "emoji2vec")
    relative = "emoji2vec/frequencies_w_emoji.txt"
    text = (root / relative).read_text(encoding="utf-8").replace("😂\t1357923415", "😂\tmany", 1)
    _rewrite(root, relative, text.encode())
    with pytest.raises(DataError, match=r"frequencies_w_emoji\.txt, column 'count'.*line 1 '😂\\tmany'"):
        rs.load_emoji_frequencies(real_dir=root)


def test_emotag_score_out_of_range(tmp_path):
    root = _copy(tmp_path, "emotag")
    relative = "emotag/EmoTag1200-scores.csv"
    text = (root / relative).read_text(encoding="utf-8").replace("rainbow,0.0,0.28", "rainbow,1.5,0.28", 1)
    _rewrite(root, relative, text.encode())
    with pytest.raises(DataError, match=r"column 'anger': scores that are not numbers in \[0, 1\] on 1 line: line 2 "
                                        r"'1.5'"):
        rs.load_emotag(real_dir=root)


def test_goemotions_bad_label(tmp_path):
    root = _copy(tmp_path, "goemotions")
    relative = "goemotions/dev.tsv"
    lines = (root / relative).read_text(encoding="utf-8").split("\n")
    text, _, cid = lines[2].split("\t")
    lines[2] = f"{text}\t4,9\t{cid}"
    lines[4] = lines[4].replace("\t", " ", 1)
    _rewrite(root, relative, "\n".join(lines).encode())
    with pytest.raises(DataError, match=r"dev\.tsv: lines without exactly three tab-separated fields.*line 5"):
        rs.load_goemotions("dev", real_dir=root)
    lines[4] = (REAL / relative).read_text(encoding="utf-8").split("\n")[4]
    _rewrite(root, relative, "\n".join(lines).encode())
    with pytest.raises(DataError, match=r"dev\.tsv, column 'labels': label indices .* 0-6 on 1 line: line 3 '4,9'"):
        rs.load_goemotions("dev", real_dir=root)


def test_three_l_unknown_label_and_broken_quote(tmp_path):
    root = _copy(tmp_path, "emomix3l")
    relative = "emomix3l/emo_1k.csv"
    frame = rs.load_emomix3l(real_dir=root)
    text = (root / relative).read_text(encoding="utf-8")
    last = frame["label"].iloc[-1]
    assert text.endswith(f",{last}\n") or text.endswith(f",{last}")
    cut = text.rstrip("\n")
    _rewrite(root, relative, (cut[: -len(last)] + "Joyful\n").encode())
    with pytest.raises(DataError, match=r"emo_1k\.csv, column 'label': labels other than .* on 1 line: line \d+ "
                                        r"'Joyful'") as err:
        rs.load_emomix3l(real_dir=root)
    # the record's first line in the file (records span lines)
    (line,) = err.value.rows
    assert line > 1072 and cut.split("\n")[line - 1].startswith(('"', frame["text"].iloc[-1].split("\n")[0][:10]))
    # a stray quote swallows records: the row count check names the file
    _rewrite(root, relative, text.replace('"', "", 1).encode())
    with pytest.raises(DataError, match=r"emo_1k\.csv"):
        rs.load_emomix3l(real_dir=root)


# --------------------------------------------------------------------------- offline
NO_NETWORK = textwrap.dedent("""
    import socket, sys

    def refuse(*args, **kwargs):
        raise OSError("network access attempted")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse

    from compendium.data import corpora as rs, tokenizers as rt

    real = sys.argv[1]
    for name in rt.TOKENIZERS:
        assert rt.get_tokenizer(name, real).count("All human beings are born free") > 0, name
        assert rt.count_tokens(["সমস্ত মানুষ", "सभी मनुष्यों"], name, real).min() > 0, name
    assert len(rs.load_ntrex(real_dir=real)) == 5991
    assert rs.load_emoji2vec(real_dir=real)[1].shape == (1661, 300)
    assert len(rs.load_emoji_frequencies(real_dir=real)) == 845
    assert len(rs.load_emotag(real_dir=real)) == 150
    assert len(rs.load_goemotions(real_dir=real)) == 54263
    assert len(rs.load_emomix3l(real_dir=real)) == 1071
    assert len(rs.load_sentmix3l(real_dir=real)) == 1007
    # and the patch is in force
    try:
        socket.create_connection(("pypi.org", 443))
    except OSError as exc:
        assert "network access attempted" in str(exc)
    else:
        raise AssertionError("the socket patch is not in force")
    print("offline ok")
""")


def test_every_tokenizer_and_loader_works_without_network(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken"),
           "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run([sys.executable, "-c", NO_NETWORK, str(REAL)], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "offline ok"
