"""What the viewer shows of an agentic run: the episode list, an episode's steps, one step.

Played episodes are read with :class:`coordqa.agentic.AgenticRun` (without exchanges, which
hold every prompt); an episode's exchanges are read when one of its pages is first asked for,
only its own: the first such page indexes ``exchanges.jsonl`` by episode (one pass over its
lines, nothing parsed), and each episode then parses only the lines the index gives it. The
description of each step is what the game's ``describe`` gives for the seat at that step,
rebuilt by replaying the stored engine moves through the game, as
:func:`coordqa.games.episode.replay` does.
"""

from __future__ import annotations

import math
import re
import threading
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from coordqa.agentic.episodes import EXCHANGES, AgenticEpisode, read_agentic_run
from coordqa.agentic.records import (
    ActionPayload,
    AgentRecord,
    Decision,
    Fallback,
    HypothesisScore,
    LadderPayload,
    OptionPickPayload,
    Rejection,
    VanillaPayload,
    VerifierPayload,
    parse_record,
)
from coordqa.agentic.report import episode_frame
from coordqa.games.base import GAMES
from coordqa.records import Exchange
from coordqa.store import RunManifest, open_run
from coordqa.store.directory import STREAMS_FIX, DamagedRecordsError
from coordqa.viewer.charts import LineChart, Series, line_chart
from coordqa.viewer.qa import ReplyParts, deciding_span
from coordqa.words import counted

__all__ = [
    "AgenticView",
    "EpisodeRow",
    "EpisodeView",
    "ExchangeView",
    "SeatStats",
    "SeatStep",
    "StepDetail",
    "StepRow",
]


@dataclass(frozen=True)
class EpisodeRow:
    """One line of the episode list."""

    number: int
    """Position in the run (the order episodes finished), 0-based: the episode page's id."""
    key: str
    """The episode's key."""
    game: str
    """Game."""
    layout: str
    """Layout or map."""
    agent: str
    """The player under test, with its model (``cac[openai/gpt-4o]``)."""
    partner: str
    """The partner, or ``self``."""
    position: int
    """The agent's seat in cross-play."""
    seed: int
    """Episode seed."""
    score: float
    """Final score."""
    steps: int
    """Trajectory steps."""
    calls: float
    """Model calls of the agent's seats (NaN when a seat reported no statistics)."""
    fallbacks: float
    """Decisions that ended in the safe fallback."""
    rejections: float
    """Proposed actions the verifier rejected."""


_READ_CHOICES = (ActionPayload, OptionPickPayload, VanillaPayload, LadderPayload)
"""Payloads that read a lettered option from the reply (their ``choice`` and ``options``)."""


@dataclass(frozen=True)
class ExchangeView:
    """One model exchange of a step."""

    record: Exchange
    """The stored exchange, of its role's type."""
    seat: int
    """The seat of the agent that asked."""
    tokens: int
    """Prompt plus completion tokens."""
    details: dict[str, object]
    """The role's payload as JSON (the verifier's verdict, the options offered...)."""

    @classmethod
    def of(cls, record: Exchange) -> ExchangeView:
        """The view of a stored exchange."""
        shared = set(Exchange.model_fields)
        return cls(
            record=record,
            seat=record.player if record.seat is None else record.seat,
            tokens=record.usage.prompt_tokens + record.usage.completion_tokens,
            details={k: v for k, v in record.to_json().items() if k not in shared},
        )

    @property
    def reply(self) -> str | None:
        """The reply text (None when the call failed)."""
        return self.record.text

    @property
    def rejected(self) -> bool:
        """Whether this is a verifier answer that rejected the proposed action."""
        record = self.record
        return isinstance(record, VerifierPayload) and record.verdict == "not_okay"

    @property
    def reply_parts(self) -> ReplyParts | None:
        """The reply around the span that decided the action or prediction read from it."""
        record = self.record
        if self.reply is None or not isinstance(record, _READ_CHOICES) or record.choice is None:
            return None
        return ReplyParts.cut(self.reply, deciding_span(record.choice, self.reply, record.options))

    @property
    def unreadable(self) -> bool:
        """Whether this is an action reply that named no single action (re-asked or fallen back)."""
        record = self.record
        return (
            isinstance(record, _READ_CHOICES)
            and record.choice is not None
            and not (record.choice.chosen)
        )


