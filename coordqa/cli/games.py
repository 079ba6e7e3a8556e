"""``coordqa games list``, ``coordqa games show`` and ``coordqa play``.

Thin: each command parses options, calls one library function (the registries,
:func:`coordqa.play.advance`, :func:`coordqa.play.play`) and renders the result
with rich. The games package is imported inside the commands so ``coordqa --help`` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from coordqa.cli._errors import INTERRUPTED_EXIT, settings_as_options
from coordqa.cli._lists import given_once
from coordqa.cli._names import game_name
from coordqa.cli._outputs import run_folder
from coordqa.cli._tables import print_entry
from coordqa.errors import ConfigError, RunInterrupted
from coordqa.words import counted

if TYPE_CHECKING:
    from coordqa.play import Advanced

console = Console()
messages = Console(stderr=True)
"""The play command's progress and interruption: stderr, so ``coordqa play ... > file`` keeps
only the results."""

_AS = {"alice": 0, "bob": 1}


def parse_pair(values: str | list[str] | None, game: str) -> tuple[str, str] | None:
    """Parse ``--players A,B`` (one name means the same player for both), given once.

    A pair is one value: a second ``--players`` is refused, not added (:mod:`coordqa.cli._lists`).
    Refusals give an example of ``game``'s own players.
    """
    from coordqa.play import example_players

    example = f"--players {example_players(game)}"
    value = given_once(values, "--players", example)
    if value is None:
        return None
    names = [item.strip() for item in value.split(",") if item.strip()]
    if len(names) == 1:
        names = names * 2
    if len(names) != 2:
        raise ConfigError(
            f"--players takes two player names separated by a comma (Alice's, Bob's), "
            f"got {value!r}; e.g. {example}."
        )
    return (names[0], names[1])


def _steps_words(advanced: Advanced, asked: int) -> str:
    """``after 3 steps``, or ``the episode ended after 3 steps (asked 500)`` when it did."""
    played = counted(advanced.steps, "step")
    if advanced.steps < asked:
        return f"the episode ended after {played} (asked {asked})"
    return f"after {played}"


def games_list() -> None:
    """List games: version, layouts, players for play, LLM agents for agentic run."""
    from coordqa.games import GAMES, PLAYERS
    from coordqa.games.base import play_players

    for name, cls in GAMES.items():
        players = play_players(name)
        agents = [n for n, spec in PLAYERS.items() if spec.plays(name) and spec.needs_model]
        strong = cls.profile.strong_policy
        default = None if strong is None else (strong, strong)
        title = Text(name, style="bold")
        title.append(f"  {cls.version}", style="dim")
        print_entry(
            console,
            title,
            [
                Text(f"layouts: {', '.join(cls.layouts)}"),
                Text(f"players: {', '.join(players) or '-'}"),
                Text(f"LLM agents (coordqa agentic run --model MODEL): {', '.join(agents) or '-'}"),
                Text(f"default pair: {_pair_text(default)}"),
            ],
        )


def _pair_text(pair: tuple[str, str] | None) -> str:
    if pair is None:
        return "-"
    return f"{pair[0]} (both)" if pair[0] == pair[1] else f"{pair[0]}, {pair[1]}"


SHOW_FLAGS = {"steps": "--steps"}
"""``advance``'s settings, as ``games show`` names them (walkthrough 23: it said ``steps``)."""

PLAY_FLAGS = {"episodes": "--episodes"}
"""``PlayConfig``'s settings, as ``play`` names them (it said ``episodes``)."""


def games_show(
    game: Annotated[
        str, typer.Argument(help="Game name (see `coordqa games list`).", callback=game_name)
    ],
    layout: Annotated[str | None, typer.Option(help="Layout or map.")] = None,
    seed: Annotated[int, typer.Option(help="Episode seed.")] = 0,
    steps: Annotated[int, typer.Option(help="Steps to play before showing the state.")] = 0,
    players: Annotated[
        list[str] | None,
        typer.Option(help="Players for Alice,Bob (default: the game's best pair)."),
    ] = None,
    as_: Annotated[str, typer.Option("--as", help="Whose view to show: alice or bob.")] = "alice",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print snapshot, description and actions as JSON.")
    ] = False,
) -> None:
    """Play STEPS steps, then print a player's description and legal actions."""
    from coordqa.play import advance

    if as_.lower() not in _AS:
        raise ConfigError(f"--as must be alice or bob, got {as_!r}.")
    player = _AS[as_.lower()]
    with settings_as_options(SHOW_FLAGS):
        advanced = advance(game, layout, seed, steps, parse_pair(players, game))
    state = advanced.game
    actions = state.legal_actions(player) if player in state.players_to_act() else []
    if as_json:
        payload = {
            "snapshot": state.snapshot(),
            "description": state.describe(player),
            "actions": actions,
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    console.rule(f"{state.name} ({state.layout}), seed {seed}, {_steps_words(advanced, steps)}")
    console.print(state.describe(player), highlight=False, markup=False)
    if state.is_terminal():
        console.print(f"\nThe game is over. Score: {state.score()}. Metrics: {state.metrics()}")
        return
    console.print("\nAvailable Actions:", style="bold")
    for action in actions or ["(not this player's turn)"]:
        console.print(f"  {action}", highlight=False, markup=False)


def play_command(
    game: Annotated[
        str, typer.Argument(help="Game name (see `coordqa games list`).", callback=game_name)
    ],
    episodes: Annotated[int, typer.Option(help="Number of episodes.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of episode 0 (episode i uses seed + i).")] = 0,
    players: Annotated[
        list[str] | None,
        typer.Option(help="Players for Alice,Bob (default: the game's best pair)."),
    ] = None,
    layout: Annotated[str | None, typer.Option(help="Layout or map.")] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Run directory for trajectories (resumes when it exists).", callback=run_folder
        ),
    ] = None,
) -> None:
    """Play episodes with scripted (or other registered) players and print score and metrics."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from coordqa.play import PlayConfig, check_play_run, play, resolve

    with settings_as_options(PLAY_FLAGS):
        config = resolve(PlayConfig(game, parse_pair(players, game), layout, episodes, seed))
    if out is not None:
        check_play_run(config, out)  # a folder it cannot resume is said before the bar
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), console=messages
    ) as progress:
        task = progress.add_task(f"{game} episodes", total=episodes)
        try:
            summary = play(config, out, on_episode=lambda _i, _t: progress.advance(task))
        except RunInterrupted as stop:
            progress.stop()
            messages.print(f"[yellow]{stop}[/]", highlight=False)
            raise typer.Exit(INTERRUPTED_EXIT) from None
    table = Table(title=f"{summary.game_version} ({summary.layout})")
    table.add_column("measure")
    table.add_column("mean ± SE [95% CI] n", justify="right")
    for name, cell in summary.cells().items():
        table.add_row(name, cell)
    console.print(table)
    console.print(f"players: {', '.join(summary.players)}; episodes: {len(summary.trajectories)}")
    if summary.run_dir is not None:
        resumed = f" ({summary.resumed} resumed)" if summary.resumed else ""
        console.print(
            f"trajectories: {summary.run_dir / 'trajectories.jsonl'}{resumed}", soft_wrap=True
        )


def register(app: typer.Typer) -> None:
    """Add ``games list``, ``games show`` and the top-level ``play`` command."""
    games = typer.Typer(help="The four games: list them, show a state.", no_args_is_help=True)
    games.command("list")(games_list)
    games.command("show")(games_show)
    app.add_typer(games, name="games")
    app.command("play")(play_command)
