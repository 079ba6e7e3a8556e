"""A seat feed: what one seat's player was handed in an episode, in order.

An LLM agent decides through a language model, which normally reads nothing but its prompts. A
model that *plays* the seat instead (the offline ``bot``, which answers from a game's strong
policy to measure what the agents' pipeline makes of good decisions) needs what the agent was
handed: every seat view of ``reset``, ``act`` and ``observe``, in order, since a stateful policy
needs the whole sequence (Hanabi's convention player reads every reveal as it happens), not only
the view at the moment of a call. The agent keeps a feed when its model reads one
(:attr:`coordqa.llm.Model.reads_context`) and passes it with every call
(``Model.generate(context=feed)``); a model then replays the events it has not seen into its own
player (:meth:`SeatEvent.hand_to`).

A feed holds only what the seat was handed (:class:`~coordqa.games.seat.SeatView` values, which
lead nowhere else, and step results), so a model that reads it knows no more than the seat.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field

from coordqa.games.base import Observation, Player, StepResult
from coordqa.games.seat import SeatView

__all__ = ["ActEvent", "ObserveEvent", "ResetEvent", "SeatEvent", "SeatFeed"]


class SeatEvent(abc.ABC):
    """One call of the player protocol that a seat's player received."""

    @abc.abstractmethod
    async def hand_to(self, player: Player) -> str | None:
        """Make the same call on ``player``; return its action for an ``act``, else None."""


@dataclass(frozen=True)
class ResetEvent(SeatEvent):
    """The episode started: the seat's view of the start, its index and its seed."""

    view: SeatView
    """The seat's view of the first state."""
    player: int
    """The seat (0 = Alice, 1 = Bob)."""
    seed: int
    """The seed the seat's player was given."""

    async def hand_to(self, player: Player) -> None:
        """``player.reset`` with the same arguments."""
        player.reset(self.view, self.player, self.seed)


@dataclass(frozen=True)
class ActEvent(SeatEvent):
    """The seat was asked to move."""

    observation: Observation
    """What it was asked with."""

    async def hand_to(self, player: Player) -> str:
        """``player.act`` on the same observation."""
        return await player.act(self.observation)


@dataclass(frozen=True)
class ObserveEvent(SeatEvent):
    """A step was played; the seat was shown the new state."""

    view: SeatView
    """The seat's view after the step."""
    player: int
    """The seat."""
    result: StepResult
    """What the step did."""

    async def hand_to(self, player: Player) -> None:
        """``player.observe`` with the same arguments."""
        player.observe(self.view, self.player, self.result)


@dataclass(eq=False)
class SeatFeed:
    """The calls one seat's player received in one episode, oldest first (append-only).

    Compared and hashed by identity: a model keeps what it derived from each feed by the feed.
    """

    events: list[SeatEvent] = field(default_factory=list)
    """Every call so far."""

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        """Record the start of the episode."""
        self.events.append(ResetEvent(view, player, seed))

    def act(self, observation: Observation) -> None:
        """Record that the seat is asked to move."""
        self.events.append(ActEvent(observation))

    def observe(self, view: SeatView, player: int, result: StepResult) -> None:
        """Record a step the seat was shown."""
        self.events.append(ObserveEvent(view, player, result))
