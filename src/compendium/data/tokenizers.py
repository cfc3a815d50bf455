"""Production tokenizers, loaded offline from ``data/real/tokenizers/``, and the paper's systems they stand for.

Seven vocabularies are vendored, gzipped, under ``data/real/tokenizers/`` (see
``data/real/README.md`` and ``data/real/tokenizers/LICENSES.md``). Each is
checked against ``data/real/MANIFEST`` when it is loaded and is built without
any network access:

- the OpenAI ranks files (``.tiktoken``) become a :class:`tiktoken.Encoding`
  with the split pattern of ``tiktoken_ext/openai_public.py`` (copied here;
  :func:`tiktoken.get_encoding` is never called, since it downloads);
- Mistral's Tekken file (``tekken.json``) becomes a :class:`tiktoken.Encoding`
  as ``mistral_common`` builds it: the first ``default_vocab_size -
  default_num_special_tokens`` ranks, the file's own pattern, and token ids
  shifted by the number of special tokens;
- the Hugging Face ``tokenizer.json`` files become a
  :class:`tokenizers.Tokenizer` (``Tokenizer.from_str``), normaliser included
  (Qwen3 applies NFC).

Tokens are counted without special tokens (``encode_ordinary``,
``add_special_tokens=False``): the count is the text's own cost.

Which tokenizer stands for which of the paper's systems is in
:data:`REGISTRY` (:func:`registry` as a table). Some are exact, some are
proxies; Grok-4-Fast has no public tokenizer (:data:`UNCOVERED_SYSTEMS`).
"""

from __future__ import annotations

import binascii
import functools
import gzip
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.data.cache import cached
from compendium.data.errors import DataError
from compendium.data.real import real_data_dir, verify

__all__ = [
    "SUBDIR",
    "SYSTEMS",
    "UNCOVERED_SYSTEMS",
    "PATTERNS",
    "RegistryRow",
    "REGISTRY",
    "TOKENIZERS",
    "TokenCounter",
    "registry",
    "get_tokenizer",
    "count_tokens",
    "stored_counts",
]

#: Folder of ``data/real/`` holding the tokenizer files.
SUBDIR = "tokenizers"

#: The paper's systems, named as everywhere in the compendium.
SYSTEMS = (
    "claude-3-haiku",
    "deepseek-v3.2",
    "gemini-2.0-flash",
    "gemma-3-27b",
    "mistral-large-2512",
    "gpt-4.1-nano",
    "qwen3-vl-235b",
    "grok-4-fast",
)
#: Systems with no public tokenizer, so no row in :data:`REGISTRY`.
UNCOVERED_SYSTEMS = ("grok-4-fast",)

