"""The simulated machine-translation human evaluation of ``data/examples/``.

THIS IS SIMULATED DATA. No translation was produced and no person rated
anything: the ratings are drawn from the variance-component model below with a
fixed seed, to give ``compendium audit`` and the book's chapter "Audit your own
benchmark" a small, openly licensed (MIT, like the rest of the repository),
fully crossed item x system x rater study from a field other than the paper's.

The design imitates a segment-level *direct assessment* (DA) of machine
translation in the style of the WMT human evaluations (Graham et al., 2013,
2017): bilingual raters move a 0-100 slider to say how adequately a
translation expresses the meaning of the source segment. Unlike WMT's
crowd-sourced collection, which is far from crossed, this study is a small
controlled one in which every rater scores every system's translation of
every segment, which is what the audit needs:

* 120 source segments (``seg-001`` ...), source length 8-40 tokens;
* 6 fictitious systems: ``human-ref`` (a second human translation, as in the
  WMT campaigns), ``llm-large``, ``big-nmt``, ``llm-small``, ``base-nmt``,
  ``rule-based``;
* 6 raters ``R1`` ... ``R6``;
* 120 x 6 x 6 = 4,320 integer scores in 0-100 (``mt_direct_assessment.csv``:
  segment_id, system, rater, score) and the length in tokens of each of the
  720 translations (``mt_lengths.csv``: segment_id, system, tokens).

Score model (points on the 0-100 scale), rounded and clipped to 0-100:

    score = 62 + quality[system] + item + rater + item:system + item:rater
            + system:rater + slope[rater] * (tokens - mean tokens) + residual

with standard deviations item 9, rater 9, item:system 7, item:rater 5,
system:rater 3.5, residual 13; system quality +5, +2, +1.5, 0, -1.5, -6 (in
the order above); translation length = source length x a system ratio
(1.02, 1.18, 1.00, 1.10, 0.97, 0.93) + N(0, 1.5) tokens, at least 1; and a
length slope of 0, 0, 0.15, 0.15, 0.5 and 0.7 points per token (of the
translation, centred on the mean translation length) for R1-R6, so two raters
reward long translations whatever the source. The generating values are deliberately
known, so the audit can be read against them.

Written by ``data/examples/make_mt_example.py`` (same bytes every time)::

    .venv/bin/python data/examples/make_mt_example.py

References
----------
Y. Graham, T. Baldwin, A. Moffat and J. Zobel (2013). Continuous measurement
scales in human evaluation of machine translation. Proc. 7th Linguistic
Annotation Workshop, 33-41.
Y. Graham, T. Baldwin, A. Moffat and J. Zobel (2017). Can machine translation
systems be evaluated by the crowd alone? Natural Language Engineering 23(1),
3-30.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20261129
N_ITEMS = 120
SYSTEMS = ("human-ref", "llm-large", "big-nmt", "llm-small", "base-nmt", "rule-based")
QUALITY = (5.0, 2.0, 1.5, 0.0, -1.5, -6.0)
LENGTH_RATIO = (1.02, 1.18, 1.00, 1.10, 0.97, 0.93)
RATERS = ("R1", "R2", "R3", "R4", "R5", "R6")
LENGTH_SLOPE = (0.0, 0.0, 0.15, 0.15, 0.5, 0.7)
SD = {"item": 9.0, "rater": 9.0, "item:system": 7.0, "item:rater": 5.0, "system:rater": 3.5, "residual": 13.0}
RATINGS_FILE = "mt_direct_assessment.csv"
LENGTHS_FILE = "mt_lengths.csv"

__all__ = ["make", "SEED", "RATINGS_FILE", "LENGTHS_FILE"]


def make(out_dir: Path, seed: int = SEED) -> tuple[Path, Path]:
    """Write the two CSV files into ``out_dir``; return their paths."""
    rng = np.random.default_rng(seed)
    n_p, n_s, n_r = N_ITEMS, len(SYSTEMS), len(RATERS)
    source = rng.integers(8, 41, size=n_p)
    tokens = np.rint(source[:, None] * np.asarray(LENGTH_RATIO)[None, :] + rng.normal(0, 1.5, (n_p, n_s)))
    tokens = np.maximum(tokens, 1).astype(int)
    latent = (
        62.0
        + np.asarray(QUALITY)[None, :, None]
        + SD["item"] * rng.standard_normal((n_p, 1, 1))
        + SD["rater"] * rng.standard_normal((1, 1, n_r))
        + SD["item:system"] * rng.standard_normal((n_p, n_s, 1))
        + SD["item:rater"] * rng.standard_normal((n_p, 1, n_r))
        + SD["system:rater"] * rng.standard_normal((1, n_s, n_r))
        + np.asarray(LENGTH_SLOPE)[None, None, :] * (tokens - tokens.mean())[:, :, None]
        + SD["residual"] * rng.standard_normal((n_p, n_s, n_r))
    )
    score = np.clip(np.rint(latent), 0, 100).astype(int)
    items = np.array([f"seg-{i + 1:03d}" for i in range(n_p)])
    p, s, r = np.meshgrid(np.arange(n_p), np.arange(n_s), np.arange(n_r), indexing="ij")
    ratings = pd.DataFrame(
        {
            "segment_id": items[p.ravel()],
            "system": np.asarray(SYSTEMS)[s.ravel()],
            "rater": np.asarray(RATERS)[r.ravel()],
            "score": score.ravel(),
        }
    )
    p2, s2 = np.meshgrid(np.arange(n_p), np.arange(n_s), indexing="ij")
    lengths = pd.DataFrame(
        {"segment_id": items[p2.ravel()], "system": np.asarray(SYSTEMS)[s2.ravel()], "tokens": tokens.ravel()}
    )
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = out_dir / RATINGS_FILE, out_dir / LENGTHS_FILE
    ratings.to_csv(paths[0], index=False, lineterminator="\n")
    lengths.to_csv(paths[1], index=False, lineterminator="\n")
    return paths
