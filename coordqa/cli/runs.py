"""Reading QA runs back: ``score``, ``report``, ``results``, ``compare`` and ``runs list``.

Each command calls one library function (:func:`coordqa.evaluation.score`,
:func:`coordqa.analysis.compare_runs`, :func:`coordqa.analysis.results_table`,
:func:`coordqa.analysis.compare_two_runs`, :func:`coordqa.analysis.list_runs`), every one of
which reads runs through :mod:`coordqa.store`, and prints tables that fit 80 columns.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from coordqa.cli._errors import warn
from coordqa.cli._lists import split_list
from coordqa.cli._outputs import generated_folder, output_file
from coordqa.cli._run_inputs import runs_to_report
from coordqa.cli._tables import (
    BOX,
    STATISTICS_CAPTION,
    name_column,
    new_table,
    number_column,
    print_entry,
)
from coordqa.cli.qa import AsJson
from coordqa.errors import ConfigError
from coordqa.outputs import QA_REPORT, make_output_file
from coordqa.words import counted, format_list

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import JustifyMethod

    from coordqa.analysis import ModelReport, RunComparison, RunSummary
    from coordqa.analysis.stats import Correlation
    from coordqa.store import UnreadableRunError

console = Console()
"""Tables: stdout."""
messages = Console(stderr=True)
"""Warnings and notes: stderr."""

RESULT_FORMATS = ("md", "csv", "parquet")
RESULTS_EXAMPLE = "results.csv"
"""The file ``results --out`` offers inside a folder given instead of a file."""
"""What ``coordqa results --format`` writes."""
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(e[0-9]+)?\s*([kmbt]?)\s*$", re.IGNORECASE)
"""A parameter count: a number (``7``, ``1.5``, ``7e9``) with an optional K, M, B or T."""
_SIZE_UNITS = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
_SUFFIXES = "a positive number; suffixes K, M, B, T allowed"


def _count(text: str) -> float | None:
    """``text`` as a parameter count, or None when it is not one.

    A model has parameters: 0 is refused here, in the same words as ``lots``, not later by the
    bundle's own rule.
    """
    match = _SIZE.match(text)
    if match is None:
        return None
    number, exponent, unit = match.groups()
    count = float(number + (exponent or "")) * _SIZE_UNITS[unit.lower()]
    return count if count > 0 else None


def parameter_count(text: str, option: str = "--params") -> float:
    """``--params 7B`` (or ``7e9``, ``350M``) as a number; the error names ``option``.

    Raises:
        ConfigError: not a number with an optional K, M, B or T suffix.
    """
    count = _count(text)
    if count is None:
        raise ConfigError(
            f"{option} {text!r} is not a parameter count; write e.g. {option} 7B or 7e9 "
            f"({_SUFFIXES})"
        )
    return count


def parse_sizes(value: str | Sequence[str] | None) -> dict[str, float]:
    """Parse ``--sizes model=7e9,other=70B`` (repeatable) into parameter counts per model name.

    Raises:
        ConfigError: an entry is not MODEL=SIZE (the count read as :func:`parameter_count`).
    """
    sizes: dict[str, float] = {}
    for item in split_list(value) or ():
        name, sep, amount = item.rpartition("=")
        count = _count(amount)
        if not sep or not name or count is None:
            raise ConfigError(
                f"--sizes entry {item!r} is not MODEL=SIZE; write e.g. "
                f"--sizes llama-3-8b=8e9,gpt-4o=1.8T ({_SUFFIXES})"
            )
        sizes[name.strip()] = count
    return sizes


# -- rendering -------------------------------------------------------------------------------


def _random_baseline(value: float) -> str:
    """The run's random baseline, or why it has none: it is taken over the run's questions."""
    from coordqa.analysis.stats import format_fraction

    if math.isnan(value):
        return "random baseline unknown (no question stored yet)"
    return f"random baseline {format_fraction(value)}"


def render_report(report: ModelReport) -> None:
    """Print the runs, models, paired comparisons and correlations of ``coordqa report``."""
    from coordqa.analysis.accuracy import INCOMPLETE_NOTE, trials_note
    from coordqa.analysis.report import (
        MIXED_NOTE,
        NO_SHARED_QUESTION,
        comparison_summary,
        unshared_pairs,
    )
    from coordqa.analysis.stats import PAIRED_P_METHOD, correlation_shortfall

    console.print(Text("runs", style="bold"))
    for row in report.models.itertuples():
        about = (
            f"{row.dataset} (fingerprint {row.fingerprint}), {row.n_questions} questions, "
            f"filters {row.filters}; {_random_baseline(row.random_baseline)}; {row.status}"
        )
        print_entry(
            console,
            Text(str(row.model), style="bold"),
            [Text(str(row.run), style="dim"), Text(about)],
        )

    console.print(Text("accuracy", style="bold"))
    for number, row in enumerate(report.models.to_dict(orient="records")):
        name = Text(str(row["model"]), style="bold")
        if note := trials_note(row["n_trials"]):
            name.append(f" ({note})", style="not bold")
        console.print(name, soft_wrap=True)
        console.print(_model_accuracy(row, header=number == 0))
    console.print(STATISTICS_CAPTION, highlight=False)
    if not report.models["complete"].all():
        console.print(INCOMPLETE_NOTE, highlight=False)

    if len(report.comparisons):
        console.print(Text("paired comparisons (same questions)", style="bold"))
        summary = comparison_summary(report.comparisons)
        for number, (pair, rows) in enumerate(summary.groupby("A vs B", sort=False)):
            console.print(Text(str(pair), style="bold"))  # wrapped between words, never cut
            console.print(_paired_rows(rows.drop(columns="A vs B"), header=number == 0))
        for pair in unshared_pairs(report.comparisons):
            console.print(Text(pair, style="bold"))
            console.print(NO_SHARED_QUESTION, highlight=False)
        if len(summary):
            console.print(
                "A - B: mean per-question accuracy difference; paired bootstrap 95% CI; "
                f"p: {PAIRED_P_METHOD}",
                highlight=False,
            )

    console.print(
        correlation_shortfall(report.correlations) or correlation_table(report.correlations)
    )
    if report.mixed:
        messages.print(f"[yellow]{MIXED_NOTE.replace('**', '')}[/]")
    runs = dict(zip(report.models["model"], report.models["run"], strict=True))
    for warning in report.warnings:  # "LABEL: TEXT", shown as the run's own log shows it
        label = next((lbl for lbl in runs if warning.startswith(f"{lbl}: ")), None)
        warn(warning if label is None else f"{runs[label]}: {warning.removeprefix(label + ': ')}")


def correlation_table(correlations: Sequence[Correlation]) -> Table:
    """The correlations across models, each pair one row with both coefficients and their p.

    Its caption says how p is computed, which depends on how many models there are.
    """
    from coordqa.analysis.report import format_coefficient
    from coordqa.analysis.stats import EXACT_MAX_N

    table = new_table(
        "correlations across models (one point per model)",
        f"p: exact permutation p (all n! pairings) up to n = {EXACT_MAX_N} models, "
        "asymptotic above",
    )
    for header in ("pair", "n", "pearson r (p)", "spearman rho (p)"):
        number_column(table, header)
    name_column(table, "note")
    for c in correlations:
        table.add_row(
            f"{c.x} vs {c.y}",
            str(c.n),
            format_coefficient(c.pearson_r, c.pearson_p),
            format_coefficient(c.spearman_rho, c.spearman_p),
            c.note,
        )
    return table


ONLY_HINT = "--only a-right,b-right,both-right,both-wrong,disagree chooses what is listed"
"""How ``coordqa compare`` lists other pairs: said under its table, or with "none of"."""


LEFT_OUT_OF_COMPARISON = "left out of this comparison"
"""What ``coordqa compare`` does with the samples an incomplete run lacks: no pair holds them."""


SELECTION_TITLES = {
    "a-right": "A right, B wrong",
    "b-right": "A wrong, B right",
    "both-right": "both right",
    "both-wrong": "both wrong",
    "disagree": "different choices",
}
"""How the listing of ``coordqa compare --only`` names each selection."""


REPORT_COLUMNS = {"type": 7, "acc ± SE": 15, "95% CI": 16, "amb": 4, "none": 4, "err": 4}
"""The accuracy columns of ``coordqa report`` and their widths, the same under every model (the
models head their rows, so no name is folded into a narrow column)."""


PAIRED_COLUMNS = {"type": 7, "A - B": 7, "95% CI": 16, "p": 7, "qs": 5}
"""The paired-comparison columns of ``coordqa report`` and their widths, the same under every
pair of runs (the pair heads its rows, so no name is folded into a narrow column)."""


def _paired_rows(rows: pd.DataFrame, *, header: bool) -> Table:
    """One pair's paired tests per scope, in :data:`PAIRED_COLUMNS`."""
    table = Table(box=BOX, show_header=header, show_edge=False)
    for name, width in PAIRED_COLUMNS.items():
        justify: JustifyMethod = "left" if name == "type" else "right"
        table.add_column(name, width=width, justify=justify, no_wrap=True)
    for row in rows.itertuples(index=False):
        table.add_row(*[str(value) for value in row])
    return table


