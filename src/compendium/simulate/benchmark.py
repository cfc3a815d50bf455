"""The whole simulated benchmark: drawing, the generating values, writing and the MANIFEST.

:func:`simulate` writes the benchmark and :func:`simulate_panel` draws new
rating panels; see :mod:`compendium.simulate`.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from compendium.data import schema
from compendium.data._files import sha256_file
from compendium.data.benchmark import read_manifest as _read_manifest
from compendium.simulate.parameters import (
    EMOTIONS,
    GENERATOR,
    SIMULATOR_VERSION,
    _by_system,
    _stream,
    load_parameters,
)
from compendium.simulate.text import _corpus, _emissions, _texts, _tokens
from compendium.simulate.ratings import _embeddings, _population_mos, _rate, _rating_units, _study_annotators


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
    lines += [f"{sha256_file(data_dir / f)}  {f}" for f in sorted(files)]
    path = data_dir / schema.MANIFEST_FILE
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_manifest(data_dir: str | os.PathLike) -> tuple[dict[str, str], dict[str, str]]:
    """Header and entries of ``MANIFEST``: ({key: value}, {relative path: sha256}).

    The header values as written (strings). This is a view of
    :func:`compendium.data.benchmark.read_manifest`, the one reader of the format,
    whose errors (a :class:`compendium.data.errors.DataError`, a ``ValueError``)
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
        if not (data_dir / name).is_file() or sha256_file(data_dir / name) != digest
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
    Files written (layout of :mod:`compendium.data.schema`):

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