@dataclass(frozen=True)
class StepRow:
    """One line of an episode's step list."""

    number: int
    """Trajectory step, 0-based."""
    decisions: dict[int, str]
    """Seat -> the move chosen at this step (only the seats asked to act)."""
    reward: float
    """Shared reward of the step."""
    events: list[str]
    """The game's events."""
    fallbacks: list[Fallback]
    """Fallbacks of this step."""
    rejections: list[Rejection]
    """Verifier rejections of this step."""
    exchanges: int
    """Model exchanges made at this step."""


COUNTED_STATS = (
    ("llm_calls", "model call"),
    ("decisions", "decision"),
    ("fallbacks", "fallback"),
    ("verifier_rejections", "verifier rejection"),
)
"""The counts an LLM agent's ``stats()`` reports that the episode page lists, with their nouns."""


@dataclass(frozen=True)
class SeatStats:
    """What one seat's player reported of its episode (its ``stats()``), as the page says it.

    Players report different things: an LLM agent its model calls, decisions, fallbacks and
    verifier rejections; a BC/HP player the checkpoint it played; most scripted players and
    SAD/OBL nothing (no line). A page read every agent's counts from every seat, and a BC/HP
    partner's seat failed to render (walkthrough 23).
    """

    seat: int
    """Seat index."""
    is_agent: bool
    """Whether the seat holds the player under test (else: the partner)."""
    summary: str
    """The counts the player reported (those of :data:`COUNTED_STATS`), else its other plain
    values (``checkpoint fa0fc5e5876fee3f``)."""

    @classmethod
    def of(cls, seat: int, is_agent: bool, stats: dict[str, Any]) -> SeatStats:
        """The line of a seat whose player reported ``stats``."""
        counts = [
            counted(stats[key], noun)
            for key, noun in COUNTED_STATS
            if type(stats.get(key)) is int  # not a bool, not a float's NaN
        ]
        plain = [
            f"{key} {value}"
            for key, value in stats.items()
            if isinstance(value, (str, int, float)) and not isinstance(value, bool)
        ]
        summary = ", ".join(counts or plain) or "no statistics reported"
        return cls(seat=seat, is_agent=is_agent, summary=summary)


@dataclass(frozen=True)
class SeatStep:
    """One seat at one step: what it saw, what it asked its model, what it did."""

    seat: int
    """Seat index."""
    player: str
    """The seat's player name."""
    is_agent: bool
    """Whether the seat holds the player under test."""
    description: str
    """The game's description for this seat before the step (what an LLM agent is shown)."""
    decision: str | None
    """The move chosen (None when the seat was not asked to act)."""
    executed: str | None
    """The engine move performed."""
    exchanges: list[ExchangeView]
    """The seat's model exchanges at this step, in order."""
    record: Decision | None
    """The seat's decision record (fallback, verifier rejections, notes, scored predictions);
    None when the seat was not asked or records no decisions."""


@dataclass(frozen=True)
class StepDetail:
    """Everything a step page shows."""

    row: StepRow
    """The step's line."""
    seats: list[SeatStep]
    """Seat 0 and seat 1."""
    previous: int | None
    """The previous step."""
    next: int | None
    """The next step."""


