"""Every input the book reads, checked against its MANIFEST on every build, a build that changes nothing included.

The simulated benchmark is checked by its loader (:func:`compendium.data.benchmark.load_benchmark`); this
module checks the other two folders the chapters read, file by file: ``data/real`` (the vendored real data
and what ``derive.py`` makes from it) and ``data/examples`` (the audit's demonstration study). A file that
differs from its SHA-256, or a listed file that is missing, stops the build with a
:class:`~compendium.data.errors.DataError` that names the file, both checksums, and the two ways on:
restore the file, or re-pin it on purpose.
"""

from __future__ import annotations

import os
from pathlib import Path

from compendium.data._files import sha256_file
from compendium.data.errors import DataError
from compendium.data.paths import project_root

__all__ = ["FOLDERS", "verify_folder", "verify_inputs"]

#: The folders of pinned inputs, relative to the project root.
FOLDERS = ("data/real", "data/examples")


def verify_folder(folder: str | os.PathLike, label: str | None = None) -> int:
    """Check every file a folder's MANIFEST lists; return how many. ``label`` names the folder in messages.

    Raises
    ------
    DataError
        A changed file (both checksums and the commands to restore or re-pin it), a listed file that is
        missing, or no MANIFEST.
    """
    from compendium.data.benchmark import read_manifest

    folder = Path(folder)
    label = label or str(folder)
    listed = read_manifest(folder / "MANIFEST")["files"]
    for name, pinned in listed.items():
        path = folder / name
        if not path.is_file():
            raise DataError(f"{label}/{name}: no such file, but {label}/MANIFEST lists it; restore it with "
                            f"`git checkout -- {label}/{name}`", file=f"{label}/{name}")
        found = sha256_file(path)
        if found != pinned:
            raise DataError(
                f"{label}/{name}: the file changed since it was pinned: its SHA-256 is {found}, {label}/MANIFEST "
                f"pins {pinned}. Nothing was built. Restore it with `git checkout -- {label}/{name}`; or, if the "
                f"change is deliberate, re-pin it: put the line of `(cd {label} && sha256sum {name})` in place of "
                f"its line in {label}/MANIFEST, and say why in the datasheet.", file=f"{label}/{name}")
    return len(listed)


def verify_inputs(root: str | os.PathLike | None = None) -> dict[str, int]:
    """:func:`verify_folder` on each of :data:`FOLDERS` of the project; files checked per folder."""
    root = Path(root) if root is not None else project_root()
    return {name: verify_folder(root / name, name) for name in FOLDERS}
