"""The shapes of a CoordinationQA scenario: what a builder computes and what the curated list holds.

A scenario is one concrete game state seen by one player ("I"), with three questions (EC, ToM,
JP). Builders compute each question's options and answer key from the state with a solver and
reject states whose answer would be ambiguous; the curated list stores the state itself
(a game snapshot), so the dataset can be rebuilt and re-checked exactly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from coordqa.errors import CoordqaError
from coordqa.records import QuestionType


class ScenarioRejected(CoordqaError):
    """A candidate state does not give an unambiguous question; the reason says which and why."""


class ValidationFailed(CoordqaError):
    """A built dataset does not match what its snapshots and solvers give."""


@dataclass(frozen=True)
class QuestionDraft:
    """One question as a solver produced it, before options are shuffled."""

    question_type: QuestionType
    """EC, ToM or JP."""
    kind: str
    """Which question builder made it (e.g. ``"onions_needed"``, ``"partner_intent"``)."""
    question: str
    """The question sentence."""
    options: tuple[str, ...]
    """All meaningful answers, in the builder's natural order."""
    correct: tuple[int, ...]
    """Indices into ``options`` of every right answer (several only on purpose)."""
    rationale: str
    """The solver's short justification, with the computed values."""
    concept: str
    """A short phrase saying what this question tests in this state (the ``concept`` column)."""


@dataclass(frozen=True)
class ScenarioQuestions:
    """The three questions of one scenario."""

    ec: QuestionDraft
    """Environment comprehension."""
    tom: QuestionDraft
    """Theory of mind."""
    jp: QuestionDraft
    """Joint planning."""

    def drafts(self) -> tuple[QuestionDraft, QuestionDraft, QuestionDraft]:
        """EC, ToM and JP in dataset order."""
        return (self.ec, self.tom, self.jp)


@dataclass(frozen=True)
class Scenario:
    """One entry of the curated list (or a freshly generated one)."""

    scenario_id: str
    """Stable identifier, e.g. ``"overcooked-cramped_room-03"``."""
    game: str
    """Game registry name."""
    layout: str
    """Layout or map."""
    player: int
    """Whose view the questions take (0 = Alice, 1 = Bob)."""
    snapshot: dict[str, Any]
    """The game state, as ``Game.snapshot()`` gives it."""
    kinds: dict[str, str] = field(default_factory=dict)
    """Which builder to use per question type when a game has several (``{"EC": "reachable"}``)."""
    reached_by: dict[str, Any] = field(default_factory=dict)
    """How the state was found (seed, players, steps): provenance only, not needed to rebuild."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form, as stored in ``scenarios/curated/*.json``."""
        return {
            "scenario_id": self.scenario_id,
            "game": self.game,
            "layout": self.layout,
            "player": self.player,
            "kinds": dict(self.kinds),
            "reached_by": dict(self.reached_by),
            "snapshot": self.snapshot,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Scenario:
        """Inverse of :meth:`to_dict`."""
        return cls(
            scenario_id=str(data["scenario_id"]),
            game=str(data["game"]),
            layout=str(data["layout"]),
            player=int(data["player"]),
            snapshot=dict(data["snapshot"]),
            kinds=dict(data.get("kinds", {})),
            reached_by=dict(data.get("reached_by", {})),
        )

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Scenario:
        """The scenario a dataset row was built from (its ``snapshot`` column, as built)."""
        return cls.from_dict(json.loads(row["snapshot"]))
