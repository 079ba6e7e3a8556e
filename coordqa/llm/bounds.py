"""What coordqa takes from an endpoint, at most: one home for the bounds of every reply.

An endpoint is input like any other (a board calls endpoints that anyone registers), so what it
sends is bounded before anything keeps it:

- :data:`MAX_BODY_BYTES`: the most bytes of one HTTP response the direct transport reads
  (:mod:`coordqa.llm.http`); a longer body fails that attempt, so memory stays bounded
  whatever an endpoint streams.
- :data:`MAX_REPLY_CHARS`: a reply longer than this is stored cut, its beginning and end kept
  (:func:`cut_reply`) and marked truncated; the gateway cuts every reply, whatever the
  transport, before the cache or a run sees it.
- Token counts (:func:`checked_usage`): a count that is negative, not an integer, or more than
  the call could hold is not believed. The call's tokens count as 0 and its cost as unknown, and
  it is counted (:attr:`~coordqa.llm.types.Usage.implausible_counts`), so such a count never
  trips a token budget or a rate limit, nor prices anything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from coordqa.llm.types import Message, Usage

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_REPLY_CHARS",
    "UNREADABLE_COUNT",
    "checked_usage",
    "cut_reply",
    "reported_count",
]

MAX_BODY_BYTES = 1 << 20
"""1 MiB: the most bytes of one response body read from an endpoint. A chat completion is a few
kB of JSON; a reply this long is about 250,000 tokens, more than any model writes at once."""

MAX_REPLY_CHARS = 32_768
"""The most characters of a reply that are stored: many times any answer to a question or an
agent's move (a QA reply that long is a model repeating itself). A longer one keeps its first
and last halves (the answer is usually at the end), with a line saying how much was cut."""

TEMPLATE_TOKENS = 4_096
"""Tokens a chat template or a provider's own system text may add to the prompt's."""

HIDDEN_TOKENS = 262_144
"""Tokens a reasoning model may spend without showing them, on top of the reply's own: twice
the longest output limit of any served model today (128K)."""

UNREADABLE_COUNT = -1
"""What :func:`reported_count` makes of a count that is not a non-negative integer: a negative
number, which :func:`checked_usage` refuses with the others."""


def reported_count(value: object) -> int:
    """A token count as an endpoint reported it: the integer, or :data:`UNREADABLE_COUNT`.

    Missing (None) is 0, as a provider that does not say. ``True``, ``1.5``, ``"12"`` are not
    counts.

    >>> reported_count(12), reported_count(None), reported_count(1.5), reported_count(True)
    (12, 0, -1, -1)
    """
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        return UNREADABLE_COUNT
    return value


def _text_bytes(text: str) -> int:
    return len(text.encode("utf-8", errors="replace"))


def checked_usage(usage: Usage, messages: Sequence[Message], reply: str) -> Usage:
    """``usage`` if its token counts are plausible for this call, else unknown and counted.

    Plausible: not negative, and at most what the call could hold. No tokenizer makes a token
    of less than one byte of text, so the prompt holds at most its messages' bytes plus
    :data:`TEMPLATE_TOKENS`, and the reply at most its own bytes plus :data:`HIDDEN_TOKENS`.

    >>> prompt = [Message("user", "Which option?")]
    >>> checked_usage(Usage(5, 2, None, 1), prompt, "B").implausible_counts
    0
    >>> checked_usage(Usage(-10**9, 2, 0.5, 1), prompt, "B")
    Usage(prompt_tokens=0, completion_tokens=0, cost=None, calls=1, implausible_counts=1)
    """
    prompt_bound = sum(_text_bytes(m.content) for m in messages) + TEMPLATE_TOKENS
    reply_bound = _text_bytes(reply) + HIDDEN_TOKENS
    if 0 <= usage.prompt_tokens <= prompt_bound and 0 <= usage.completion_tokens <= reply_bound:
        return usage
    return dataclasses.replace(
        usage, prompt_tokens=0, completion_tokens=0, cost=None, implausible_counts=usage.calls
    )


def cut_reply(text: str) -> tuple[str, bool]:
    """``text`` cut to :data:`MAX_REPLY_CHARS` characters, and whether it was cut.

    The first and last halves are kept with a line between them that says how many characters
    were left out, so a reader sees the cut and an answer at the end is still read.

    >>> short, cut = cut_reply("Answer: B")
    >>> short, cut
    ('Answer: B', False)
    >>> long, cut = cut_reply("x" * 100_000 + "Answer: B")
    >>> cut, long.endswith("Answer: B"), "[coordqa cut 67,241 characters" in long
    (True, True, True)
    """
    if len(text) <= MAX_REPLY_CHARS:
        return text, False
    keep = MAX_REPLY_CHARS // 2
    left_out = len(text) - 2 * keep
    mark = (
        f"\n[coordqa cut {left_out:,} characters here: a reply is stored up to "
        f"{MAX_REPLY_CHARS:,} characters, its beginning and end]\n"
    )
    return text[:keep] + mark + text[-keep:], True