def _model_accuracy(row: dict[str, Any], *, header: bool) -> Table:
    """One model's accuracy per scope, in :data:`REPORT_COLUMNS`."""
    from coordqa.analysis.accuracy import format_accuracy, format_interval
    from coordqa.analysis.report import SCOPES

    table = Table(box=BOX, show_header=header, show_edge=False)
    for name, width in REPORT_COLUMNS.items():
        justify: JustifyMethod = "left" if name == "type" else "right"
        table.add_column(name, width=width, justify=justify, no_wrap=True)
    for scope in SCOPES:
        counts = [str(row[s]) for s in ("ambiguous", "no_answer", "error")]
        table.add_row(
            scope,
            format_accuracy(
                row[scope],
                row[f"{scope}_se"],
                complete=bool(row["complete"]),
                trials=int(row["n_trials"]),
            ),
            format_interval(row[f"{scope}_ci_low"], row[f"{scope}_ci_high"]),
            *(counts if scope == "overall" else ["", "", ""]),
        )
    return table


def render_comparison(comparison: RunComparison, only: Sequence[str]) -> None:
    """Print the paired tests, both runs' McNemar table, and the pairs in ``only``."""
    from coordqa.analysis.accuracy import INCOMPLETE_MARK, format_interval, incomplete_run_said
    from coordqa.analysis.report import format_difference, format_p
    from coordqa.analysis.stats import PAIRED_P_METHOD

    incomplete = comparison.incomplete()
    marked = {side: f" {INCOMPLETE_MARK}" for side, _, _ in incomplete}
    a, b = comparison.label_a + marked.get("A", ""), comparison.label_b + marked.get("B", "")
    _line(f"A = {a}, B = {b}", style="bold")
    tests = new_table("")
    tests.add_column("type", no_wrap=True)
    for header in ("A - B", "95% CI", "p", "qs"):
        number_column(tests, header)
    for scope, result in comparison.paired.items():
        tests.add_row(
            scope,
            format_difference(result.difference),
            format_interval(result.interval.low, result.interval.high),
            format_p(result.p_value),
            str(result.n_questions),
        )
    console.print(tests)
    _line(
        "A - B: mean per-question accuracy difference; paired bootstrap 95% CI; "
        f"p: {PAIRED_P_METHOD}"
    )
    console.print(_mcnemar_table(comparison))
    errors = comparison.counts()["error"]
    console.print(
        f"wrong: a wrong letter, ambiguous or no_answer; {errors} pair{'s' * (errors != 1)} "
        "with an error in A or B left out",
        highlight=False,
    )
    for side, label, run in incomplete:
        how = (
            f"`coordqa eval` with the same options, --out {run.run_dir}; `coordqa eval-set` with "
            "its spec for a member of an eval set"
        )
        said = incomplete_run_said(f"{side} ({label})", run.lacks, LEFT_OUT_OF_COMPARISON, how)
        console.print(f"{INCOMPLETE_MARK} {said}", highlight=False, markup=False)
    selected = comparison.select(only)
    shown = " or ".join(SELECTION_TITLES[name] for name in only)
    pairs = f"{comparison.shared_samples} (question, trial) pairs"
    if selected.empty:  # an empty table, headers and all, read as output gone missing
        _line(f"{shown}: none of the {pairs} ({ONLY_HINT})")
    else:
        _line(f"{shown}: {len(selected)} of {pairs}")
        _pairs_table(selected)
    if comparison.mixed:
        messages.print(
            "[yellow]The runs answered different question sets (--allow-mixed): only the "
            "questions both asked with the same text and answer key are compared.[/]"
        )


