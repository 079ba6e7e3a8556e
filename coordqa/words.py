"""Counts, articles and short lists in messages, so that they read as sentences.

"1 question", "an agentic run", "a, b, c, d, e and 3 more".
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "MAX_LISTED",
    "UNSET_FILTERS",
    "agreeing",
    "capitalised",
    "counted",
    "format_list",
    "parameter_words",
    "with_article",
]

MAX_LISTED = 5
"""How many offending items (keys, tasks) an error message lists before summarising the rest."""

UNSET_FILTERS = {
    "limit": "no limit",
    "sample": "no sample",
    "games": "all games",
    "types": "all types",
    "ids": "all ids",
}
"""How a run that left a filter unset is told from one that set it: ``random (no limit)`` beside
``random (limit=5)`` (walkthrough 22 R4: ``limit=none`` read as a limit of none), and a refused
setting ``types: stored all types, requested EC`` (walkthrough 27)."""


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, plural unless the count is one.

    >>> counted(1, "question"), counted(2, "question"), counted(0, "reply", "replies")
    ('1 question', '2 questions', '0 replies')
    """
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def agreeing(count: int, singular: str, plural: str) -> str:
    """The verb that agrees with ``count`` things: "1 entry is", "2 entries are".

    >>> agreeing(1, "is", "are"), agreeing(0, "was", "were"), agreeing(3, "plays", "play")
    ('is', 'were', 'play')
    """
    return singular if count == 1 else plural


def capitalised(sentence: str) -> str:
    """``sentence`` with its first letter in capitals and the rest as it is.

    ``str.capitalize`` would lower the rest: names, URLs, ``--flags`` written in capitals.

    >>> capitalised("raise --timeout, or wait for http://Host")
    'Raise --timeout, or wait for http://Host'
    """
    return sentence[:1].upper() + sentence[1:]


def with_article(phrase: str) -> str:
    """``phrase`` after "a" or "an", by its first letter (the words of coordqa's messages).

    >>> with_article("agentic run"), with_article("QA run"), with_article("play run")
    ('an agentic run', 'a QA run', 'a play run')
    """
    return f"{'an' if phrase[:1] in 'aeiou' else 'a'} {phrase}"


def format_list(items: Sequence[str], limit: int = MAX_LISTED) -> str:
    """A short list for a message: the first ``limit`` items, then how many more.

    >>> format_list(["a", "b"]), format_list([str(n) for n in range(8)])
    ('a, b', '0, 1, 2, 3, 4 and 3 more')
    >>> format_list(["a", "b", "c"], limit=2)
    'a, b and 1 more'
    """
    shown = ", ".join(items[:limit])
    more = len(items) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def parameter_words(value: float) -> str:
    """A parameter count as ``--params`` takes it: 7B, 350M, 1.5T (a bare number below 1,000).

    >>> parameter_words(7e9), parameter_words(3.5e8), parameter_words(1.5e12), parameter_words(12)
    ('7B', '350M', '1.5T', '12')
    """
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if value >= size:
            return f"{value / size:.3g}{unit}"
    return f"{value:.0f}"
