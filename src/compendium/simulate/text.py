"""The simulated corpus, its pseudo-word text and the systems' emoji emissions and token counts.

Sections 3, 5, 6, 8, 9 and appendix B of the paper; see :mod:`compendium.simulate`.
Simulated data, called so wherever it appears.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from compendium.data import schema
from compendium.simulate.parameters import EMOTIONS, STRAY_ASCII, VS16, _allocate, _by_system, _inventory, _stream


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
_EN_BLOCKLIST = (
    "shit",
    "fuck",
    "cunt",
    "nig",
    "fag",
    "rape",
    "slut",
    "whor",
    "dick",
    "cock",
    "piss",
    "tit",
    "kill",
    "die",
    "dead",
    "sex",
)


def _pseudo_word(lang: str, n_syllables: int, vs_share: float, rng: np.random.Generator) -> str:
    while True:
        word = _draw_word(lang, n_syllables, vs_share, rng)
        if lang != "en" or not any(bad in word for bad in _EN_BLOCKLIST):
            return word


def _draw_word(lang: str, n_syllables: int, vs_share: float, rng: np.random.Generator) -> str:
    parts = []
    for k in range(n_syllables):
        if lang == "en":
            parts.append(_pick(_EN_ONSETS, rng) + _pick(_EN_VOWELS, rng))
            if rng.random() < 0.35:
                parts.append(_pick(_EN_CODAS, rng))
            continue
        cons, signs, vowels, marks = (
            (_BN_CONSONANTS, _BN_VOWEL_SIGNS, _BN_VOWELS, _BN_MARKS)
            if lang == "bn"
            else (_HI_CONSONANTS, _HI_VOWEL_SIGNS, _HI_VOWELS, _HI_MARKS)
        )
        if k == 0 and rng.random() < 0.1:
            parts.append(_pick(vowels, rng))
        else:
            parts.append(_pick(cons, rng))
            if rng.random() < vs_share:
                parts.append(_pick(signs, rng))
        if rng.random() < 0.04:
            parts.append(_pick(marks, rng))
    return "".join(parts)


def _pick(options: Sequence[str], rng: np.random.Generator) -> str:
    """One of ``options``, uniformly: what ``rng.choice(options)`` returns, from the same draw of the stream
    (``Generator.choice`` draws ``integers(0, len(options))``), without converting the list to an array."""
    return options[rng.integers(len(options))]


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
    # Each output's glyphs in order (item, system, slot; the first counts[i, s] slots), chosen for all outputs at
    # once, then joined output by output: every value is what choosing glyph by glyph gave.
    used = np.arange(5)[None, None, :] < counts[:, :, None]
    eid = emoji_id[used]
    system_of = np.broadcast_to(np.arange(n_sys)[None, :, None], used.shape)[used]
    pick = np.where(other_variant[used], variant[used], preferred[system_of, eid])
    glyphs = [decorated[e][k % len(decorated[e])] if d else plain[e]
              for e, d, k in zip(eid.tolist(), decorate[used].tolist(), pick.tolist())]
    for j in np.flatnonzero(vs16_types[system_of, eid]).tolist():
        if len(glyphs[j]) == 1:
            glyphs[j] += VS16  # a variation selector after an emoji-presentation character
    non_ascii = {g: sum(1 for c in g if ord(c) > 127) for g in set(glyphs)}
    ends = np.cumsum(counts.ravel()).tolist()
    spaced_l, stray_l, pick_l, front_l, edge_l = (
        a.ravel().tolist() for a in (spaced, stray, stray_pick, stray_front, edge)
    )
    start = 0
    for cell, end in enumerate(ends):
        i, s = divmod(cell, n_sys)
        parts = glyphs[start:end]
        start = end
        text = (" " if spaced_l[cell] else "").join(parts)
        if stray_l[cell]:
            frag = STRAY_ASCII[pick_l[cell]]
            text = frag + " " + text if front_l[cell] else text + " " + frag
            ascii_chars[i, s] = len(frag)
        if edge_l[cell] < edge_ws / 2:
            text = " " + text
        elif edge_l[cell] < edge_ws:
            text = text + " "
        outputs[i, s] = text
        extra_cp[i, s] = sum(non_ascii[g] for g in parts) - len(parts)

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