def _pairs_table(selected: pd.DataFrame) -> None:
    """The pairs ``--only`` chose, one row each, and what their cells say."""
    table = new_table("")
    table.pad_edge = False  # the longest id (39 characters) and every column fit 80 columns
    table.add_column("question", no_wrap=True)  # whole, to be copied (--ids): never folded
    for header in ("trial", "type", "answer", "A", "B"):
        number_column(table, header)
    for row in selected.itertuples():
        table.add_row(
            str(row.question_id),
            str(row.trial),
            str(row.question_type),
            str(row.answer),
            _marked(str(row.a), bool(row.a_correct)),
            _marked(str(row.b), bool(row.b_correct)),
        )
    console.print(table)
    _line(
        f"A/B: the letter each run chose, or its outcome (ambiguous, no_answer, error); {ONLY_HINT}"
    )


def _line(text: str, style: str = "") -> None:
    """A title or caption of ``coordqa compare`` as a line of its own.

    It wraps between words at the terminal's width; as a table's title or caption it was wrapped
    to the table's width (about 40 columns), which cut long names and ``disagree`` in two.
    """
    console.print(Text(text, style=style), highlight=False)


def _mcnemar_table(comparison: RunComparison) -> Table:
    """Both runs' samples in a 2 x 2 table: right or wrong in A against right or wrong in B."""
    counts = comparison.counts()
    table = new_table("right or wrong, per (question, trial)")
    table.add_column("", no_wrap=True)
    for header in ("B right", "B wrong", "total"):
        number_column(table, header)
    cells = [
        [counts["both-right"], counts["a-right"]],
        [counts["b-right"], counts["both-wrong"]],
    ]
    for name, row in zip(("A right", "A wrong"), cells, strict=True):
        table.add_row(name, *map(str, row), str(sum(row)))
    columns = [cells[0][i] + cells[1][i] for i in range(2)]
    table.add_row("total", *map(str, columns), str(sum(columns)))
    return table


