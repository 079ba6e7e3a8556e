"""``coordqa agentic run``, ``coordqa agentic grid`` and ``coordqa agentic report``.

Thin: ``run`` turns its options into a one-pairing :class:`~coordqa.agentic.grid.GridConfig`,
``grid`` reads one from YAML; both check it with :func:`coordqa.agentic.runner.plan_grid` (every
refusal is said before anything is drawn), then play it with
:func:`coordqa.agentic.runner.play_grid` under a progress bar; ``report`` calls
:func:`coordqa.agentic.report.agentic_report`. The agentic package is imported inside the
commands so ``coordqa --help`` stays fast.

Tables go to stdout; progress, errors and notes to stderr. Exit status, as ``coordqa eval``: 0
when every episode is played (or the failures are within --max-error-rate), 1 when the run
stopped (a refused call, an unreachable server) or left episodes failed or skipped, 2 for bad
options (a missing API key included: nothing is stored), 130 on Ctrl-C or SIGTERM, 141 when
the output's reader closed it (``| head``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from coordqa.agentic.runtime_settings import RuntimeSettings
from coordqa.cli._agent_options import AgentOptionsCommand, given_options
from coordqa.cli._call_options import SAMPLING_FLAGS, CallOptions, EndpointOptions, Transport
from coordqa.cli._errors import (
    RUN_FAILED_EXIT,
    interrupted_as,
    messages,
    settings_as_options,
    warn,
)
from coordqa.cli._lists import split_list
from coordqa.cli._names import game_name, model_name, player_name, player_names
from coordqa.cli._option_groups import option_groups
from coordqa.cli._outputs import generated_folder, run_folder
from coordqa.cli._progress import Quiet
from coordqa.cli._run_inputs import runs_to_report
from coordqa.cli._tables import print_entry
from coordqa.errors import NOTHING_STARTED, ConfigError, RunFailed, RunInterrupted
from coordqa.eval_config import api_key_from_env
from coordqa.outputs import AGENTIC_REPORT
from coordqa.words import counted

if TYPE_CHECKING:
    import pandas as pd

    from coordqa.agentic.episodes import EpisodeSpec
    from coordqa.agentic.grid import CountWords, GridConfig
    from coordqa.agentic.report import AgenticReport
    from coordqa.agentic.runner import GridPlan, GridProgress, GridResult

console = Console()
"""Tables: stdout."""

_RUNTIME = RuntimeSettings()
"""The defaults of the execution options (--parallel, --backend, --max-error-rate...)."""

agentic_app = typer.Typer(
    help="Agentic cross-play: LLM agents with partners, grids of matches, reports.",
    no_args_is_help=True,
)

OutDir = Annotated[
    Path | None,
    typer.Option(help="Run directory (resumes when it exists).", callback=run_folder),
]
Backend = Annotated[
    str | None,
    typer.Option(
        help="local (asyncio in this process) or ray (Ray tasks) (default: a grid file's, "
        f"else {_RUNTIME.backend}).",
    ),
]
Address = Annotated[
    str | None, typer.Option(help="Ray cluster address (default: start a local Ray).")
]
Parallel = Annotated[
    int | None,
    typer.Option(help=f"Episodes played at once (default {_RUNTIME.parallel_episodes})."),
]
Preset = Annotated[
    str | None,
    typer.Option(
        help="Agent configuration: coordqa (the default), paper (LLM-Coordination's) or "
        "hm-paper (Hypothetical Minds' sampling per model); see docs/agentic.md."
    ),
]
Temperature = Annotated[float | None, typer.Option(help="Sampling temperature.")]
TopP = Annotated[float | None, typer.Option(help="Nucleus sampling mass.")]
MaxTokens = Annotated[int | None, typer.Option(help="Cap on completion tokens per call.")]
Seed = Annotated[int | None, typer.Option(help="Provider-side sampling seed.")]
Episodes = Annotated[
    int | None,
    typer.Option(
        help="Episodes per seat: seeds 0..N-1 (instead of --seeds); with a partner, --position "
        "both (Overcooked's default) plays each seat, so twice as many episodes are played."
    ),
]
MaxFallbackRate = Annotated[
    float | None,
    typer.Option(
        "--max-fallback-rate",
        help="Share of decisions (0-1) that may fall back to the game's safe action (an "
        "unreadable or empty reply) without failing the run (default: no limit; a run in which "
        "every decision fell back is said so on stderr either way).",
    ),
]
MaxErrorRate = Annotated[
    float | None,
    typer.Option(
        "--max-error-rate",
        help="Share of episodes (0-1) that may fail (a model call failed after retries) "
        f"without failing the run (default {_RUNTIME.max_error_rate:g}).",
    ),
]


@dataclass(frozen=True)
class SamplingOptions:
    """The sampling options of ``agentic run`` and ``grid``, over the grid's ``generate``."""

    temperature: Temperature = None
    top_p: TopP = None
    max_tokens: MaxTokens = None
    seed: Seed = None

    def given(self) -> dict[str, Any]:
        """The options that were given, by the grid's ``generate`` key."""
        values = ((field.name, getattr(self, field.name)) for field in fields(self))
        return {name: value for name, value in values if value is not None}


