"""The simulated ratings (sections 4, 5) and embeddings (section 7).

See :mod:`compendium.simulate`. Simulated data, called so wherever it appears.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from compendium.data import schema
from compendium.simulate.parameters import _by_system, _stream


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

