"""The per-game scenario builder contract and its registry.

Each game has one builder that (1) proposes candidate states by seeded scripted play, and (2)
turns a state into its EC, ToM and JP questions with solvers, rejecting states whose answers are
not clear. The same ``questions`` function builds the dataset, validates it and generates fresh
scenarios, so the three can never disagree.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import ClassVar

from coordqa.errors import ConfigError
from coordqa.games import GAMES, Game, game_profile
from coordqa.scenarios.model import Scenario, ScenarioQuestions, ScenarioRejected


class ScenarioBuilder(abc.ABC):
    """Builds questions for one game."""

    game: ClassVar[str]
    """Game registry name."""
    version: ClassVar[str]
    """Bumped whenever a question builder or solver changes an option or an answer key."""
    lookup_kinds: ClassVar[Mapping[str, str]] = {}
    """EC kinds whose answer the state text prints (or nearly: one comparison or subtraction of
    printed numbers), each with where it is printed; the dataset card reports their share."""

    @abc.abstractmethod
    def questions(self, game: Game, scenario: Scenario) -> ScenarioQuestions:
        """Compute the three questions for the state of ``game`` seen by ``scenario.player``.

        Raises:
            ScenarioRejected: an answer would be ambiguous (no option beats the others by the
                builder's stated margin), or the state offers no meaningful question.
        """

    @abc.abstractmethod
    def candidates(self, seed: int) -> Iterator[Scenario]:
        """Yield candidate scenarios reached by seeded play (finite, deterministic per seed)."""

    def restore(self, scenario: Scenario) -> Game:
        """Rebuild the scenario's game state from its snapshot."""
        return GAMES.get(scenario.game).from_snapshot(scenario.snapshot)

    def accepted(
        self, seeds: Iterable[int], key: Callable[[Scenario], Hashable]
    ) -> Iterator[tuple[Scenario, ScenarioQuestions]]:
        """The candidates of ``seeds`` that this builder makes questions for, with the questions.

        In candidate order. A candidate whose ``key`` was seen before (accepted or rejected) is
        skipped, so curation solves each distinct state once however many seeds reach it.
        """
        seen: set[Hashable] = set()
        for seed in seeds:
            for candidate in self.candidates(seed):
                candidate_key = key(candidate)
                if candidate_key in seen:
                    continue
                seen.add(candidate_key)
                try:
                    built = self.questions(self.restore(candidate), candidate)
                except ScenarioRejected:
                    continue
                yield candidate, built


class Builders:
    """Each game's scenario builder, as its profile names it (``GameProfile.scenario_builder``).

    A read-only view: the builder a game registers with its profile is the only one it has.
    """

    def get(self, game: str) -> ScenarioBuilder:
        """The scenario builder of ``game`` (its module imported on first use).

        Raises:
            UnknownNameError: an unknown game.
            ConfigError: the game's profile names no builder, or something that is not this
                game's :class:`ScenarioBuilder`.
        """
        builder = game_profile(game).load("scenario_builder")
        if builder is None:
            raise ConfigError(
                f"game {game!r} has no scenario builder: its GameProfile names no "
                "scenario_builder, so no CoordinationQA questions can be built for it"
            )
        if not isinstance(builder, ScenarioBuilder) or builder.game != game:
            raise ConfigError(
                f"the scenario_builder of game {game!r} is {builder!r}; it must be a "
                f"ScenarioBuilder whose game is {game!r}"
            )
        return builder

    def __contains__(self, game: object) -> bool:
        """Whether ``game`` is a registered game whose profile names a scenario builder."""
        return (
            isinstance(game, str)
            and game in GAMES
            and game_profile(game).scenario_builder is not None
        )


BUILDERS = Builders()
"""Every game's scenario builder, by game name (``BUILDERS.get("hanabi")``)."""
