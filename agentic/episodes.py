"""The stored form of agentic episodes: what one episode is, how it is written, loaded and checked.

An agentic run is a run directory of kind ``agentic`` (:mod:`coordqa.store`):

``manifest.json``
    ``kind: "agentic"``; ``config`` is the grid (agents, models, partners, games, layouts, seeds,
    positions, agent options, sampling parameters, api_base); ``runtime`` holds what may change
    between sessions (backend, concurrency, parallel episodes). ``sessions`` counts resumes.
``episodes.jsonl``
    One record per *finished* episode, appended as soon as it ends (by the driver, whatever the
    backend). Keys: ``key`` (the episode's identity, unique in the run), ``spec`` (an
    :class:`EpisodeSpec`), ``attempt`` (a random id of the attempt that played it), ``trajectory``
    (:class:`coordqa.games.episode.Trajectory` as a dict: initial snapshot, every step's decisions
    and executed engine moves, rewards, final snapshot), ``score`` and ``metrics`` (the game's),
    ``agent_stats`` (seat index as a string -> the player's ``stats()`` dict, for players that
    report stats: the LLM agents their calls, tokens, fallbacks..., a BC/HP player its
    ``checkpoint``), ``agreement`` (seat of an LLM agent -> how often it chose what
    the game's strong policy would have, :mod:`coordqa.agentic.agreement`), ``decisions`` (seat ->
    number of decisions in the trajectory) and ``wall_s``.
``exchanges.jsonl``
    Every model exchange of every finished episode (the agents' recorder records: a
    :class:`coordqa.records.Exchange` per call, with ``role``, ``messages``, ``text``, ``usage``,
    ``latency_s``..., and a :class:`coordqa.agentic.records.Decision` per decision), each stamped
    with ``episode`` (the key), ``attempt``, ``seat`` and ``step`` (the trajectory step at which
    it was made). Exchanges are written just before their episode record; an attempt killed in
    between leaves exchanges whose ``attempt`` no episode record names, and readers ignore them.
``failures.jsonl``
    Episodes that raised (the error text, and the gateway's error kind for a failed model
    call), so a grid reports them; resuming plays them again.

An episode is *played* when its record is in ``episodes.jsonl`` and none of its model calls
failed. An episode in which a call failed is a failure, never a result: the agents raise
:class:`~coordqa.errors.ModelCallFailed` and the runner stores it in ``failures.jsonl``; an
episode record with failed calls (written before that rule, when a failed call became a
fallback move) is read as a failure too. Resuming skips every played key and plays the rest.
:class:`AgenticRun` reads a run back (reports, the viewer and the leaderboard read through it)
and :func:`verify_episodes` replays every trajectory through the game engine and recomputes its
score and metrics (style rule 11); the leaderboard uses both to re-check a submitted agentic
run instead of trusting reported numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from coordqa.agentic.presets import DEFAULT_PRESET, check_preset
from coordqa.agentic.records import AgentRecord, Episode, Failure, PolicyAgreement, parse_record
from coordqa.errors import CoordqaError, GameError, StoreError
from coordqa.games.base import GAMES, Game, Player, role_player
from coordqa.games.episode import Trajectory, replay
from coordqa.jsonvalues import JSONObject, content_hash, json_value
from coordqa.options import OptionValue, PlayerOptions
from coordqa.spec_problems import ConfigModel
from coordqa.store import RunCounts, RunReader, RunStore

SELF = "self"
"""The partner name that means self-play (in a grid's ``partners``; an episode's partner is
then None)."""

EPISODES = "episodes"
"""Stream of finished episodes."""
EXCHANGES = "exchanges"
"""Stream of model exchanges."""
FAILURES = "failures"
"""Stream of episodes that failed (or were skipped), with the cause."""
NOT_READY = "not_ready"
"""The ``error_kind`` of an episode skipped because one of its players is not ready."""


STORED = "stored"
"""The validation context (``{STORED: True}``) of a spec read back from a stored record: its
game and players are taken as stored, unchecked against this installation's registries (a
submission's agent may be its submitter's plugin; replaying says what cannot be played here)."""


def registered_game(game: str) -> str:
    """``game`` as registered, in any case (``Overcooked``), as every command reads it.

    The one check of a game named by a grid's entry or an episode spec.

    Raises:
        UnknownNameError: no such game (with the closest names and every game).
    """
    spelled = GAMES.spelled(game)
    GAMES.get(spelled)
    return spelled


def _stored(info: ValidationInfo) -> bool:
    return bool(info.context and info.context.get(STORED))


class EpisodeReplayError(GameError):
    """A stored episode does not replay, or its stored numbers differ from the recomputed ones."""


class EpisodeSpec(ConfigModel):
    """Everything that decides one episode: the game, the seats and the seed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    game: str
    """Game registry name."""
    layout: str
    """Layout or map (resolved: never None)."""
    seed: int
    """Episode seed."""
    agent: str
    """Player registry name of the player under test (``cac``, ``hm``, ``llm`` or any player)."""
    partner: str | None = None
    """Player registry name of the partner; None for self-play (the agent in both seats)."""
    position: int = Field(default=0, ge=0, le=1)
    """The agent's seat in cross-play (0 = Alice, 1 = Bob); 0 in self-play."""
    model: str | None = None
    """Model name for LLM players (None for players that call no model)."""
    agent_options: PlayerOptions = Field(default_factory=PlayerOptions)
    """The agent's options (e.g. ``use_tom``), the preset's included: parsed once where the grid
    was read, and handed to the agent's factory as they are; stored (and keyed on) as given.
    A spec read from a stored run holds them as given (parsed if it is played again)."""
    game_options: dict[str, OptionValue] = Field(default_factory=dict)
    """Options passed to the game (e.g. Overcooked's ``horizon``)."""
    preset: str = DEFAULT_PRESET
    """The agent configuration preset (:mod:`coordqa.agentic.presets`): its prompt style."""
    generate: dict[str, Any] = Field(default_factory=dict)
    """Sampling parameters of LLM players (``temperature``, ``top_p``, ``max_tokens``,
    ``seed``) and the model's provider settings (``extra``: its ``--model-arg``), as
    :class:`~coordqa.llm.GenerateConfig` takes them; empty: the provider's defaults."""

    @model_validator(mode="before")
    @classmethod
    def _layout_given(cls, data: Any) -> Any:
        """Refuse a spec without a layout by naming its game's layouts (walkthrough 29 R3).

        Pydantic's "missing field 'layout'" left the value to guess (``default``, for a game of
        one layout). An unknown game is left to its own check.
        """
        if isinstance(data, Mapping) and data.get("layout") is None and "game" in data:
            game = GAMES.spelled(str(data["game"]))
            if game in GAMES.names():
                layouts = ", ".join(GAMES.get(game).layouts)
                raise ValueError(f"layout: none given; {game}'s layouts: {layouts}")
        return data

    @field_validator("partner", mode="before")
    @classmethod
    def _self_is_self_play(cls, partner: Any) -> Any:
        """``self`` is self-play (None), as a grid spells it (walkthrough 29 R3: refused)."""
        return None if partner == SELF else partner

    @model_validator(mode="after")
    def _one_seat_in_self_play(self) -> EpisodeSpec:
        if self.partner is None and self.position != 0:
            raise ValueError(
                f"position {self.position} given for self-play; the agent sits in both seats, "
                "so leave position at 0 (or name a partner)"
            )
        return self

    @model_validator(mode="after")
    def _known_players(self, info: ValidationInfo) -> EpisodeSpec:
        """Refuse an unknown agent or partner as a grid does: among the names of its game.

        Built without a check, ``EpisodeSpec(agent="cacc", ...)`` was refused by ``run_match``
        among every game's players (walkthrough 26, R6). A stored spec is read as stored.
        """
        if not _stored(info):
            role_player(self.agent, "agent", {self.game})
            if self.partner is not None:
                role_player(self.partner, "partner", {self.game})
        return self

    @field_validator("game")
    @classmethod
    def _known_game(cls, game: str, info: ValidationInfo) -> str:
        return game if _stored(info) else registered_game(game)

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, preset: str) -> str:
        return check_preset(preset)

    @property
    def task(self) -> EpisodeTask:
        """What this episode asks of the agent under test, whoever it is (see EpisodeTask)."""
        return EpisodeTask(
            game=self.game,
            layout=self.layout,
            seed=self.seed,
            partner=self.partner,
            position=self.position,
            game_options=dict(self.game_options),
            preset=self.preset,
        )

    @property
    def self_play(self) -> bool:
        """Whether the agent plays with itself."""
        return self.partner is None

    @property
    def seats(self) -> tuple[str, str]:
        """Player names of seat 0 and seat 1."""
        if self.partner is None:
            return (self.agent, self.agent)
        return (self.agent, self.partner) if self.position == 0 else (self.partner, self.agent)

    @property
    def agent_seats(self) -> tuple[int, ...]:
        """Seats the player under test occupies (both in self-play)."""
        return (0, 1) if self.partner is None else (self.position,)

    @property
    def key(self) -> str:
        """A readable, unique identity: game, layout, pairing, seat, seed and a hash of the rest.

        The hash covers every field but ``generate``, so two specs that differ only in agent
        options, game options or preset get two keys. Sampling is left out: a grid samples
        one way, and an episode is the same task whatever temperature played it (the run's
        manifest and the spec itself still record it).
        """
        who = self.agent if self.model is None else f"{self.agent}[{self.model}]"
        pairing = "self" if self.partner is None else f"{self.partner}@p{self.position}"
        identity = _without_defaults(self, ("preset",))
        del identity["generate"]
        digest = content_hash(identity)[:8]
        return f"{self.game}/{self.layout}/{who}+{pairing}/s{self.seed}#{digest}"