@dataclass(frozen=True)
class ExecutionOptions:
    """How ``agentic run`` and ``grid`` play the episodes, over the grid's ``runtime``."""

    parallel_episodes: Parallel = None
    error_rate: MaxErrorRate = None
    fallback_rate: MaxFallbackRate = None
    backend: Backend = None
    address: Address = None

    def given(self) -> dict[str, Any]:
        """The options that were given, by the grid's ``runtime`` key."""
        values = {
            "backend": self.backend,
            "address": self.address,
            "parallel_episodes": self.parallel_episodes,
            "max_error_rate": self.error_rate,
            "max_fallback_rate": self.fallback_rate,
        }
        return {name: value for name, value in values.items() if value is not None}

    def places(self) -> dict[str, str]:
        """The grid places the given options fill, by flag (``runtime.backend``: ``--backend``).

        A refused value names its flag, as every refused choice does (walkthrough 17, R6).
        """
        return {f"runtime.{name}": EXECUTION_FLAGS[name] for name in self.given()}


EXECUTION_FLAGS = {
    "backend": "--backend",
    "address": "--address",
    "parallel_episodes": "--parallel-episodes",
    "max_error_rate": "--max-error-rate",
    "max_fallback_rate": "--max-fallback-rate",
}
"""The flag of each :class:`ExecutionOptions` field, by the grid's ``runtime`` key."""


def grid_setting_words(
    grid: GridConfig,
    options: tuple[CallOptions, str | None, SamplingOptions, EndpointOptions],
    file: str | None,
) -> dict[str, str]:
    """How a command names each grid setting the grid's checks may refuse.

    The flag where the command line gave it, else the grid file's key (``grid.yaml's
    runtime.timeout_s``); ``agentic run`` has no file. The library names the setting alone
    (``runtime.timeout_s``, ``generate.top_p``, ``models[0].model_args``): a Python caller
    has no flag, and a command said ``leave --timeout/runtime.timeout_s out``, a grid file's
    ``top_p`` ``--top-p`` (walkthrough 18, O1). ``options``: the command's call, transport,
    sampling and endpoint options.
    """
    calls, transport, sampling, endpoint = options
    given: dict[str, tuple[str, object]] = {"runtime.timeout_s": ("--timeout", calls.timeout)}
    given["runtime.transport"] = ("--transport", transport)
    given["api_base"] = ("--api-base", endpoint.api_base)  # an unknown model's advice names it
    for name, flag in SAMPLING_FLAGS.items():
        given[f"generate.{name}"] = (flag, getattr(sampling, name))
    for model in grid.model_names():
        given[grid.model_args_key(model)] = ("--model-arg", endpoint.model_arg)
    return {
        setting: flag if value is not None or file is None else f"{file}'s {setting}"
        for setting, (flag, value) in given.items()
    }


def _seeds(values: list[str] | None) -> list[int] | None:
    """The seeds of ``--seeds 3,4`` or ``--seeds 3 --seeds 4``; None: not given."""
    items = split_list(values)
    if items is None:
        return None
    try:
        return [int(item) for item in items]
    except ValueError:
        given = ",".join(items)
        raise ConfigError(f"--seeds takes integers separated by commas, got {given!r}") from None


