"""Simulated benchmark with exactly the paper's design.

The paper's data (model outputs, 6,960 human judgements, embeddings, usage
logs) is not public, so the compendium ships a *simulated* benchmark drawn
from a fixed seed and the parameter file ``data/simulation.yml``. Parameters
set while looking at a reported claim list it under ``targets:``: agreement
with the paper on such a claim is by construction, and on any other (free)
claim it shows only that the paper's numbers are mutually consistent under
this generative model, not that the paper's data says so. The simulator knows the generating values, and writes them to
``simulation_truth.json`` so that a chapter can show which analysis recovers
the truth.

**Corpus (section 3).** 17,100 sentences (5,813 Bangla, 6,547 English, 4,740
Hindi) with each corpus's own label scheme. Every reported count is realised
by exact allocation (largest remainder), never by random counts: 17.7% of
Bangla items are multi-label, the single-label items over the five shared
emotions number 4,206 / 5,380 / 3,518, the human-study sample is a
label-stratified 290-item (5%) sample of Bangla, and the geometry sample is a
label-stratified 401 / 401 / 400 sentences of the shared-single items. The
text consists of Zipf-distributed pseudo-words built from random syllables
in the Bengali, Devanagari and Latin scripts: clearly synthetic, but with the
UTF-8 bytes per character of real text (section 8).

**Emissions (sections 5, 6, 8, 9, appendix B).** Every system answers every
sentence with 1-5 emoji graphemes. The number is a rounded normal around a
per-system mean (systems differ in verbosity; an item effect makes all
systems more verbose on some items). Each emoji comes from one of four
sources: the item's *shared* affect emojis (typical emojis of its apparent
emotion, which many systems emit for the same sentence), the item's *topic*
emoji (a pictograph rare enough to identify the item: multi-view row-wise
splits leak), the system's own reading of the *emotion code* of the
sentence's language (its *fidelity*), or a generic background set. The
emotion code is a language-specific distribution over one *shared* affect
vocabulary, a mix of a universal code and a language-specific one, so the
same emojis mean different things in different languages. Systems respond to
an item's *apparent* emotion, which is its gold label with a
language-specific probability; a system with a high *gold-reading*
probability encodes the gold label more often. Each system writes emojis
with its own surface habits (variation selectors, skin-tone modifiers,
gendered ZWJ sequences, a superfluous VS16, spaces, the occasional stray
ASCII), so per-codepoint counting inflates the count unevenly. A row needed
``attempts > 1`` when an earlier try had no non-ASCII character (exact
per-system counts).

**Tokens (section 8).** Prompt tokens are a per-system template count plus a
tokenizer-dependent count proportional to the sentence's characters;
completion tokens are per-emoji and per-extra-codepoint costs, and
Grok-4-Fast adds a reasoning trace.

**Ratings (sections 4, 5).** The 290 Bangla items x 8 systems x 3
annotators are rated through a latent score: annotator location, annotator
length slope on the emoji count, true system quality, a system x annotator
interaction, item effect, item x annotator, output (item x system) effect
a penalty for one-emoji answers, and residual noise, cut at fixed
thresholds into 1-5. The three study
annotators' values are parameters (they are the realised panel of the
paper); :func:`simulate_panel` draws new panels of any size from the
annotator population.

**Embeddings (section 7).** For each encoder and each geometry-sample
sentence: a common offset vector (anisotropy), a language vector
(separability), an emotion vector partly shared across languages (emotion
probe) and noise. Language and emotion live on a small block of coordinates
that also carries a large share of the noise (real embedding spaces are far
from isotropic), so that weak signals stay hard to decode in thousands of
dimensions. All of it is all elementwise arithmetic on Gaussian draws
(no BLAS products, so the bytes do not depend on the machine), stored as
float32.

Randomness: everything is drawn from :func:`numpy.random.default_rng` on
child seed sequences keyed by component name (``SeedSequence(seed,
spawn_key=(crc32(name),))``), so changing one component's parameters does not
change the other components' draws, and no global random state is touched.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import tempfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from . import schema
from .data import read_manifest as _read_manifest
from .paths import project_root

__all__ = [
    "DEFAULT_PARAMETERS",
    "SIMULATOR_VERSION",
    "load_parameters",
    "generative",
    "calibration",
    "simulate",
    "simulate_panel",
    "write_manifest",
    "read_manifest",
    "verify_manifest",
    "manifest_is_current",
]

#: Bumped whenever a change of the code changes the data for the same parameters.
SIMULATOR_VERSION = 1

#: ``data/simulation.yml`` of the repository.
DEFAULT_PARAMETERS = project_root() / "data" / schema.SIMULATION_PARAMETERS_FILE

GENERATOR = "compendium.simulate"

#: All emotion labels of the three schemes, in a fixed order (indices used internally).
EMOTIONS: tuple[str, ...] = ("anger", "fear", "joy", "love", "sadness", "surprise", "disgust", "neutral")

# --- emoji inventory ------------------------------------------------------------

VS16 = "\ufe0f"
ZWJ = "\u200d"
SKIN_TONES = ("\U0001f3fb", "\U0001f3fc", "\U0001f3fd", "\U0001f3fe", "\U0001f3ff")
FEMALE, MALE = "\u2640", "\u2642"


def _forms(spec: str) -> tuple[str, tuple[str, ...]]:
    """Surface forms of one emoji: (plain form, decorated forms).

    ``spec`` is ``"<emoji>"`` (one fixed form), ``"vs:<char>"`` (text-default
    symbol, decorated with VS16), ``"skin:<char>"`` (skin-tone modifiers),
    ``"person:<char>"`` (skin tones and gendered ZWJ sequences).
    """
    kind, _, ch = spec.partition(":")
    if not ch:
        return spec, (spec,)
    if kind == "vs":
        return ch, (ch + VS16,)
    if kind == "skin":
        return ch, tuple(ch + t for t in SKIN_TONES)
    if kind == "person":
        gendered = (ch + ZWJ + FEMALE + VS16, ch + ZWJ + MALE + VS16)
        toned = tuple(ch + t + ZWJ + g + VS16 for t in SKIN_TONES[1:4] for g in (FEMALE, MALE))
        return ch, tuple(ch + t for t in SKIN_TONES) + gendered + toned
    raise ValueError(f"unknown emoji spec {spec!r}")


#: Universal emotion-to-emoji associations (the part of the code the languages share).
AFFECT_EMOJIS: dict[str, tuple[str, ...]] = {
    "anger": ("😡", "😠", "🤬", "💢", "😤", "👿", "🔥", "skin:👊", "person:🙎"),
    "fear": ("😨", "😰", "😱", "😟", "😧", "🙀", "😬", "😖", "vs:☠"),
    "joy": ("😂", "😊", "😄", "😁", "🥳", "🎉", "😃", "🤣", "vs:☺", "skin:🙌"),
    "love": ("vs:❤", "🥰", "😍", "💕", "😘", "💖", "❤️‍🔥", "💞", "skin:🫶"),
    "sadness": ("😢", "😭", "💔", "😞", "😔", "🥺", "vs:☹", "😿", "person:🙍"),
    "surprise": ("😮", "😲", "🤯", "😯", "😳", "vs:‼", "vs:⁉", "🫢"),
    "disgust": ("🤢", "🤮", "😒", "🙄", "😑", "skin:👎"),
    "neutral": ("😐", "🙂", "😶", "🤔", "😌", "🫤"),
}

#: Generic emojis emitted regardless of the emotion (with relative weights).
BACKGROUND_EMOJIS: tuple[tuple[str, float], ...] = (
    ("✨", 10), ("skin:🙏", 8), ("skin:👍", 7), ("💯", 6), ("👀", 5), ("person:🤷", 5),
    ("person:🤦", 5), ("😅", 5), ("🌟", 4), ("💫", 3), ("vs:✌", 3), ("😮‍💨", 1.2),
    ("😶‍🌫️", 0.8), ("🫠", 2), ("💭", 3), ("skin:👏", 3), ("skin:💪", 2),
    ("❤️‍🩹", 0.8), ("1️⃣", 0.4), ("🇧🇩", 0.7), ("🇮🇳", 0.7),
)

#: Unicode ranges of emoji-presentation pictographs used as topic emojis.
_TOPIC_RANGES = (
    (0x1F330, 0x1F335), (0x1F337, 0x1F344), (0x1F345, 0x1F37B), (0x1F380, 0x1F393),
    (0x1F3A0, 0x1F3C4), (0x1F3E0, 0x1F3F0), (0x1F400, 0x1F43E), (0x1F4A0, 0x1F4FC),
    (0x1F680, 0x1F6C5),
)

#: Stray ASCII fragments a model occasionally adds despite the prompt (no digits, commas or quotes).
STRAY_ASCII = (".", "!", ":)", "Emojis:", "-", "...", "*")


def _inventory() -> dict[str, Any]:
    """The shared emoji vocabulary: affect, background and topic emojis with surface forms."""
    affect_specs = [s for e in EMOTIONS for s in AFFECT_EMOJIS[e]]
    affect_emotion = [EMOTIONS.index(e) for e in EMOTIONS for _ in AFFECT_EMOJIS[e]]
    affect_rank = [j for e in EMOTIONS for j, _ in enumerate(AFFECT_EMOJIS[e])]
    background_specs = [s for s, _ in BACKGROUND_EMOJIS]
    used = {_forms(s)[0] for s in affect_specs + background_specs}
    excluded = set(range(0x1F493, 0x1F4A0)) | {0x1F4A2, 0x1F4A9, 0x1F4AA, 0x1F4AF, 0x1F4AB, 0x1F4AD}
    topic_specs = [
        chr(c)
        for a, b in _TOPIC_RANGES
        for c in range(a, b + 1)
        if c not in excluded and chr(c) not in used
    ]
    specs = affect_specs + background_specs + topic_specs
    forms = [_forms(s) for s in specs]
    return {
        "plain": [f[0] for f in forms],
        "decorated": [f[1] for f in forms],
        "n_affect": len(affect_specs),
        "affect_emotion": np.array(affect_emotion),
        "affect_rank": np.array(affect_rank),
        "background": np.arange(len(affect_specs), len(affect_specs) + len(background_specs)),
        "background_weight": np.array([w for _, w in BACKGROUND_EMOJIS], dtype=float),
        "topic": np.arange(len(affect_specs) + len(background_specs), len(specs)),
    }


# --- parameters and random streams ----------------------------------------------


#: Keys that annotate a parameter with the claims it was set from (see :func:`generative`).
CALIBRATION_KEYS = ("targets", "copied_from")


def _is_annotated(node) -> bool:
    return (
        isinstance(node, Mapping)
        and "value" in node
        and any(k in node for k in CALIBRATION_KEYS)
        and set(node) <= {"value", *CALIBRATION_KEYS}
    )


def generative(params):
    """The parameters the simulator reads: every calibration annotation replaced by its value.

    A parameter set by looking at a reported claim is written
    ``{value: V, targets: [claim ids], copied_from: [claim ids or a table]}``
    in ``simulation.yml``; the simulator sees only ``V``, so annotating a
    parameter never changes a simulated byte.

    Examples
    --------
    >>> generative({"a": {"value": 0.3, "targets": ["x.y"]}, "b": [1, {"c": 2}]})
    {'a': 0.3, 'b': [1, {'c': 2}]}
    """
    if _is_annotated(params):
        return generative(params["value"])
    if isinstance(params, Mapping):
        return {k: generative(v) for k, v in params.items()}
    if isinstance(params, list):
        return [generative(v) for v in params]
    return params


def _as_ids(value, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError(f"{where}: expected a claim id or a list of claim ids, got {value!r}")


def calibration(parameters: str | os.PathLike | Mapping | None = None) -> pd.DataFrame:
    """Which parameter was set by looking at which claim.

    Parameters
    ----------
    parameters : path, mapping or None
        ``simulation.yml`` (default: the shipped one) or its parsed contents.

    Returns
    -------
    DataFrame
        One row per (parameter, claim): ``parameter`` (dotted path, e.g.
        ``emissions.fidelity``), ``claim`` and ``how``: ``targets`` (tuned
        while watching the claim) or ``copied_from`` (the value was copied
        from a reported result). In file order.

    Raises
    ------
    ValueError
        Naming the parameter whose ``targets``/``copied_from`` is not a list of ids.
    """
    if parameters is None:
        parameters = DEFAULT_PARAMETERS
    if isinstance(parameters, Mapping):
        raw, source = parameters, "parameters"
    else:
        raw, source = yaml.safe_load(Path(parameters).read_bytes()), str(parameters)
    rows: list[tuple[str, str, str]] = []

    def walk(node, path: str) -> None:
        if _is_annotated(node):
            for how in CALIBRATION_KEYS:
                if how in node:
                    rows.extend((path, claim, how) for claim in _as_ids(node[how], f"{source}: {path}.{how}"))
            return
        if isinstance(node, Mapping):
            for key, value in node.items():
                walk(value, f"{path}.{key}" if path else str(key))

    walk(raw, "")
    return pd.DataFrame(rows, columns=["parameter", "claim", "how"])


def load_parameters(parameters: str | os.PathLike | Mapping | None = None) -> tuple[dict, str]:
    """Read the simulation parameters.

    Parameters
    ----------
    parameters : path, mapping or None
        A YAML file (default ``data/simulation.yml``) or an already parsed mapping.

    Returns
    -------
    (dict, str)
        The generative parameters (:func:`generative`: calibration
        annotations removed) and their SHA-256, of their canonical JSON: a
        comment or a ``targets:`` list changes neither the data nor the digest.
    """
    if parameters is None:
        parameters = DEFAULT_PARAMETERS
    if isinstance(parameters, Mapping):
        raw = parameters
    else:
        raw = yaml.safe_load(Path(parameters).read_bytes())
    params = generative(json.loads(json.dumps(raw)))
    digest = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()
    return params, digest


def _stream(seed: int, *names: str) -> np.random.Generator:
    """Independent random stream for one component, keyed by its name(s)."""
    key = tuple(zlib.crc32(n.encode()) for n in names)
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=key))


def _allocate(total: int, shares) -> np.ndarray:
    """Exact integer allocation of ``total`` proportional to ``shares`` (largest remainder)."""
    shares = np.asarray(shares, dtype=float)
    quota = total * shares / shares.sum()
    counts = np.floor(quota).astype(int)
    order = np.lexsort((np.arange(len(quota)), -(quota - counts)))
    counts[order[: total - counts.sum()]] += 1
    return counts


def _by_system(params: Mapping, key: str) -> np.ndarray:
    values = params[key]
    return np.array([float(values[s]) for s in schema.SYSTEMS])


# --- corpus (section 3) ------------------------------------------------------------


def _corpus(params: Mapping, seed: int) -> pd.DataFrame:
    """Sentence ids, languages, labels and the human-study / geometry samples."""
    p = params["corpus"]
    rng = _stream(seed, "corpus")
    frames = []
    for lang in schema.LANGUAGES:
        n = int(p["n_sentences"][lang])
        scheme = schema.LABEL_SCHEMES[lang]
        labels: list[str] = []
        if lang == "bn":
            n_multi = int(round(p["bn_multilabel_share"] * n))
            n_three = int(round(p["bn_three_label_share"] * n_multi))
            for k in range(n_multi):
                size = 3 if k < n_three else 2
                chosen = sorted(rng.choice(len(scheme), size=size, replace=False))
                labels.append(schema.LABEL_SEPARATOR.join(scheme[j] for j in chosen))
        else:
            n_multi = 0
        other = p["other_single"][lang]
        for label, count in other.items():
            labels += [label] * int(count)
        n_shared = n - n_multi - sum(int(c) for c in other.values())
        shares = p["shared_shares"][lang]
        counts = _allocate(n_shared, [shares[e] for e in schema.SHARED_EMOTIONS])
        for e, c in zip(schema.SHARED_EMOTIONS, counts):
            labels += [e] * int(c)
        labels = [labels[j] for j in rng.permutation(n)]
        frames.append(
            pd.DataFrame(
                {
                    "sentence_id": [f"{lang}-{k + 1:05d}" for k in range(n)],
                    "language": lang,
                    "labels": labels,
                }
            )
        )
    s = pd.concat(frames, ignore_index=True)
    single = ~s["labels"].str.contains(schema.LABEL_SEPARATOR, regex=False)
    s["shared_single"] = single & s["labels"].isin(schema.SHARED_EMOTIONS)

    # Human study: label-stratified ~5% of Bangla (strata: single labels, and "multi").
    bn = s.index[s["language"] == "bn"].to_numpy()
    stratum = np.where(single[bn], s.loc[bn, "labels"], "multi")
    names = sorted(set(stratum))
    alloc = _allocate(int(p["human_study_items"]), [np.sum(stratum == m) for m in names])
    human = np.zeros(len(s), dtype=bool)
    for name, k in zip(names, alloc):
        members = bn[stratum == name]
        human[rng.choice(members, size=int(k), replace=False)] = True
    s["human_study"] = human

    # Geometry sample: label-stratified over the shared-single items of each language.
    geometry = np.zeros(len(s), dtype=bool)
    for lang in schema.LANGUAGES:
        pool = s.index[(s["language"] == lang) & s["shared_single"]].to_numpy()
        labs = s.loc[pool, "labels"].to_numpy()
        alloc = _allocate(int(p["geometry_sample"][lang]), [np.sum(labs == e) for e in schema.SHARED_EMOTIONS])
        for e, k in zip(schema.SHARED_EMOTIONS, alloc):
            geometry[rng.choice(pool[labs == e], size=int(k), replace=False)] = True
    s["geometry_sample"] = geometry
    return s


# --- text (section 8) ---------------------------------------------------------------

_BN_CONSONANTS = [chr(c) for c in range(0x0995, 0x09BA) if c not in (0x09A9, 0x09B1, 0x09B3, 0x09B4, 0x09B5)]
_BN_VOWEL_SIGNS = [chr(c) for c in (0x09BE, 0x09BF, 0x09C0, 0x09C1, 0x09C2, 0x09C3, 0x09C7, 0x09C8, 0x09CB, 0x09CC)]
_BN_VOWELS = [chr(c) for c in (0x0985, 0x0986, 0x0987, 0x0988, 0x0989, 0x098A, 0x098F, 0x0990, 0x0993, 0x0994)]
_BN_MARKS = ["\u0982", "\u0981"]
_HI_CONSONANTS = [chr(c) for c in range(0x0915, 0x093A) if c not in (0x0929, 0x0931, 0x0934)]
_HI_VOWEL_SIGNS = [chr(c) for c in range(0x093E, 0x094D) if c not in (0x0944, 0x0945, 0x0946, 0x0949, 0x094A)]
_HI_VOWELS = [chr(c) for c in (0x0905, 0x0906, 0x0907, 0x0908, 0x0909, 0x090A, 0x090F, 0x0910, 0x0913, 0x0914)]
_HI_MARKS = ["\u0902", "\u0901"]
_EN_ONSETS = list("bcdfghjklmnprstvwyz") + ["br", "ch", "cl", "dr", "fr", "gr", "pl", "sh", "st", "th", "tr"]
_EN_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "oo", "ou"]
_EN_CODAS = list("lmnrst") + ["nd", "ng", "nt", "rd", "st"]
_DANDA = "\u0964"
#: Substrings a Latin pseudo-word may not contain (random syllables can spell real words).
_EN_BLOCKLIST = ("shit", "fuck", "cunt", "nig", "fag", "rape", "slut", "whor", "dick", "cock", "piss", "tit", "kill", "die", "dead", "sex")


def _pseudo_word(lang: str, n_syllables: int, vs_share: float, rng: np.random.Generator) -> str:
    while True:
        word = _draw_word(lang, n_syllables, vs_share, rng)
        if lang != "en" or not any(bad in word for bad in _EN_BLOCKLIST):
            return word


def _draw_word(lang: str, n_syllables: int, vs_share: float, rng: np.random.Generator) -> str:
    parts = []
    for k in range(n_syllables):
        if lang == "en":
            parts.append(rng.choice(_EN_ONSETS) + rng.choice(_EN_VOWELS))
            if rng.random() < 0.35:
                parts.append(rng.choice(_EN_CODAS))
            continue
        cons, signs, vowels, marks = (
            (_BN_CONSONANTS, _BN_VOWEL_SIGNS, _BN_VOWELS, _BN_MARKS)
            if lang == "bn"
            else (_HI_CONSONANTS, _HI_VOWEL_SIGNS, _HI_VOWELS, _HI_MARKS)
        )
        if k == 0 and rng.random() < 0.1:
            parts.append(rng.choice(vowels))
        else:
            parts.append(rng.choice(cons))
            if rng.random() < vs_share:
                parts.append(rng.choice(signs))
        if rng.random() < 0.04:
            parts.append(rng.choice(marks))
    return "".join(parts)


def _texts(sentences: pd.DataFrame, params: Mapping, seed: int) -> np.ndarray:
    """Pseudo-word sentences in each language's script."""
    p = params["text"]
    out = np.empty(len(sentences), dtype=object)
    for lang in schema.LANGUAGES:
        rng = _stream(seed, "text", lang)
        size = int(p["vocabulary_size"])
        syl = 1 + rng.poisson(float(p["syllables_per_word"][lang]) - 1, size=size)
        vocab = np.array(
            [_pseudo_word(lang, int(k), float(p["vowel_sign_share"][lang]), rng) for k in syl], dtype=object
        )
        weight = 1.0 / np.arange(1, size + 1) ** float(p["zipf_exponent"])
        cdf = np.cumsum(weight / weight.sum())
        rows = np.flatnonzero(sentences["language"].to_numpy() == lang)
        n_words = 2 + rng.poisson(float(p["words_per_sentence"][lang]["extra"]), size=len(rows))
        word_ids = np.minimum(np.searchsorted(cdf, rng.random(n_words.sum()), side="right"), size - 1)
        words = vocab[word_ids]
        ends = rng.random(len(rows))
        stops = np.cumsum(n_words)
        for j, (row, stop, n, end) in enumerate(zip(rows, stops, n_words, ends)):
            text = " ".join(words[stop - n : stop])
            if lang == "en":
                text = text[0].upper() + text[1:]
                mark = "." if end < 0.7 else "?" if end < 0.8 else "!" if end < 0.9 else ""
            else:
                mark = _DANDA if end < 0.7 else "?" if end < 0.8 else "!" if end < 0.9 else ""
            out[row] = text + mark
    return out


