"""Timing the players apart from the game layer in a benchmark's episodes (shared helper)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from coordqa.games import Player


class DecisionClock:
    """Adds up the time players spend in ``choose`` and ``observe`` (the rest is the game's)."""

    def __init__(self) -> None:
        """Start at zero."""
        self.seconds = 0.0

    def watch(self, players: Sequence[Player]) -> None:
        """Time every later ``choose`` and ``observe`` of ``players`` (scripted players)."""
        for player in players:
            player.choose = self._timed(player.choose)  # type: ignore[attr-defined]
            player.observe = self._timed(player.observe)  # type: ignore[method-assign]

    def _timed(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any) -> Any:
            started = time.perf_counter()
            try:
                return method(*args)
            finally:
                self.seconds += time.perf_counter() - started

        return wrapper
