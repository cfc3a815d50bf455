"""Write the simulated machine-translation human evaluation of ``data/examples/``.

THIS IS SIMULATED DATA: the design and the score model are described in
:mod:`compendium.simulate.mt_example`, which draws it. Run from the
repository root (same bytes every time)::

    .venv/bin/python data/examples/make_mt_example.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from compendium.simulate.mt_example import make

if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for path in make(target):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