def _marked(outcome: str, correct: bool) -> str:
    return f"[green]{outcome} ✓[/]" if correct else outcome


# -- commands --------------------------------------------------------------------------------


def score_command(
    runs: Annotated[list[Path], typer.Argument(help="Run directories to re-score.")],
    as_json: AsJson = False,
) -> None:
    """Re-score stored replies with the current answer matching (no model calls).

    ``--json`` prints what ``coordqa eval --json`` prints of the run, less the counts of an
    eval session (samples, calls, dropped parameters); a list of them for several runs.
    """
    from coordqa.cli.qa import print_json, render_analysis
    from coordqa.evaluation import run_json, score
    from coordqa.store import open_run

    summaries = []
    for run in runs:
        analysis = score(run)
        if as_json:
            summaries.append(run_json(run, open_run(run).manifest, analysis))
        else:
            render_analysis(analysis)
        messages.print(f"rewrote scores.jsonl and summary.json in [bold]{run}[/]", soft_wrap=True)
    if as_json:
        print_json(summaries[0] if len(summaries) == 1 else summaries)


def report_command(
    runs: Annotated[
        list[Path],
        typer.Argument(
            help="QA run directories, one per model, eval-set folders, or folders holding runs."
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            help="Directory for tables, figures and report.md (new, empty, or an earlier report).",
            callback=generated_folder(QA_REPORT),
        ),
    ] = Path("coordqa-report"),
    sizes: Annotated[
        list[str] | None,
        typer.Option(help="Model sizes for a size plot: name=7e9,other=70B (or repeat it)."),
    ] = None,
    allow_mixed: Annotated[
        bool,
        typer.Option(
            "--allow-mixed",
            help="Compare runs over different question sets (the report says so).",
        ),
    ] = False,
    reference: Annotated[
        str | None,
        typer.Option(
            help="A model (or run label): paired tests of every other run of each dataset "
            "against its run of that dataset only."
        ),
    ] = None,
    dataset: Annotated[
        str | None,
        typer.Option(help="Report only the runs of this dataset (default: each dataset)."),
    ] = None,
) -> None:
    """Compare runs: accuracies with both uncertainties, paired tests, correlations, figures.

    An eval-set folder stands for its members' run directories, any other folder for the QA
    runs in it. Runs of different datasets are reported apart, one report per dataset
    (--out DIR/<dataset>/ when there are several).
    """
    from coordqa.analysis import compare_by_dataset, write_reports
    from coordqa.cli._errors import nothing_written_to
    from coordqa.cli._progress import reading_note
    from coordqa.evalset import expand_sets

    with nothing_written_to(out):
        found = runs_to_report(expand_sets(runs), "qa")
        with reading_note(messages, len(found)):
            reports = compare_by_dataset(
                found,
                sizes=parse_sizes(sizes),
                dataset=dataset,
                allow_mixed=allow_mixed,
                reference=reference,
            )
        written = write_reports(reports, out)
    for item in reports:
        if len(reports) > 1:
            heading = f"dataset {item.group.title} ({counted(len(item.report.models), 'run')})"
            console.rule(Text(heading, style="bold"), align="left")
        render_report(item.report)
    folders = " (one folder per dataset)" if len(reports) > 1 else ""
    messages.print(
        f"wrote {len(written)} files to [bold]{out}[/]{folders} (report.md, CSV, parquet, PNG)"
    )


