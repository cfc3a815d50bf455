"""Where the project's files are: found from the working directory or an environment variable.

No module of the package computes repository paths from its own location, so
an installed copy (``pip install compendium``) works outside a checkout: the
audit needs no repository at all, and the book's commands find the checkout
they are run in.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ROOT_ENV", "project_root", "is_project", "DISTRIBUTION", "install_hint", "revision"]

#: Environment variable naming the project's root directory (the checkout).
ROOT_ENV = "COMPENDIUM_ROOT"


def is_project(directory: Path) -> bool:
    """Whether ``directory`` is a checkout of the compendium (its book's table of contents and notebooks)."""
    return (directory / "_toc.yml").is_file() and (directory / "notebooks").is_dir()


def project_root(start: str | os.PathLike | None = None) -> Path:
    """The project's root directory.

    ``$COMPENDIUM_ROOT`` if set; else the nearest directory at or above
    ``start`` (default: the working directory) that :func:`is_project`; else
    ``start`` itself, so that commands that need no checkout (the audit)
    still run anywhere.
    """
    given = os.environ.get(ROOT_ENV)
    if given:
        return Path(given).expanduser().absolute()
    here = Path(start if start is not None else Path.cwd()).absolute()
    for directory in (here, *here.parents):
        if is_project(directory):
            return directory
    return here


#: The distribution's name on a package index (``pip install two-emojis-compendium``); ``compendium`` there is an
#: unrelated project. The import package and the command stay ``compendium``.
DISTRIBUTION = "two-emojis-compendium"


def install_hint(extra: str) -> str:
    """What a user runs to add an extra: by the distribution's name, or on the wheel built from a checkout."""
    return (f"pip install '{DISTRIBUTION}[{extra}]', or from a checkout's wheel "
            f"pip install '{DISTRIBUTION.replace('-', '_')}-<version>-py3-none-any.whl[{extra}]'")



def revision() -> str:
    """The checkout's ``git describe``; outside a checkout (an installed package), the package's version."""
    import subprocess
    from importlib.metadata import version

    root = project_root()
    if not is_project(root):
        return f"compendium {version(DISTRIBUTION)}"
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=12"], cwd=root,
                              capture_output=True, text=True, check=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
