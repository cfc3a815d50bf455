"""How far the real-data verdicts move between CPU profiles: writes tests/reference/host_spread.json.

Usage (about 2 minutes): build the book twice with no stored results, once as usual and once under the narrow
CPU profile of tests/narrow_cpu.py, then compare the two ``_build/claims.json``::

    git worktree add /tmp/narrow HEAD && cd /tmp/narrow
    eval "$(python -c 'import sys; sys.path.insert(0, "tests"); import narrow_cpu, shlex; e = narrow_cpu.environment()
    [print(f"export {k}={shlex.quote(e[k])}") for k in ("NPY_DISABLE_CPU_FEATURES", *narrow_cpu.PROFILE)]')"
    PYTHONPATH=$PWD/src COMPENDIUM_CACHE= python -m compendium.cli simulate --if-needed
    PYTHONPATH=$PWD/src COMPENDIUM_CACHE= python -m compendium.cli build --no-html
    python tests/reference/host_spread.py /work/main/_build/claims.json /tmp/narrow/_build/claims.json

For each of the real-data checks: both verdicts, the largest change of its estimate and of its interval's ends
(the host-to-host spread), and the interval's width. The verdicts that rest on the encoders read the stored
embeddings (data/real/encoded), so they do not move with the host at all; the REML fits, bootstraps and
decoders move in their last digits.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def compare(wide: dict, narrow: dict) -> dict:
    a = {c["check"]: c for c in wide["real_data_checks"]}
    b = {c["check"]: c for c in narrow["real_data_checks"]}
    if set(a) != set(b):
        raise SystemExit(f"the two builds have different checks: {sorted(set(a) ^ set(b))}")
    checks = {}
    for name in sorted(a):
        x, y = a[name], b[name]
        spread = []
        if _number(x["estimate"]) is not None and _number(y["estimate"]) is not None:
            spread.append(abs(x["estimate"] - y["estimate"]))
        if x.get("interval") and y.get("interval"):
            spread += [abs(p - q) for p, q in zip(x["interval"], y["interval"])]
        checks[name] = {
            "verdict": x["verdict"], "verdict_narrow": y["verdict"],
            "estimate": _number(x["estimate"]),
            "spread": max(spread) if spread else None,
            "interval_width": (x["interval"][1] - x["interval"][0]) if x.get("interval") else None,
        }
    spreads = [c["spread"] for c in checks.values() if c["spread"] is not None]
    return {"profile": "tests/narrow_cpu.py against the host's full instruction set",
            "n_checks": len(checks),
            "verdicts_changed": sorted(n for n, c in checks.items() if c["verdict"] != c["verdict_narrow"]),
            "max_spread": max(spreads), "checks": checks}


if __name__ == "__main__":
    wide, narrow = (json.loads(Path(p).read_text(encoding="utf-8")) for p in sys.argv[1:3])
    record = compare(wide, narrow)
    out = Path(__file__).with_suffix(".json")
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{record['n_checks']} checks, {len(record['verdicts_changed'])} verdicts changed, "
          f"largest spread {record['max_spread']:.3g}; written to {out}")