def results_command(
    run: Annotated[Path, typer.Argument(help="A QA run directory.")],
    wrong: Annotated[
        bool,
        typer.Option(
            "--wrong",
            help="Only questions with a trial that is not right (wrong, ambiguous, no_answer).",
        ),
    ] = False,
    game: Annotated[
        list[str] | None,
        typer.Option("--game", help="Only these games: hanabi,overcooked (or repeat it)."),
    ] = None,
    question_type: Annotated[
        list[str] | None,
        typer.Option("--type", help="Only these question types: EC,ToM,JP (or repeat it)."),
    ] = None,
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="md (default), csv or parquet.")
    ] = "md",
    out: Annotated[
        Path | None,
        typer.Option(
            help="File to write (default: stdout; parquet needs one).",
            callback=output_file(RESULTS_EXAMPLE),
        ),
    ] = None,
) -> None:
    """One row per question: game, type, answer, and each trial's choice and correctness."""
    from coordqa.analysis import markdown_table, results_table

    if output_format not in RESULT_FORMATS:
        from coordqa.registry import not_one_of  # rapidfuzz: only for a wrong name

        raise ConfigError(not_one_of("--format", output_format, RESULT_FORMATS))
    if output_format == "parquet" and out is None:
        raise ConfigError("--format parquet writes a binary file: give it with --out FILE")
    table = results_table(run, games=split_list(game), types=split_list(question_type), wrong=wrong)
    if output_format == "md":
        text = markdown_table(table) + "\n"
    elif output_format == "csv":
        text = table.to_csv(index=False)
    if out is None:
        sys.stdout.write(text)
        return
    make_output_file(out, "--out", RESULTS_EXAMPLE)
    if output_format == "parquet":
        table.to_parquet(out, index=False)
    else:
        out.write_text(text, encoding="utf-8")
    messages.print(f"wrote {len(table)} questions to [bold]{out}[/]", soft_wrap=True)


def compare_command(
    runs: Annotated[
        list[Path],
        typer.Argument(help="Two QA runs, A then B (or a folder holding exactly two)."),
    ],
    only: Annotated[
        list[str] | None,
        typer.Option(
            help="Which pairs to list, comma-separated or repeated: a-right (A right, "
            "B wrong), b-right, both-right, both-wrong, disagree (different choices). "
            "Default: a-right,b-right."
        ),
    ] = None,
    allow_mixed: Annotated[
        bool,
        typer.Option("--allow-mixed", help="Compare runs over different question sets."),
    ] = False,
) -> None:
    """Question by question: paired tests per type, right/wrong counts, the pairs asked for."""
    from coordqa.analysis import compare_two_runs
    from coordqa.analysis.results import DEFAULT_SELECTION

    found = runs_to_report(runs, "qa")
    named = {run.resolve() for run in runs}
    if len(named) < len(runs) and named == {run.resolve() for run in found}:
        raise ConfigError("the same run was named twice: compare needs two different runs")
    if len(found) != 2:
        listed = ", ".join(map(str, found))
        raise ConfigError(
            f"coordqa compare needs exactly two QA runs, A and B; {len(found)} found: {listed}. "
            "Name the two run directories (coordqa report compares more)."
        )
    comparison = compare_two_runs(*found, allow_mixed=allow_mixed)
    comparison.require_shared()
    selection = DEFAULT_SELECTION if not only else (split_list(only) or ())
    comparison.select(selection)  # an unknown name is a bad option: said before any output
    render_comparison(comparison, selection)