def _position(value: str | None) -> int | str | None:
    if value is None or value == "both":
        return value
    if value in ("0", "1"):
        return int(value)
    raise ConfigError(f"--position must be 0, 1 or both, got {value!r}")


def _runtime(
    config: dict[str, Any],
    execution: ExecutionOptions,
    calls: CallOptions,
    transport: str | None = None,
) -> dict[str, Any]:
    """The grid's ``runtime`` with the options given here over it (the others kept)."""
    given = {**execution.given(), "transport": transport, **calls.given()}
    return _merged(config, "runtime", {k: v for k, v in given.items() if v is not None})


def _with_model_args(models: list[Any], args: dict[str, Any]) -> list[Any]:
    """The grid's ``models`` with ``--model-arg`` settings over each model's own."""
    if not args:
        return models
    entries: list[dict[str, Any]] = [{"name": m} if isinstance(m, str) else dict(m) for m in models]
    return [{**e, "model_args": {**(e.get("model_args") or {}), **args}} for e in entries]


def _api_keys(api_key_env: str | None, models: list[str]) -> dict[str, str] | None:
    """Each model's key read from ``--api-key-env`` (None: the providers' usual variables)."""
    if api_key_env is None:
        return None
    key = api_key_from_env(api_key_env)
    return dict.fromkeys(models, key)


def _play(
    config: GridConfig,
    out: Path | None,
    api_keys: dict[str, str] | None = None,
    *,
    quiet: bool = False,
    words: CountWords | None = None,
    settings: Mapping[str, str] | None = None,
) -> None:
    """Check the grid and its folder, connect its engine, then play it (:func:`_play_planned`).

    ``quiet``: no progress (``--quiet``), only errors, the results and the run directory.
    ``words``: how the command sets a game's episodes (default: ``agentic run``'s options).
    ``settings``: how the command names the grid's settings the checks may refuse
    (:func:`grid_setting_words`).
    """
    from coordqa.agentic.runner import default_out, interrupted_message, plan_grid

    folder = out or default_out(config)
    try:
        with settings_as_options(settings or {}):
            plan = plan_grid(config, folder, api_keys, words=words)  # no bar yet
        if plan.extension is not None:  # said even with --quiet: the run it extends changes
            warn(plan.extension)
        with plan.engine():  # an unreachable Ray too
            _play_planned(plan, quiet=quiet)
    except KeyboardInterrupt:  # before the run began (its folder checked, its engine started)
        raise RunInterrupted(interrupted_message(folder), folder) from None


def _play_planned(plan: GridPlan, *, quiet: bool = False) -> None:
    """Play a checked grid under a progress bar; print its tables; exit 1 when the run failed.

    Raises:
        RunInterrupted: Ctrl-C, in the session or after it (exit status 130, with what is kept).
    """
    total = len(plan.specs)
    count = episode_count(plan.specs)
    try:
        result = _play_under_bar(plan, total, count, quiet=quiet)
        _show_result(result, count)
    except KeyboardInterrupt:
        # Ctrl-C outside the session (play_grid says its own): while the bar closes or the tables
        # are made, after the run ended. Typer would end with 130 and no word; the message reads
        # the run, so a finished one is said complete, with the command that prints its tables.
        from coordqa.agentic.runner import interrupted_message

        raise RunInterrupted(interrupted_message(plan.out), plan.out) from None