class EpisodeTask(BaseModel):
    """An episode without the agent under test: what a grid asks every submission to play.

    Two submissions cover the same task when they play the same game, layout, seed, partner,
    seat, game options and preset, whatever their agent, model and agent options.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    game: str
    """Game registry name."""
    layout: str
    """Layout or map."""
    seed: int
    """Episode seed."""
    partner: str | None = None
    """The partner (None: self-play)."""
    position: int = 0
    """The agent's seat in cross-play."""
    game_options: dict[str, OptionValue] = Field(default_factory=dict)
    """Game options (Overcooked's ``horizon``)."""
    preset: str = DEFAULT_PRESET
    """The preset the agent plays with."""

    @property
    def key(self) -> str:
        """A readable, unique identity of the task."""
        pairing = "self" if self.partner is None else f"{self.partner}@p{self.position}"
        digest = content_hash(self.model_dump(mode="json"))[:8]
        return f"{self.game}/{self.layout}/{pairing}/s{self.seed}#{digest}"


def _without_defaults(model: BaseModel, fields: Sequence[str]) -> JSONObject:
    """``model``'s JSON dump without the named fields where they hold their defaults.

    Fields added after records were first written are left out at their default, so the keys
    and identities of older records do not change.
    """
    data = model.model_dump(mode="json")
    for name in fields:
        info = type(model).model_fields[name]
        if data[name] == info.get_default(call_default_factory=True):
            del data[name]
    return data


