"""Derive the long-form judgement tables of data/real/ from the three source files.

Run from the repository root (or anywhere: it writes beside itself)::

    python data/real/derive.py                 # the judgement tables; keeps encoded/
    python data/real/derive.py --embeddings    # and embeds NTREX with every real encoder (minutes)

Writes summeval_{coherence,consistency,fluency,relevance}.csv, summeval_crowd.csv,
wmt23_mqm_ende.csv, wmt23_mqm_zhen.csv, with --embeddings encoded/ntrex_<encoder>.npy, and MANIFEST. The same sources give the same bytes; the logic
and every decision are in compendium.data.derive (see README.md here).
"""

import sys
from pathlib import Path

from compendium.data.derive import derive
from compendium.data.encoded import derive_encoded

if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--embeddings"]
    here = Path(arguments[0]) if arguments else Path(__file__).resolve().parent
    fresh = derive_encoded(here) if "--embeddings" in sys.argv[1:] else None
    for path in derive(here, encoded=fresh):
        print(f"wrote {path}")