@dataclass
class EpisodeView:
    """One episode with its exchanges and decision records, indexed by step."""

    number: int
    """Position in the run."""
    episode: AgenticEpisode
    """The stored episode."""
    records: list[AgentRecord]
    """Its exchanges and decision records, in write order."""
    by_step: dict[int, list[AgentRecord]] = field(init=False)
    """``records`` grouped by their trajectory step."""

    def __post_init__(self) -> None:
        self.by_step = {}
        for record in self.records:
            self.by_step.setdefault(record.step or 0, []).append(record)

    @property
    def steps(self) -> int:
        """Number of steps."""
        return len(self.episode.trajectory.steps)

    @cached_property
    def agent_versions(self) -> dict[int, str]:
        """Seat -> the version its agent stamped on its records (seats without one left out)."""
        versions: dict[int, str] = {}
        for record in self.records:
            if record.seat is not None and record.agent_version:
                versions.setdefault(record.seat, record.agent_version)
        return versions

    @cached_property
    def seat_stats(self) -> list[SeatStats]:
        """The line of each seat whose player reported statistics, by seat."""
        agents = self.episode.spec.agent_seats
        stats = self.episode.agent_stats
        return [SeatStats.of(seat, seat in agents, stats[seat]) for seat in sorted(stats)]

    @cached_property
    def rows(self) -> list[StepRow]:
        """Every step's line."""
        return [self._row(n) for n in range(self.steps)]

    def _row(self, number: int) -> StepRow:
        step = self.episode.trajectory.steps[number]
        fallbacks: list[Fallback] = []
        rejections: list[Rejection] = []
        exchanges = 0
        for record in self.by_step.get(number, []):
            if isinstance(record, Exchange):
                exchanges += 1
                continue
            if record.fallback:
                fallbacks.append(record.fallback)
            rejections += record.verifier_rejections
        return StepRow(
            number=number,
            decisions=dict(step.decisions),
            reward=step.reward,
            events=list(step.events),
            fallbacks=fallbacks,
            rejections=rejections,
            exchanges=exchanges,
        )

    @cached_property
    def descriptions(self) -> list[dict[int, str]]:
        """Each step's description for both seats, from a replay of the trajectory."""
        trajectory = self.episode.trajectory
        game = GAMES.get(trajectory.game).from_snapshot(trajectory.initial)
        seen = []
        for step in trajectory.steps:
            seen.append({seat: game.describe(seat) for seat in (0, 1)})
            game.replay_step(step.executed, step.decisions)
        return seen

    def detail(self, number: int) -> StepDetail:
        """The page of step ``number``.

        Raises:
            LookupError: the episode has no such step.
        """
        if not 0 <= number < self.steps:
            raise LookupError(f"no step {number}: this episode has steps 0 to {self.steps - 1}")
        step = self.episode.trajectory.steps[number]
        records = self.by_step.get(number, [])
        spec = self.episode.spec
        seats = []
        for seat in (0, 1):
            mine = [r for r in records if r.seat == seat]
            decision = next((r for r in mine if isinstance(r, Decision)), None)
            seats.append(
                SeatStep(
                    seat=seat,
                    player=spec.seats[seat],
                    is_agent=seat in spec.agent_seats,
                    description=self.descriptions[number][seat],
                    decision=step.decisions.get(seat),
                    executed=step.executed.get(seat),
                    exchanges=[ExchangeView.of(r) for r in mine if isinstance(r, Exchange)],
                    record=decision,
                )
            )
        return StepDetail(
            row=self.rows[number],
            seats=seats,
            previous=number - 1 if number > 0 else None,
            next=number + 1 if number + 1 < self.steps else None,
        )

    @cached_property
    def hypothesis_chart(self) -> LineChart | None:
        """HM's hypothesis values after each update, one line per seat and hypothesis.

        Updates are scored predictions, or rewards in the ``he_hr`` variant. None when the
        episode has no valued hypotheses (not HM, or HM without evaluation).
        """
        points: dict[str, list[tuple[float, float]]] = {}
        for record in self.records:
            if not isinstance(record, Decision):
                continue
            valued = [
                (scored.hypothesis, scored.value_after)
                for scored in record.predictions_scored
                if isinstance(scored, HypothesisScore) and scored.value_after is not None
            ]
            valued += [(update.hypothesis, update.value_after) for update in record.values_updated]
            for hypothesis, value in valued:
                name = f"seat {record.seat}, hypothesis {hypothesis}"
                points.setdefault(name, []).append((float(record.step or 0), value))
        if not points:
            return None
        series = [Series(name, values) for name, values in points.items()]
        return line_chart(series, x_label="step", y_label="hypothesis value")


Index = dict[str, "array[int]"]
"""Episode attempt -> its record lines in ``exchanges.jsonl``: offset and line number, flat."""

_ATTEMPT = re.compile(rb'"attempt"\s*:\s*"([^"\\]*)"')
"""An ``attempt`` key with its plain string value, as coordqa writes every agent record's."""


