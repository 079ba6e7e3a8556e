"""``coordqa eval``, ``coordqa score`` and ``coordqa report``: the QA benchmark commands.

Each command parses its options into the library's types, calls one library function
(:func:`coordqa.evaluation.evaluate`, :func:`coordqa.evaluation.score`,
:func:`coordqa.analysis.compare_runs` + :func:`coordqa.analysis.write_report`) and renders the
result with rich. Library imports happen inside the commands so ``coordqa --help`` stays fast.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from coordqa.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd

    from coordqa.analysis import ModelReport, RunAnalysis
    from coordqa.evaluation import RunResult
    from coordqa.llm import UsageTotals

console = Console()
"""Results (tables, JSON): stdout, so that ``coordqa eval ... > results.txt`` keeps only them."""
messages = Console(stderr=True, soft_wrap=True)
"""Progress, counts, warnings and errors: stderr."""

RUN_FAILED_EXIT = 1
"""Exit status of a run stopped by errors or left with more errors than --max-error-rate."""

INTERRUPTED_EXIT = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""

_SIZE = re.compile(r"^\s*([0-9.]+(?:e[0-9]+)?)\s*([kmbt]?)\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def split_list(value: str | None) -> tuple[str, ...] | None:
    """Parse a comma-separated option (``hanabi,overcooked``); None or empty: no filter."""
    if value is None:
        return None
    items = tuple(item.strip() for item in value.split(",") if item.strip())
    return items or None


def parse_sizes(value: str | None) -> dict[str, float]:
    """Parse ``--sizes model=7e9,other=70B`` into parameter counts per model name."""
    sizes: dict[str, float] = {}
    for item in split_list(value) or ():
        name, sep, amount = item.rpartition("=")
        match = _SIZE.match(amount)
        if not sep or not name or match is None:
            raise ConfigError(
                f"--sizes entry {item!r} is not MODEL=SIZE; write e.g. "
                "--sizes llama-3-8b=8e9,gpt-4o=1.8T (suffixes K, M, B, T allowed)"
            )
        sizes[name.strip()] = float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()]
    return sizes


# -- rendering -------------------------------------------------------------------------------


_HEADERS = {"question_type": "type", "game": "game"}
_COUNTS = {"ambiguous": "amb", "no_answer": "none", "error": "err"}


def rich_accuracy_table(title: str, table: pd.DataFrame, keys: list[str]) -> Table:
    """A rich table of an analysis table: accuracy ± SE, random baseline and outcome counts.

    Kept within 80 columns: ``amb``/``none``/``err`` count ambiguous, no-answer and error
    samples; ``qs`` is the number of questions; trials are in the caption.
    """
    from coordqa.analysis import format_mean_se

    trials = sorted({int(n) for n in table["n_trials"]})
    out = Table(title=title, caption=f"trials with scored samples: {trials}")
    for key in keys:
        out.add_column(_HEADERS.get(key, key), no_wrap=True)
    out.add_column("acc ± SE", justify="right", no_wrap=True)
    for header in ("random", "qs", *_COUNTS.values()):
        out.add_column(header, justify="right", no_wrap=True)
    for row in table.to_dict(orient="records"):
        out.add_row(
            *[str(row[k]) for k in keys],
            format_mean_se(row["accuracy"], row["se"]),
            f"{row['random_baseline']:.3f}",
            str(row["n_questions"]),
            *[str(row[s]) for s in _COUNTS],
        )
    return out


def render_analysis(analysis: RunAnalysis) -> None:
    """Print the accuracy tables of a run and whatever makes it incomplete."""
    title = f"{analysis.model}: accuracy per question type"
    console.print(rich_accuracy_table(title, analysis.by_type, ["question_type"]))
    console.print(
        rich_accuracy_table("per game x type", analysis.by_game_type, ["game", "question_type"])
    )
    if analysis.errors:
        messages.print(
            f"[yellow]{analysis.errors} samples are errors (calls that failed after retries): "
            "they are excluded from accuracy; run the same command again to retry them.[/]"
        )
    if analysis.missing:
        messages.print(f"[yellow]{analysis.missing} samples were never stored (unfinished run).[/]")
    for warning in analysis.warnings:
        messages.print(f"[yellow]warning: {warning}[/]")


def render_counts(result: RunResult) -> None:
    """Print what this session did and what the whole run used (stderr)."""
    session, run = result.calls, result.run_calls

    def spent(totals: UsageTotals) -> str:
        cost = "unknown" if totals.usage.cost is None else f"${totals.usage.cost:.4f}"
        return f"{totals.usage.total_tokens} tokens, cost {cost}"

    messages.print(
        f"samples: {result.new_samples} new, {result.resumed_samples} resumed. "
        f"This session: {session.sent} calls sent, {session.cache_hits} from the cache, "
        f"{session.errors} failed; {spent(session)}. "
        f"Whole run: {run.sent} calls sent, {run.cache_hits} from the cache; {spent(run)}.",
        highlight=False,
    )
    messages.print(f"run directory: [bold]{result.run_dir}[/]", highlight=False)


def render_report(report: ModelReport) -> None:
    """Print the model table and the correlations of ``coordqa report``."""
    from coordqa.analysis import QUESTION_TYPES, format_mean_se

    table = Table(title="models", caption="amb/none/err/miss: ambiguous, no-answer, error, missing")
    table.add_column("model", overflow="fold")
    for column in (*QUESTION_TYPES, "overall"):
        table.add_column(f"{column} ± SE", justify="right")
    table.add_column("random", justify="right")
    table.add_column("amb/none/err/miss", justify="right")
    for row in report.models.to_dict(orient="records"):
        counts = "/".join(str(row[c]) for c in ("ambiguous", "no_answer", "error", "missing"))
        table.add_row(
            str(row["model"]),
            *[format_mean_se(row[c], row[f"{c}_se"]) for c in (*QUESTION_TYPES, "overall")],
            f"{row['random_baseline']:.3f}",
            counts,
        )
    console.print(table)
    corr = Table(title="correlations across models")
    for column in ("pair", "n", "pearson r (p)", "spearman rho (p)", "note"):
        corr.add_column(column)
    for c in report.correlations:
        corr.add_row(
            f"{c.x} vs {c.y}",
            str(c.n),
            f"{c.pearson_r:.3f} ({c.pearson_p:.3g})",
            f"{c.spearman_rho:.3f} ({c.spearman_p:.3g})",
            c.note,
        )
    console.print(corr)
    for warning in report.warnings:
        console.print(f"[yellow]warning: {warning}[/]")


# -- commands --------------------------------------------------------------------------------


def eval_command(
    model: Annotated[str, typer.Option("--model", "-m", help="Model name, e.g. openai/gpt-4o.")],
    dataset: Annotated[
        str | None, typer.Option(help="Dataset name or file (default: the bundled v1).")
    ] = None,
    api_base: Annotated[
        str | None, typer.Option("--api-base", help="Base URL of the model server.")
    ] = None,
    trials: Annotated[int, typer.Option(help="Samples per question.")] = 3,
    games: Annotated[str | None, typer.Option(help="Comma-separated games to keep.")] = None,
    types: Annotated[str | None, typer.Option(help="Comma-separated types: EC,ToM,JP.")] = None,
    limit: Annotated[int | None, typer.Option(help="Keep the first N questions.")] = None,
    concurrency: Annotated[int, typer.Option(help="Calls in flight at once.")] = 8,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.6,
    top_p: Annotated[float, typer.Option("--top-p", help="Nucleus sampling mass.")] = 0.9,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", help="Cap on reply tokens.")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Base seed; trial t uses seed + t.")] = None,
    prompt_layout: Annotated[
        str, typer.Option("--prompt-layout", help="system or no-system.")
    ] = "system",
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the response cache.")
    ] = False,
    max_attempts: Annotated[
        int, typer.Option("--max-attempts", help="Attempts per call, retries included.")
    ] = 6,
    timeout: Annotated[float, typer.Option(help="Seconds per attempt.")] = 120.0,
    max_error_rate: Annotated[
        float,
        typer.Option(
            "--max-error-rate",
            help="Share of samples (0-1) that may fail after retries without failing the run.",
        ),
    ] = 0.0,
    max_connection_failures: Annotated[
        int,
        typer.Option(
            "--max-connection-failures",
            help="Stop when this many attempts in a row get no answer from the server.",
        ),
    ] = 10,
    out: Annotated[
        Path | None,
        typer.Option(help="Run directory (default: derived from the options, so reruns resume)."),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress; only errors and the results.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON summary on stdout instead of tables.")
    ] = False,
) -> None:
    """Evaluate a model on CoordinationQA; rerun the same command to resume.

    Results go to stdout, progress and messages to stderr. Exit status: 0 when the run is
    complete (or its errors are within --max-error-rate), 1 when errors stopped it or left too
    many samples unanswered, 2 for bad options, 130 on Ctrl-C.
    """
    from coordqa.cli._progress import eval_display
    from coordqa.evaluation import EvalConfig, EvalFailed, EvalInterrupted, evaluate
    from coordqa.llm import CallPolicy

    config = EvalConfig(
        model=model,
        api_base=api_base,
        dataset=dataset,
        trials=trials,
        games=split_list(games),
        types=split_list(types),
        limit=limit,
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        seed=seed,
        prompt_layout=prompt_layout.replace("-", "_"),  # type: ignore[arg-type]
        cache=not no_cache,
        out=out,
        policy=CallPolicy(
            concurrency=concurrency,
            max_attempts=max_attempts,
            timeout_s=timeout,
            max_connection_failures=max_connection_failures,
        ),
        max_error_rate=max_error_rate,
    )
    display = eval_display(messages, quiet=quiet)
    try:
        result = evaluate(config, progress=display)
    except EvalInterrupted as stop:
        display.stop()
        messages.print(f"[yellow]{stop}[/]", highlight=False)
        raise typer.Exit(INTERRUPTED_EXIT) from None
    except EvalFailed as failure:
        display.stop()
        if failure.result is not None:
            show_result(failure.result, as_json=as_json, quiet=quiet)
        messages.print(f"[bold red]error:[/] {failure}", highlight=False)
        raise typer.Exit(RUN_FAILED_EXIT) from None
    finally:
        display.stop()
    show_result(result, as_json=as_json, quiet=quiet)


def show_result(result: RunResult, *, as_json: bool, quiet: bool) -> None:
    """The results on stdout (tables, or JSON); the counts on stderr unless ``quiet``."""
    if as_json:
        print(json.dumps(result.to_json(), indent=2, allow_nan=False))
    else:
        render_analysis(result.analysis)
    if not quiet:
        render_counts(result)


def score_command(
    runs: Annotated[list[Path], typer.Argument(help="Run directories to re-score.")],
) -> None:
    """Re-score stored replies with the current answer matching (no model calls)."""
    from coordqa.evaluation import score

    for run in runs:
        analysis = score(run)
        render_analysis(analysis)
        console.print(f"rewrote scores.jsonl and summary.json in [bold]{run}[/]")


def report_command(
    runs: Annotated[list[Path], typer.Argument(help="Scored run directories, one per model.")],
    out: Annotated[Path, typer.Option(help="Directory for tables, figures and report.md.")] = Path(
        "coordqa-report"
    ),
    sizes: Annotated[
        str | None, typer.Option(help="Model sizes for a size plot: name=7e9,other=70B.")
    ] = None,
) -> None:
    """Compare runs: model table, EC/ToM vs JP correlations, JP failures, figures."""
    from coordqa.analysis import compare_runs, write_report

    report = compare_runs(runs, sizes=parse_sizes(sizes))
    written = write_report(report, out)
    render_report(report)
    console.print(f"wrote {len(written)} files to [bold]{out}[/] (report.md, CSV, parquet, PNG)")


def register(app: typer.Typer) -> None:
    """Add ``eval``, ``score`` and ``report`` to the root app."""
    app.command("eval")(eval_command)
    app.command("score")(score_command)
    app.command("report")(report_command)
