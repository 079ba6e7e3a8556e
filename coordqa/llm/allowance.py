"""A hard cap on the model calls a run may send: each attempt is admitted only while there is room.

A board job's calls budget was counted as answers came back, so the calls already in flight when
the budget was reached went on and were counted after it: a grid job (8 episodes at once, each
agent's several model connections) showed 59 calls against a budget of 40 (walkthrough 15).
Counted here instead, at admission, before the request is sent, an attempt past the allowance is
never sent: the run's ``on_spent`` is told (it stops the run) and the attempt waits to be
cancelled with it.

The allowance is the current context's (:func:`call_allowance`), so it reaches every call of the
run, in every task the run starts, whatever drives the calls (``coordqa eval`` or a grid).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["CallAllowance", "admit_call", "call_allowance"]


class CallAllowance:
    """At most ``limit`` call attempts; ``on_spent`` is told when one more is asked."""

    def __init__(self, limit: int, on_spent: Callable[[], None]) -> None:
        self.limit = max(0, limit)
        self.admitted = 0
        self.on_spent = on_spent

    def take(self) -> bool:
        """Admit one attempt if there is room (no await between the check and the count)."""
        if self.admitted >= self.limit:
            return False
        self.admitted += 1
        return True


_CURRENT: ContextVar[CallAllowance | None] = ContextVar("coordqa_call_allowance", default=None)


@contextmanager
def call_allowance(allowance: CallAllowance) -> Iterator[CallAllowance]:
    """Hold every call attempt made inside (and in tasks started inside) to ``allowance``."""
    token = _CURRENT.set(allowance)
    try:
        yield allowance
    finally:
        _CURRENT.reset(token)


SPENT_WAIT_S = 60.0
"""How long an attempt past the allowance waits for the run to cancel it before failing loudly."""


async def admit_call() -> None:
    """Admit one call attempt under the current allowance (none set: always admitted).

    Past it, the attempt is not sent: ``on_spent`` stops the run and the attempt waits for the
    cancellation (bounded: an ``on_spent`` that does not stop the run is a bug, said loudly).

    Raises:
        RuntimeError: the run was not stopped within :data:`SPENT_WAIT_S`.
    """
    allowance = _CURRENT.get()
    if allowance is None or allowance.take():
        return
    allowance.on_spent()
    await asyncio.sleep(SPENT_WAIT_S)
    raise RuntimeError(f"the calls allowance of {allowance.limit} is spent, and the run went on")
