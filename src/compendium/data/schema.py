"""Names and file layout of the benchmark: the contract between data and code.

Every module and notebook takes its system, encoder, annotator, language and
label names from here, so that the simulated data, the loader and the
analyses cannot drift apart. The names follow the paper (section 3) and
``DESIGN.md``.
"""

from __future__ import annotations

#: The eight generators, in the order the paper lists them (section 3).
SYSTEMS: tuple[str, ...] = (
    "claude-3-haiku",
    "deepseek-v3.2",
    "gemini-2.0-flash",
    "gemma-3-27b",
    "mistral-large-2512",
    "gpt-4.1-nano",
    "qwen3-vl-235b",
    "grok-4-fast",
)

#: Display names used in tables and figures.
SYSTEM_LABELS: dict[str, str] = {
    "claude-3-haiku": "Claude-3-Haiku",
    "deepseek-v3.2": "DeepSeek-V3.2",
    "gemini-2.0-flash": "Gemini-2.0-Flash",
    "gemma-3-27b": "Gemma-3-27B",
    "mistral-large-2512": "Mistral-Large-2512",
    "gpt-4.1-nano": "GPT-4.1-nano",
    "qwen3-vl-235b": "Qwen3-VL-235B",
    "grok-4-fast": "Grok-4-Fast",
}

#: The five sentence encoders and their output dimensions (section 3).
ENCODERS: dict[str, int] = {
    "gemini-embedding-001": 3072,
    "mistral-embed-2312": 1024,
    "openai-3-large": 3072,
    "openai-3-small": 1536,
    "qwen3-embedding-8b": 4096,
}

#: The three annotators of the human study.
ANNOTATORS: tuple[str, ...] = ("A1", "A2", "A3")

#: Language codes in the order the paper lists them.
LANGUAGES: tuple[str, ...] = ("bn", "en", "hi")

LANGUAGE_NAMES: dict[str, str] = {"bn": "Bangla", "en": "English", "hi": "Hindi"}

#: Each corpus's own label scheme (section 3: the corpora do not share one).
LABEL_SCHEMES: dict[str, tuple[str, ...]] = {
    "bn": ("anger", "fear", "joy", "love", "sadness", "surprise"),
    "en": ("anger", "fear", "joy", "love", "sadness", "surprise"),
    "hi": ("anger", "disgust", "fear", "joy", "neutral", "sadness", "surprise"),
}

#: The five emotions common to all three schemes.
SHARED_EMOTIONS: tuple[str, ...] = ("anger", "fear", "joy", "sadness", "surprise")

#: Separator of multiple labels in ``sentences.labels``.
LABEL_SEPARATOR = ";"

#: Rating scale of the human study.
RATING_MIN, RATING_MAX = 1, 5

#: Most attempts a generation may take (the first try and up to two retries).
MAX_ATTEMPTS = 3

# --- files -------------------------------------------------------------------

SENTENCES_FILE = "sentences.csv"
GENERATIONS_FILE = "generations.csv"
RATINGS_FILE = "ratings.csv"
EMBEDDINGS_DIR = "embeddings"
EMBEDDING_INDEX_FILE = "embeddings/index.csv"
MANIFEST_FILE = "MANIFEST"
SIMULATION_PARAMETERS_FILE = "simulation.yml"


def embedding_file(encoder: str) -> str:
    """Path, relative to the data directory, of one encoder's matrix."""
    return f"{EMBEDDINGS_DIR}/{encoder}.npy"


#: Columns of each table, in file order.
COLUMNS: dict[str, tuple[str, ...]] = {
    SENTENCES_FILE: (
        "sentence_id",
        "language",
        "text",
        "labels",
        "shared_single",
        "human_study",
        "geometry_sample",
    ),
    GENERATIONS_FILE: (
        "sentence_id",
        "system",
        "output",
        "attempts",
        "prompt_tokens",
        "completion_tokens",
    ),
    RATINGS_FILE: ("sentence_id", "system", "annotator", "rating"),
    EMBEDDING_INDEX_FILE: ("sentence_id",),
}

#: Every file of a complete data directory, relative to it.
DATA_FILES: tuple[str, ...] = (
    SENTENCES_FILE,
    GENERATIONS_FILE,
    RATINGS_FILE,
    EMBEDDING_INDEX_FILE,
    *(embedding_file(e) for e in ENCODERS),
)

#: The simulator's record of the true generating values (written next to the data).
SIMULATION_TRUTH_FILE = "simulation_truth.json"