def list_command(
    directories: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Folders holding run directories (searched recursively), or run directories; "
            "all listed in one table. Default: runs."
        ),
    ] = None,
) -> None:
    """List runs: status, accuracy, answered samples, question count, date; newest first.

    Every folder is read before anything is printed, so a mistyped one is refused (exit 2)
    instead of ending a listing halfway.
    """
    from coordqa.agentic import read_agentic_run
    from coordqa.analysis import joined_run_list, list_runs_in
    from coordqa.analysis.accuracy import INCOMPLETE_MARK, INCOMPLETE_NOTE
    from coordqa.play import read_play_run

    readers = {"agentic": read_agentic_run, "play": read_play_run}
    folders = directories or [Path("runs")]
    listing = joined_run_list(list_runs_in(folders, readers))
    render_run_list(format_list([str(folder) for folder in folders]), listing.runs)
    render_unreadable(listing.unreadable)
    if any(INCOMPLETE_MARK in s.accuracy for s in listing.runs):
        messages.print(INCOMPLETE_NOTE)


RUN_LIST_COLUMNS = ("accuracy", "answered", "qs", "status", "created (UTC)")
"""The aligned columns under each run's path in ``coordqa runs list``."""


def render_run_list(directory: Path | str, summaries: Sequence[RunSummary]) -> None:
    """Each run's path (whole, to be copied) with its label, players, model and data; its numbers.

    A table column for the paths would fold them into pieces at 80 columns (the default names
    run to 40 characters and more), so the paths head the rows instead. ``directory`` names the
    folders given (one table for all: :func:`~coordqa.analysis.joined_run_list`). Folders whose
    runs are all unreadable get one line saying so (they are listed after it, as beside readable
    ones).
    """
    if not summaries:
        console.print(Text(f"no readable runs in {directory}", style="bold"), soft_wrap=True)
        return
    rows = [
        (
            s.accuracy,
            s.answered,
            "-" if s.questions is None else str(s.questions),
            s.status,
            s.created.strftime("%Y-%m-%d %H:%M"),
        )
        for s in summaries
    ]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(RUN_LIST_COLUMNS)]

    def line(cells: Sequence[str]) -> Text:
        numbers = [c.rjust(w) for c, w in zip(cells[:3], widths[:3], strict=True)]
        words = [c.ljust(w) for c, w in zip(cells[3:], widths[3:], strict=True)]
        return Text("  " + "  ".join([*numbers, *words]).rstrip())

    console.print(
        Text(f"runs in {directory} ({len(summaries)}, newest first)", style="bold"), soft_wrap=True
    )
    console.print(line(RUN_LIST_COLUMNS), style="dim")
    for summary, row in zip(summaries, rows, strict=True):
        path = Text(str(summary.path), style="bold")
        named = (summary.label, summary.players, summary.model, summary.dataset)
        about = " · ".join(part for part in named if part)
        if len(path) + 2 + len(about) <= console.width:
            path.append(f"  {about}", style="dim")
            about = ""
        console.print(path, soft_wrap=True)  # never folded, even when longer than the screen
        if about:
            console.print(Text(f"  {about}", style="dim"))
        console.print(line(row))


def render_unreadable(problems: Sequence[UnreadableRunError]) -> None:
    """Each run folder that cannot be read: its path, what is wrong, and what to do."""
    if not problems:
        return
    console.print(Text(f"unreadable run folders ({len(problems)})", style="bold"))
    for problem in problems:
        console.print(Text(str(problem.path), style="bold"), soft_wrap=True)
        console.print(Text(f"  unreadable: {problem.problem}; {problem.fix}"))


def register(app: typer.Typer) -> None:
    """Add ``score``, ``report``, ``results``, ``compare`` and ``runs list`` to the root app."""
    app.command("score")(score_command)
    app.command("report")(report_command)
    app.command("results")(results_command)
    app.command("compare")(compare_command)
    runs = typer.Typer(help="Find and list run directories.", no_args_is_help=True)
    runs.command("list")(list_command)
    app.add_typer(runs, name="runs")
