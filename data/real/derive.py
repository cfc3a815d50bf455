"""Derive the long-form judgement tables of data/real/ from the two source files.

Run from the repository root (or anywhere: it writes beside itself)::

    python data/real/derive.py

Writes summeval_{coherence,consistency,fluency,relevance}.csv, summeval_crowd.csv,
wmt23_mqm_ende.csv and MANIFEST. The same sources give the same bytes; the logic
and every decision are in compendium.data.derive (see README.md here).
"""

import sys
from pathlib import Path

from compendium.data.derive import derive

if __name__ == "__main__":
    here = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for path in derive(here):
        print(f"wrote {path}")