def _play_under_bar(plan: GridPlan, total: int, count: str, *, quiet: bool) -> GridResult:
    """Play the grid under a progress bar, closed before the result is returned.

    Not on a terminal (a pipe, a log file), the bar is plain whole lines instead
    (:class:`PlainGridLines`). A bar's last frame there was cut at the width ("episodes finished
    in th… this session: 11,550 moves (both seats), 31,020 model …", walkthrough 16 R4). An
    interruption in the session (:class:`RunInterrupted`) goes up to the command's error report
    (:mod:`coordqa.cli._errors`), which says what is kept and exits 130.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from coordqa.agentic.runner import play_grid
    from coordqa.cli._progress import attempt_lines, say_first_error

    plain = not quiet and not messages.is_terminal
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[counts]}"),
        console=messages,
        disable=quiet or plain,
    ) as progress:
        task = progress.add_task("episodes finished", total=total, counts="")
        lines = PlainGridLines(progress.console) if plain else None
        opened = quiet  # --quiet: no opening line

        def show(state: GridProgress) -> None:
            nonlocal opened
            if not opened:  # the first update, once the run folder says what is done already
                opened = True
                progress.console.print(playing_words(count, state), highlight=False)
                if state.resumed:
                    progress.update(task, description="episodes finished in the run")
            if state.new_error is not None:
                say_first_error(progress.console, state.new_error)
            counts = session_counts(state)
            progress.update(task, completed=state.done, counts=counts)
            if lines is not None:
                lines.update(progress.tasks[0].description, state.done, state.total, counts)

        try:
            with attempt_lines(progress.console):
                try:
                    result = play_grid(plan, progress=show)
                finally:  # finished, failed or interrupted: the last count shown is the run's
                    if lines is not None:
                        lines.stop()
        except RunFailed as failure:
            progress.stop()
            if failure.result is not None:
                _show_result(failure.result, count, said_below=str(failure))
            messages.print(f"[bold red]error:[/] {escape(str(failure))}", highlight=False)
            raise typer.Exit(RUN_FAILED_EXIT) from None
    return result


def session_counts(state: GridProgress) -> str:
    """The session's moves, calls and failures (``""`` before the first of them)."""
    if not (state.decisions or state.model_calls or state.failed):
        return ""
    counts = (
        f"this session: {state.decisions:,} moves (both seats), {state.model_calls:,} model calls"
    )
    return counts + (f", {state.failed} failed" if state.failed else "")


