"""Counts and articles in messages, so that they read as sentences ("1 question", "an agentic")."""

from __future__ import annotations

__all__ = ["counted", "with_article"]


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, plural unless the count is one.

    >>> counted(1, "question"), counted(2, "question"), counted(0, "reply", "replies")
    ('1 question', '2 questions', '0 replies')
    """
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def with_article(phrase: str) -> str:
    """``phrase`` after "a" or "an", by its first letter (the words of coordqa's messages).

    >>> with_article("agentic run"), with_article("QA run"), with_article("play run")
    ('an agentic run', 'a QA run', 'a play run')
    """
    return f"{'an' if phrase[:1] in 'aeiou' else 'a'} {phrase}"