def _index_by_attempt(lines: Iterable[tuple[int, int, bytes]], attempts: Iterable[str]) -> Index:
    """Each of ``attempts``' record lines (byte offset, line number), from ``lines``.

    A line is told by the ``"attempt": "..."`` written in it, without parsing it. One that
    names none of ``attempts`` is left out (its record belongs to no episode shown); one that
    names none at all, or several, is kept under ``""``, for every episode to parse and keep
    as its own only if its parsed attempt is the episode's. Each line is kept once: the index
    holds two integers per line of the file at most.
    """
    index: Index = {attempt: array("q") for attempt in ("", *attempts)}
    for offset, number, line in lines:
        named = {found.decode("utf-8", "replace") for found in _ATTEMPT.findall(line)}
        shown = [attempt for attempt in named if attempt in index]
        key = shown[0] if len(named) == len(shown) == 1 else "" if len(named) != 1 else None
        if key is not None:
            index[key].extend((offset, number))
    return index


class AgenticView:
    """An agentic run as the viewer shows it, built once per version of the run's files."""

    def __init__(self, path: Path, cached_episodes: int = 4) -> None:
        """Read the run's episodes (without exchanges); keep ``cached_episodes`` full ones."""
        self.store = open_run(path)
        self.episodes = read_agentic_run(self.store).episodes(with_exchanges=False)
        self._index: Index | None = None
        self._cache: dict[int, EpisodeView] = {}
        self._cache_size = cached_episodes
        self._lock = threading.Lock()

    @property
    def manifest(self) -> RunManifest:
        """What was run."""
        return self.store.manifest

    @cached_property
    def rows(self) -> list[EpisodeRow]:
        """The episode list."""
        frame = episode_frame(self.episodes)
        return [
            EpisodeRow(
                number=n,
                key=episode.key,
                game=episode.spec.game,
                layout=episode.spec.layout,
                agent=str(data["label"]),
                partner=str(data["partner"]),
                position=int(data["position"]),
                seed=int(data["seed"]),
                score=float(data["score"]),
                steps=len(episode.trajectory.steps),
                calls=_number(data["llm_calls"]),
                fallbacks=_number(data["fallbacks"]),
                rejections=_number(data["verifier_rejections"]),
            )
            for n, (episode, data) in enumerate(
                zip(self.episodes, frame.to_dict(orient="records"), strict=True)
            )
        ]

    def episode(self, number: int) -> EpisodeView:
        """Episode ``number`` with its exchanges (read from ``exchanges.jsonl`` on first use).

        Raises:
            LookupError: the run has no such episode.
        """
        if not 0 <= number < len(self.episodes):
            raise LookupError(
                f"no episode {number}: this run has episodes 0 to {len(self.episodes) - 1}"
            )
        with self._lock:  # pages of one episode arrive together (the page, then its steps)
            view = self._cache.get(number)
            if view is None:
                if self._index is None:
                    lines = self.store.record_lines(EXCHANGES)
                    self._index = _index_by_attempt(lines, (e.attempt for e in self.episodes))
                records = self._records_of(self.episodes[number].attempt, self._index)
                view = EpisodeView(number, self.episodes[number], records)
                while len(self._cache) >= self._cache_size:
                    self._cache.pop(next(iter(self._cache)))
                self._cache[number] = view
            return view

    def _records_of(self, attempt: str, index: Index) -> list[AgentRecord]:
        """Episode ``attempt``'s exchanges: its lines in ``index``, and those left to all.

        Raises:
            DamagedRecordsError: a line indexed under ``attempt`` holds another episode's
                record (its text names one attempt, its parsed record another: a duplicate
                key written by hand); dropping it would hide it from both episodes' pages.
        """
        own = set(_pairs(index[attempt]))
        places = sorted(own | set(_pairs(index[""])))
        records = self.store.read_lines(EXCHANGES, places, parse_record)
        for place, record in zip(places, records, strict=True):
            if record.attempt != attempt and place in own:
                raise DamagedRecordsError(
                    f"{self.store.stream_path(EXCHANGES)}: line {place[1]} names episode "
                    f"{attempt} in its text but reads as a record of {record.attempt}; the file "
                    "was damaged outside coordqa",
                    STREAMS_FIX,
                )
        return [record for record in records if record.attempt == attempt]


def _pairs(numbers: array[int]) -> list[tuple[int, int]]:
    """The (offset, line number) pairs held flat in ``numbers``."""
    return list(zip(numbers[::2], numbers[1::2], strict=True))


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)