# --- emissions (sections 5, 6, 8, 9; appendix B) ----------------------------------


def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _expected_count(mu: float, sd: float) -> float:
    """E[clip(round(X), 1, 5)] for X ~ N(mu, sd^2)."""
    return 1.0 + sum(_normal_cdf((mu - (k + 0.5)) / sd) for k in range(1, 5))


def _latent_count_mean(target: float, sd: float) -> float:
    """Latent mean whose rounded, clipped normal has expectation ``target`` (bisection)."""
    lo, hi = -5.0, 11.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if _expected_count(mid, sd) < target:
            lo = mid
        else:
            hi = mid
    return round(0.5 * (lo + hi), 10)


def _codes(params: Mapping, seed: int, inv: Mapping) -> dict[str, np.ndarray]:
    """Language-specific emotion codes over the shared affect vocabulary.

    Returns, per language, an array (len(EMOTIONS), n_affect) of
    P_L(emoji | emotion); rows of labels outside the scheme are unused.
    """
    p = params["emissions"]
    n_aff = inv["n_affect"]
    # Language-specific codes: a Dirichlet(code_concentration) over the whole
    # affect vocabulary per emotion, or, with ``code_pool`` = k, over k affect
    # emojis drawn once and shared by all languages (the *heavy* emojis): each
    # language deals the pool out among the emotions of its scheme (each pool
    # emoji goes to one emotion, in random order) and weights an emotion's
    # share by a Dirichlet(code_concentration). Every language thus uses
    # every heavy emoji (high cross-lingual coverage), a heavy emoji means a
    # different emotion in each language, and each emotion is carried by a
    # few emojis (learnable from a few hundred items).
    pool = p.get("code_pool")
    if pool is not None:
        pool = np.sort(_stream(seed, "codes", "pool").permutation(n_aff)[: int(pool)])
    universal = np.full((len(EMOTIONS), n_aff), 0.002)
    for e in range(len(EMOTIONS)):
        own = inv["affect_emotion"] == e
        universal[e, own] = 1.0 / (1.0 + inv["affect_rank"][own]) ** 0.7
    universal /= universal.sum(axis=1, keepdims=True)
    codes = {}
    for lang in schema.LANGUAGES:
        rng = _stream(seed, "codes", lang)
        alpha = float(p["code_concentration"])
        if pool is None:
            specific = rng.dirichlet(np.full(n_aff, alpha), size=len(EMOTIONS))
        else:
            scheme = [EMOTIONS.index(e) for e in schema.LABEL_SCHEMES[lang]]
            owner = np.array(scheme)[np.arange(len(pool)) % len(scheme)][rng.permutation(len(pool))]
            specific = np.full((len(EMOTIONS), n_aff), 1.0 / n_aff)  # rows outside the scheme: unused
            for e in scheme:
                mine = pool[owner == e]
                specific[e] = 0.0
                specific[e, mine] = rng.dirichlet(np.full(len(mine), alpha))
        w = float(p["universal_weight"][lang])
        floor = float(p["code_floor"])
        code = (1 - floor) * (w * universal + (1 - w) * specific) + floor / n_aff
        codes[lang] = code / code.sum(axis=1, keepdims=True)
    return codes


