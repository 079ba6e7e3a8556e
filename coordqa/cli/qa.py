"""``coordqa eval``: evaluating a model on CoordinationQA.

The command parses its options into an :class:`~coordqa.evaluation.EvalConfig`, calls
:func:`coordqa.evaluation.evaluate` and renders the result with rich (the tables come from
:mod:`coordqa.cli._tables`; reading runs back is :mod:`coordqa.cli.runs`). Library imports
happen inside the command so ``coordqa --help`` stays fast.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from coordqa.cli._call_options import (
    SAMPLING_FLAGS,
    ApiBase,
    ApiKeyEnv,
    CallOptions,
    Concurrency,
    MaxAttempts,
    MaxConnectionFailures,
    ModelArg,
    Rpm,
    Timeout,
    Tpm,
    Transport,
    parse_model_args,
)
from coordqa.cli._errors import (
    INTERRUPTED_EXIT,
    RUN_FAILED_EXIT,
    interrupted_as,
    settings_as_options,
    warn,
)
from coordqa.cli._lists import split_list
from coordqa.cli._outputs import run_folder
from coordqa.cli._progress import Quiet
from coordqa.cli._tables import rich_accuracy_table
from coordqa.errors import NOTHING_STARTED, ConfigError
from coordqa.eval_config import eval_default
from coordqa.given_lists import parse_ids
from coordqa.jsonvalues import rounded
from coordqa.prompts import layout_named
from coordqa.words import counted

if TYPE_CHECKING:
    from coordqa.analysis import RunAnalysis
    from coordqa.evaluation import RunResult
    from coordqa.jsonvalues import JSONObject
    from coordqa.llm import UsageTotals

console = Console()
"""Results (tables, JSON): stdout, so that ``coordqa eval ... > results.txt`` keeps only them."""
messages = Console(stderr=True, soft_wrap=True)
"""Progress, counts, warnings and errors: stderr."""


# -- rendering -------------------------------------------------------------------------------


def headline_lines(analysis: RunAnalysis) -> list[str]:
    """Overall accuracy with both uncertainties, then questions and trials (one line if none)."""
    from coordqa.analysis.accuracy import ONE_TRIAL_NOTE, format_accuracy, format_interval

    row = analysis.overall[0]
    if math.isnan(row["accuracy"]):
        why = analysis.status_note or "no sample"
        baseline = row["random_baseline"]  # known from the stored questions
        known = "" if math.isnan(baseline) else f"; random {baseline:.3f}"
        return [f"no accuracy, no sample is answered ({why}){known}"]
    trials = int(row["n_trials"])
    accuracy = format_accuracy(
        row["accuracy"], row["se"], complete=analysis.complete, trials=trials
    )
    accuracy += f" ({ONE_TRIAL_NOTE})" if trials < 2 else " (trial SE)"
    return [
        f"overall accuracy {accuracy}",
        f"95% CI {format_interval(row['ci_low'], row['ci_high'])} (questions); "
        f"{counted(int(row['n_questions']), 'question')} x {counted(trials, 'trial')}; "
        f"random {row['random_baseline']:.3f}",
    ]


def headline(analysis: RunAnalysis) -> str:
    """The run in two short lines: overall accuracy with both uncertainties; questions, trials."""
    first, *rest = headline_lines(analysis)
    return "\n".join([f"{analysis.name}: {first}", *(f"  {line}" for line in rest)])


def render_analysis(analysis: RunAnalysis, *, said_below: bool = False) -> None:
    """Print the headline, the accuracy tables of a run and whatever makes it incomplete.

    ``said_below``: the run's error, printed after, gives the advice on its errors whole (one
    run says each advice once).
    """
    title = f"{analysis.name}: accuracy per question type"
    complete = analysis.complete
    console.print(headline(analysis), highlight=False)
    if len(analysis.by_type):  # no answered sample, no rows: the headline said so
        console.print(
            rich_accuracy_table(
                title,
                analysis.by_type,
                ["question_type"],
                complete=complete,
                overall=analysis.overall,
            )
        )
        console.print(
            rich_accuracy_table(
                "per game x type",
                analysis.by_game_type,
                ["game", "question_type"],
                complete=complete,
                overall=analysis.overall,
            )
        )
    if analysis.errors:
        from coordqa.llm.registry import runs_in_process
        from coordqa.runs.watch import retry_advice

        advice = retry_advice(
            analysis.errors,
            analysis.errors_over_context,
            analysis.errors_timed_out,
            said_below=said_below,
            in_process=runs_in_process(analysis.model),
            capped=analysis.replies_capped,
        )
        messages.print(
            f"[yellow]{_errors_said(analysis.errors)}: excluded from accuracy; {advice}.[/]"
        )
    if analysis.missing:
        never = "was" if analysis.missing == 1 else "were"
        messages.print(
            f"[yellow]{counted(analysis.missing, 'sample')} {never} never stored "
            "(unfinished run).[/]"
        )
    if analysis.empty_replies:
        messages.print(
            f"empty replies: {analysis.empty_replies} (the model answered nothing: read as "
            "no answer, counted wrong)",
            highlight=False,
        )
    if analysis.empty_at_max_tokens:
        messages.print(
            f"[yellow]{counted(analysis.empty_at_max_tokens, 'empty reply', 'empty replies')} "
            "stopped at the token cap "
            "(finish reason length): raise --max-tokens to leave the model room to answer.[/]",
            highlight=False,
        )
    for warning in analysis.warnings:
        warn(f"{analysis.run_dir}: {warning}")


def render_counts(result: RunResult) -> None:
    """Print what this session did and what the whole run used (stderr)."""
    from coordqa.cli._progress import cost_words

    session, run = result.calls, result.run_calls

    def spent(totals: UsageTotals) -> str:
        implausible = totals.usage.implausible_counts
        unbelieved = (
            f" ({counted(implausible, 'call')} reported token counts that cannot be right: "
            "not counted)"
            if implausible
            else ""
        )
        return f"{totals.usage.total_tokens} tokens{unbelieved}, {cost_words(totals)}"

    def calls(totals: UsageTotals, failed_note: str = "") -> str:
        return (
            f"{counted(totals.sent, 'call')} sent, {totals.cache_hits} from the cache, "
            f"{totals.errors} failed{failed_note}; {spent(totals)}"
        )

    analysis = result.analysis
    # A sample's latest call stands; a failed call behind a later one was asked again, so the
    # run's failed calls are not read as failed samples (issue 38).
    asked_again = run.errors - analysis.errors
    failed_note = ""
    if asked_again > 0:
        again = "" if asked_again == run.errors else f"{asked_again} "
        failed_note = f" ({again}asked again since)"
    standing = ""
    if run.errors:
        answered = analysis.stored_samples - analysis.errors
        needed = analysis.expected_samples or analysis.stored_samples
        standing = f" {answered} of {needed} samples answered."
    messages.print(
        f"samples: {result.new_samples} new, {result.resumed_samples} resumed. "
        f"This session: {calls(session)}. Whole run: {calls(run, failed_note)}.{standing}",
        highlight=False,
    )
    if session.cache_hits:  # what the replies were asked of, in the model's terms
        from coordqa.llm.registry import cached_reply_words

        messages.print(
            f"{counted(session.cache_hits, 'reply', 'replies')} of this session came from the "
            f"reply cache: {cached_reply_words(result.manifest.config['model'])}",
            highlight=False,
        )
    dataset = result.manifest.dataset
    if dataset is not None:
        from coordqa.dataset import identity_line

        shown = identity_line(dataset.name, dataset.version, dataset.fingerprint)
        messages.print(f"dataset: {shown}", highlight=False)
    messages.print(f"run directory: [bold]{result.run_dir}[/]", highlight=False)


# -- commands --------------------------------------------------------------------------------


EVAL_OPTIONS = {
    "api_base": "--api-base",
    "api_key_env": "--api-key-env",
    "model_args": "--model-arg",
    "label": "--label",
    "trials": "--trials",
    "limit": "--limit",
    "sample": "--sample",
    "ids": "--ids",
    "prompt_layout": "--prompt-layout",
    "transport": "--transport",
    "max_error_rate": "--max-error-rate",
    "policy.timeout_s": "--timeout",
    **SAMPLING_FLAGS,
}
"""The :class:`~coordqa.eval_config.EvalConfig` setting each option of ``eval`` fills, for its
refusals (:class:`~coordqa.errors.SettingError`) to name the option the user typed."""


def eval_command(
    model: Annotated[str, typer.Option("--model", "-m", help="Model name, e.g. openai/gpt-4o.")],
    dataset: Annotated[
        str | None,
        typer.Option(help="Dataset name or file (default: the current bundled release)."),
    ] = None,
    api_base: ApiBase = None,
    trials: Annotated[int, typer.Option(help="Samples per question.")] = eval_default("trials"),
    games: Annotated[
        list[str] | None, typer.Option(help="Games to keep: hanabi,overcooked (or repeat it).")
    ] = None,
    types: Annotated[
        list[str] | None, typer.Option(help="Question types to keep: EC,ToM,JP (or repeat it).")
    ] = None,
    ids: Annotated[
        list[str] | None,
        typer.Option(
            help="Only these question ids: id1,id2,... or a file of one id per line "
            "(repeat it to add more)."
        ),
    ] = None,
    sample: Annotated[
        int | None,
        typer.Option(help="A random sample of N questions, stratified over game x type."),
    ] = None,
    sample_seed: Annotated[
        int | None,
        typer.Option("--sample-seed", help="Seed of --sample (default: --seed, else 0)."),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            help="Keep the first N questions in dataset order, after the other filters "
            "(not a random subset: see --sample)."
        ),
    ] = None,
    concurrency: Concurrency = None,
    temperature: Annotated[float | None, typer.Option(help="Sampling temperature.")] = eval_default(
        "temperature"
    ),
    top_p: Annotated[
        float | None, typer.Option("--top-p", help="Nucleus sampling mass.")
    ] = eval_default("top_p"),
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens",
            help="Cap on reply tokens (default: the provider's; llamacpp/ models: 256).",
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Base seed; trial t uses seed + t.")] = None,
    prompt_layout: Annotated[
        str, typer.Option("--prompt-layout", help="system or no-system.")
    ] = eval_default("prompt_layout").replace("_", "-"),
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the response cache.")
    ] = False,
    max_attempts: MaxAttempts = None,
    timeout: Timeout = None,
    max_error_rate: Annotated[
        float,
        typer.Option(
            "--max-error-rate",
            help="Share of samples (0-1) that may fail after retries without failing the run.",
        ),
    ] = eval_default("max_error_rate"),
    rpm: Rpm = None,
    tpm: Tpm = None,
    api_key_env: ApiKeyEnv = None,
    model_arg: ModelArg = None,
    max_connection_failures: MaxConnectionFailures = None,
    transport: Transport = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Run directory (default: derived from the options, so reruns resume).",
            callback=run_folder,
        ),
    ] = None,
    quiet: Quiet = False,
    as_json: AsJson = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Show each call as it is stored: question id, trial, reply and how it was read.",
        ),
    ] = False,
    label: Annotated[
        str | None,
        typer.Option(help="A short name for the run in reports, lists and the viewer."),
    ] = None,
) -> None:
    """Evaluate a model on CoordinationQA; rerun the same command to resume.

    Results go to stdout, progress and messages to stderr. Exit status: 0 when the run is
    complete (or its errors are within --max-error-rate), 1 when errors stopped it or left too
    many samples unanswered, 2 for bad options, 130 on Ctrl-C, 141 when the output was closed
    by its reader (| head; what was finished is stored).
    """
    with interrupted_as(NOTHING_STARTED):  # importing the run's modules takes a second
        from coordqa.cli._progress import eval_display, live_run
        from coordqa.evaluation import EvalConfig, EvalFailed, EvalInterrupted, evaluate

    with settings_as_options(EVAL_OPTIONS):  # the library's parameter names, as flags
        if quiet and verbose:
            raise ConfigError("--quiet and --verbose ask for opposite things; give one of them")
        config = EvalConfig(
            model=model,
            label=label,
            api_base=api_base,
            dataset=dataset,
            trials=trials,
            games=split_list(games),
            types=split_list(types),
            ids=parse_ids(ids),
            sample=sample,
            sample_seed=(
                sample_seed
                if sample_seed is not None
                else seed
                if seed is not None
                else eval_default("sample_seed")
            ),
            limit=limit,
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            seed=seed,
            prompt_layout=layout_named(prompt_layout),  # type: ignore[arg-type]
            cache=not no_cache,
            out=out,
            policy=CallOptions(
                concurrency, rpm, tpm, timeout, max_attempts, max_connection_failures
            ).policy(),
            max_error_rate=max_error_rate,
            model_args=parse_model_args(model_arg),
            api_key_env=api_key_env,
            transport=transport or eval_default("transport"),  # type: ignore[arg-type]  # checked by EvalConfig
        )
        display = eval_display(messages, quiet=quiet, verbose=verbose)
        try:
            with live_run(display, messages, EvalInterrupted):
                result = evaluate(config, progress=display)
        except KeyboardInterrupt:  # while reading the dataset, before the run's session began
            display.stop()
            messages.print(f"[yellow]{NOTHING_STARTED}[/]")
            raise typer.Exit(INTERRUPTED_EXIT) from None
        except EvalFailed as failure:
            display.stop()
            if failure.result is not None:
                show_result(failure.result, as_json=as_json, quiet=quiet, said_below=True)
            messages.print(f"[bold red]error:[/] {failure}", highlight=False)
            raise typer.Exit(RUN_FAILED_EXIT) from None
        finally:
            display.stop()
        try:
            show_result(result, as_json=as_json, quiet=quiet)
        except KeyboardInterrupt:  # walkthrough 30: the tables were cut with no word
            messages.print(
                f"[yellow]interrupted while its results were printed: the run in "
                f"{result.run_dir} is complete (coordqa score {result.run_dir} prints its "
                "tables)[/]",
                highlight=False,
            )
            raise typer.Exit(INTERRUPTED_EXIT) from None


def _errors_said(errors: int) -> str:
    """``errors`` error samples as a sentence's subject and verb, singular or plural."""
    if errors == 1:
        return "1 sample is an error (a call that failed after retries)"
    return f"{errors} samples are errors (calls that failed after retries)"


