"""The Lamps engine: two players switch on a row of lamps; both on the same lamp trips the fuse.

Rules: three lamps, some on at the start (drawn from the seed, at least one off). Each turn
Alice and Bob act at the same time: "Switch on lamp N" (a lamp that is off) or "Wait". A lamp
switched on by exactly one player comes on; switched on by both in the same turn, the fuse trips
and it stays off. The game is won when every lamp is on, and ends then or after four turns.
Convention (stated in the rules): Alice takes the lowest-numbered lamp that is off, Bob the
highest-numbered one; when only one is off, Alice switches it on and Bob waits.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

from coordqa.errors import GameError
from coordqa.games import PLAYER_NAMES, Game, GameProfile, StepResult
from toygame.profile import PROFILE

LAMPS = 3
TURN_LIMIT = 4
WAIT = "Wait"


class LampsState(NamedTuple):
    """Which lamps are on, and the turns played."""

    on: tuple[bool, ...]
    turn: int = 0


def switch(lamp: int) -> str:
    """The text action that switches on ``lamp``."""
    return f"Switch on lamp {lamp}"


def convention(off: list[int], seat: int) -> str:
    """The convention's action for ``seat`` when the lamps in ``off`` (ascending) are off."""
    if not off or (seat == 1 and len(off) == 1):
        return WAIT
    return switch(off[0] if seat == 0 else off[-1])


class Lamps(Game):
    """Lamps as a two-player text game (see the module docstring for the rules)."""

    name: ClassVar[str] = "lamps"
    version: ClassVar[str] = "lamps-v1"
    layouts: ClassVar[tuple[str, ...]] = ("default",)
    profile: ClassVar[GameProfile] = PROFILE

    def __init__(self, layout: str | None = None, seed: int = 0, **options: Any) -> None:
        super().__init__(layout, seed, **options)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed
        rng = random.Random(self.seed)
        on = [rng.random() < 0.5 for _ in range(LAMPS)]
        if all(on):
            on[self.seed % LAMPS] = False
        self.state = LampsState(tuple(on))
        self.history: tuple[list[str], list[str]] = ([], [])

    def off(self) -> list[int]:
        return [lamp for lamp, lit in enumerate(self.state.on) if not lit]

    def players_to_act(self) -> list[int]:
        return [] if self.is_terminal() else [0, 1]

    def legal_actions(self, player: int) -> list[str]:
        return [] if self.is_terminal() else [*(switch(lamp) for lamp in self.off()), WAIT]

    def step(self, moves: Mapping[int, str]) -> StepResult:
        if self.is_terminal():
            raise GameError("the game is over: no move can be made")
        for player in self.players_to_act():
            if moves.get(player) not in self.legal_actions(player):
                raise GameError(f"{PLAYER_NAMES[player]} cannot {moves.get(player)!r} now")
        chosen = [moves[0], moves[1]]
        on = list(self.state.on)
        for lamp in self.off():
            if chosen.count(switch(lamp)) == 1:
                on[lamp] = True
        self.state = LampsState(tuple(on), self.state.turn + 1)
        for player in (0, 1):
            self.history[player].append(chosen[player])
        events = ["the fuse tripped"] if chosen[0] == chosen[1] != WAIT else []
        return StepResult(
            executed={0: chosen[0], 1: chosen[1]},
            reward=1.0 if all(on) else 0.0,
            completed={0: chosen[0], 1: chosen[1]},
            events=events,
            terminal=self.is_terminal(),
        )

    def is_terminal(self) -> bool:
        return all(self.state.on) or self.state.turn >= TURN_LIMIT

    def score(self) -> float:
        return 1.0 if all(self.state.on) else 0.0

    def metrics(self) -> dict[str, float]:
        return {"lit": self.score(), "turns": float(self.state.turn)}

    def last_actions(self, player: int) -> list[str]:
        return list(self.history[player])

    def seat_observation(self, seat: int) -> LampsState:
        return self.state

    def describe(self, player: int) -> str:
        lamps = ", ".join(
            f"lamp {lamp} is {'on' if lit else 'off'}" for lamp, lit in enumerate(self.state.on)
        )
        partner = PLAYER_NAMES[1 - player]
        mine, theirs = self.history[player], self.history[1 - player]
        return (
            f"I am {PLAYER_NAMES[player]}. Lamps: {lamps}.\n"
            f"Turn {self.state.turn + 1} of {TURN_LIMIT}.\n"
            f"My recent actions: {'; '.join(mine[-3:]) or 'none yet'}.\n"
            f"{partner}'s last action: {theirs[-1] if theirs else 'none yet'}."
        )

    def game_description(self) -> str:
        return (
            f"Lamps. Alice and Bob switch on a row of {LAMPS} lamps, numbered 0 to {LAMPS - 1}. "
            "Each turn both act at the same time: 'Switch on lamp N' (a lamp that is off) or "
            "'Wait'. A lamp switched on by exactly one of you comes on; if you both switch on "
            "the same lamp in the same turn, the fuse trips and it stays off. You win when "
            f"every lamp is on, within {TURN_LIMIT} turns. Convention: Alice switches on the "
            "lowest-numbered lamp that is off, Bob the highest-numbered one; when only one lamp "
            "is off, Alice switches it on and Bob waits."
        )

    def snapshot(self) -> dict[str, Any]:
        return {
            **self.snapshot_identity(),
            "on": list(self.state.on),
            "turn": self.state.turn,
            "history": [list(self.history[0]), list(self.history[1])],
        }

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        self.check_snapshot_identity(snapshot)
        self.seed = int(snapshot["seed"])
        self.state = LampsState(tuple(bool(x) for x in snapshot["on"]), int(snapshot["turn"]))
        self.history = (list(snapshot["history"][0]), list(snapshot["history"][1]))