def _categorical(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    return np.minimum(np.searchsorted(cdf, u, side="right"), len(cdf) - 1)


def _emissions(sentences: pd.DataFrame, params: Mapping, seed: int) -> dict[str, Any]:
    """Emoji emissions of every system for every sentence.

    Returns a dict with the generations table (without tokens) and the
    per-output internals the later components need (grapheme counts, extra
    code points, stray ASCII characters).
    """
    p = params["emissions"]
    inv = _inventory()
    codes = _codes(params, seed, inv)
    n_items, n_sys = len(sentences), len(schema.SYSTEMS)
    lang = sentences["language"].to_numpy()
    lang_idx = np.array([schema.LANGUAGES.index(x) for x in lang])

    # Apparent emotion of each item (what systems respond to).
    rng = _stream(seed, "apparent")
    apparent = np.empty(n_items, dtype=int)
    for j, (lab, lg) in enumerate(zip(sentences["labels"], lang)):
        scheme = schema.LABEL_SCHEMES[lg]
        own = lab.split(schema.LABEL_SEPARATOR)
        pick = own[int(rng.integers(len(own)))]
        if rng.random() >= float(p["clarity"][lg]):
            others = [x for x in scheme if x != pick]
            pick = others[int(rng.integers(len(others)))]
        apparent[j] = EMOTIONS.index(pick)

    # Item-shared emojis: affect emojis of the apparent emotion and topic emojis.
    rng = _stream(seed, "shared")
    n_aff_shared = int(p["shared_affect_per_item"])
    n_top_shared = int(p["shared_topic_per_item"])
    shared = np.empty((n_items, n_aff_shared + n_top_shared), dtype=int)
    for lg in schema.LANGUAGES:
        for e in range(len(EMOTIONS)):
            rows = np.flatnonzero((lang == lg) & (apparent == e))
            if len(rows):
                typical = codes[lg][e] ** float(p["shared_sharpness"])
                cdf = np.cumsum(typical / typical.sum())
                shared[rows, :n_aff_shared] = _categorical(cdf, rng.random((len(rows), n_aff_shared)))
    topic = inv["topic"]
    order = _stream(seed, "topic_order").permutation(len(topic))[: int(p["topic_vocabulary"])]
    tw = 1.0 / np.arange(1, len(order) + 1) ** float(p["topic_zipf_exponent"])
    topic_cdf = np.cumsum(tw / tw.sum())
    shared[:, n_aff_shared:] = topic[order[_categorical(topic_cdf, rng.random((n_items, n_top_shared)))]]

    # Counts: rounded normal around each system's mean, with an item effect.
    rng = _stream(seed, "counts")
    sd_item, sd_out = float(p["count_item_sd"]), float(p["count_output_sd"])
    sd_total = math.hypot(sd_item, sd_out)
    mu = np.array([_latent_count_mean(float(p["mean_count_bn"][s]), sd_total) for s in schema.SYSTEMS])
    shift = np.array([float(p["language_count_shift"][x]) for x in schema.LANGUAGES])[lang_idx]
    latent = mu[None, :] + shift[:, None] + sd_item * rng.standard_normal(n_items)[:, None]
    latent = latent + sd_out * rng.standard_normal((n_items, n_sys))
    counts = np.clip(np.rint(latent), 1, 5).astype(int)

    # Slot sources and emoji identities.
    rng = _stream(seed, "slots")
    fidelity = _by_system(p, "fidelity")
    affect_share = _by_system(p, "shared_affect_share")
    topic_share = _by_system(p, "topic_share")
    u_source = rng.random((n_items, n_sys, 5))
    u_pick = rng.random((n_items, n_sys, 5))
    pick_shared = rng.integers(0, n_aff_shared, size=(n_items, n_sys, 5))
    pick_shared = np.where(
        u_source < affect_share[None, :, None], pick_shared, n_aff_shared + pick_shared % max(n_top_shared, 1)
    )
    is_shared = u_source < (affect_share + topic_share)[None, :, None]
    is_code = ~is_shared & (u_source < (affect_share + topic_share + fidelity)[None, :, None])
    emoji_id = inv["background"][
        _categorical(np.cumsum(inv["background_weight"] / inv["background_weight"].sum()), u_pick)
    ]
    emoji_id = np.where(is_shared, np.take_along_axis(shared[:, None, :].repeat(n_sys, 1), pick_shared, 2), emoji_id)
    # The emotion a system encodes: the item's apparent emotion, or (with the
    # system's gold-reading probability) one of the item's gold labels.
    gold = np.array(
        [EMOTIONS.index(lab.split(schema.LABEL_SEPARATOR)[int(k)]) for lab, k in zip(
            sentences["labels"],
            rng.random(n_items) * (sentences["labels"].str.count(schema.LABEL_SEPARATOR).to_numpy() + 1),
        )]
    )
    reads_gold = rng.random((n_items, n_sys)) < _by_system(p, "gold_reading")[None, :]
    encoded = np.where(reads_gold, gold[:, None], apparent[:, None])
    for lg in schema.LANGUAGES:
        for e in range(len(EMOTIONS)):
            rows = (lang == lg)[:, None] & (encoded == e)
            if not rows.any():
                continue
            sel = is_code & rows[:, :, None]
            emoji_id[sel] = _categorical(np.cumsum(codes[lg][e]), u_pick[sel])

    # Surface forms and raw responses.
    rng = _stream(seed, "surface")
    decoration = _by_system(p, "decoration")
    decorate = rng.random((n_items, n_sys, 5)) < decoration[None, :, None]
    variant = rng.integers(0, 1 << 30, size=(n_items, n_sys, 5))
    spaced = rng.random((n_items, n_sys)) < _by_system(p, "space_separated")[None, :]
    edge = rng.random((n_items, n_sys))
    edge_ws = float(p["edge_whitespace"])
    stray = rng.random((n_items, n_sys)) < _by_system(p, "stray_ascii")[None, :]
    stray_pick = rng.integers(0, len(STRAY_ASCII), size=(n_items, n_sys))
    stray_front = rng.random((n_items, n_sys)) < 0.3
    # Habits per (system, emoji): a preferred decorated form (skin tone, gender),
    # and the emoji types a system always follows with a superfluous VS16.
    n_vocab = len(inv["plain"])
    preferred = rng.integers(0, 1 << 30, size=(n_sys, n_vocab))
    vs16_types = rng.random((n_sys, n_vocab)) < _by_system(p, "superfluous_vs16")[:, None]
    other_variant = rng.random((n_items, n_sys, 5)) < float(p["variant_spread"])
    plain, decorated = inv["plain"], inv["decorated"]
    outputs = np.empty((n_items, n_sys), dtype=object)
    extra_cp = np.zeros((n_items, n_sys), dtype=int)
    ascii_chars = np.zeros((n_items, n_sys), dtype=int)
    for i in range(n_items):
        for s in range(n_sys):
            n = counts[i, s]
            glyphs = []
            extra = 0
            for k in range(n):
                eid = emoji_id[i, s, k]
                if decorate[i, s, k]:
                    forms = decorated[eid]
                    pick = variant[i, s, k] if other_variant[i, s, k] else preferred[s, eid]
                    g = forms[pick % len(forms)]
                else:
                    g = plain[eid]
                if vs16_types[s, eid] and len(g) == 1:
                    g += VS16  # a variation selector after an emoji-presentation character
                glyphs.append(g)
                extra += sum(1 for c in g if ord(c) > 127) - 1
            text = (" " if spaced[i, s] else "").join(glyphs)
            if stray[i, s]:
                frag = STRAY_ASCII[stray_pick[i, s]]
                text = frag + " " + text if stray_front[i, s] else text + " " + frag
                ascii_chars[i, s] = len(frag)
            if edge[i, s] < edge_ws / 2:
                text = " " + text
            elif edge[i, s] < edge_ws:
                text = text + " "
            outputs[i, s] = text
            extra_cp[i, s] = extra

    # Retries (appendix A): exact per-system counts of rows with attempts > 1.
    rng = _stream(seed, "retries")
    attempts = np.ones((n_items, n_sys), dtype=int)
    for s, rate in enumerate(_by_system(p, "retry_rate")):
        k = int(round(rate * n_items))
        rows = rng.choice(n_items, size=k, replace=False)
        n_third = int(round(float(p["third_attempt_share"]) * k))
        attempts[rows[:n_third], s] = 3
        attempts[rows[n_third:], s] = 2

    return {
        "outputs": outputs,
        "counts": counts,
        "extra_codepoints": extra_cp,
        "ascii_chars": ascii_chars,
        "attempts": attempts,
        "apparent": apparent,
        "latent_count_mean": mu,
        "codes": codes,
        "inventory": inv,
    }


# --- tokens (section 8) ---------------------------------------------------------------


def _tokens(sentences: pd.DataFrame, em: Mapping, params: Mapping, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Prompt and completion tokens of every (sentence, system) row."""
    p = params["tokens"]
    rng = _stream(seed, "tokens")
    n_items, n_sys = em["counts"].shape
    chars = sentences["text"].str.len().to_numpy().astype(float)
    rate = np.array([float(p["sentence_tokens_per_char"][x]) for x in sentences["language"]])
    factor = _by_system(p, "tokenizer_factor")
    template = _by_system(p, "template_tokens")
    jitter = 1.0 + float(p["jitter"]) * rng.standard_normal((n_items, n_sys))
    prompt = template[None, :] + np.rint(rate[:, None] * factor[None, :] * chars[:, None] * jitter)
    per_emoji = _by_system(p, "completion_per_emoji")
    completion = (
        per_emoji[None, :] * em["counts"]
        + float(p["completion_per_extra_codepoint"]) * em["extra_codepoints"]
        + 0.5 * em["ascii_chars"]
        + rng.poisson(0.3, size=(n_items, n_sys))
    )
    completion = np.maximum(1, np.rint(completion))
    for system, spec in p.get("reasoning_tokens", {}).items():
        s = schema.SYSTEMS.index(system)
        shape = float(spec["shape"])
        completion[:, s] += np.rint(rng.gamma(shape, float(spec["mean"]) / shape, size=n_items))
    return prompt.astype(np.int64), completion.astype(np.int64)


# --- ratings (sections 4, 5) ------------------------------------------------------------


def _rating_units(sentences: pd.DataFrame, em: Mapping, params: Mapping, seed: int) -> dict[str, Any]:
    """The 290 x 8 rated outputs: emoji counts, item and output effects (fixed per dataset)."""
    p = params["ratings"]
    rows = np.flatnonzero(sentences["human_study"].to_numpy())
    rng = _stream(seed, "rating_items")
    return {
        "sentence_id": sentences["sentence_id"].to_numpy()[rows],
        "count": em["counts"][rows],
        "item_effect": float(p["item_sd"]) * rng.standard_normal(len(rows)),
        "output_effect": float(p["output_sd"]) * rng.standard_normal((len(rows), len(schema.SYSTEMS))),
    }


def _rate(units: Mapping, location, slope, interaction, annotators, params: Mapping, rng) -> pd.DataFrame:
    """Ratings of a panel: latent score cut at the thresholds (fully crossed)."""
    p = params["ratings"]
    n_items, n_sys = units["count"].shape
    location = np.asarray(location, dtype=float)
    slope = np.asarray(slope, dtype=float)
    interaction = np.asarray(interaction, dtype=float)
    n_ann = len(annotators)
    quality = _by_system(p, "quality")
    ix = float(p["item_annotator_sd"]) * rng.standard_normal((n_items, n_ann))
    resid = float(p["residual_sd"]) * rng.standard_normal((n_items, n_sys, n_ann))
    latent = (
        location[None, None, :]
        + slope[None, None, :] * (units["count"][:, :, None] - 3.5)
        - float(p["single_emoji_penalty"]) * (units["count"][:, :, None] == 1)
        + quality[None, :, None]
        + interaction.T[None, :, :]
        + units["item_effect"][:, None, None]
        + ix[:, None, :]
        + units["output_effect"][:, :, None]
        + resid
    )
    thresholds = np.asarray(p["thresholds"], dtype=float)
    rating = 1 + (latent[..., None] > thresholds).sum(axis=-1)
    return pd.DataFrame(
        {
            "sentence_id": np.repeat(units["sentence_id"], n_sys * n_ann),
            "system": np.tile(np.repeat(np.array(schema.SYSTEMS), n_ann), n_items),
            "annotator": np.tile(np.array(annotators), n_items * n_sys),
            "rating": rating.reshape(-1).astype(np.int64),
        }
    )


def _study_annotators(params: Mapping) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p = params["ratings"]
    ann = p["annotators"]
    location = np.array([float(ann[a]["location"]) for a in schema.ANNOTATORS])
    slope = np.array([float(ann[a]["length_slope"]) for a in schema.ANNOTATORS])
    interaction = np.array([[float(v) for v in p["interaction"][a]] for a in schema.ANNOTATORS])
    return location, slope, interaction


def _population_mos(units: Mapping, params: Mapping) -> np.ndarray:
    """Expected MOS of each system for an annotator drawn from the population."""
    from scipy.special import ndtr

    p = params["ratings"]
    pop = p["population"]
    c = units["count"] - 3.5
    mean = (
        float(pop["location_mean"])
        + float(pop["length_slope_mean"]) * c
        - float(p["single_emoji_penalty"]) * (units["count"] == 1)
        + _by_system(p, "quality")[None, :]
        + units["item_effect"][:, None]
        + units["output_effect"]
    )
    var = (
        float(pop["location_sd"]) ** 2
        + (float(pop["length_slope_sd"]) * c) ** 2
        + float(pop["interaction_sd"]) ** 2
        + float(p["item_annotator_sd"]) ** 2
        + float(p["residual_sd"]) ** 2
    )
    sd = np.sqrt(var)
    expected = 1 + sum(ndtr((mean - t) / sd) for t in p["thresholds"])
    return expected.mean(axis=0)


# --- embeddings (section 7) ---------------------------------------------------------------


def _embeddings(sentences: pd.DataFrame, params: Mapping, seed: int) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """One float32 matrix per encoder for the geometry sample (elementwise arithmetic only)."""
    p = params["embeddings"]
    geo = sentences[sentences["geometry_sample"]].reset_index(drop=True)
    lang_idx = np.array([schema.LANGUAGES.index(x) for x in geo["language"]])
    emo_idx = np.array([schema.SHARED_EMOTIONS.index(x) for x in geo["labels"]])
    lang_scale = np.array([float(p["emotion_language_scale"][x]) for x in schema.LANGUAGES])
    w = float(p["emotion_shared_weight"])
    n_lang, n_emo = len(schema.LANGUAGES), len(schema.SHARED_EMOTIONS)
    k = int(p["signal_dims"])
    share = float(p["signal_noise_share"])
    matrices = {}
    for enc, dim in schema.ENCODERS.items():
        rng = _stream(seed, "embeddings", enc)
        block = rng.choice(dim, size=k, replace=False)  # the coordinates that carry language and emotion
        noise_sd = np.full(dim, math.sqrt((1 - share) / (dim - k)))
        noise_sd[block] = math.sqrt(share / k)
        offset = (float(p["offset_norm"][enc]) / math.sqrt(dim)) * rng.standard_normal(dim)
        language = np.zeros((n_lang, dim))
        language[:, block] = (float(p["language_norm"][enc]) / math.sqrt(k)) * rng.standard_normal((n_lang, k))
        shared_emo = rng.standard_normal((n_emo, k))
        specific_emo = rng.standard_normal((n_lang, n_emo, k))
        mixed = math.sqrt(w) * shared_emo[None, :, :] + math.sqrt(1 - w) * specific_emo
        emotion = np.zeros((n_lang, n_emo, dim))
        emotion[:, :, block] = (float(p["emotion_norm"][enc]) / math.sqrt(k)) * lang_scale[:, None, None] * mixed
        noise = rng.standard_normal((len(geo), dim)) * noise_sd[None, :]
        x = offset[None, :] + language[lang_idx] + emotion[lang_idx, emo_idx] + noise
        matrices[enc] = x.astype(np.float32)
    return geo[["sentence_id"]], matrices


# --- the whole benchmark -------------------------------------------------------------------


def _benchmark(params: Mapping, seed: int) -> dict[str, Any]:
    """Draw every table of the benchmark in memory."""
    sentences = _corpus(params, seed)
    sentences["text"] = _texts(sentences, params, seed)
    sentences = sentences[list(schema.COLUMNS[schema.SENTENCES_FILE])]
    em = _emissions(sentences, params, seed)
    prompt, completion = _tokens(sentences, em, params, seed)
    n_items, n_sys = em["counts"].shape
    generations = pd.DataFrame(
        {
            "sentence_id": np.repeat(sentences["sentence_id"].to_numpy(), n_sys),
            "system": np.tile(np.array(schema.SYSTEMS), n_items),
            "output": em["outputs"].reshape(-1),
            "attempts": em["attempts"].reshape(-1).astype(np.int64),
            "prompt_tokens": prompt.reshape(-1),
            "completion_tokens": completion.reshape(-1),
        }
    )
    units = _rating_units(sentences, em, params, seed)
    location, slope, interaction = _study_annotators(params)
    ratings = _rate(units, location, slope, interaction, schema.ANNOTATORS, params, _stream(seed, "ratings"))
    index, matrices = _embeddings(sentences, params, seed)
    return {
        "sentences": sentences,
        "generations": generations,
        "ratings": ratings,
        "embedding_index": index,
        "embeddings": matrices,
        "emissions": em,
        "units": units,
    }


def _r(x, digits: int = 6):
    """Round floats (and arrays of them) for the truth file."""
    if isinstance(x, np.ndarray):
        return [_r(v, digits) for v in x.tolist()]
    if isinstance(x, (list, tuple)):
        return [_r(v, digits) for v in x]
    if isinstance(x, (float, np.floating)):
        return round(float(x), digits)
    if isinstance(x, np.integer):
        return int(x)
    return x


def _truth(bench: Mapping, params: Mapping, seed: int, digest: str) -> dict[str, Any]:
    em, units = bench["emissions"], bench["units"]
    lang = bench["sentences"]["language"].to_numpy()
    location, slope, interaction = _study_annotators(params)
    pop_mos = _population_mos(units, params)
    counts = em["counts"]
    return {
        "generator": GENERATOR,
        "simulator_version": SIMULATOR_VERSION,
        "seed": int(seed),
        "parameters_sha256": digest,
        "parameters": params,
        "systems": list(schema.SYSTEMS),
        "system_quality": dict(zip(schema.SYSTEMS, _r(_by_system(params["ratings"], "quality")))),
        "population_mos": dict(zip(schema.SYSTEMS, _r(pop_mos))),
        "fidelity": dict(zip(schema.SYSTEMS, _r(_by_system(params["emissions"], "fidelity")))),
        "mean_emoji_count": {
            lg: dict(zip(schema.SYSTEMS, _r(counts[lang == lg].mean(axis=0)))) for lg in schema.LANGUAGES
        },
        "latent_count_mean": dict(zip(schema.SYSTEMS, _r(em["latent_count_mean"]))),
        "annotators": {
            a: {
                "location": _r(location[j]),
                "length_slope": _r(slope[j]),
                "interaction": dict(zip(schema.SYSTEMS, _r(interaction[j]))),
            }
            for j, a in enumerate(schema.ANNOTATORS)
        },
        "annotator_population": params["ratings"]["population"],
        # full precision: simulate_panel(data_dir=...) rates exactly these outputs
        "rating_units": {
            "sentence_id": [str(x) for x in units["sentence_id"]],
            "item_effect": units["item_effect"].tolist(),
            "output_effect": units["output_effect"].tolist(),
            "emoji_count": units["count"].tolist(),
        },
        "apparent_emotion_share_gold": {
            lg: _r(
                float(
                    np.mean(
                        [
                            EMOTIONS[a] in lab.split(schema.LABEL_SEPARATOR)
                            for a, lab in zip(em["apparent"][lang == lg], bench["sentences"]["labels"][lang == lg])
                        ]
                    )
                )
            )
            for lg in schema.LANGUAGES
        },
        "emotion_codes": {
            lg: {
                e: {
                    em["inventory"]["plain"][j]: _r(v, 5)
                    for j, v in sorted(enumerate(em["codes"][lg][EMOTIONS.index(e)]), key=lambda t: -t[1])[:8]
                }
                for e in schema.LABEL_SCHEMES[lg]
            }
            for lg in schema.LANGUAGES
        },
    }


# --- writing and manifest --------------------------------------------------------------------


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, lineterminator="\n", encoding="utf-8")


def _write_embeddings(matrices: Mapping[str, np.ndarray], directory: Path) -> None:
    for enc, x in matrices.items():
        path = directory / schema.embedding_file(enc)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, np.ascontiguousarray(x, dtype=np.float32), allow_pickle=False)


def _write_benchmark(bench: Mapping, directory: Path, truth: Mapping) -> None:
    _write_csv(bench["sentences"], directory / schema.SENTENCES_FILE)
    _write_csv(bench["generations"], directory / schema.GENERATIONS_FILE)
    _write_csv(bench["ratings"], directory / schema.RATINGS_FILE)
    _write_csv(bench["embedding_index"], directory / schema.EMBEDDING_INDEX_FILE)
    _write_embeddings(bench["embeddings"], directory)
    text = json.dumps(truth, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    (directory / schema.SIMULATION_TRUTH_FILE).write_text(text, encoding="utf-8")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_manifest(data_dir: str | os.PathLike, header: Mapping[str, Any], files=None) -> Path:
    """Write ``MANIFEST`` in ``sha256sum`` format with a commented header.

    Parameters
    ----------
    data_dir : path
        Directory whose files are listed.
    header : mapping
        Written first as ``# key: value`` lines (e.g. generator, seed,
        parameters_sha256). GNU ``sha256sum -c MANIFEST`` skips them.
    files : iterable of str, optional
        Paths relative to ``data_dir``; default every regular file below it
        except ``MANIFEST`` and hidden files.

    Returns
    -------
    pathlib.Path
        The manifest written.
    """
    data_dir = Path(data_dir)
    if files is None:
        files = [
            p.relative_to(data_dir).as_posix()
            for p in data_dir.rglob("*")
            if p.is_file()
            and p.name != schema.MANIFEST_FILE
            and not any(part.startswith(".") for part in p.relative_to(data_dir).parts)
        ]
    lines = [f"# {k}: {v}" for k, v in header.items()]
    lines += [f"{_sha256(data_dir / f)}  {f}" for f in sorted(files)]
    path = data_dir / schema.MANIFEST_FILE
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_manifest(data_dir: str | os.PathLike) -> tuple[dict[str, str], dict[str, str]]:
    """Header and entries of ``MANIFEST``: ({key: value}, {relative path: sha256}).

    The header values as written (strings). This is a view of
    :func:`compendium.data.read_manifest`, the one reader of the format,
    whose errors (a :class:`compendium.data.DataError`, a ``ValueError``)
    name the file and the line.
    """
    manifest = _read_manifest(Path(data_dir) / schema.MANIFEST_FILE)
    entries = manifest.pop("files")
    return {key: str(value) for key, value in manifest.items()}, entries


def verify_manifest(data_dir: str | os.PathLike) -> list[str]:
    """Files of ``MANIFEST`` that are missing or whose SHA-256 differs.

    Returns ``["MANIFEST"]`` when there is no manifest, and an empty list
    when every listed file matches.
    """
    data_dir = Path(data_dir)
    if not (data_dir / schema.MANIFEST_FILE).is_file():
        return [schema.MANIFEST_FILE]
    _, entries = read_manifest(data_dir)
    return [
        name
        for name, digest in sorted(entries.items())
        if not (data_dir / name).is_file() or _sha256(data_dir / name) != digest
    ]


def manifest_is_current(
    data_dir: str | os.PathLike, parameters_path: str | os.PathLike | None = None, *, seed: int | None = None
) -> bool:
    """Whether ``data_dir`` holds the simulator's output for ``parameters_path``.

    True when the manifest exists, names every data file, every file matches
    its checksum, and generator, simulator version, seed and
    ``parameters_sha256`` match the parameter file (default
    ``data/simulation.yml``). ``seed`` overrides the file's seed (a data-seed
    sweep's benchmark). Used by ``compendium simulate --if-needed``.
    """
    data_dir = Path(data_dir)
    if not (data_dir / schema.MANIFEST_FILE).is_file():
        return False
    try:
        params, digest = load_parameters(parameters_path)
        header, entries = read_manifest(data_dir)
    except (OSError, ValueError, yaml.YAMLError):
        return False
    expected = (*schema.DATA_FILES, schema.SIMULATION_TRUTH_FILE)
    return (
        header.get("generator") == GENERATOR
        and header.get("simulator_version") == str(SIMULATOR_VERSION)
        and header.get("seed") == str(params.get("seed") if seed is None else int(seed))
        and header.get("parameters_sha256") == digest
        and all(f in entries for f in expected)
        and not verify_manifest(data_dir)
    )


def _install(tmp: Path, out_dir: Path) -> None:
    """Move the finished files of ``tmp`` into ``out_dir`` (manifest last)."""
    if not out_dir.exists():
        os.replace(tmp, out_dir)
        return
    old_manifest = out_dir / schema.MANIFEST_FILE
    stale: set[str] = set()
    if old_manifest.is_file():
        try:
            stale = set(read_manifest(out_dir)[1])
        except (OSError, ValueError):
            stale = set()
        old_manifest.unlink()
    _, entries = read_manifest(tmp)
    for name in sorted(entries):
        target = out_dir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp / name, target)
    for name in sorted(stale - set(entries)):
        (out_dir / name).unlink(missing_ok=True)
    os.replace(tmp / schema.MANIFEST_FILE, old_manifest)


def simulate(
    out_dir: str | os.PathLike,
    *,
    parameters: str | os.PathLike | Mapping | None = None,
    seed: int | None = None,
) -> Path:
    """Write a complete simulated benchmark with the paper's design.

    Parameters
    ----------
    out_dir : path
        Data directory to fill (created if needed; other files in it are kept).
    parameters : path, mapping or None
        Simulation parameters (default ``data/simulation.yml``).
    seed : int, optional
        Overrides the parameter file's ``seed``.

    Returns
    -------
    pathlib.Path
        ``out_dir``.

    Notes
    -----
    Files written (layout of :mod:`compendium.schema`):

    - ``sentences.csv``: the 17,100 sentences of section 3 (exact counts per
      language, 17.7% Bangla multi-label, 4,206 / 5,380 / 3,518 shared-single
      items, the 290-item human-study sample, the 1,202-sentence geometry
      sample).
    - ``generations.csv``: 17,100 x 8 raw responses (sections 5, 6, 9 and
      appendix B), attempts (retry rates 0.001-0.064, appendix A) and token
      counts (section 8).
    - ``ratings.csv``: 290 x 8 x 3 = 6,960 judgements (sections 4, 5).
    - ``embeddings/index.csv`` and ``embeddings/<encoder>.npy`` (section 7).
    - ``simulation_truth.json``: the generating values.
    - ``MANIFEST``: SHA-256 of every file, headed by generator, seed and
      ``parameters_sha256``.

    Everything is written to a temporary directory next to ``out_dir`` and
    moved in only when all of it succeeded.

    Examples
    --------
    >>> from compendium.simulate import simulate, verify_manifest
    >>> path = simulate("/tmp/bench")            # doctest: +SKIP
    >>> verify_manifest(path)                    # doctest: +SKIP
    []
    """
    params, digest = load_parameters(parameters)
    seed = int(params["seed"] if seed is None else seed)
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".tmp", dir=out_dir.parent))
    os.chmod(tmp, 0o755)  # mkdtemp makes it private; it may become out_dir itself
    try:
        bench = _benchmark(params, seed)
        truth = _truth(bench, params, seed, digest)
        _write_benchmark(bench, tmp, truth)
        header = {
            "generator": GENERATOR,
            "simulator_version": SIMULATOR_VERSION,
            "seed": seed,
            "parameters_sha256": digest,
        }
        write_manifest(tmp, header)
        _install(tmp, out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out_dir


def simulate_panel(
    n_annotators: int,
    *,
    seed: int,
    parameters: str | os.PathLike | Mapping | None = None,
    data_dir: str | os.PathLike | None = None,
) -> pd.DataFrame:
    """Ratings of a new panel drawn from the annotator population (sections 4.3, 4.4).

    The panel rates the same 290 items x 8 systems outputs as the study
    (same emoji counts, item effects and output effects); each annotator's
    location, length slope and system x annotator interaction are drawn from
    the population of ``ratings.population`` in the parameters, and the item
    x annotator and residual terms are drawn afresh. A decision study
    estimated on the three-annotator data can thus be checked against the
    observed reliability of panels of any size.

    Parameters
    ----------
    n_annotators : int
        Panel size.
    seed : int
        Seed of the panel draw (the outputs come from the dataset's seed).
    parameters : path, mapping or None
        Simulation parameters (default: those recorded in ``data_dir``'s
        truth file, else ``data/simulation.yml``).
    data_dir : path, optional
        A simulated data directory whose rated outputs (from
        ``simulation_truth.json``) the panel rates.

    Returns
    -------
    pandas.DataFrame
        Columns sentence_id, system, annotator (``P01``...), rating; fully
        crossed, n_annotators x 2,320 rows.
    """
    if n_annotators < 1:
        raise ValueError("n_annotators must be at least 1")
    if data_dir is not None:
        truth = json.loads((Path(data_dir) / schema.SIMULATION_TRUTH_FILE).read_text(encoding="utf-8"))
        params = load_parameters(parameters)[0] if parameters is not None else truth["parameters"]
        ru = truth["rating_units"]
        units = {
            "sentence_id": np.array(ru["sentence_id"], dtype=object),
            "count": np.array(ru["emoji_count"], dtype=int),
            "item_effect": np.array(ru["item_effect"], dtype=float),
            "output_effect": np.array(ru["output_effect"], dtype=float),
        }
    else:
        params = load_parameters(parameters)[0]
        data_seed = int(params["seed"])
        sentences = _corpus(params, data_seed)
        sentences["text"] = ""
        em = _emissions(sentences, params, data_seed)
        units = _rating_units(sentences, em, params, data_seed)
    pop = params["ratings"]["population"]
    rng = _stream(seed, "panel")
    location = float(pop["location_mean"]) + float(pop["location_sd"]) * rng.standard_normal(n_annotators)
    slope = float(pop["length_slope_mean"]) + float(pop["length_slope_sd"]) * rng.standard_normal(n_annotators)
    interaction = float(pop["interaction_sd"]) * rng.standard_normal((n_annotators, len(schema.SYSTEMS)))
    width = max(2, len(str(n_annotators)))
    names = [f"P{k + 1:0{width}d}" for k in range(n_annotators)]
    return _rate(units, location, slope, interaction, names, params, rng)
