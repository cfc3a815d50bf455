"""The column names people use: a table that lacks a default column is read by the name it has (issue 71).

Every mode of ``compendium audit`` and :func:`compendium.audit.audit` takes one convention -- ``item, system,
rater, rating`` for ratings; ``item, system_a, system_b, rater, winner`` for preferences; ``item, rater, label``
for labels -- and a column named otherwise is still found when the table uses a common name for it: the paper's
``sentence_id`` and ``annotator``, WMT's ``segment``, Mechanical Turk's ``WorkerId``, Chatbot Arena's ``model_a``.
:func:`recognise` decides, and says which column it reads as which; two columns that could both be a role are
refused, naming both, rather than guessed between.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from compendium.data.errors import DataError

__all__ = ["SYNONYMS", "recognise"]

#: The common names of each role, matched without regard to case, after the default name itself.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "item": ("item_id", "sentence_id", "segment", "segment_id", "seg_id", "doc_id", "document_id", "example_id",
             "question_id", "prompt_id", "instance_id", "idx"),
    "system": ("system_id", "system_name", "model", "model_id", "model_name"),
    "rater": ("rater_id", "annotator", "annotator_id", "judge", "worker", "worker_id", "workerid", "evaluator",
              "assessor"),
    "rating": ("score", "label", "value", "grade", "judgement", "judgment"),
    "system_a": ("model_a", "system1", "model1"),
    "system_b": ("model_b", "system2", "model2"),
    "winner": ("preference", "choice", "verdict"),
    "label": ("category", "class", "emotion", "annotation"),
}


def recognise(
    columns: Sequence[str],
    defaults: Mapping[str, str],
    given: Mapping[str, str | None] | None = None,
    *,
    source: str = "the table",
    options: Mapping[str, str] | None = None,
) -> tuple[dict[str, str], dict[str, str]]:
    """The column of each role, and those read by another name than the default.

    Parameters
    ----------
    columns : sequence of str
        The table's columns.
    defaults : mapping of role to column
        The convention's names (``{"item": "item", ...}``).
    given : mapping of role to column or None, optional
        The names the user gave; a given name is taken as it is (the reader says if it is absent).
    source : str
        The table's name, for the messages.
    options : mapping of role to str, optional
        The option that names each role (``{"item": "--item"}``), for the messages.

    Returns
    -------
    roles : dict
        Role -> column. A role with no default column and no recognised one keeps its default name, so that the
        reader's message names it.
    found : dict
        Role -> column, for each role read by another name than its default.

    Raises
    ------
    DataError
        When a role's default column is absent and two or more columns could be it.

    Examples
    --------
    >>> convention = {r: r for r in ("item", "system", "rater", "rating")}
    >>> roles, found = recognise(["sentence_id", "system", "annotator", "rating"], convention)
    >>> roles
    {'item': 'sentence_id', 'system': 'system', 'rater': 'annotator', 'rating': 'rating'}
    >>> found
    {'item': 'sentence_id', 'rater': 'annotator'}
    >>> recognise(["item", "system", "judge", "worker", "score"], convention)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    compendium.data.errors.DataError: the table: no rater column 'rater', and 2 columns could be it: 'judge', ...
    """
    given = {role: name for role, name in (given or {}).items() if name}
    options = dict(options or {})
    present = [str(c) for c in columns]
    roles = {role: given.get(role, default) for role, default in defaults.items()}
    taken = {name for role, name in roles.items() if role in given or name in present}
    found = {}
    for role, default in defaults.items():
        if role in given or default in present:
            continue
        names = {default.lower(), *SYNONYMS.get(role, ())}
        candidates = [c for c in present if c.lower() in names and c not in taken]
        if len(candidates) > 1:
            option = options.get(role, f"--{role.replace('_', '-')}")
            raise DataError(f"{source}: no {role} column {default!r}, and {len(candidates)} columns could be it: "
                            f"{', '.join(repr(c) for c in candidates)}; name one with {option}",
                            column=", ".join(candidates))
        if candidates:
            roles[role] = candidates[0]
            taken.add(candidates[0])
            found[role] = candidates[0]
    return roles, found
