"""A game's profile: everything the tracks need to know about a game, declared by the game.

Each game class carries one :class:`GameProfile` (``Game.profile``), so whoever registers a game
(coordqa for its four, any package through the ``coordqa.games`` entry point) registers its
profile with it, and no track keeps a table keyed by game name. The QA track reads the directive
wording; ``coordqa play`` the strong policy and the win condition; the agentic track the
fallback action, seeds, seats, goal, and everything in the profile's ``agents`` part
(:class:`~coordqa.games.agent_profile.AgentProfile`: prompt wording, partner-behaviour space,
belief facts, ToM ladder, presets, report tables); the seat-privacy kit the inference probe.

Layering: the core (``coordqa``) never imports the tracks (``coordqa.agentic``,
``coordqa.scenarios``), and names none of them, not even in a ``"module:attr"`` string. Every
field is plain data, or an object of the game's own package typed by a contract of the core
(:mod:`coordqa.games.agent_profile`, :class:`~coordqa.games.seat.InferenceProbe`), so a type
checker sees what each one must be. Plain data that only one track reads (preset switches,
report table shapes) is validated by that track, which names the game and the field in its
errors. A game's CoordinationQA questions come from the scenario builder the scenarios track
registers for it (``coordqa.scenarios.BUILDERS``), not from its profile.

A game that declares no profile gets :class:`GameProfile`'s defaults: coordqa's QA wording, no
strong policy, the first legal action as fallback, no agent features that need game code
(those refuse the game, naming the field to set), seeds 0, 1, 2.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from coordqa.directives import DIRECTIVES
from coordqa.errors import ConfigError
from coordqa.games.agent_profile import AgentProfile
from coordqa.games.seat import InferenceProbe

__all__ = ["GameProfile", "Goal", "WinCondition"]

Goal = Literal["win", "first_reward"]
"""What plan optimality counts the steps to: the win (the episode ends won) or the first step
with a reward (Overcooked's first delivered soup)."""


@dataclass(frozen=True)
class WinCondition:
    """How a won-or-lost game says it was won."""

    metric: str
    """The 0/1 episode metric that is 1 when the episode was won (``"captured"``)."""
    noun: str
    """The win as a noun, for report columns (``"capture"``: "capture rate", "turns to
    capture")."""


def _frozen(mapping: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class GameProfile:
    """Everything the QA track, ``play`` and the agentic track need to know about one game."""

    # -- the QA track ------------------------------------------------------------------------
    qa_directives: Mapping[str, str] = field(default_factory=lambda: _frozen(DIRECTIVES))
    """Per question type (EC, ToM, JP), the directive that asks this game's questions: the
    system message of a CoordinationQA prompt (:func:`coordqa.prompts.build_messages`). The
    agentic track asks its action call with the JP directive and HM's prediction with the ToM
    one, so QA measures what agents face. Changing it changes the prompts (and prompt hashes) of
    every question of the game."""

    # -- players -----------------------------------------------------------------------------
    strong_policy: str | None = None
    """The registered player that plays this game well from a seat view (both seats): the pair
    ``coordqa play`` uses when none is named, and the reference whose self-play plan optimality
    compares with. None: the game has none."""

    # -- the agentic track ---------------------------------------------------------------------
    fallback_prefixes: tuple[str, ...] = ()
    """Prefixes of the safe fallback action, most preferred first: what an agent plays when its
    model gives no usable answer (the first legal action that starts with one; else the first
    legal action). It should break no rule and lose nothing at once."""

    # -- seat privacy --------------------------------------------------------------------------
    inference_probe: Callable[[], InferenceProbe] | None = None
    """A class (or factory) whose instances read the views handed to one seat and say what
    they let it infer of hidden state beyond public history
    (:class:`coordqa.games.seat.InferenceProbe`; Hanabi's tries to learn its own cards);
    :func:`coordqa.games.testing.check_seat_privacy` runs a fresh one per seat. None: the game
    hides nothing (fully observable)."""

    # -- the agentic track: grids and reports ------------------------------------------------
    seeded: bool = True
    """Whether the episode seed changes the game itself (a deal, a random opponent's moves).
    False when the start and the rules are deterministic (Overcooked, Collab Capture): two
    episodes that make the same moves are then the same episode whatever their seeds, and a
    report says "1 distinct episode" rather than an SE of 0 over copies. The default is the safe
    claim for a game that does not say."""
    self_play_seeds: tuple[int, ...] = (0, 1, 2)
    """Episode seeds of a self-play pairing when a grid names none."""
    cross_play_seeds: tuple[int, ...] = (0, 1, 2)
    """Episode seeds of a cross-play pairing when a grid names none."""
    cross_play_seats: tuple[int, ...] = (0,)
    """The agent's seats in cross-play when a grid names none."""
    win: WinCondition | None = None
    """For games that are won or lost: how an episode says it was won; None otherwise."""
    goal: Goal | None = None
    """What plan optimality counts steps to (see :data:`Goal`); None: the game has no goal
    state and gets no optimality measure."""

    # -- the agentic track: what agents and reports ask of the game ---------------------------
    agents: AgentProfile = field(default_factory=AgentProfile)
    """Prompt wording, partner-behaviour space, belief facts, ToM ladder, presets, reward unit,
    report tables (:class:`~coordqa.games.agent_profile.AgentProfile`)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "qa_directives", _frozen(self.qa_directives))
        if set(self.qa_directives) != set(DIRECTIVES):
            raise ConfigError(
                f"GameProfile.qa_directives must give one directive per question type "
                f"({', '.join(DIRECTIVES)}), got {sorted(self.qa_directives)}"
            )
        if not self.cross_play_seats or not set(self.cross_play_seats) <= {0, 1}:
            raise ConfigError(
                f"GameProfile.cross_play_seats must name seats 0 and/or 1, got "
                f"{self.cross_play_seats!r}"
            )
        if not self.self_play_seeds or not self.cross_play_seeds:
            raise ConfigError("GameProfile seeds must list at least one seed")
        if self.goal == "win" and self.win is None:
            raise ConfigError("GameProfile.goal 'win' needs a win condition (GameProfile.win)")
        if self.goal is not None and self.goal not in ("win", "first_reward"):
            raise ConfigError(
                f"GameProfile.goal must be 'win', 'first_reward' or None, got {self.goal!r}"
            )
