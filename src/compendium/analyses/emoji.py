"""Segment raw model responses into emoji graphemes, and count them.

The benchmark asks each system for "1-5 emojis" per sentence, and the
number of emojis a system emits is the quantity section 5 of the paper
regresses ratings on. Appendix B states how that number is obtained:

    Emoji are segmented into graphemes, keeping zero-width-joiner sequences
    and skin-tone modifiers attached to their base character and discarding
    the occasional stray ASCII a model emits despite the prompt.

and contrasts it with *naive per-codepoint segmentation*, which inflates
the mean emoji count by 15.0 %. This module implements both counts:

* :func:`graphemes` / :func:`count_graphemes` -- the paper's unit;
* :func:`count_codepoints` -- the naive unit of appendix B;
* :func:`emoji_analyzer` -- the same segmentation as a scikit-learn
  analyzer, so the TF-IDF features of section 6 (emoji-affect
  decodability) treat a multi-code-point emoji as one feature;
* :func:`count_series` -- both counts over a pandas Series, computed once
  per distinct string.

Segmentation rule
-----------------
A response is split into extended grapheme clusters as defined by Unicode
Standard Annex #29, *Unicode Text Segmentation* (UAX #29, rules GB9-GB13:
``regex``'s ``\\X``). Each cluster is then judged with the ``emoji``
package, whose tables are generated from Unicode Technical Standard #51,
*Unicode Emoji* (UTS #51, ``emoji-test.txt``). No code-point tables are
written by hand here.

1. A cluster that the ``emoji`` package lists as an emoji is one grapheme,
   kept verbatim. This covers emoji ZWJ sequences (👨‍👩‍👧‍👦, 👩🏽‍💻,
   🏳️‍🌈), emoji modifier sequences (👍🏽), flag sequences (🇧🇩, and the
   tag sequence 🏴󠁧󠁢󠁳󠁣󠁴󠁿), keycap sequences (1️⃣, #️⃣, and the unqualified
   1⃣) and presentation sequences (❤️).
2. A cluster that is *not* listed as a whole, but contains listed emoji, is
   replaced by the emoji the package finds inside it (``emoji.emoji_list``).
   This is what happens to malformed output: ``"😂\\u0300"`` (an emoji with a
   stray combining mark) gives ``"😂"``; a skin-tone modifier after an emoji
   that takes none, ``"😂🏽"``, gives ``"😂"``; and a ZWJ sequence that is
   not recommended for general interchange (RGI), such as ``"👩\\u200d😂"``,
   gives ``["👩", "😂"]``, because UTS #51 (on emoji ZWJ sequences) has an
   unsupported ZWJ sequence fall back to displaying its parts separately,
   and that is what a rater sees.
3. Emoji *components* (UTS #51 ``emoji-test.txt`` status ``component``: the
   five skin-tone modifiers 🏻🏼🏽🏾🏿 and the four hair components
   🦰🦱🦲🦳) count only when attached to a base. On their own, or separated
   from their base by a space, they are dropped. So are a lone variation
   selector (U+FE0F), a lone zero width joiner (U+200D), a lone combining
   enclosing keycap (U+20E3) and an unpaired regional indicator (🇧), none of
   which the ``emoji`` package lists.
4. Everything else is dropped: ASCII (letters, punctuation, digits that are
   not part of a keycap sequence, ``#`` and ``*`` likewise), whitespace,
   and non-emoji text in any script (e.g. Bangla or Devanagari words).

Text presentation
-----------------
The ``emoji`` package's view is the reference, and it lists the
*unqualified* forms of emoji whose default presentation is text (UTS #51,
presentation style; ``emoji-test.txt`` status ``unqualified``): ❤ (U+2764 without U+FE0F), ☺, ✌, ‼, ↔, ™, ©, ® all
count as one emoji each, exactly like their fully-qualified forms ❤️, ☺️ ...
An explicit text-presentation request (U+FE0E) does not change that:
``"❤\\ufe0e"`` gives ``"❤"`` by rule 2. The returned strings are verbatim,
so ``"❤"`` and ``"❤️"`` are *different* strings, and therefore different
TF-IDF features. A digit or ``#``/``*`` followed by U+FE0F but not by
U+20E3 is not a keycap and is dropped.

Per-codepoint (naive) count
---------------------------
:func:`count_codepoints` counts the code points ``c`` of the response with
``ord(c) > 0x7F`` (non-ASCII) and ``not c.isspace()`` (Python's definition
of whitespace, which includes U+00A0 and U+3000). Every ZWJ (U+200D),
variation selector (U+FE0F, U+FE0E), skin-tone modifier, regional
indicator, combining enclosing keycap (U+20E3) and tag character therefore
counts separately; the ASCII digit of a keycap does not. Non-ASCII text that
is not emoji (Bangla letters, ``™``, ``\\u200b``) also counts: that is part
of what the naive rule gets wrong.

References
----------
.. [UAX29] M. Davis and C. Chapman, "Unicode Text Segmentation", Unicode
   Standard Annex #29. https://www.unicode.org/reports/tr29/
.. [UTS51] M. Davis and N. Holbrook, "Unicode Emoji", Unicode Technical
   Standard #51. https://www.unicode.org/reports/tr51/

Examples
--------
>>> graphemes("ok 😂!! 👩🏽‍💻🇧🇩")
['😂', '👩🏽\\u200d💻', '🇧🇩']
>>> count_graphemes("ok 😂!! 👩🏽‍💻🇧🇩"), count_codepoints("ok 😂!! 👩🏽‍💻🇧🇩")
(3, 7)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import emoji as _emoji
import pandas as pd
import regex

from compendium.data.cache import cached

__all__ = [
    "graphemes",
    "count_graphemes",
    "count_codepoints",
    "emoji_analyzer",
    "count_series",
]

#: One extended grapheme cluster (UAX #29).
_CLUSTER = regex.compile(r"\X")

#: ``emoji`` package data: emoji string -> metadata, including ``status``.
_EMOJI_DATA: dict[str, dict[str, Any]] = _emoji.EMOJI_DATA

#: UTS #51 status of the emoji components (skin tones, hair).
_COMPONENT: int = _emoji.STATUS["component"]

#: Every code point of every listed emoji. ``emoji_list`` matches only listed emoji (and ZWJ-joined runs of them),
#: so a cluster with none of these code points -- a Bangla or Hindi syllable, an accented letter, a curly quote --
#: holds no emoji, and rule 2 need not search it.
_EMOJI_CODEPOINTS: frozenset[str] = frozenset("".join(_EMOJI_DATA))

#: Size of the per-string cache of :func:`graphemes`.
_CACHE_SIZE = 1 << 17


def _is_missing(text: object) -> bool:
    """Return True for None, NaN, ``pd.NA`` and ``pd.NaT``."""
    if text is None:
        return True
    try:
        return bool(pd.isna(text))
    except (TypeError, ValueError):  # array-likes: not a missing scalar
        return False


def _check(text: object) -> str | None:
    """Return ``text`` as ``str``, None if missing; raise on anything else."""
    if isinstance(text, str):
        return text
    if _is_missing(text):
        return None
    raise TypeError(f"expected a str, None or NaN, got {type(text).__name__}")


def _is_counted(e: str) -> bool:
    """True if ``e`` is an emoji the ``emoji`` package lists and not a lone component."""
    data = _EMOJI_DATA.get(e)
    return data is not None and data["status"] != _COMPONENT


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _graphemes(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for cluster in _CLUSTER.findall(text):
        if cluster.isascii():
            # Fast path: no ASCII-only cluster is an emoji (keycaps need
            # U+20E3), so stray letters, digits, punctuation and
            # whitespace go here.
            continue
        if cluster in _EMOJI_DATA:  # rule 1 (and rule 3 for components)
            if _EMOJI_DATA[cluster]["status"] != _COMPONENT:
                out.append(cluster)
            continue
        # Rule 2: a cluster the package does not list as a whole. Keep the
        # listed emoji inside it (emoji_list splits non-RGI ZWJ sequences
        # into their parts and ignores stray marks/selectors), minus lone
        # components. Text with no emoji code point at all has none to keep.
        if _EMOJI_CODEPOINTS.isdisjoint(cluster):
            continue
        out.extend(m["emoji"] for m in _emoji.emoji_list(cluster) if _is_counted(m["emoji"]))
    return tuple(out)


def graphemes(text: str | None) -> list[str]:
    """Return the emoji graphemes of a raw model response, in order.

    The response is split into extended grapheme clusters (UAX #29) and each
    cluster is kept, dropped or split according to the ``emoji`` package's
    UTS #51 data; see the module docstring for the four rules. Multi-code-
    point emoji -- ZWJ sequences, skin-tone modifier sequences, flags,
    keycaps, presentation sequences -- come back as one string each.

    Parameters
    ----------
    text : str or None
        A raw model response. None and NaN (missing responses) are accepted.

    Returns
    -------
    list of str
        The emoji, verbatim and in order of appearance; empty for missing
        input, an empty string or a response without emoji.

    Raises
    ------
    TypeError
        If ``text`` is neither a string nor a missing value.

    See Also
    --------
    count_graphemes : ``len(graphemes(text))``.
    count_codepoints : the naive per-codepoint count.

    Notes
    -----
    Text-presentation emoji (❤ without U+FE0F, ☺, ™, ©) count, because the
    ``emoji`` package lists their unqualified forms; a lone skin-tone
    modifier, U+FE0F, U+200D or regional indicator does not. Results are
    cached per distinct string.

    Examples
    --------
    >>> graphemes("👨‍👩‍👧‍👦 👍🏿❤️1️⃣")
    ['👨\\u200d👩\\u200d👧\\u200d👦', '👍🏿', '❤️', '1️⃣']
    >>> graphemes("ok 😂!! 1 #")
    ['😂']
    >>> graphemes("খুশি 😊 🏽 \\u200d")
    ['😊']
    >>> graphemes(None)
    []
    """
    s = _check(text)
    if not s:
        return []
    return list(_graphemes(s))


def count_graphemes(text: str | None) -> int:
    """Return the number of emoji graphemes in a response (the paper's count).

    Parameters
    ----------
    text : str or None
        A raw model response; None and NaN count as 0.

    Returns
    -------
    int
        ``len(graphemes(text))``.

    Examples
    --------
    >>> count_graphemes("👩🏽‍💻🇧🇩!!")
    2
    >>> count_graphemes(float("nan"))
    0
    """
    s = _check(text)
    if not s:
        return 0
    return len(_graphemes(s))


def count_codepoints(text: str | None) -> int:
    """Return the naive per-codepoint emoji count of appendix B.

    The count is the number of code points ``c`` in ``text`` with
    ``ord(c) > 0x7F`` and ``not c.isspace()``: every non-ASCII, non-
    whitespace code point counts once. Hence each ZWJ (U+200D), variation
    selector, skin-tone modifier (U+1F3FB-U+1F3FF), regional indicator,
    combining enclosing keycap (U+20E3) and tag character is a separate
    "emoji", while the ASCII digit of a keycap is not; non-ASCII letters
    (e.g. Bangla) count too. Compare :func:`count_graphemes`, which follows
    UAX #29 and UTS #51.

    Parameters
    ----------
    text : str or None
        A raw model response; None and NaN count as 0.

    Returns
    -------
    int
        The number of non-ASCII, non-whitespace code points.

    Examples
    --------
    >>> count_codepoints("👩🏽‍💻")  # woman, medium skin tone, ZWJ, laptop
    4
    >>> count_codepoints("1️⃣ ok")  # U+FE0F and U+20E3; '1' is ASCII
    2
    >>> count_codepoints(None)
    0
    """
    s = _check(text)
    if not s:
        return 0
    if s.isascii():
        return 0
    return sum(1 for c in s if c > "\x7f" and not c.isspace())


def emoji_analyzer(text: str | None) -> list[str]:
    """Analyzer for scikit-learn vectorizers: one feature per emoji grapheme.

    Pass as ``TfidfVectorizer(analyzer=emoji_analyzer)`` (or
    ``CountVectorizer``) so that a multi-code-point emoji such as 👩🏽‍💻 is a
    single feature rather than four. It is :func:`graphemes` itself; the
    features are the verbatim emoji strings, so ❤ and ❤️ are distinct.

    Parameters
    ----------
    text : str or None
        One document (a raw model response).

    Returns
    -------
    list of str
        The emoji graphemes of ``text``, in order, with repeats.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> vec = TfidfVectorizer(analyzer=emoji_analyzer).fit(["👩🏽‍💻 ok", "😂😂"])
    >>> sorted(vec.vocabulary_)
    ['👩🏽\\u200d💻', '😂']
    """
    return graphemes(text)


def count_series(outputs: pd.Series | Iterable[str | None]) -> pd.DataFrame:
    """Count emoji graphemes and naive code points for many responses.

    Each distinct response is segmented once (model outputs repeat a lot),
    and the counts are broadcast back; missing responses count as 0.

    Parameters
    ----------
    outputs : pandas.Series or iterable of str or None
        Raw model responses.

    Returns
    -------
    pandas.DataFrame
        Indexed like ``outputs`` (a RangeIndex for a plain iterable), with
        int64 columns ``graphemes`` (:func:`count_graphemes`) and
        ``codepoints`` (:func:`count_codepoints`).

    Raises
    ------
    TypeError
        If a value is neither a string nor missing.

    Examples
    --------
    >>> count_series(pd.Series(["😂😂", "👩🏽‍💻", None, "😂😂"]))
       graphemes  codepoints
    0          2           2
    1          1           4
    2          0           0
    3          2           2
    """
    s = outputs if isinstance(outputs, pd.Series) else pd.Series(list(outputs), dtype=object)
    return _count_series(s)


@cached("emoji")  # what counts as an emoji is the emoji package's data (EMOJI_DATA): its source is in the key
def _count_series(s: pd.Series) -> pd.DataFrame:
    """:func:`count_series` of a Series; in a build, stored once and read by every chapter that counts the
    same outputs (:mod:`compendium.data.cache`)."""
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    uniques = uniques.tolist()  # Python strings: iterating an Arrow-backed index boxes each value slowly
    n_graph = [count_graphemes(u) for u in uniques]
    n_code = [count_codepoints(u) for u in uniques]
    # Append a 0 for the NA sentinel (-1 indexes the last element).
    g = pd.array(n_graph + [0], dtype="int64").to_numpy()[codes]
    c = pd.array(n_code + [0], dtype="int64").to_numpy()[codes]
    return pd.DataFrame({"graphemes": g, "codepoints": c}, index=s.index)
