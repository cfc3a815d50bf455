"""Every example in the package's docstrings runs and prints what it says.

A docstring example is the first code a reader copies; one that fails misleads them and no other test would
notice. This runs each module's examples with :mod:`doctest` (ellipsis and whitespace-insensitive, as
numpydoc examples are written). Each module's own test file may run them too; this one makes sure none is left
out.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import compendium

MODULES = sorted(m.name for m in pkgutil.walk_packages(compendium.__path__, "compendium."))

def test_the_modules_are_found():
    assert {"compendium.stats.mixed", "compendium.audit.core", "compendium.stats.rater_variance"} <= set(MODULES)

@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False,
                             report=True)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples fail (see the output above)"
