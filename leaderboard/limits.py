"""How much one submitter may send: a rate limit on attempts and a quota on stored entries.

Both are server settings (:class:`SubmitterLimits`, ``coordqa leaderboard serve --rate-limit
--quota``) applied to each token. The rate limit counts every authenticated submission attempt,
refused ones included (a refused bundle costs the server as much work as an accepted one), over
a sliding hour, in the server process's memory: a restart forgets it, and a deployment with
several worker processes multiplies it. The quota counts the entries stored with a token in
the database, so it survives restarts.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["RateLimiter", "SubmitterLimits"]

WINDOW_S = 3600.0
"""The rate limit's window: one hour."""


@dataclass(frozen=True)
class SubmitterLimits:
    """Per-token limits; None turns a limit off."""

    per_hour: int | None = 30
    """Submission attempts per token in any hour."""
    quota: int | None = 500
    """Entries stored per token in total (hidden ones included)."""


class RateLimiter:
    """Attempts per key over a sliding window, kept in memory."""

    def __init__(
        self, limit: int, window_s: float = WINDOW_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """Allow ``limit`` attempts per key in any ``window_s`` seconds."""
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._attempts: dict[int, deque[float]] = {}

    def attempt(self, key: int) -> float | None:
        """Count an attempt for ``key``; None if allowed, else the seconds until one is.

        A refused attempt is not counted, so waiting the returned time always works.
        """
        now = self._clock()
        recent = self._attempts.setdefault(key, deque())
        while recent and recent[0] <= now - self.window_s:
            recent.popleft()
        if len(recent) >= self.limit:
            return recent[0] + self.window_s - now
        recent.append(now)
        return None
