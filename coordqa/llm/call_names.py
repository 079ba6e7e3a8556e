"""Which call a message is about: a name the caller gives the model calls it makes.

A timed-out attempt is logged as it happens (:mod:`coordqa.llm.retry`); with ten calls in flight,
ten identical lines said nothing of which question, or which agent decision, waited. The caller
names its calls around them (:func:`naming_calls`: ``hanabi-03-JP trial 1``, an episode's seat
and step) and the gateway adds the role it was given (:func:`in_role`: ``action``, ``tom``...).
Context variables carry both, so every asyncio task gets the name of the code that started it
and concurrent calls never see each other's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["current_call", "in_role", "naming_calls"]

_WHERE: ContextVar[str] = ContextVar("coordqa_call_where", default="")
_ROLE: ContextVar[str] = ContextVar("coordqa_call_role", default="")

UNNAMED_ROLE = "default"
"""The gateway's role when its caller gives none: not worth saying."""


@contextmanager
def naming_calls(where: str) -> Iterator[None]:
    """Name the model calls made inside the block: what they are for (a question and trial)."""
    token = _WHERE.set(where)
    try:
        yield
    finally:
        _WHERE.reset(token)


@contextmanager
def in_role(role: str) -> Iterator[None]:
    """Say who asks (the gateway's ``role``) for the calls made inside the block."""
    token = _ROLE.set("" if role == UNNAMED_ROLE else role)
    try:
        yield
    finally:
        _ROLE.reset(token)


def current_call() -> str:
    """The name of the call being made here; empty when nobody named it.

    >>> with naming_calls("hanabi-03-JP trial 1"), in_role("qa"):
    ...     current_call()
    'hanabi-03-JP trial 1 (qa)'
    >>> with in_role("action"):
    ...     current_call()
    'action call'
    >>> current_call()
    ''
    """
    where, role = _WHERE.get(), _ROLE.get()
    if where and role:
        return f"{where} ({role})"
    return where or (f"{role} call" if role else "")