@dataclass
class AgenticEpisode:
    """One finished episode as stored: its spec, trajectory, numbers and agent statistics."""

    spec: EpisodeSpec
    """What was played."""
    trajectory: Trajectory
    """Every step, from the initial to the final snapshot."""
    score: float
    """The game's final score, as stored."""
    metrics: dict[str, float]
    """The game's final metrics, as stored."""
    agent_stats: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Seat -> the player's ``stats()`` (an LLM agent's calls, tokens, cost, fallbacks...; a
    BC/HP player's ``checkpoint``; players that report none are left out)."""
    agreement: dict[int, PolicyAgreement] = field(default_factory=dict)
    """Seat of an LLM agent -> how often it chose the game's strong policy's action
    (:mod:`coordqa.agentic.agreement`); empty when not measured."""
    attempt: str = ""
    """Id of the attempt that played it (links it to its exchanges)."""
    wall_s: float = math.nan
    """Wall-clock seconds the episode took."""
    exchanges: list[AgentRecord] = field(default_factory=list)
    """The episode's model exchanges and decision records (empty unless loaded with them)."""

    @property
    def key(self) -> str:
        """The spec's key."""
        return self.spec.key

    def to_record(self) -> JSONObject:
        """The ``episodes.jsonl`` record (exchanges are stored in their own stream)."""
        return Episode(
            key=self.key,
            spec=self.spec.model_dump(mode="json"),
            attempt=self.attempt,
            trajectory=self.trajectory.to_dict(),
            score=self.score,
            metrics=dict(self.metrics),
            agent_stats={str(seat): stats for seat, stats in self.agent_stats.items()},
            agreement={str(seat): found for seat, found in self.agreement.items()},
            decisions={str(seat): n for seat, n in decisions_per_seat(self.trajectory).items()},
            wall_s=json_value(self.wall_s),
        ).to_json()

    @classmethod
    def from_record(
        cls, record: Mapping[str, Any], exchanges: Sequence[AgentRecord] = ()
    ) -> AgenticEpisode:
        """Rebuild an episode from its ``episodes.jsonl`` record (e.g. from a submission).

        Raises:
            StoreError: the record lacks a field, or its key is not its spec's key.
        """
        stored = Episode.from_json(record, "episode record")
        try:
            spec = EpisodeSpec.model_validate(stored.spec, context={STORED: True})
            episode = cls(
                spec=spec,
                trajectory=Trajectory.from_dict(dict(stored.trajectory)),
                score=stored.score,
                metrics=dict(stored.metrics),
                agent_stats={int(s): dict(v) for s, v in stored.agent_stats.items()},
                agreement={int(s): found for s, found in stored.agreement.items()},
                attempt=stored.attempt,
                wall_s=math.nan if stored.wall_s is None else stored.wall_s,
                exchanges=list(exchanges),
            )
        except (KeyError, TypeError, ValueError, ValidationError) as exc:
            raise StoreError(f"malformed episode record ({type(exc).__name__}: {exc})") from exc
        if stored.key != spec.key:
            raise StoreError(
                f"episode record key {stored.key!r} is not its spec's key {spec.key!r}; "
                "the record was edited or written by another coordqa version"
            )
        return episode


