"""The audit of a human rating study: the tool users install.

:mod:`~compendium.audit.core` runs every check on a tidy judgement file
(``compendium audit``), :mod:`~compendium.audit.checklist` turns the results into
the checklist, and :mod:`~compendium.audit.page` writes the HTML report in the
same process, its figures drawn by :mod:`~compendium.audit.svg` and its prose read
from the chapter template in ``templates/``; with ``--notebook``,
:mod:`~compendium.audit.report` renders that template executed in a kernel instead. In a notebook, :func:`audit`
(:mod:`~compendium.audit.python_api`) audits a DataFrame in one call.

The wing's rule: it runs on anyone's data, with no checkout and no book, so it
imports only :mod:`compendium.stats`, :mod:`compendium.data`,
:mod:`compendium.simulate` and :mod:`compendium.analyses`, never
:mod:`compendium.book`.
"""

from compendium.audit.python_api import Audit, audit

__all__ = ["Audit", "audit"]
