"""Play many episodes of a game with named players and summarise them.

The library behind ``coordqa play`` and ``coordqa games show``.

Episodes ``0..N-1`` use seeds ``seed + i``. With a run directory every finished episode is
appended to the ``trajectories`` stream of a run of kind ``play`` as soon as it ends; running the
same command again resumes, re-checking each stored episode by replay (style rule 11) instead of
playing it again (:class:`PlayRun` reads such a run). The run goes through the lifecycle every
run shares (:mod:`coordqa.runs`): Ctrl-C or SIGTERM marks it interrupted and raises
:class:`~coordqa.errors.RunInterrupted`, whose message says what is kept and how to resume.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from coordqa.analysis.stats import MeanSE, mean_cell
from coordqa.errors import ConfigError, GameError, SettingError, StoreError
from coordqa.games.base import (
    PLAYERS,
    Game,
    game_profile,
    make_game,
    make_player,
    play_players,
    role_player,
)
from coordqa.games.episode import (
    Trajectory,
    play_episode,
    play_step,
    played_hash,
    replay,
    seat_players,
)
from coordqa.jsonvalues import JSONObject
from coordqa.runs import RunLifecycle, fewer_than_stored, run_to_end
from coordqa.store import MANIFEST, RunCounts, RunManifest, RunReader, check_resumable, open_run

STREAM = "trajectories"
"""Run-store stream holding one record per finished episode."""


@dataclass(frozen=True)
class PlayConfig:
    """What to play: everything that changes the results of a ``play`` run."""

    game: str
    """Game registry name."""
    players: tuple[str, str] | None = None
    """Player registry names for Alice and Bob; None: the game's strong policy in both seats
    (:func:`default_players`)."""
    layout: str | None = None
    """Layout or map (the game's default when None)."""
    episodes: int = 10
    """Number of episodes."""
    seed: int = 0
    """Seed of episode 0; episode ``i`` uses ``seed + i``."""


@dataclass
class PlaySummary:
    """The outcome of :func:`play`."""

    game: str
    """Game name."""
    game_version: str
    """Game version at play time."""
    layout: str
    """Layout played."""
    players: tuple[str, str]
    """Player names (Alice, Bob)."""
    win_metric: str | None = None
    """For win/lose games (the Collab games), the 0/1 metric that says the episode was won."""
    trajectories: list[Trajectory] = field(default_factory=list)
    """Every episode, in episode order."""
    resumed: int = 0
    """Episodes loaded (and replay-checked) from the run directory instead of played."""
    run_dir: Path | None = None
    """The run directory, when one was used."""
    first_seed: int = 0
    """The seed of episode 0 (episode ``i`` used ``first_seed + i``)."""

    def cells(self) -> dict[str, str]:
        """The table's cells by measure: score, metrics, turns when won.

        Written as the agentic report writes them (:func:`~coordqa.analysis.stats.mean_cell`):
        ``19.00 (n=1)``, and ``3.00 (1 distinct episode, n=2)`` for a deterministic game replayed.
        """
        first = self.first_seed

        def cell(kept: list[tuple[int, Trajectory]], metric: str | None = None) -> str:
            distinct = len({played_hash(t, first + index) for index, t in kept})
            values = [t.score if metric is None else t.metrics[metric] for _, t in kept]
            return mean_cell(values, distinct)

        every = list(enumerate(self.trajectories))
        cells = {"score": cell(every)}
        for name in sorted({name for t in self.trajectories for name in t.metrics}):
            if name != "score":  # Hanabi also reports its score as a metric
                cells[name] = cell([(i, t) for i, t in every if name in t.metrics], name)
        if self.win_metric is not None:
            won = [(i, t) for i, t in every if t.metrics.get(self.win_metric) == 1.0]
            cells[f"turns when {self.win_metric}"] = cell(won, "turns")
        return cells

    @property
    def score(self) -> MeanSE:
        """Mean ± SE of the episode scores."""
        return MeanSE.of([t.score for t in self.trajectories])

    def metrics(self) -> dict[str, MeanSE]:
        """Mean ± SE of every game metric (``captured`` gives the capture rate, and so on)."""
        names = sorted({name for t in self.trajectories for name in t.metrics})
        return {
            n: MeanSE.of([t.metrics[n] for t in self.trajectories if n in t.metrics]) for n in names
        }

    def turns_when_won(self) -> MeanSE | None:
        """Mean ± SE of ``turns`` over won episodes: turns to capture or to escape.

        None for games that are not won or lost (Overcooked, Hanabi).
        """
        if self.win_metric is None:
            return None
        won = [t for t in self.trajectories if t.metrics.get(self.win_metric) == 1.0]
        return MeanSE.of([t.metrics["turns"] for t in won])

    def to_dict(self) -> JSONObject:
        """JSON-ready summary (written to ``summary.json`` in the run directory)."""

        def plain(value: MeanSE | None) -> dict[str, float | int | None] | None:
            return None if value is None else value.to_json()

        return {
            "game": self.game,
            "game_version": self.game_version,
            "layout": self.layout,
            "players": list(self.players),
            "episodes": len(self.trajectories),
            "score": plain(self.score),
            "metrics": {name: plain(value) for name, value in self.metrics().items()},
            "win_metric": self.win_metric,
            "turns_when_won": plain(self.turns_when_won()),
        }


def default_players(game: str) -> tuple[str, str]:
    """The game's strong policy in both seats (its profile's ``strong_policy``).

    Raises:
        UnknownNameError: an unknown game.
        ConfigError: the game's profile names no strong policy (the message lists the players
            that can play it).
    """
    strong = game_profile(game).strong_policy
    if strong is not None:
        return (strong, strong)
    fits = play_players(game)
    raise ConfigError(
        f"{game} has no default players (its profile names no strong_policy); choose two with "
        f"--players A,B (players for {game}: {', '.join(fits) or 'none registered'})."
    )


def example_players(game: str) -> str:
    """A ``--players`` value for messages, built from ``game``'s own players.

    Its strong policy first, then another scripted player of it (``escape-planner,escape-greedy``),
    else any other player ``play`` takes for it, so another game's names are never suggested.
    """
    fits = play_players(game)
    strong = game_profile(game).strong_policy
    first = strong if strong in fits else (fits[0] if fits else "PLAYER")
    others = [n for n in fits if n != first]
    scripted = [n for n in others if PLAYERS.get(n).kind == "scripted"]
    second = (scripted or others or [first])[0]
    return f"{first},{second}"


def resolve(config: PlayConfig) -> PlayConfig:
    """Fill in defaults and check every name, before anything is played or written.

    Raises:
        UnknownNameError: an unknown game, layout or player (with suggestions).
        ConfigError: a player that cannot play this game, or fewer than one episode.
    """
    if config.episodes < 1:
        raise SettingError("episodes", f"{{setting}} must be at least 1, got {config.episodes}.")
    players = config.players or default_players(config.game)
    game = make_game(config.game, config.layout, config.seed)
    for name in players:
        role_player(name, "player", [config.game])  # an unknown name: this game's players
        make_player(name, config.game, game.layout)
    return PlayConfig(
        config.game, (players[0], players[1]), game.layout, config.episodes, config.seed
    )


async def play_async(
    config: PlayConfig,
    out: str | Path | None = None,
    on_episode: Callable[[int, Trajectory], None] | None = None,
) -> PlaySummary:
    """Play (or resume) the episodes of ``config``; see :func:`play`."""
    config = resolve(config)
    players = config.players or default_players(config.game)
    game = make_game(config.game, config.layout, config.seed)
    win = game_profile(config.game).win
    win_metric = None if win is None else win.metric
    summary = PlaySummary(config.game, game.version, game.layout, players, win_metric)
    summary.first_seed = config.seed
    run = _open_run(config, game, Path(out)) if out is not None else None
    session: AbstractContextManager[Any] = run.session() if run is not None else nullcontext()
    try:
        stored = PlayRun(run.store).episodes() if run is not None else {}
        with session:
            for episode in range(config.episodes):
                if episode in stored:
                    trajectory = stored[episode]
                    summary.resumed += 1
                else:
                    pair = [make_player(name, config.game, game.layout) for name in players]
                    trajectory = await play_episode(
                        make_game(config.game, config.layout, config.seed + episode),
                        pair,
                        seed=config.seed + episode,
                        player_names=list(players),
                    )
                    if run is not None:
                        record = {"episode": episode, "trajectory": trajectory.to_dict()}
                        run.store.append(STREAM, record)
                summary.trajectories.append(trajectory)
                if on_episode is not None:
                    on_episode(episode, trajectory)
        if run is not None:
            summary.run_dir = run.path
            run.store.write_json("summary.json", summary.to_dict())
            run.finish()
    finally:
        if run is not None:
            run.close()
    return summary


def play(
    config: PlayConfig,
    out: str | Path | None = None,
    on_episode: Callable[[int, Trajectory], None] | None = None,
) -> PlaySummary:
    """Play ``config.episodes`` episodes and summarise them (score, metrics, turns when won).

    Args:
        config: game, players, layout, episodes and seed.
        out: a run directory to store trajectories in (created, or resumed when it holds the
            same configuration).
        on_episode: called after each episode (played or loaded) with its index and trajectory.

    Raises:
        RunInterrupted: on Ctrl-C or SIGTERM; with ``out``, every finished episode is stored
            and the same call resumes.
    """
    done: list[int] = []

    def count(index: int, trajectory: Trajectory) -> None:
        done.append(index)
        if on_episode is not None:
            on_episode(index, trajectory)

    def interrupted() -> str:
        if out is None:
            return (
                f"interrupted after {len(done)} of {config.episodes} episodes; nothing was "
                "stored (give --out to keep finished episodes and resume)"
            )
        return (
            f"interrupted: {len(done)} of {config.episodes} episodes are finished and stored "
            f"in {out}. Run the same command again to resume."
        )

    run_dir = None if out is None else Path(out)
    return run_to_end(
        lambda: play_async(config, out, count), interrupted=interrupted, run_dir=run_dir
    )


def check_play_run(config: PlayConfig, out: str | Path) -> None:
    """Refuse, before anything is shown or written, a run folder ``config`` cannot resume.

    Raises:
        ConfigError: the run at ``out`` holds more episodes than ``config`` asks for.
        StoreError: ``out`` holds another run (the differences and the fix).
    """
    config = resolve(config)
    _as_stored(config, make_game(config.game, config.layout, config.seed), Path(out))


def _manifest(config: PlayConfig, game: Game) -> RunManifest:
    """The manifest of the run of ``config``: its settings, hashed into its identity."""
    from coordqa.jsonvalues import content_hash

    settings = {
        "game": config.game,
        "game_version": game.version,
        "layout": game.layout,
        "players": list(config.players or ()),
        "episodes": config.episodes,
        "seed": config.seed,
    }
    return RunManifest(kind="play", config=settings, fingerprint=content_hash(settings))


def _as_stored(config: PlayConfig, game: Game, out: Path) -> RunManifest:
    """The manifest of ``config`` as the run at ``out`` stores it, if one is there.

    That is, with the stored episode count: the one setting a resumed run may raise
    (:mod:`coordqa.runs.counts`); the episodes it adds are played, and the count asked for is
    written once the run is open.

    The run's identity (game, layout, players, seed: all but the count) is checked first, as
    ``coordqa eval`` checks a run's (``coordqa.evaluation._as_stored``), so a folder holding
    another run is said to be one, in its own terms, before any advice on its count.

    Raises:
        StoreError: the stored run is another run (:func:`~coordqa.store.check_resumable`).
        ConfigError: the stored run is this one, with more episodes than asked for.
    """
    asked = _manifest(config, game)
    if not (out / MANIFEST).exists():
        return asked
    stored = open_run(out)
    had = stored.manifest.config.get("episodes")
    if not isinstance(had, int) or isinstance(had, bool) or had < 1:
        had = config.episodes  # no count to keep: the run is told apart by its differences
    adopted = _manifest(replace(config, episodes=had), game)
    check_resumable(out, stored.manifest, adopted)
    if had > config.episodes:
        raise ConfigError(
            fewer_than_stored(
                out,
                had,
                config.episodes,
                flag="--episodes",
                units=f"episodes of {config.game}",  # the stored game: the identities match
                started=bool(PlayRun(stored).counts().done),
                nothing="none played yet",
            )
        )
    return adopted


def _open_run(config: PlayConfig, game: Game, out: Path) -> RunLifecycle:
    """Create or resume the run at ``out``, recording the episode count asked for."""
    run = RunLifecycle.open(out, _as_stored(config, game, out))
    asked = _manifest(config, game)
    if run.store.manifest.config != asked.config:  # more episodes than the run held
        run.store.update_manifest(config=asked.config, fingerprint=asked.fingerprint)
    return run


class PlayRun(RunReader):
    """A ``play`` run directory, read: the reader of ``coordqa play --out`` runs."""

    kind = "play"
    elsewhere = "give the directory written by `coordqa play --out`"

    def players(self) -> str | None:
        """The two players as an agentic run names its pairing: ``A with B``, ``A with itself``.

        Read from the run's settings; a run that names none played its game's default pair
        (:func:`default_players`). None when the settings do not say.
        """
        config = self.manifest.config
        named, game = config.get("players"), config.get("game")
        if isinstance(named, list) and len(named) == 2:
            first, second = map(str, named)
        elif named == [] and isinstance(game, str):
            try:
                first, second = default_players(game)
            except ConfigError:
                return None
        else:
            return None
        return f"{first} with {'itself' if second == first else second}"

    def episodes(self) -> dict[int, Trajectory]:
        """The finished episodes by index, each verified by replaying it.

        Raises:
            StoreError: a record lacks its trajectory or episode number.
            GameError: a stored episode does not replay (the engine changed, or the file was
                edited).
        """
        episodes: dict[int, Trajectory] = {}
        for record in self.store.records(STREAM):
            stored, number = record["trajectory"], record["episode"]
            if not isinstance(stored, dict) or not isinstance(number, int):
                raise StoreError(f"{self.path}: a {STREAM} record lacks its trajectory or episode")
            trajectory = Trajectory.from_dict(stored)
            try:
                replay(trajectory)
            except GameError as exc:
                raise GameError(
                    f"{self.path}: stored episode {number} does not replay ({exc}); "
                    "the engine changed or the file was edited. Use another --out."
                ) from exc
            episodes[number] = trajectory
        return episodes

    def counts(self) -> RunCounts:
        """Episodes planned and finished (a played game cannot fail)."""
        planned = self.manifest.config.get("episodes")
        done = len({record["episode"] for record in self.store.records(STREAM)})
        return RunCounts("episodes", planned if isinstance(planned, int) else None, done, 0)


read_play_run = PlayRun.read
"""Open a ``play`` run directory (or wrap an open store) for reading; see :class:`PlayRun`."""


@dataclass(frozen=True)
class Advanced:
    """A game after the steps :func:`advance` played, and how many it played."""

    game: Game
    """The game now (over when it ended before the steps asked)."""
    steps: int
    """The steps played: the ones asked, or fewer when the game ended first."""


def advance(
    game_name: str,
    layout: str | None = None,
    seed: int = 0,
    steps: int = 0,
    players: tuple[str, str] | None = None,
) -> Advanced:
    """A game after ``steps`` steps played by ``players`` (default pair), for ``games show``.

    Stops early when the game ends, and says how many steps it played.
    """
    if steps < 0:
        raise SettingError("steps", f"{{setting}} must be 0 or more, got {steps}.")
    config = resolve(PlayConfig(game_name, players, layout, 1, seed))
    return asyncio.run(_advance(config, steps))


async def _advance(config: PlayConfig, steps: int) -> Advanced:
    game = make_game(config.game, config.layout, config.seed)
    names = config.players or default_players(config.game)
    pair = [make_player(name, config.game, game.layout) for name in names]
    views = seat_players(game, pair, config.seed)
    played = 0
    while played < steps and not game.is_terminal():
        _decisions, _result, views = await play_step(game, pair, views)
        played += 1
    return Advanced(game, played)
