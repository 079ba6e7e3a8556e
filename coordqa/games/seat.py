"""A seat view: what one player may know of a game, the only thing a player is handed.

Players (scripted bots, neural partners, LLM agents) used to be handed the live game, so only
discipline kept a Hanabi player from reading its own cards. A :class:`SeatView` is built by
:meth:`coordqa.games.Game.seat_view` for one seat at one moment and holds plain data only: the
seat's working-memory text, its own legal actions (the partner's too where they follow from
public state), both seats' action histories (public), the rules text, the score, and the game's
*seat observation* (:meth:`~coordqa.games.Game.seat_observation`: for Hanabi the engine's
per-player observation, which hides the own hand; for the fully observable games a copy or an
immutable value of the state). It keeps no reference to the game, so neither attributes,
``__dict__``, the garbage collector's referents nor closures lead from it to the live state or to
what the other seat alone may see; :func:`coordqa.games.testing.check_seat_privacy` checks that
for every game and player, and that nothing handed lets a player *infer* more of the hidden
state than public history allows.

Two handed values once said more than they should, and no longer do:

- the partner's legal actions. A Hanabi reveal is legal only if it touches a card, so the
  partner's legal moves spelt out the colours and ranks of the seat's own hand (a script read
  both sets exactly in 20 of 20 games). A game whose legal actions depend on what one seat cannot
  see declares ``legal_actions_public = False``, and each view then holds its own seat's list
  only; asking it for the partner's raises :class:`~coordqa.errors.GameError`.
- the seed of ``reset``. It was the episode seed plus the seat, and the episode seed deals the
  Hanabi cards (and draws the Collab Escape killer's moves), so a player could deal the game
  again (10 of 10 episodes). It is now :func:`seat_seed`, a keyed hash of the episode seed and
  the seat, from which no formula leads back. What that does not stop: code that imports coordqa
  can search candidate episode seeds through the same hash, and, with a grid's small public
  seeds, as easily search them for the deal that shows the partner's visible cards, with no seed
  at all. Dealing from seeds a player cannot guess is the only defence against that, and grids
  whose seeds are published (the paper's) cannot have it.

What this cannot stop: code running in the same process can always import the engine or scan
the whole heap (``gc.get_objects()``); the guard is that nothing a player is *handed* reaches
hidden state, so a player that plays from its hand plays fair by construction.

The method names are the game's (``describe(seat)``, ``legal_actions(seat)``,
``last_actions(seat)``, ``game_description()``, ``score()``, ``is_terminal()``), so code written
against a game reads a view unchanged; ``describe`` answers for the view's own seat only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

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
    actions: tuple[tuple[str, ...] | None, tuple[str, ...] | None]
    """Legal text actions of seat 0 and seat 1 now; None for the other seat's when they depend
    on what this seat cannot see (Hanabi)."""
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
        """``player``'s legal text actions now.

        Raises:
            GameError: ``player`` is the other seat and its legal actions are hidden from this
                one (in Hanabi they depend on this seat's own cards).
        """
        actions = self.actions[_seat(player)]
        if actions is None:
            raise GameError(
                f"player {player}'s legal actions are hidden from player {self.seat}'s view: in "
                f"{self.name} they depend on what player {self.seat} cannot see"
            )
        return list(actions)

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


SEAT_SEED_KEY = b"coordqa-seat-seed-v1"
"""The key of :func:`seat_seed` (changing it changes every player's randomness and every LLM
agent's cache keys: bump the agents' versions with it)."""
SEAT_SEED_LIMIT = 2**31
"""Seat seeds are below this, so every generator takes them (NumPy's below 2**32)."""


def seat_seed(seed: int, seat: int) -> int:
    """The seed handed to the player in ``seat`` of an episode played with ``seed``.

    A keyed BLAKE2b hash of both, so the two seats of one episode and the same seat of two
    episodes get unrelated seeds, and none is a formula of the episode seed a player could undo
    (see the module docstring for what a search can still do). Stable across runs and machines:
    scripted players' tie-breaks and LLM agents' cache keys reproduce.

    >>> seat_seed(0, 0) != seat_seed(0, 1) and 0 <= seat_seed(7, 1) < SEAT_SEED_LIMIT
    True
    """
    digest = hashlib.blake2b(
        f"{seed}:{_seat(seat)}".encode(), key=SEAT_SEED_KEY, digest_size=8
    ).digest()
    return int.from_bytes(digest, "big") % SEAT_SEED_LIMIT


class InferenceProbe(Protocol):
    """Reads what one seat is handed to find what it could infer of hidden state.

    A game with hidden information names one in its profile (``GameProfile.inference_probe``)
    and :func:`coordqa.games.testing.check_seat_privacy` runs it on every view handed to a
    player.
    """

    def reset(self, view: SeatView, seed: int) -> None:
        """Read the start of an episode and the seed handed with it."""

    def leak(self, view: SeatView) -> str | None:
        """What ``view`` lets the seat infer beyond public history, in words; None: nothing."""
