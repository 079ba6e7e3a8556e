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


BUILDERS: Registry[ScenarioBuilder] = Registry("scenario builder", name_of=lambda b: b.game)
"""One builder per game, by game name (each module imported when its builder is first used)."""
BUILDERS.add_lazy("overcooked", "coordqa.scenarios.overcooked:BUILDER")
BUILDERS.add_lazy("hanabi", "coordqa.scenarios.hanabi:BUILDER")
BUILDERS.add_lazy("collab_capture", "coordqa.scenarios.collab:CAPTURE")
BUILDERS.add_lazy("collab_escape", "coordqa.scenarios.collab:ESCAPE")
