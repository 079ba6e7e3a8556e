"""Keys out of what an endpoint says back: the one redaction of secrets in replies and errors.

An endpoint may echo the key it was sent (``401: bad key: Bearer sk-...``), and its errors end up
in run folders, on terminals, in a board's job list and in its worker's log. :func:`redact`
removes the keys a caller knows and anything shaped like a credential: a bearer token, an
``sk-...`` key, an ``api_key=...`` assignment. The gateway applies it to every reply and error it
returns for a model given a key (:class:`coordqa.llm.Model`), so nothing downstream sees the
key; code that shows endpoint text elsewhere applies it again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["REDACTED", "redact"]

REDACTED = "[redacted]"
"""What stands in place of a secret."""

MIN_KNOWN_SECRET = 7
"""Shortest known secret replaced wherever it occurs (a board's secret seeds have 7 digits or
more): a shorter one would replace ordinary words (a key ``A``, every letter A of a reply)."""

_VALUE = r"(?!\[redacted\])[^\s\"',;)}\]]+"
"""A credential's value: up to a space, quote or closing bracket (one already redacted stays)."""

_CREDENTIALS = (
    (re.compile(rf"(?i)\b(bearer|basic)\s+{_VALUE}"), rf"\1 {REDACTED}"),
    (re.compile(r"\bsk-[A-Za-z0-9_\-*.]{6,}"), f"sk-{REDACTED}"),
    (
        re.compile(rf"(?i)\b(api[_-]?key|access[_-]?token|secret)([\"']?\s*[:=]\s*[\"']?){_VALUE}"),
        rf"\1\2{REDACTED}",
    ),
    (re.compile(r"(://[^\s:/@]+:)[^\s/@]+@"), rf"\1{REDACTED}@"),
)
"""Credential shapes: a bearer or basic authorization, an OpenAI-style key, a key assignment, a
URL's password (``postgresql://user:PASSWORD@host/db``)."""


def redact(text: str, known: Iterable[str | None] = (), *, shapes: bool = True) -> str:
    """``text`` with the ``known`` secrets and (``shapes``) credential-shaped words removed.

    Reply texts pass ``shapes=False``: a reply keeps its words, only a known key is taken out.

    >>> redact("401: bad key Bearer sk-abcdef123456", ["sk-abcdef123456"])
    '401: bad key Bearer [redacted]'
    >>> redact('{"api_key": "hunter22"} and sk-proj-AAAA1111')
    '{"api_key": "[redacted]"} and sk-[redacted]'
    >>> redact("postgresql://board:hunter22@db.example/board")
    'postgresql://board:[redacted]@db.example/board'
    >>> redact("Answer: A", ["A"], shapes=False)
    'Answer: A'
    """
    for secret in known:
        if secret and len(secret) >= MIN_KNOWN_SECRET:
            text = text.replace(secret, REDACTED)
    if shapes:
        for pattern, replacement in _CREDENTIALS:
            text = pattern.sub(replacement, text)
    return text
