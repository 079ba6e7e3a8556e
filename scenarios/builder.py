"""The per-game scenario builder contract and its registry.

Each game has one builder that (1) proposes candidate states by seeded scripted play, and (2)
turns a state into its EC, ToM and JP questions with solvers, rejecting states whose answers are
not clear. The same ``questions`` function builds the dataset, validates it and generates fresh
scenarios, so the three can never disagree.

The builders are registered here, by game name (:data:`BUILDERS`): this track's own for the
built-in games, and a plugin game's through the ``coordqa.scenario_builders`` entry-point group
(``lamps = "toygame.questions:BUILDER"``). The core names no builder: a game's profile does not
point into this track.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import ClassVar

from coordqa.errors import ConfigError
from coordqa.games import GAMES, Game
from coordqa.registry import Registry
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
    lookup_since: ClassVar[Mapping[str, int]] = {}
    """The builder version from which a lookup kind's answer is printed, for a kind whose
    earlier versions' text did not print it (a kind not named: every version). The share is
    counted per row, from the version that wrote the row (its ``builder:`` tag)."""

    @classmethod
    def prints_answer(cls, kind: str, version: int) -> bool:
        """Whether the text this builder's ``version`` wrote prints the answer of ``kind``."""
        return kind in cls.lookup_kinds and version >= cls.lookup_since.get(kind, 1)

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


REGISTERED: Registry[ScenarioBuilder] = Registry(
    "scenario builder",
    "coordqa.scenario_builders",
    name_of=lambda builder: str(getattr(builder, "game", "")),
)
"""Every scenario builder, by its game's name: the built-in games' (imported when first used)
and those of ``coordqa.scenario_builders`` entry points."""
for _game, _reference in (
    ("overcooked", "coordqa.scenarios.overcooked:BUILDER"),
    ("hanabi", "coordqa.scenarios.hanabi:BUILDER"),
    ("collab_capture", "coordqa.scenarios.collab:CAPTURE"),
    ("collab_escape", "coordqa.scenarios.collab:ESCAPE"),
):
    REGISTERED.add_lazy(_game, _reference)


class Builders:
    """Each game's scenario builder (:data:`REGISTERED`), checked to be one for that game.

    A read-only view: the builder registered for a game is the only one it has.
    """

    def get(self, game: str) -> ScenarioBuilder:
        """The scenario builder of ``game`` (its module imported on first use).

        Raises:
            UnknownNameError: an unknown game.
            ConfigError: no builder is registered for the game, or what is registered is not
                this game's :class:`ScenarioBuilder`.
        """
        GAMES.get(game)
        if game not in REGISTERED.names():
            raise ConfigError(
                f"game {game!r} has no scenario builder, so no CoordinationQA questions can be "
                "built for it: its package registers none (entry point group "
                "coordqa.scenario_builders)"
            )
        builder = REGISTERED.get(game)
        if not isinstance(builder, ScenarioBuilder) or builder.game != game:
            raise ConfigError(
                f"the scenario builder registered for game {game!r} is {builder!r}; it must be "
                f"a ScenarioBuilder whose game is {game!r}"
            )
        return builder

    def __contains__(self, game: object) -> bool:
        """Whether ``game`` is a registered game with a registered scenario builder.

        The builder's module is not imported to tell.
        """
        return isinstance(game, str) and game in GAMES and game in REGISTERED.names()


BUILDERS = Builders()
"""Every game's scenario builder, by game name (``BUILDERS.get("hanabi")``)."""
