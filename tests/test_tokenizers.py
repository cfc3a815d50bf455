"""The vendored production tokenizers: files, registry, pinned counts, and an independent BPE.

Every test reads data/real/ of this checkout. The pinned counts of o200k_base
and Gemma 3 on the UDHR's Article 1 and on the emoji string are the outside
reference of data/real/README.md (measured when the files were chosen); the
others were measured here and pin the files and the loading code.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest
import regex

from compendium.data import tokenizers as rt
from compendium.data.errors import DataError

REAL = Path(__file__).resolve().parents[1] / "data" / "real"

# The Universal Declaration of Human Rights, Article 1 (OHCHR's texts).
EN = ("All human beings are born free and equal in dignity and rights. They are endowed with reason and "
      "conscience and should act towards one another in a spirit of brotherhood.")
BN = ("সমস্ত মানুষ স্বাধীনভাবে সমান মর্যাদা এবং অধিকার নিয়ে জন্মগ্রহণ করে। তাঁদের বিবেক এবং বুদ্ধি আছে; "
      "সুতরাং সকলেরই একে অপরের প্রতি ভ্রাতৃত্বসুলভ মনোভাব নিয়ে আচরণ করা উচিত।")
HI = ("सभी मनुष्यों को गौरव और अधिकारों के मामले में जन्मजात स्वतन्त्रता और समानता प्राप्त है। उन्हें बुद्धि और "
      "अन्तरात्मा की देन प्राप्त है और परस्पर उन्हें भाईचारे के भाव से बर्ताव करना चाहिए।")
EMOJI = "😂👍🏽❤️‍🔥"
FIXED = {"en": EN, "bn": BN, "hi": HI, "emoji": EMOJI}

#: Token counts (en, bn, hi, emoji), special tokens excluded.
COUNTS = {
    "o200k_base": (33, 56, 54, 7),  # README: 33 / 56 / 54 and 7
    "cl100k_base": (33, 213, 180, 16),
    "gemma3": (32, 35, 45, 6),  # README: 32 / 35 / 45 and 6
    "qwen3": (33, 180, 171, 8),
    "deepseek_v3": (33, 67, 92, 8),
    "mistral_tekken": (33, 68, 60, 23),
    "claude_legacy": (33, 300, 199, 14),
}

#: sha256 of each decompressed file, as README-measurement.md states (typed here, not read from the module).
ORIGINAL_SHA256 = {
    "o200k_base.tiktoken.gz": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base.tiktoken.gz": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "gemma3.tokenizer.json.gz": "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795",
    "qwen3.tokenizer.json.gz": "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
    "deepseek_v3.tokenizer.json.gz": "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41",
    "mistral_tekken_240911.json.gz": "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
    "claude_legacy.tokenizer.json.gz": "c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767",
}


# --------------------------------------------------------------------------- files and registry
def test_every_file_decompresses_to_its_original_sha256():
    on_disk = {p.name for p in (REAL / "tokenizers").glob("*.gz")}
    assert on_disk == set(ORIGINAL_SHA256)
    for name, digest in ORIGINAL_SHA256.items():
        raw = gzip.decompress((REAL / "tokenizers" / name).read_bytes())
        assert hashlib.sha256(raw).hexdigest() == digest, name
    assert (REAL / "tokenizers" / "LICENSES.md").is_file()


def test_registry_names_every_system_once_except_grok():
    table = rt.registry()
    assert list(table.columns) == ["tokenizer", "system", "exact", "library", "file"]
    assert list(dict.fromkeys(table["tokenizer"])) == list(COUNTS)
    systems = table["system"].dropna()
    assert systems.is_unique
    assert set(systems) == set(rt.SYSTEMS) - {"grok-4-fast"}
    assert rt.UNCOVERED_SYSTEMS == ("grok-4-fast",)
    exact = dict(zip(table["system"].dropna(), table.loc[table["system"].notna(), "exact"]))
    assert exact == {
        "gpt-4.1-nano": True, "gemma-3-27b": True, "gemini-2.0-flash": False, "qwen3-vl-235b": True,
        "deepseek-v3.2": True, "mistral-large-2512": False, "claude-3-haiku": False,
    }
    assert table.loc[table["tokenizer"] == "cl100k_base", "system"].isna().all()
    assert set(table["library"]) == {"tiktoken", "tokenizers"}
    for file in table["file"]:
        assert (REAL / file).is_file(), file


def test_a_counter_carries_its_systems():
    gemma = rt.get_tokenizer("gemma3", REAL)
    assert (gemma.name, gemma.system, gemma.exact) == ("gemma3", "gemma-3-27b", True)
    assert gemma.systems == ("gemma-3-27b", "gemini-2.0-flash")
    assert gemma.exact_for == {"gemma-3-27b": True, "gemini-2.0-flash": False}
    claude = rt.get_tokenizer("claude_legacy", REAL)
    assert (claude.system, claude.exact) == ("claude-3-haiku", False)
    cl100k = rt.get_tokenizer("cl100k_base", REAL)
    assert (cl100k.system, cl100k.exact, cl100k.systems) == (None, False, ())
    assert rt.get_tokenizer("gemma3", REAL) is gemma  # cached


# --------------------------------------------------------------------------- counts
@pytest.mark.parametrize("name", list(COUNTS))
def test_pinned_counts_on_the_fixed_strings(name):
    tok = rt.get_tokenizer(name, REAL)
    found = tuple(tok.count(FIXED[k]) for k in ("en", "bn", "hi", "emoji"))
    assert found == COUNTS[name]
    for text in FIXED.values():
        ids = tok.encode(text)
        assert len(ids) == tok.count(text) and all(isinstance(i, int) for i in ids)
    assert list(rt.count_tokens(list(FIXED.values()), name, REAL)) == list(COUNTS[name])


def test_no_tokenizer_keeps_a_zwj_sequence_whole():
    for name in COUNTS:
        assert rt.get_tokenizer(name, REAL).count("❤️‍🔥") > 1, name


def test_special_tokens_are_not_added():
    # an empty text is 0 tokens: no BOS/EOS
    for name in COUNTS:
        assert rt.get_tokenizer(name, REAL).count("") == 0, name
    # Tekken ids are shifted past the 1000 special tokens, as mistral_common numbers them
    assert min(rt.get_tokenizer("mistral_tekken", REAL).encode(EN)) >= 1000


def test_count_tokens_is_vectorised_and_deterministic(ntrex_sample):
    texts = ntrex_sample["bn"][:50]
    for name in COUNTS:
        tok = rt.get_tokenizer(name, REAL)
        batch = rt.count_tokens(texts, name, REAL)
        assert batch.dtype == np.int64 and batch.shape == (50,)
        assert batch.tolist() == [tok.count(t) for t in texts]
        assert np.array_equal(batch, rt.count_tokens(texts, name, REAL))
    assert rt.count_tokens([], "o200k_base", REAL).shape == (0,)
    assert rt.count_tokens(EN, "o200k_base", REAL).tolist() == [33]


def test_tiktoken_counts_are_tiktokens_own_batch(ntrex_sample):
    """``count_many`` encodes text by text in its own thread; tiktoken's batch hands them to a thread pool."""
    texts = list(ntrex_sample["hi"][:50]) + [EMOJI, ""]
    for name in ("o200k_base", "cl100k_base", "mistral_tekken"):
        tok = rt.get_tokenizer(name, REAL)
        assert tok.library == "tiktoken"
        assert tok.count_many(texts).tolist() == [len(e) for e in tok._backend.encode_ordinary_batch(texts)]