def decisions_per_seat(trajectory: Trajectory) -> dict[int, int]:
    """How many times each seat was asked to move (steps whose decisions include it)."""
    counts = {0: 0, 1: 0}
    for step in trajectory.steps:
        for seat in step.decisions:
            counts[seat] += 1
    return counts


def failed_calls(record: Mapping[str, Any]) -> int:
    """Model calls that failed in a stored episode (its agents' ``errors``, every seat)."""
    stats = record.get("agent_stats") or {}
    return sum(int(seat.get("errors") or 0) for seat in stats.values() if isinstance(seat, dict))


class AgenticRun(RunReader):
    """An agentic run directory, read (runs of ``coordqa agentic run`` and ``grid``).

    The one way reports, the viewer and the leaderboard read agentic runs::

        run = read_agentic_run("runs/agentic/paper-2c41f9a0")
        run.episodes()      # [AgenticEpisode]: played episodes, in the order they finished
        run.failures()      # {key: Failure}: episodes not played, with the cause
        run.counts()        # RunCounts: episodes planned, played and failed
    """

    kind = "agentic"
    elsewhere = "give the directory written by `coordqa agentic run` or `coordqa agentic grid`"

    def __init__(self, store: RunStore) -> None:
        """Wrap an open run (use :func:`read_agentic_run`).

        Raises:
            StoreError: the run is not an agentic run.
        """
        super().__init__(store)
        self._read: tuple[list[Mapping[str, Any]], dict[str, Failure]] | None = None

    def _records(self) -> tuple[list[Mapping[str, Any]], dict[str, Failure]]:
        """The played episode records, and the failed episodes' last failure by key.

        Read once per reader: a reader is a snapshot of the run when first read.

        Raises:
            StoreError: a key played twice.
        """
        if self._read is None:
            self._read = self._read_records()
        return self._read

    def _read_records(self) -> tuple[list[Mapping[str, Any]], dict[str, Failure]]:
        played: dict[str, Mapping[str, Any]] = {}
        failed: dict[str, Failure] = {
            failure.key: failure for failure in self.store.read(FAILURES, Failure.from_json)
        }
        for record in self.store.iter_records(EPISODES):
            key = str(record.get("key"))
            calls = failed_calls(record)
            if calls:
                failed[key] = Failure(
                    key=key,
                    error=f"{calls} model call(s) failed; the episode was stored as played "
                    "(with fallback moves) by a coordqa that did not yet fail such episodes",
                    error_kind="failed",
                )
            elif key in played:
                raise StoreError(
                    f"{self.path}: episode {key} is stored twice (a coordqa that let a seed be "
                    "given twice played and kept both, and which counts cannot be told): play "
                    "the run again into a new --out folder with each seed once, or delete one of "
                    f"its two lines in {self.path}/{EPISODES}.jsonl"
                )
            else:
                played[key] = record
        return list(played.values()), {k: f for k, f in failed.items() if k not in played}

    def played_keys(self) -> set[str]:
        """Keys of the played episodes (what a resumed run skips)."""
        return {str(record["key"]) for record in self._records()[0]}

    def episodes(self, *, with_exchanges: bool = True) -> list[AgenticEpisode]:
        """Every played episode, in the order they finished.

        Args:
            with_exchanges: also attach each episode's model exchanges (those of the attempt
                that played it); False skips reading ``exchanges.jsonl``, which holds every
                prompt.

        Raises:
            StoreError: a malformed record, or one episode played twice.
        """
        by_attempt: dict[str, list[AgentRecord]] = {}
        if with_exchanges:
            for exchange in self.store.read(EXCHANGES, parse_record):  # formats 1, 2 upgraded
                by_attempt.setdefault(str(exchange.attempt), []).append(exchange)
        records = self._records()[0]
        return [
            AgenticEpisode.from_record(record, by_attempt.get(str(record.get("attempt")), []))
            for record in records
        ]

    def failures(self) -> dict[str, Failure]:
        """The episodes not played whose last attempt failed, by key, with the cause."""
        return self._records()[1]

    def skips(self) -> dict[str, str]:
        """The episodes skipped as the run played (a player not ready), by key: why, and the fix.

        ``obl1: needs Hanabi weights ...: coordqa partners add-hanabi FOLDER``: what playing
        them again needs first.
        """
        return {
            key: failure.error.removeprefix("skipped: ")
            for key, failure in self.failures().items()
            if failure.error_kind == NOT_READY
        }

    def players(self) -> str | None:
        """The agents and their partners: ``cac with itself``, ``hm with escape-greedy``.

        Read from the run's settings (its grid's ``agents`` and ``partners``); None when they
        are not lists of names.
        """
        config = self.manifest.config
        agents, partners = config.get("agents"), config.get("partners")
        if not isinstance(agents, list) or not isinstance(partners, list):
            return None
        named = ["itself" if partner == SELF else str(partner) for partner in partners]
        return f"{', '.join(map(str, agents))} with {', '.join(named)}"

    def counts(self) -> RunCounts:
        """Episodes planned (None: the manifest does not say), played, failed and skipped."""
        played, failed = self._records()
        planned = self.manifest.runtime.get("episodes")
        skipped = sum(1 for failure in failed.values() if failure.error_kind == NOT_READY)
        return RunCounts(
            "episodes",
            planned if isinstance(planned, int) else None,
            len(played),
            len(failed) - skipped,
            skipped,
        )