#: Split patterns of the OpenAI encodings, copied from ``tiktoken_ext/openai_public.py``
#: (tiktoken 0.14.0).
PATTERNS = {
    "cl100k_base": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|"""
        r"""\s+(?!\S)|\s"""
    ),
    "o200k_base": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}


@dataclass(frozen=True)
class RegistryRow:
    """One (tokenizer, system) pair of :data:`REGISTRY`.

    Attributes
    ----------
    tokenizer : str
        The tokenizer's name (the argument of :func:`get_tokenizer`).
    system : str or None
        The paper's system it stands for (one of :data:`SYSTEMS`), or None
        (``cl100k_base`` stands for no system of the paper).
    exact : bool
        True if it is the system's own tokenizer, False for a proxy.
    library : {"tiktoken", "tokenizers"}
        The library that runs it.
    file : str
        The vendored file, relative to ``data/real/``.
    note : str
        Why it is exact or a proxy.
    """

    tokenizer: str
    system: str | None
    exact: bool
    library: str
    file: str
    note: str


#: Every tokenizer and the system(s) it stands for: one row per (tokenizer, system).
#: ``gemma3`` has two rows, exact for gemma-3-27b and a proxy for gemini-2.0-flash.
REGISTRY: tuple[RegistryRow, ...] = (
    RegistryRow("o200k_base", "gpt-4.1-nano", True, "tiktoken", f"{SUBDIR}/o200k_base.tiktoken.gz",
                "OpenAI's encoding of the GPT-4o/4.1 family"),
    RegistryRow("cl100k_base", None, False, "tiktoken", f"{SUBDIR}/cl100k_base.tiktoken.gz",
                "GPT-4-era reference; stands for no system of the paper"),
    RegistryRow("gemma3", "gemma-3-27b", True, "tokenizers", f"{SUBDIR}/gemma3.tokenizer.json.gz",
                "Gemma 3's own tokenizer"),
    RegistryRow("gemma3", "gemini-2.0-flash", False, "tokenizers", f"{SUBDIR}/gemma3.tokenizer.json.gz",
                "proxy: same tokenizer family as Gemini, not confirmed; Gemini's tokenizer is unpublished"),
    RegistryRow("qwen3", "qwen3-vl-235b", True, "tokenizers", f"{SUBDIR}/qwen3.tokenizer.json.gz",
                "Qwen3 vocabulary (exact vocabulary of Qwen3-VL)"),
    RegistryRow("deepseek_v3", "deepseek-v3.2", True, "tokenizers", f"{SUBDIR}/deepseek_v3.tokenizer.json.gz",
                "DeepSeek-V3.2 uses the tokenizer of DeepSeek-V3"),
    RegistryRow("mistral_tekken", "mistral-large-2512", False, "tiktoken", f"{SUBDIR}/mistral_tekken_240911.json.gz",
                "proxy: Tekken (2024-09-11), the family of Mistral's current tokenizers"),
    RegistryRow("claude_legacy", "claude-3-haiku", False, "tokenizers", f"{SUBDIR}/claude_legacy.tokenizer.json.gz",
                "proxy only: Anthropic's public Claude-2-era tokenizer; Claude 3's is unpublished"),
)

#: The tokenizer names, in the order of :data:`REGISTRY`.
TOKENIZERS: tuple[str, ...] = tuple(dict.fromkeys(row.tokenizer for row in REGISTRY))


def registry() -> pd.DataFrame:
    """:data:`REGISTRY` as a table.

    Returns
    -------
    pandas.DataFrame
        One row per (tokenizer, system), columns ``tokenizer, system, exact,
        library, file`` (``system`` is None for ``cl100k_base``).
    """
    return pd.DataFrame(
        [(r.tokenizer, r.system, r.exact, r.library, r.file) for r in REGISTRY],
        columns=["tokenizer", "system", "exact", "library", "file"],
    )


def _rows(name: str) -> list[RegistryRow]:
    rows = [r for r in REGISTRY if r.tokenizer == name]
    if not rows:
        raise ValueError(f"unknown tokenizer {name!r}; known: {', '.join(TOKENIZERS)}")
    return rows


@dataclass(frozen=True, eq=False)
class TokenCounter:
    """A loaded tokenizer that counts a text's tokens, special tokens excluded.

    Built by :func:`get_tokenizer`; do not construct it directly.

    Attributes
    ----------
    name : str
        The tokenizer's name in :data:`REGISTRY`.
    systems : tuple of str
        The paper's systems it stands for (empty for ``cl100k_base``).
    system : str or None
        The first of ``systems`` (the one it is exact for, if any).
    exact : bool
        Whether it is exact for ``system``.
    exact_for : dict
        System -> whether it is exact for that system.
    library : str
        ``"tiktoken"`` or ``"tokenizers"``.
    file : pathlib.Path
        The file it was loaded from.
    """

    name: str
    systems: tuple[str, ...]
    exact_for: dict[str, bool]
    library: str
    file: Path
    _backend: object = field(repr=False)
    _offset: int = field(default=0, repr=False)

    @property
    def system(self) -> str | None:
        return self.systems[0] if self.systems else None

    @property
    def exact(self) -> bool:
        return bool(self.systems) and self.exact_for[self.systems[0]]

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text``, without special tokens.

        Parameters
        ----------
        text : str

        Returns
        -------
        list of int
        """
        if self.library == "tiktoken":
            return [t + self._offset for t in self._backend.encode_ordinary(text)]
        return list(self._backend.encode(text, add_special_tokens=False).ids)

    def count(self, text: str) -> int:
        """The number of tokens of ``text``, without special tokens.

        Parameters
        ----------
        text : str

        Returns
        -------
        int
        """
        if self.library == "tiktoken":
            return len(self._backend.encode_ordinary(text))
        return len(self._backend.encode(text, add_special_tokens=False).ids)

    def count_many(self, texts: Sequence[str]) -> np.ndarray:
        """Token counts of many texts, in order (batched; the same as :meth:`count` on each).

        Parameters
        ----------
        texts : sequence of str

        Returns
        -------
        numpy.ndarray
            ``int64``, one count per text.
        """
        texts = list(texts)
        if not texts:
            return np.zeros(0, dtype=np.int64)
        if self.library == "tiktoken":
            # One call per text, as tiktoken's own batch does, but in this thread: the batch hands each
            # text to a thread pool, whose overhead was 1.3 s of the 3 s the NTREX counts took on two
            # cores that a build keeps busy anyway.
            encode = self._backend.encode_ordinary
            return np.fromiter((len(encode(text)) for text in texts), dtype=np.int64, count=len(texts))
        encoded = self._backend.encode_batch(texts, add_special_tokens=False)
        return np.fromiter((len(e.ids) for e in encoded), dtype=np.int64, count=len(texts))


def _read(root: Path, relative: str) -> bytes:
    """The decompressed bytes of a vendored tokenizer file, checked against the MANIFEST."""
    verify(root, [relative])
    path = root / relative
    try:
        return gzip.decompress(path.read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise DataError(f"{path}: not a readable gzip file ({exc})", file=relative) from exc


def _ranks(path: Path, relative: str, data: bytes) -> dict[bytes, int]:
    """A tiktoken ranks file (``<base64 token> <rank>`` per line) as a dict."""
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[binascii.a2b_base64(token, strict_mode=True)] = int(rank)
        except ValueError as exc:
            raise DataError(f"{path}: line {number} is not '<base64 token> <rank>' ({exc})", file=relative,
                            rows=[number], unit="line") from exc
    return ranks


def _tekken(path: Path, relative: str, data: bytes) -> tuple[str, dict[bytes, int], int]:
    """Pattern, mergeable ranks and id offset of a Tekken file, as ``mistral_common`` reads it."""
    try:
        model = json.loads(data.decode("utf-8"))
        config = model["config"]
        inner = int(config["default_vocab_size"]) - int(config["default_num_special_tokens"])
        ranks = {}
        for i, entry in enumerate(model["vocab"][:inner]):
            if entry["rank"] != i:
                raise ValueError(f"vocabulary entry {i} has rank {entry['rank']}")
            ranks[binascii.a2b_base64(entry["token_bytes"], strict_mode=True)] = i
        return config["pattern"], ranks, int(config["default_num_special_tokens"])
    except (ValueError, KeyError, TypeError) as exc:
        raise DataError(f"{path}: not a Tekken tokenizer file ({exc})", file=relative) from exc


@functools.lru_cache(maxsize=None)
def _load(name: str, root: Path) -> TokenCounter:
    rows = _rows(name)
    relative, library = rows[0].file, rows[0].library
    path = root / relative
    data = _read(root, relative)
    offset = 0
    if library == "tiktoken":
        import tiktoken

        if name in PATTERNS:
            pattern, ranks = PATTERNS[name], _ranks(path, relative, data)
        else:
            pattern, ranks, offset = _tekken(path, relative, data)
        try:
            backend = tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
        except ValueError as exc:
            raise DataError(f"{path}: tiktoken cannot build an encoding from it ({exc})", file=relative) from exc
    else:
        from tokenizers import Tokenizer

        try:
            backend = Tokenizer.from_str(data.decode("utf-8"))
        except Exception as exc:  # tokenizers raises its own Exception subclass
            raise DataError(f"{path}: not a tokenizer.json that `tokenizers` can load ({exc})", file=relative) from exc
    systems = tuple(r.system for r in rows if r.system is not None)
    return TokenCounter(name=name, systems=systems, exact_for={r.system: r.exact for r in rows if r.system},
                        library=library, file=path, _backend=backend, _offset=offset)


def get_tokenizer(name: str, real_dir: str | os.PathLike | None = None) -> TokenCounter:
    """Load one vendored tokenizer, offline, checking its file against the MANIFEST.

    Loaded tokenizers are cached per (name, directory).

    Parameters
    ----------
    name : str
        One of :data:`TOKENIZERS`.
    real_dir : path-like, optional
        The real-data directory (see :func:`compendium.data.real.real_data_dir`).

    Returns
    -------
    TokenCounter
        With ``.count(text)`` and ``.encode(text)``.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).
    DataError
        The file is missing, not in the MANIFEST, changed, or unreadable
        (the message names the file).
    """
    _rows(name)
    return _load(name, real_data_dir(real_dir))


def count_tokens(texts: Iterable[str] | str, name: str, real_dir: str | os.PathLike | None = None) -> np.ndarray:
    """Token counts of many texts with one tokenizer (batched, deterministic).

    Parameters
    ----------
    texts : iterable of str, or str
        A single string is counted as one text.
    name : str
        One of :data:`TOKENIZERS`.
    real_dir : path-like, optional
        See :func:`get_tokenizer`.

    Returns
    -------
    numpy.ndarray
        ``int64``, one count per text, in order.
    """
    if isinstance(texts, str):
        texts = [texts]
    texts = list(texts)
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise TypeError(f"count_tokens: texts {bad[:5]} are not strings")
    return get_tokenizer(name, real_dir).count_many(texts)


@cached()  # keyed by this module's source: the tokenizers' registry and loading code
def stored_counts(name: str, texts: tuple[str, ...]) -> np.ndarray:
    """:func:`count_tokens` of ``texts`` (a tuple) with the shipped tokenizer ``name``, stored by the build.

    In a build (:mod:`compendium.data.cache`) the counts are computed once, by the first chapter that needs
    them, and the tokenizer is loaded only then: every later chapter and nbval's re-execution read them.
    """
    return count_tokens(list(texts), name)