@pytest.mark.parametrize("line", [b"!!!! 5", b"QQ 5", b"QQ==QQ== 5", b"QQ== five", b"QQ=="])
def test_a_malformed_ranks_line_is_named(line):
    with pytest.raises(DataError, match=r"r\.tiktoken: line 2 is not '<base64 token> <rank>'") as info:
        rt._ranks(Path("r.tiktoken"), "tokenizers/r.tiktoken.gz", b"QQ== 0\n" + line + b"\n")
    assert info.value.rows == (2,)


# --------------------------------------------------------------------------- an independent BPE
def _ranks(file: str) -> dict[bytes, int]:
    raw = gzip.decompress((REAL / "tokenizers" / file).read_bytes())
    return {base64.b64decode(tok): int(rank) for tok, rank in (line.split() for line in raw.splitlines() if line)}


def _bpe(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Byte-level BPE: merge the adjacent pair of lowest rank until none is in the vocabulary."""
    parts = [bytes([b]) for b in piece]
    while len(parts) > 1:
        best, where = None, -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best is None or rank < best):
                best, where = rank, i
        if best is None:
            break
        parts[where:where + 2] = [parts[where] + parts[where + 1]]
    return [ranks[p] for p in parts]


def _encode(text: str, pattern: regex.Pattern, ranks: dict[bytes, int]) -> list[int]:
    return [t for m in pattern.finditer(text) for t in _bpe(m.group().encode("utf-8"), ranks)]


@pytest.fixture(scope="module")
def ntrex_sample() -> dict[str, list[str]]:
    files = {"en": "newstest2019-src.eng.txt", "bn": "newstest2019-ref.ben.txt", "hi": "newstest2019-ref.hin.txt"}
    rng = np.random.default_rng(20260101)
    picks = np.sort(rng.choice(1997, size=200, replace=False))
    out = {}
    for lang, file in files.items():
        lines = (REAL / "ntrex" / file).read_text(encoding="utf-8").splitlines()
        assert len(lines) == 1997
        out[lang] = [lines[i] for i in picks]
    return out


@pytest.mark.parametrize(
    "name,file", [("o200k_base", "o200k_base.tiktoken.gz"), ("cl100k_base", "cl100k_base.tiktoken.gz")]
)
def test_tiktoken_agrees_with_a_pure_python_bpe(name, file, ntrex_sample):
    ranks = _ranks(file)
    pattern = regex.compile(rt.PATTERNS[name])
    tok = rt.get_tokenizer(name, REAL)
    texts = [*FIXED.values(), *(t for lang in ("en", "bn", "hi") for t in ntrex_sample[lang])]
    assert len(texts) == 604
    mismatched = [t for t in texts if tok.encode(t) != _encode(t, pattern, ranks)]
    assert not mismatched, f"{len(mismatched)} texts differ, e.g. {mismatched[0]!r}"
    if name == "o200k_base":
        assert len(_encode(BN, pattern, ranks)) == 56 and len(_encode(EMOJI, pattern, ranks)) == 7


def test_the_independent_bpe_can_disagree():
    # the check is not vacuous: a BPE that merges the highest-ranked pair first gives other tokens
    ranks = _ranks("o200k_base.tiktoken.gz")
    worst = {k: -v for k, v in ranks.items()}
    piece = " brotherhood".encode()
    assert _bpe(piece, ranks) != [ranks[p] for p in _split_by(piece, worst)]


def _split_by(piece: bytes, scores: dict[bytes, int]) -> list[bytes]:
    parts = [bytes([b]) for b in piece]
    while len(parts) > 1:
        cands = [
            (scores[parts[i] + parts[i + 1]], i) for i in range(len(parts) - 1) if parts[i] + parts[i + 1] in scores
        ]
        if not cands:
            break
        _, i = min(cands)
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return parts


# --------------------------------------------------------------------------- errors
def test_unknown_name_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown tokenizer 'grok'.*o200k_base.*claude_legacy"):
        rt.get_tokenizer("grok")
    with pytest.raises(ValueError, match="known"):
        rt.count_tokens(["x"], "gpt2")


def _copy(tmp_path: Path, *files: str) -> Path:
    (tmp_path / "tokenizers").mkdir()
    shutil.copy(REAL / "MANIFEST", tmp_path / "MANIFEST")
    for f in files:
        shutil.copy(REAL / "tokenizers" / f, tmp_path / "tokenizers" / f)
    return tmp_path


def test_a_corrupted_file_is_refused_by_name(tmp_path):
    root = _copy(tmp_path, "qwen3.tokenizer.json.gz")
    path = root / "tokenizers" / "qwen3.tokenizer.json.gz"
    data = bytearray(path.read_bytes())
    data[1000] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(DataError, match=r"qwen3\.tokenizer\.json\.gz.*SHA-256.*does not match") as err:
        rt.get_tokenizer("qwen3", root)
    assert err.value.file == "tokenizers/qwen3.tokenizer.json.gz"


def test_a_missing_file_is_named(tmp_path):
    root = _copy(tmp_path)
    with pytest.raises(DataError, match=r"o200k_base\.tiktoken\.gz: no such file") as err:
        rt.get_tokenizer("o200k_base", root)
    assert err.value.file == "tokenizers/o200k_base.tiktoken.gz"


def test_a_file_the_manifest_does_not_list_is_refused(tmp_path):
    root = _copy(tmp_path, "gemma3.tokenizer.json.gz")
    lines = (root / "MANIFEST").read_text().splitlines()
    (root / "MANIFEST").write_text("\n".join(l for l in lines if "gemma3" not in l) + "\n")
    with pytest.raises(DataError, match="does not list tokenizers/gemma3.tokenizer.json.gz"):
        rt.get_tokenizer("gemma3", root)


def test_a_file_that_is_not_gzip_is_named_even_if_the_manifest_agrees(tmp_path):
    root = _copy(tmp_path)
    bad = b"not gzip at all"
    (root / "tokenizers" / "claude_legacy.tokenizer.json.gz").write_bytes(bad)
    manifest = (root / "MANIFEST").read_text().splitlines()
    digest = hashlib.sha256(bad).hexdigest()
    manifest = [
        f"{digest}  tokenizers/claude_legacy.tokenizer.json.gz" if "claude_legacy" in l else l for l in manifest
    ]
    (root / "MANIFEST").write_text("\n".join(manifest) + "\n")
    with pytest.raises(DataError, match=r"claude_legacy\.tokenizer\.json\.gz: not a readable gzip file"):
        rt.get_tokenizer("claude_legacy", root)