read_agentic_run = AgenticRun.read
"""Open an agentic run directory (or wrap an open store) for reading; see :class:`AgenticRun`."""


def load_agentic_run(
    run_dir: str | Path | RunStore, *, with_exchanges: bool = True
) -> list[AgenticEpisode]:
    """Every played episode of an agentic run: :meth:`AgenticRun.episodes` of the run.

    Raises:
        StoreError: not an agentic run, a malformed record, or one episode played twice.
    """
    return read_agentic_run(run_dir).episodes(with_exchanges=with_exchanges)


@dataclass(frozen=True)
class VerifiedEpisode:
    """The numbers of one episode, recomputed by replaying its trajectory."""

    key: str
    """The episode's key."""
    spec: EpisodeSpec
    """What was played."""
    score: float
    """Score of the replayed game."""
    metrics: dict[str, float]
    """Metrics of the replayed game."""
    decisions: dict[int, int]
    """Decisions per seat, counted from the trajectory."""
    unchecked: str = ""
    """Why some seat's moves could not be asked again (:func:`replayable_players`): empty when
    every seat but an LLM player's was re-played and chose its stored moves."""


def replayable_players(spec: EpisodeSpec) -> tuple[dict[int, Player], str]:
    """Fresh players for the seats the server can play again, and why any other cannot be.

    An LLM player (the one under test) needs its model, so its seat is never asked again. Every
    other seat (scripted bots, BC and human-proxy partners with their checkpoints, SAD and OBL
    when their weights are registered, a non-LLM agent with its options) is built as the match
    built it; a player that cannot be built here (weights not registered, torch missing, a name
    unknown to this installation) leaves its seat unchecked, and the returned reason says so.
    """
    from coordqa.games.base import PLAYERS, make_player

    players: dict[int, Player] = {}
    missing = []
    for seat, name in enumerate(spec.seats):
        try:
            if PLAYERS.get(name).kind == "llm":
                continue
            options = spec.agent_options if seat in spec.agent_seats else None
            players[seat] = make_player(name, spec.game, spec.layout, options=options)
        except CoordqaError as exc:
            missing.append(f"{name} in seat {seat} cannot be played here ({exc})")
    return players, "; ".join(missing)


