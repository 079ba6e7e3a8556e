"""What an agent's add-on modules (belief state, ToM ladder, k-level ToM) may use of the agent.

A protocol rather than the agent class itself, so those modules never import
:mod:`~coordqa.agentic.agents.base` (which imports them): the package stays free of cycles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from coordqa.agentic.agents.stats import AgentStats
from coordqa.games.seat import SeatView
from coordqa.llm import Message, Reply

T = TypeVar("T")


class AgentServices(Protocol):
    """The parts of :class:`~coordqa.agentic.agents.base.LLMAgent` its add-ons call."""

    game_name: str
    player: int
    decision: int

    @property
    def counters(self) -> AgentStats:
        """This episode's live counters."""

    def memory(self, game: SeatView, *sections: str) -> str:
        """The agent's memory text for one call."""

    def long_term_memory(self, game: SeatView) -> str:
        """The game description the agent is given."""

    async def ask(
        self,
        role: str,
        messages: Sequence[Message],
        parse: Callable[[Reply], tuple[T, dict[str, Any]]],
    ) -> tuple[Reply, T]:
        """Call the model, count and record the exchange."""

    def note_event(self, key: str, value: Any) -> None:
        """Add to the current decision's events record."""

    def defer_event(self, key: str, value: Any) -> None:
        """Add to the next decision's events record."""
