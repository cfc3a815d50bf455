"""Every simulator of the compendium; first, the simulated benchmark with exactly the paper's design.

One module per simulator: the benchmark (:mod:`.parameters`, :mod:`.text`
for the corpus and emissions, :mod:`.ratings` for ratings and embeddings,
:mod:`.benchmark` for drawing, writing and the MANIFEST); crossed rating
studies of known variance components, complete or incomplete
(:mod:`.crossed`); the small study of :mod:`compendium.analyses.length`'s examples
(:mod:`.toy`); and the machine-translation example of ``data/examples/``
(:mod:`.mt_example`). All of their data are simulated and called so.

The benchmark:

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

from compendium.simulate.parameters import (
    DEFAULT_PARAMETERS,
    SIMULATOR_VERSION,
    calibration,
    generative,
    load_parameters,
)
from compendium.simulate.benchmark import (
    manifest_is_current,
    read_manifest,
    simulate,
    simulate_panel,
    verify_manifest,
    write_manifest,
)


def __getattr__(name: str):
    """The crossed and toy simulators, imported when first asked for: they import the G theory and with it
    scipy.stats (about a second), which writing or checking the benchmark (``make data``) does not need."""
    if name in ("simulate_crossed", "simulate_incomplete"):
        from compendium.simulate import crossed

        return getattr(crossed, name)
    if name == "toy_study":
        from compendium.simulate.toy import toy_study

        return toy_study
    raise AttributeError(f"module 'compendium.simulate' has no attribute {name!r}")

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
    "simulate_crossed",
    "simulate_incomplete",
    "toy_study",
]

