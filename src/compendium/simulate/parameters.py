"""The simulated benchmark's parameters, emoji inventory and random streams.

Read by every part of :mod:`compendium.simulate`: the parameter file
(``data/simulation.yml``) with its calibration annotations, the emoji
inventory, and the seeded child streams keyed by component name.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from compendium.data import schema
from compendium.data.paths import project_root

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