JSON_FLOAT_DIGITS = 6
"""Decimals of the floats ``--json`` prints (stated in its ``float_digits``); the run directory
keeps every number exact."""


AsJson = Annotated[
    bool, typer.Option("--json", help="Print a JSON summary on stdout instead of tables.")
]
"""``--json`` of ``eval`` and ``score``: the same summary of a run (:func:`print_json`)."""


def print_json(run: JSONObject | list[JSONObject]) -> None:
    """A run's JSON summary (or a list of them) on stdout, floats rounded.

    Each summary states its decimals (``float_digits``, :data:`JSON_FLOAT_DIGITS`).
    """
    stated = (
        [{"float_digits": JSON_FLOAT_DIGITS, **one} for one in run]
        if isinstance(run, list)
        else {"float_digits": JSON_FLOAT_DIGITS, **run}
    )
    print(json.dumps(rounded(stated, JSON_FLOAT_DIGITS), indent=2, allow_nan=False))


def show_result(result: RunResult, *, as_json: bool, quiet: bool, said_below: bool = False) -> None:
    """The results on stdout (tables, or JSON); the counts on stderr unless ``quiet``.

    ``said_below``: the run failed, and its error, printed next, says what to do.
    """
    if as_json:
        print_json(result.to_json())
    else:
        render_analysis(result.analysis, said_below=said_below)
    if not quiet:
        render_counts(result)
    elif not as_json:  # the JSON names it
        messages.print(f"run directory: [bold]{result.run_dir}[/]", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``eval`` to the root app."""
    app.command("eval")(eval_command)
