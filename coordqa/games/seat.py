"""A seat view: what one player may know of a game, the only thing a player is handed.

Players (scripted bots, neural partners, LLM agents) used to be handed the live game, so only
discipline kept a Hanabi player from reading its own cards. A :class:`SeatView` is built by
:meth:`coordqa.games.Game.seat_view` for one seat at one moment and holds plain data only: the
seat's working-memory text, both seats' legal actions and action histories (public), the rules
text, the score, and the game's *seat observation* (:meth:`~coordqa.games.Game.seat_observation`:
for Hanabi the engine's per-player observation, which hides the own hand; for the fully observable
games a copy or an immutable value of the state). It keeps no reference to the game, so neither
attributes, ``__dict__``, the garbage collector's referents nor closures lead from it to the live
state or to what the other seat alone may see; :func:`coordqa.games.testing.check_seat_privacy`
checks that for every game and player.

What this cannot stop: code running in the same process can always import the engine or scan
the whole heap (``gc.get_objects()``); the guard is that nothing a player is *handed* reaches
hidden state, so a player that plays from its hand plays fair by construction. One handed value
still says more than it should: the seed of ``reset`` is the episode seed plus the seat, and a
Hanabi deal follows from the episode seed, so a player could rebuild the game and replay the
public moves (LLM agents key their model calls by that seed, so it is kept as it is).

The method names are the game's (``describe(seat)``, ``legal_actions(seat)``,
``last_actions(seat)``, ``game_description()``, ``score()``, ``is_terminal()``), so code written
against a game reads a view unchanged; ``describe`` answers for the view's own seat only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from coordqa.errors import GameError

ObservationT = TypeVar("ObservationT")
"""The type of a game's seat observation (:meth:`coordqa.games.Game.seat_observation`)."""


@dataclass(frozen=True, slots=True)
class SeatView(Generic[ObservationT]):
    """One seat's knowledge of a game at one moment (frozen, no ``__dict__``).

    Generic in the game's seat observation: ``SeatView[HanabiSeatObservation]`` is what a
    Hanabi game hands out; a player that plays several games takes a plain ``SeatView``.
    """

    seat: int
    """The seat this view belongs to (0 = Alice, 1 = Bob)."""
    name: str
    """The game's registry name."""
    version: str
    """The game's version."""
    layout: str
    """The layout or map (public)."""
    turn_based: bool
    """Whether players move in turns (Hanabi) rather than at the same time."""
    turn: int | None
    """The game's turn or timestep now, when it has one."""
    working_memory: str
    """The seat's description (:meth:`describe`)."""
    actions: tuple[tuple[str, ...], tuple[str, ...]]
    """Legal text actions of seat 0 and seat 1 now (they follow from public state)."""
    history: tuple[tuple[str, ...], tuple[str, ...]]
    """Completed text actions of seat 0 and seat 1, oldest first (public)."""
    rules: str
    """The game description (long-term memory)."""
    points: float
    """The shared score so far."""
    over: bool
    """Whether the episode is over."""
    public: ObservationT
    """The game's seat observation (:meth:`observation`)."""

    def describe(self, player: int) -> str:
        """The working-memory text of this view's seat.

        Raises:
            GameError: ``player`` is not this view's seat (another seat's description would show
                what only that seat may see, e.g. this seat's Hanabi cards).
        """
        if player != self.seat:
            raise GameError(
                f"this view belongs to player {self.seat}; it cannot describe player {player} "
                "(that player's description shows what only that player may see)"
            )
        return self.working_memory

    def legal_actions(self, player: int) -> list[str]:
        """``player``'s legal text actions now (either seat; legality follows public state)."""
        return list(self.actions[_seat(player)])

    def last_actions(self, player: int) -> list[str]:
        """``player``'s completed text actions so far, oldest first."""
        return list(self.history[_seat(player)])

    def game_description(self) -> str:
        """Rules, conventions, objective and action space (long-term memory)."""
        return self.rules

    def score(self) -> float:
        """The shared score so far."""
        return self.points

    def is_terminal(self) -> bool:
        """Whether the episode is over."""
        return self.over

    def observation(self) -> ObservationT:
        """The game's structured seat observation (None when the game offers only text)."""
        return self.public


def _seat(player: int) -> int:
    if player not in (0, 1):
        raise GameError(f"player must be 0 (Alice) or 1 (Bob), got {player!r}")
    return player