def start_of(spec: EpisodeSpec) -> Game:
    """The game at the first state of the episode ``spec`` describes, as a match starts it.

    Raises:
        EpisodeReplayError: the spec names an unknown game or layout, or options the game
            refuses.
    """
    from coordqa.games.base import make_game

    try:
        game = make_game(spec.game, spec.layout, spec.seed, **spec.game_options)
        game.reset(spec.seed)
    except CoordqaError as exc:
        raise EpisodeReplayError(f"episode {spec.key}: cannot build its game: {exc}") from exc
    return game


def _check_start(key: str, expected: Mapping[str, Any], stored: Mapping[str, Any]) -> None:
    """Refuse a trajectory whose initial snapshot is not the game's own start."""
    if dict(stored) == dict(expected):
        return
    differing = sorted(k for k in {*expected, *stored} if expected.get(k) != stored.get(k))
    raise EpisodeReplayError(
        f"episode {key}: the trajectory's initial state is not the start of its game, layout, "
        f"seed and options (differs in {', '.join(differing)}); episodes are replayed from "
        "the start the spec defines"
    )


def _checkpoint_of(player: Player) -> str | None:
    """The fingerprint of the checkpoint ``player`` plays (None: a player without one)."""
    report = getattr(player, "stats", None)
    played = report().get("checkpoint") if callable(report) else None
    return played if isinstance(played, str) else None


def verify_episode(episode: AgenticEpisode) -> VerifiedEpisode:
    """Replay one episode and check its spec, score and metrics; see :func:`verify_episodes`."""
    spec, trajectory = episode.spec, episode.trajectory
    stated = {
        "game": (trajectory.game, spec.game),
        "layout": (trajectory.layout, spec.layout),
        "seed": (trajectory.seed, spec.seed),
        "players": (list(trajectory.players), list(spec.seats)),
    }
    for what, (in_trajectory, in_spec) in stated.items():
        if in_trajectory != in_spec:
            raise EpisodeReplayError(
                f"episode {episode.key}: the trajectory's {what} {in_trajectory!r} is not the "
                f"spec's {in_spec!r}"
            )
    game = start_of(spec)
    _check_start(episode.key, game.snapshot(), game.current_form(trajectory.initial))
    players, unchecked = replayable_players(spec)
    try:
        replay(trajectory, start=game, players=players)
    except GameError as exc:
        from coordqa.agentic.partners.played import replay_failure_cause

        played_here = {seat: _checkpoint_of(player) for seat, player in players.items()}
        cause = replay_failure_cause(episode, played_here)
        raise EpisodeReplayError(f"episode {episode.key} does not replay: {exc}; {cause}") from exc
    if not game.is_terminal():
        raise EpisodeReplayError(
            f"episode {episode.key} stops after {len(trajectory.steps)} steps before the game "
            f"is over (score so far {game.score()}); an episode ends where the game ends"
        )
    score, metrics = float(game.score()), {k: float(v) for k, v in game.metrics().items()}
    if score != episode.score or metrics != episode.metrics:
        raise EpisodeReplayError(
            f"episode {episode.key}: stored score {episode.score} and metrics {episode.metrics} "
            f"differ from the replayed {score} and {metrics}"
        )
    return VerifiedEpisode(
        episode.key, spec, score, metrics, decisions_per_seat(trajectory), unchecked
    )


def verify_episodes(episodes: Iterable[AgenticEpisode]) -> list[VerifiedEpisode]:
    """Replay every episode through its game engine and recompute its numbers.

    Each trajectory is re-simulated with :func:`coordqa.games.episode.replay` (which checks every
    step's reward and the final score, metrics and state) on a game built from the spec's game,
    layout, seed and options, never from the stored start: the stored initial snapshot must be
    that game's first state. Every seat the server can play (:func:`replayable_players`: all
    but an LLM player's) is asked again at each of its turns and must choose the stored move,
    so a forged partner is refused; a seat it cannot play is named in
    :attr:`VerifiedEpisode.unchecked`. The replayed game must be over (terminal, or at its
    horizon), the stored ``score`` and ``metrics`` must equal the replayed ones, and the
    trajectory's game, layout, seed and players must be the spec's.

    A BC/HP partner is played from the checkpoint it plays here; a board replays within
    :func:`~coordqa.agentic.partners.bc.shipped_checkpoints_only`.

    Raises:
        EpisodeReplayError: the first episode that fails, named by its key.
    """
    return [verify_episode(episode) for episode in episodes]