class PlainGridLines:
    """Off a terminal, a grid's progress as whole lines: every tenth of the run, and its end.

    The last line is the count at the session's end (finished, failed or interrupted), which
    the interrupted message then repeats: with a line only every tenth, the last one said
    ``5/62`` above ``8 of 62 episodes finished`` (walkthrough 18 R7). The session's counters
    are added only when they changed since the line before: parallel episodes make their
    moves before they finish, and ``2/3`` and ``3/3`` repeated ``1/3``'s counters.
    """

    def __init__(self, console: Console) -> None:
        """Print lines on ``console``."""
        self.console = console
        self._shown_done = -1
        self._shown_counts = ""
        self._last: tuple[str, int, int, str] | None = None

    def update(self, description: str, done: int, total: int, counts: str) -> None:
        """Print a line when a tenth of the run has finished since the last one (or all of it)."""
        self._last = (description, done, total, counts)
        step = max(1, total // 10)
        if done != self._shown_done and (done - self._shown_done >= step or done == total):
            self._line(*self._last)

    def stop(self) -> None:
        """Print the last count unless it was just printed."""
        if self._last is not None and self._last[1] != self._shown_done:
            self._line(*self._last)

    def _line(self, description: str, done: int, total: int, counts: str) -> None:
        line = f"{description} {done}/{total}"
        if counts and counts != self._shown_counts:
            line += f" | {counts}"
        self.console.print(line, highlight=False, soft_wrap=True)
        self._shown_done, self._shown_counts = done, counts


def playing_words(count: str, state: GridProgress) -> str:
    """The opening line: what this session plays, and of how many when the run resumes.

    ``playing 2 of 5 episodes (3 already done)``: a resumed run's bar counts the whole run (as
    ``coordqa eval``'s does), so the line says how much of it this session adds.
    """
    if not state.resumed:
        return f"playing {count}"
    return f"playing {state.total - state.resumed} of {count} ({state.resumed} already done)"


def episode_count(specs: Sequence[EpisodeSpec]) -> str:
    """How many episodes, and for one pairing how --episodes, the seats and the layouts make them.

    ``2 episodes: 1 per seat x 2 seats`` (``x 5 layouts`` when there are several), and
    ``20 episodes: 4 per layout x 5 layouts`` in self-play or in one seat: ``--episodes`` counts
    per seat and per layout, which a bare total does not say.
    """
    total = len(specs)
    seats = {spec.position for spec in specs}
    layouts = {spec.layout for spec in specs}
    pairings = {(spec.agent, spec.model, spec.partner, spec.game) for spec in specs}
    plural = "s" if total != 1 else ""
    bare = f"{total} episode{plural}"
    units = len(seats) * len(layouts)
    if len(pairings) != 1 or units == 1 or total % units:
        return bare
    factors = [f"{len(seats)} seats"] if len(seats) > 1 else []
    factors += [f"{len(layouts)} layouts"] if len(layouts) > 1 else []
    unit = "seat" if len(seats) > 1 else "layout"
    return f"{bare}: {total // units} per {unit} x {' x '.join(factors)}"


def _show_result(result: GridResult, count: str, said_below: str = "") -> None:
    """The counts of the session (stderr) and the run's tables (stdout).

    The episodes left out (failed, or skipped with a player not ready) are listed by the
    report that follows, with their causes; ``said_below`` is the error printed after it.
    """
    from coordqa.agentic.report import agentic_report

    resumed = f", {result.resumed} already done" if result.resumed else ""
    messages.print(
        f"run: {escape(str(result.run_dir))} ({len(result.played)} played{resumed}; {count})",
        highlight=False,
    )
    _print_report(agentic_report([result.run_dir]), said_below=said_below)


SAID_BELOW = "skipped, a player not ready (the error below says how to make it ready)"
"""Stands for a skipped episode's cause when the run's error, printed next, gives it whole."""


def _print_report(report: AgenticReport, said_below: str = "") -> None:
    """The tables on stdout; on stderr, notes on n and the episodes left out, grouped by cause.

    The notes say what pooling several runs did to n (an episode two runs hold counted once).

    Each cause is printed once, above the keys of its episodes: a partner's missing weights
    skip every episode it plays, each with the same fix. A skipped episode's cause that
    ``said_below`` (the error printed next) already gives is not printed here.
    """
    from coordqa.agentic.episodes import NOT_READY

    _print_tables(report.tables, report.titles)
    if not report.tables:
        messages.print("no played episode: no table")
    for line in report.incomplete:
        messages.print(f"[bold yellow]warning:[/] {escape(line)}", highlight=False)
    for note in report.notes:
        messages.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    for line in report.replies.lines():
        messages.print(line, highlight=False, markup=False)
    warning = report.replies.all_fell_back_warning()
    if warning:
        messages.print(f"[bold yellow]warning:[/] {escape(warning)}", highlight=False)
    if not report.failures:
        return
    messages.print(f"[yellow]{report.left_out()}:[/]", highlight=False)
    by_cause: dict[str, list[str]] = {}
    for key, failure in sorted(report.failures.items()):
        reason = failure.error.removeprefix("skipped: ")
        below = failure.error_kind == NOT_READY and said_below and reason in said_below
        by_cause.setdefault(SAID_BELOW if below else failure.error, []).append(key)
    for cause, keys in by_cause.items():
        messages.print(f"  {cause}:", highlight=False, markup=False)
        for key in keys[:10]:
            messages.print(f"    {key}", highlight=False, markup=False)
        if len(keys) > 10:
            messages.print(f"    ... and {len(keys) - 10} more (report.md lists them all)")


REPORT_KEYS = ("label", "CAC", "partner", "game", "layout", "seed", "seat")
"""The columns that name a row of an agentic report table (the others are measures)."""

CELL_CAPTION = "cells: mean ± SE [95% CI, bootstrap over episodes] n=episodes"
"""Says what each cell holds, under the agentic tables."""


def _print_tables(tables: dict[str, pd.DataFrame], titles: dict[str, str]) -> None:
    """Print each table under its title, within 80 columns.

    A table whose cells do not fit (several ``mean ± SE [95% CI] n=N`` cells to a row, the
    per-decision measures) is printed long: each row's keys once, then one line per measure.
    """
    from coordqa.cli._tables import frame_table, long_if_wide

    for stem, frame in tables.items():
        shown = long_if_wide(frame, REPORT_KEYS)
        console.print(frame_table(titles[stem], shown, REPORT_KEYS))
    if tables:
        console.print(CELL_CAPTION, highlight=False)


RUN_OPTIONS = {
    "agents": "--agent",
    "models": "--model",
    "partners": "--partner",
    "positions": "--position",
    "preset": "--preset",
    "games[0].game": "--game",
    "games[0].layouts": "--layout",
    "games[0].seeds": "--seeds",
    "games[0].episodes": "--episodes",
    "games[0].horizon": "--horizon",
}
"""The grid field each option of ``agentic run`` fills: its refusals name the option."""


@agentic_app.command("run", cls=AgentOptionsCommand)
@option_groups
def run_command(
    ctx: typer.Context,
    agent: Annotated[
        str,
        typer.Option(help="Agent: cac, hm, llm (or any registered player).", callback=player_name),
    ],
    game: Annotated[str, typer.Option(help="Game (see `coordqa games list`).", callback=game_name)],
    model: Annotated[
        str | None,
        typer.Option(
            help="Model: scripted (offline), random, or a litellm name (required for LLM agents).",
            callback=model_name,
        ),
    ] = None,
    layout: Annotated[str | None, typer.Option(help="Layout (default: every layout).")] = None,
    partner: Annotated[
        str | None,
        typer.Option(help="Partner player name (default: self-play).", callback=player_name),
    ] = None,
    self_play: Annotated[bool, typer.Option("--self-play", help="Agent with itself.")] = False,
    seeds: Annotated[
        list[str] | None,
        typer.Option(
            help="Seeds, comma-separated or repeated (default: the game's own, 0,1,2 for the "
            "built-in games but Hanabi: the paper's 321,212,628 in self-play, 45,114,4788 with a "
            "partner).",
        ),
    ] = None,
    episodes: Episodes = None,
    position: Annotated[
        str | None,
        typer.Option(
            help="Agent's seat with a partner: 0, 1 or both (each seat plays --episodes; "
            "default: the game's, both for Overcooked (the paper's Table 4), 0 for the others)."
        ),
    ] = None,
    horizon: Annotated[int | None, typer.Option(help="Overcooked timesteps.")] = None,
    agent_option: Annotated[
        list[str] | None,
        typer.Option(
            metavar="KEY=VALUE",
            help="An option of the agent (repeat for several); `coordqa agentic options` lists "
            "each agent's.",
        ),
    ] = None,
    preset: Preset = None,
    sampling: SamplingOptions = SamplingOptions(),
    out: OutDir = None,
    endpoint: EndpointOptions = EndpointOptions(),
    calls: CallOptions = CallOptions(),
    transport: Transport = None,
    execution: ExecutionOptions = ExecutionOptions(),
    quiet: Quiet = False,
) -> None:
    """Play one agent with one partner (or itself) on one game, and print the tables.

    Rerun the same command to resume: failed and skipped episodes are played again.
    """
    with interrupted_as(NOTHING_STARTED):  # the track imported, the grid read: nothing ran
        from coordqa.agentic.episodes import SELF
        from coordqa.agentic.grid import games_it_plays_instead, parse_grid
        from coordqa.agentic.match import is_llm_player
        from coordqa.agentic.partners.registry import partner_layout
        from coordqa.agentic.presets import check_preset

        if self_play and partner is not None:
            raise ConfigError("give --partner P or --self-play, not both")
        if seeds and episodes is not None:
            raise ConfigError(
                "give --seeds or --episodes, not both (--episodes N plays seeds 0..N-1)"
            )
        roles: tuple[tuple[str, str | None, Literal["agent", "partner"]], ...] = (
            ("--agent", agent, "agent"),
            ("--partner", partner, "partner"),
        )
        for flag, name, role in roles:
            played = None if name is None else games_it_plays_instead(name, role, [game])
            if played is not None:
                raise ConfigError(
                    f"{flag} {name} plays {played}, not --game {game}; give a {role} of {game} "
                    "(coordqa games list) or a --game it plays"
                )
        if preset is not None:
            try:
                preset = check_preset(preset)
            except ConfigError as exc:
                raise ConfigError(f"--preset: {exc}") from None
        args = endpoint.model_args()
        entry: dict[str, object] = {
            "game": game,
            "seeds": _seeds(seeds),
            "episodes": episodes,
            "horizon": horizon,
        }
        only_layout = None if partner is None or layout is not None else partner_layout(partner)
        layout = layout or only_layout
        if layout is not None:
            entry["layouts"] = [layout]
        data: dict[str, object] = {
            "name": f"{agent}-{model or 'none'}-{game}".replace("/", "-"),
            "agents": [agent],
            "models": [] if model is None else _with_model_args([model], args),
            "api_base": endpoint.api_base,
            "partners": [partner or SELF],
            "games": [entry],
            "positions": _position(position),
            "agent_options": {agent: given_options(ctx, agent, agent_option or [], game)},
            "generate": sampling.given(),
            "runtime": _runtime({}, execution, calls, transport),
        }
        if preset is not None:
            data["preset"] = preset
        if model is None and is_llm_player(agent):
            raise ConfigError(
                f"agent {agent} calls a language model: pass --model (scripted for the offline "
                "model, or a litellm name such as openai/gpt-4o-mini)"
            )
        if model is not None and not is_llm_player(agent):  # ignored, yet naming the run
            raise ConfigError(f"agent {agent} calls no language model: leave --model out")
        agent_options = {
            f"agent_options of {agent!r} in {game}": f"options of --agent {agent} in {game}"
        }
        grid = parse_grid(
            data, options={**RUN_OPTIONS, **agent_options, **execution.places()}, where=""
        )
        keys = _api_keys(endpoint.api_key_env, grid.model_names())
        if not self_play and partner is None and not quiet:
            messages.print("no --partner given: self-play (--partner P for cross-play)")
        if only_layout is not None and partner is not None:
            messages.print(
                f"--partner {partner} plays only {only_layout}: playing {only_layout} alone (as "
                f"--layout {only_layout}; {partner.split('-')[0]}-LAYOUT plays each other layout)"
            )
        options = (calls, transport, sampling, endpoint)
        _play(grid, out, keys, quiet=quiet, settings=grid_setting_words(grid, options, None))


@agentic_app.command("options")
def options_command(
    agent: Annotated[
        str | None,
        typer.Argument(
            help="An agent (default: every player that takes options).", callback=player_name
        ),
    ] = None,
) -> None:
    """The options of each agent: --agent-option KEY=VALUE or a grid's agent_options."""
    from coordqa.games.base import GAMES, PLAYERS, role_player
    from coordqa.options import option_docs

    names = [agent] if agent is not None else [n for n, s in PLAYERS.items() if s.options]
    for name in names:
        # cak: "Did you mean 'cac'", among the six players that take options
        spec = role_player(name, "agent", GAMES.names(), taking_options=True)
        docs = option_docs(spec.options)
        if not docs:
            console.print(f"{name} takes no options.")
            continue
        console.print(Text(f"{name}: {spec.description}", style="bold"), soft_wrap=True)
        for doc in docs:
            title = Text(f"  {doc.name}", style="bold")
            title.append(f"  {doc.kind}, default {_plain(doc.default)}", style="dim")
            if doc.flag is not None:
                title.append(f", flag {doc.flag.name}", style="dim")
            print_entry(console, title, [Text(doc.description)])
        console.print()


def _plain(value: object) -> str:
    """A default as it is typed on the command line (``none``, ``true``)."""
    if value is None:
        return "none"
    return str(value).lower() if isinstance(value, bool) else str(value)


@agentic_app.command("grid")
@option_groups
def grid_command(
    config: Annotated[
        str, typer.Argument(help="A registered grid (paper, smoke) or a grid YAML file.")
    ],
    model: Annotated[
        list[str] | None,
        typer.Option(help="Model(s) for the grid's LLM agents (repeat the option for several)."),
    ] = None,
    agent: Annotated[
        list[str] | None,
        typer.Option(
            help="Play only these agents instead of the grid's (repeat the option for several): "
            "the same tasks, so a leaderboard entry (one agent and model) can be submitted.",
            callback=player_names,
        ),
    ] = None,
    endpoint: EndpointOptions = EndpointOptions(),
    preset: Preset = None,
    episodes: Annotated[
        int | None, typer.Option(help="Episodes per pairing in every game: seeds 0..N-1.")
    ] = None,
    sampling: SamplingOptions = SamplingOptions(),
    out: OutDir = None,
    calls: CallOptions = CallOptions(),
    transport: Transport = None,
    execution: ExecutionOptions = ExecutionOptions(),
    quiet: Quiet = False,
) -> None:
    """Play every episode of a grid, resumable: played episodes are never played again.

    Options given here override the grid's; a registered grid changed this way (other seeds or
    preset) is no longer that grid, and its run says so (another fingerprint). Other agents or
    models play the same tasks: ``--agent cac`` keeps the grid (a leaderboard entry ranks one
    agent and model).
    """
    with interrupted_as(NOTHING_STARTED):  # the track imported, the grid read: nothing ran
        from coordqa.agentic.grid import CountWords, parse_grid
        from coordqa.agentic.grid_registry import grid_document

        args = endpoint.model_args()
        data = grid_document(config)
        if model:
            data["models"] = list(model)
        if args:
            data["models"] = _with_model_args(_listed_models(data), args)
        if agent:
            data["agents"] = list(agent)
        if endpoint.api_base is not None:
            data["api_base"] = endpoint.api_base
        if preset is not None:
            data["preset"] = preset
        if episodes is not None:
            for entry in _listed(data, "games"):
                entry.update(seeds=None, episodes=episodes)
        data["generate"] = _merged(data, "generate", sampling.given())
        data["runtime"] = _runtime(data, execution, calls, transport)
        grid = parse_grid(data, where=str(config), options=execution.places())
        keys = _api_keys(endpoint.api_key_env, grid.model_names())
        words = CountWords(
            file=str(config), episodes_option=episodes is not None, model_option=bool(model)
        )
        settings = grid_setting_words(grid, (calls, transport, sampling, endpoint), config)
        _play(grid, out, keys, quiet=quiet, words=words, settings=settings)


def _merged(data: dict[str, Any], key: str, values: dict[str, Any]) -> dict[str, Any]:
    """A grid document's mapping ``key`` with ``values`` over it."""
    return {**_section(data, key), **values}


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    """A grid document's mapping ``key`` ({} when absent), to override.

    Anything else there is refused here, before the grid is validated.
    """
    value = data.get(key) or {}
    if not isinstance(value, dict):
        raise ConfigError(f"invalid grid: {key} must be a mapping, got {value!r}")
    return value


def _listed_models(data: dict[str, Any]) -> list[Any]:
    """A grid document's ``models`` (names or mappings), to override."""
    value = data.get("models") or []
    if not isinstance(value, list):
        raise ConfigError(f"invalid grid: models must be a list, got {value!r}")
    return value


def _listed(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The mappings of a grid document's list ``key`` (its game entries), to override."""
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ConfigError(f"invalid grid: {key} must be a list of mappings, got {value!r}")
    return value


@agentic_app.command("report")
def report_command(
    runs: Annotated[
        list[Path],
        typer.Argument(help="Agentic run directories, or folders of them (searched recursively)."),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Write CSV tables, report.md and figures here (new, empty, or an earlier "
            "agentic report).",
            callback=generated_folder(AGENTIC_REPORT),
        ),
    ] = None,
) -> None:
    """Paper-shaped tables (mean ± SE) and per-decision costs of agentic runs.

    Only played episodes enter the tables; failed and skipped ones are counted and named.
    """
    from coordqa.agentic.report import agentic_report
    from coordqa.cli._errors import nothing_written_to

    with nothing_written_to(out):
        found = runs_to_report(runs, "agentic")
        report = agentic_report(found, out)
    _print_report(report)
    unfinished = f" ({counted(len(report.incomplete), 'incomplete run')})" * bool(report.incomplete)
    messages.print(
        f"{counted(len(report.episodes), 'episode')} from {counted(len(found), 'run')}{unfinished}"
    )
    if out is not None:
        messages.print(f"report: {out / 'report.md'}", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    """Add the ``agentic`` sub-app (run, grid, report) to the root app."""
    app.add_typer(agentic_app, name="agentic")
