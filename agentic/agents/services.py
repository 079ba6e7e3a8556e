"""What an agent's add-on modules (belief state, ToM ladder, k-level ToM) may use of the agent.

A protocol rather than the agent class itself, so those modules never import
:mod:`~coordqa.agentic.agents.base` (which imports them): the package stays free of cycles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, Protocol, TypeVar

from coordqa.agentic.agents.stats import AgentStats
from coordqa.games.seat import SeatView
from coordqa.llm import Message, Reply
from coordqa.records import Payload, Record

NoteKey = Literal[
    "verifier_rejections",
    "notes",
    "failed_actions",
    "predictions_scored",
    "values_updated",
    "subgoals",
    "belief_accuracy",
    "expectation",
]
"""The lists of a :class:`~coordqa.agentic.records.Decision` an agent adds to while deciding."""
Note = str | float | Record
"""One item of those lists (a :class:`~coordqa.agentic.records.Rejection`, a note, a score...)."""

T = TypeVar("T")

ReplyParser = Callable[[Reply], tuple[T, Payload]]
"""How a call's reply is read: into a value for the agent, and the role's payload to record."""


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
        self, role: str, messages: Sequence[Message], parse: ReplyParser[T]
    ) -> tuple[Reply, T]:
        """Call the model, count and record the exchange."""

    async def ask_labelled(
        self,
        role: str,
        messages: Sequence[Message],
        parse: ReplyParser[T | None],
        fallback: str,
    ) -> T | None:
        """A free-text call: once, once more with its format restated, or None (fallback)."""

    def note_event(self, key: NoteKey, value: Note) -> None:
        """Add to the current decision's record."""

    def defer_event(self, key: NoteKey, value: Note) -> None:
        """Add to the next decision's record."""
