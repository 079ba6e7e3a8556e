"""``coordqa agentic run``, ``coordqa agentic grid`` and ``coordqa agentic report``.

Thin: ``run`` turns its options into a one-pairing :class:`~coordqa.agentic.grid.GridConfig`,
``grid`` reads one from YAML; both call :func:`coordqa.agentic.runner.run_grid` with a progress
bar, and ``report`` calls :func:`coordqa.agentic.report.agentic_report`. The agentic package is
imported inside the commands so ``coordqa --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from coordqa.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd

    from coordqa.agentic.grid import GridConfig
    from coordqa.agentic.runner import GridResult

console = Console()

agentic_app = typer.Typer(
    help="Agentic cross-play: LLM agents with partners, grids of matches, reports.",
    no_args_is_help=True,
)

OutDir = Annotated[Path | None, typer.Option(help="Run directory (resumes when it exists).")]
Backend = Annotated[str, typer.Option(help="local (asyncio in this process) or ray (Ray tasks).")]
Address = Annotated[
    str | None, typer.Option(help="Ray cluster address (default: start a local Ray).")
]
Concurrency = Annotated[
    int | None, typer.Option(help="Model calls in flight per model connection (default 8).")
]
Parallel = Annotated[int | None, typer.Option(help="Episodes played at once (default 8).")]


def _seeds(value: str | None) -> list[int] | None:
    if value is None:
        return None
    try:
        return [int(item) for item in value.split(",") if item.strip()]
    except ValueError:
        raise ConfigError(f"--seeds takes integers separated by commas, got {value!r}") from None


def _position(value: str | None) -> int | str | None:
    if value is None or value == "both":
        return value
    if value in ("0", "1"):
        return int(value)
    raise ConfigError(f"--position must be 0, 1 or both, got {value!r}")


def _agent_options(
    agent: str, no_tom: bool, no_verifier: bool, max_verifier_retries: int | None
) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if no_tom:
        options["use_tom"] = False
    if no_verifier:
        options["use_verifier"] = False
    if max_verifier_retries is not None:
        options["max_verifier_retries"] = max_verifier_retries
    if options and agent != "cac":
        raise ConfigError(
            f"--no-tom, --no-verifier and --max-verifier-retries are CAC options; agent {agent!r} "
            "does not take them. Use --agent cac, or drop those flags."
        )
    return options


def _runtime(
    config: dict[str, Any],
    backend: str,
    address: str | None,
    concurrency: int | None,
    parallel: int | None,
) -> dict[str, Any]:
    runtime = dict(config.get("runtime", {}))
    runtime["backend"] = backend
    for name, value in (
        ("address", address),
        ("concurrency", concurrency),
        ("parallel_episodes", parallel),
    ):
        if value is not None:
            runtime[name] = value
    return runtime


def _play(config: GridConfig, out: Path | None) -> GridResult:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from coordqa.agentic.runner import default_out, run_grid

    target = out or default_out(config)
    total = len(config.episodes())
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), console=console
    ) as progress:
        task = progress.add_task("episodes", total=total)
        result = run_grid(
            config, target, progress=lambda done, _t, _e: progress.update(task, completed=done)
        )
    resumed = f", {result.resumed} already done" if result.resumed else ""
    console.print(f"run: {result.run_dir} ({len(result.played)} played{resumed})")
    for failure in result.failures[:5]:
        console.print(f"[red]failed[/red] {failure.key}: {failure.error}", highlight=False)
    return result


def _finish(result: GridResult) -> None:
    from coordqa.agentic.report import agentic_report

    _print_tables(agentic_report([result.run_dir]).tables)
    if result.failures:
        console.print(
            f"{len(result.failures)} episode(s) failed; run the same command again to retry them."
        )
        raise typer.Exit(1)


def _print_tables(tables: dict[str, pd.DataFrame]) -> None:
    """Print each table; the wide per-decision table is printed one row per measure."""
    from coordqa.agentic.report import TABLE_TITLES

    for stem, frame in tables.items():
        if stem == "per_decision":
            frame = _measures_as_rows(frame)
        table = Table(title=TABLE_TITLES[stem])
        for column in frame.columns:
            table.add_column(Text(str(column)), overflow="fold")
        for row in frame.itertuples(index=False):
            table.add_row(*(Text(f"{v:.3g}" if isinstance(v, float) else str(v)) for v in row))
        console.print(table)


def _measures_as_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """One column per agent and game, one row per measure (fits 80 columns for a few agents)."""
    shown = frame.set_index(["label", "game"]).T
    shown.columns = [f"{label} {game}" for label, game in shown.columns]
    return shown.rename_axis("measure").reset_index()


@agentic_app.command("run")
def run_command(
    agent: Annotated[str, typer.Option(help="Agent: cac, hm, llm (or any registered player).")],
    game: Annotated[str, typer.Option(help="Game (see `coordqa games list`).")],
    model: Annotated[str, typer.Option(help="Model: scripted, random or a litellm name.")] = (
        "scripted"
    ),
    layout: Annotated[str | None, typer.Option(help="Layout (default: every layout).")] = None,
    partner: Annotated[str | None, typer.Option(help="Partner player name.")] = None,
    self_play: Annotated[bool, typer.Option("--self-play", help="Agent with itself.")] = False,
    seeds: Annotated[
        str | None, typer.Option(help="Seeds, comma-separated (default: the paper's for Hanabi).")
    ] = None,
    position: Annotated[
        str | None, typer.Option(help="Agent's seat in cross-play: 0, 1 or both.")
    ] = None,
    horizon: Annotated[int | None, typer.Option(help="Overcooked timesteps.")] = None,
    out: OutDir = None,
    api_base: Annotated[str | None, typer.Option(help="Endpoint of the model.")] = None,
    no_tom: Annotated[bool, typer.Option("--no-tom", help="CAC without ToM.")] = False,
    no_verifier: Annotated[
        bool, typer.Option("--no-verifier", help="CAC without self-verification.")
    ] = False,
    max_verifier_retries: Annotated[
        int | None, typer.Option(help="CAC: re-asks after verifier rejections.")
    ] = None,
    concurrency: Concurrency = None,
    parallel_episodes: Parallel = None,
    backend: Backend = "local",
    address: Address = None,
) -> None:
    """Play one agent with one partner (or itself) on one game, and print the tables."""
    from coordqa.agentic.grid import SELF, parse_grid

    if self_play and partner is not None:
        raise ConfigError("give --partner P or --self-play, not both")
    entry: dict[str, Any] = {"game": game, "seeds": _seeds(seeds), "horizon": horizon}
    if layout is not None:
        entry["layouts"] = [layout]
    data: dict[str, Any] = {
        "name": f"{agent}-{model}-{game}".replace("/", "-"),
        "agents": [agent],
        "models": [model],
        "api_base": api_base,
        "partners": [partner or SELF],
        "games": [entry],
        "positions": _position(position),
        "agent_options": {agent: _agent_options(agent, no_tom, no_verifier, max_verifier_retries)},
    }
    data["runtime"] = _runtime(data, backend, address, concurrency, parallel_episodes)
    _finish(_play(parse_grid(data, where="options"), out))


@agentic_app.command("grid")
def grid_command(
    config: Annotated[Path, typer.Argument(help="Grid YAML file (see examples/grids/).")],
    out: OutDir = None,
    concurrency: Concurrency = None,
    parallel_episodes: Parallel = None,
    backend: Backend = "local",
    address: Address = None,
) -> None:
    """Play every episode of a grid, resumable: finished episodes are never played again."""
    from coordqa.agentic.grid import load_grid, parse_grid

    data = load_grid(config).model_dump(mode="json")
    data["runtime"] = _runtime(data, backend, address, concurrency, parallel_episodes)
    grid = parse_grid(data, where=str(config))
    _finish(_play(grid, out))


@agentic_app.command("report")
def report_command(
    runs: Annotated[list[Path], typer.Argument(help="Agentic run directories.")],
    out: Annotated[
        Path | None, typer.Option(help="Write CSV tables, report.md and figures here.")
    ] = None,
) -> None:
    """Paper-shaped tables (mean ± SE) and per-decision costs of agentic runs."""
    from coordqa.agentic.report import agentic_report

    report = agentic_report(runs, out)
    _print_tables(report.tables)
    console.print(f"{len(report.episodes)} episode(s) from {len(runs)} run(s)")
    if out is not None:
        console.print(f"report: {out / 'report.md'}")


def register(app: typer.Typer) -> None:
    """Add the ``agentic`` sub-app (run, grid, report) to the root app."""
    app.add_typer(agentic_app, name="agentic")
