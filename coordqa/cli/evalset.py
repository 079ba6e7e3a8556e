"""``coordqa eval-set``: many models x datasets as one resumable set.

The command turns a spec file and/or command-line options into an
:class:`~coordqa.evalset.EvalSetSpec`, calls :func:`coordqa.evalset.evaluate_set`, shows the
members as they run (:mod:`coordqa.cli._set_progress`), then each member with its accuracy.
Exit status: 0 when every member the command names is complete, 1 when one failed (its message
printed), 2 for bad options, 130 on Ctrl-C, 141 when the output's reader closed it; members only
an earlier session named are listed as they stand and do not change it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.text import Text
from typer._click.exceptions import NoSuchOption, UsageError  # typer's own click
from typer.core import TyperCommand

from coordqa.cli._call_options import CallOptions, EndpointOptions, Transport
from coordqa.cli._errors import RUN_FAILED_EXIT, interrupted_as, settings_as_options
from coordqa.cli._option_groups import option_groups
from coordqa.cli._progress import Quiet
from coordqa.cli._tables import print_entry
from coordqa.errors import NOTHING_STARTED, ConfigError
from coordqa.outputs import check_run_output

if TYPE_CHECKING:
    from typer._click import Context  # typer's own click, whose types it does not export

    from coordqa.analysis.accuracy import RunAnalysis
    from coordqa.evalset import SetResult

console = Console()
"""The members: stdout."""
messages = Console(stderr=True, soft_wrap=True)
"""Member events and failures: stderr."""


SPEC_FIELDS = {"requests_per_minute": "rpm", "tokens_per_minute": "tpm"}
"""The spec's names of the call options it names otherwise than :class:`CallPolicy` does."""


def render_set(result: SetResult) -> None:
    """The members with their accuracies (stdout), then failures and members left out (stderr).

    On stderr: the message of every member this session named that failed, and each member of
    an earlier session left out as it stored no run.

    Each member is an entry, its names whole (model and dataset, then status, samples, the
    headline accuracy ``coordqa eval`` prints and the run directory): table cells cut dataset
    names and run directories into pieces at 80 columns.
    """
    from coordqa.cli.qa import headline_lines

    analyses = result.analyses()
    manifest = result.manifest
    console.print(Text(f"eval set {result.out}", style="bold"), soft_wrap=True)
    for member in manifest.members:
        status = member.status + (" (skipped)" if member.skipped else "")
        if manifest.content_changed(member):
            status += " (earlier session; the dataset has changed since: naming it runs the new)"
        elif member.earlier:  # not named this session: kept as it was, not run again
            finish = "" if member.status == "complete" else "; name it again to finish it"
            status += f" (earlier session, not named this time{finish})"
        analysis = analyses.get(member.run) if member.run is not None else None
        if member.expected:
            status += f", {member.answered}/{member.expected} samples"
            status += _more_trials_note(analysis, manifest.shared.get("trials"))
        accuracy = [] if analysis is None else [Text(line) for line in headline_lines(analysis)]
        run = member.run or "none: it stopped before its run began, so it made no folder"
        print_entry(
            console,
            Text(manifest.label(member), style="bold"),
            [Text(status), *accuracy, Text(f"run: {run}", style="dim")],
        )
    console.print("run directories are relative to the set", style="dim")
    for member in result.failed:
        messages.print(
            f"[bold red]{member.status}:[/] {member.model} on {member.dataset}: {member.message}",
            highlight=False,
        )
    for member in result.dropped:
        messages.print(
            f"[bold]left out:[/] {member.model} on {member.dataset}: an earlier session named "
            "it and it stored no run (nothing is lost); name it again to run it",
            highlight=False,
        )


def _more_trials_note(analysis: RunAnalysis | None, asked: object) -> str:
    """`` (4 trials, more than the set's 3)`` for a member's run extended beyond the set, or "".

    Such a member is complete (:func:`~coordqa.evalset.members.member_state`); its samples are
    counted as its run holds them, and this says why they are more than the set asks.
    """
    if analysis is None or not isinstance(asked, int) or not analysis.overall:
        return ""
    held = analysis.overall[0]["n_trials"]
    if not isinstance(held, int) or held <= asked:
        return ""
    return f" ({held} trials, more than the set's {asked})"


def set_folder(param: typer.CallbackParam, value: Path | None) -> Path | None:
    """Check the set's folder: missing, empty or a set, not a run's.

    The rules: :func:`~coordqa.outputs.check_run_output`, then the run's refusal.
    """
    from coordqa.evalset.manifest import refuse_run_folder

    if value is not None:
        check_run_output(value, "eval set", "--out")
        refuse_run_folder(value)
    return value


@option_groups
def eval_set_command(
    spec_file: Annotated[
        Path | None,
        typer.Argument(help="A YAML spec: models, datasets and shared settings (optional)."),
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option("--model", "-m", help="A model to add (repeatable), e.g. openai/gpt-4o."),
    ] = None,
    dataset: Annotated[
        list[str] | None,
        typer.Option(help="A dataset name or file (repeatable; default: the current release)."),
    ] = None,
    endpoint: EndpointOptions = EndpointOptions(),
    trials: Annotated[int | None, typer.Option(help="Samples per question.")] = None,
    limit: Annotated[int | None, typer.Option(help="The first N questions only.")] = None,
    sample: Annotated[int | None, typer.Option(help="A stratified sample of N questions.")] = None,
    seed: Annotated[int | None, typer.Option(help="Base seed; trial t uses seed + t.")] = None,
    calls: CallOptions = CallOptions(),
    transport: Transport = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the response cache.")
    ] = False,
    backend: Annotated[
        str | None, typer.Option(help="local (one process, default) or ray.")
    ] = None,
    address: Annotated[
        str | None, typer.Option(help="Ray address (default: a new local Ray).")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="The set's folder (default: runs/<spec name>, or runs/set_<hash>).",
            callback=set_folder,
        ),
    ] = None,
    quiet: Quiet = False,
) -> None:
    """Evaluate many models on CoordinationQA as one set; rerun the same command to resume.

    Each (model, dataset) is a run directory in the set's folder, next to eval-set.json.
    Complete members are skipped; a member that fails (a refused key) stops with its message
    while the others finish. The call options (--concurrency, --rpm, --tpm, --timeout,
    --max-attempts, --max-connection-failures, --transport) override the spec's; --api-base,
    --api-key-env and --model-arg are those of the --model models (a spec's models carry their
    own). Exit status: 0 every member it names complete, 1 one of them failed, 2 bad options,
    130 on Ctrl-C, 141 when the output was closed by its reader (| head; what was finished is
    stored).
    """
    with interrupted_as(NOTHING_STARTED):  # the spec read: datasets too, nothing stored
        from coordqa.cli._progress import live_run
        from coordqa.cli._set_progress import set_display
        from coordqa.evalset import (
            SetInterrupted,
            evaluate_set,
            load_spec,
            parse_spec,
            refuse_repeats,
        )
        from coordqa.llm.registry import refuse_a_question_model

        overrides: dict[str, Any] = {
            SPEC_FIELDS.get(key, key): value
            for key, value in {
                "trials": trials,
                "limit": limit,
                "sample": sample,
                "seed": seed,
                "backend": backend,
                "address": address,
                "out": out,
                "transport": transport,
                **calls.given(),
            }.items()
            if value is not None
        }
        if no_cache:
            overrides["cache"] = False
        if dataset:
            overrides["datasets"] = dataset
        model_settings = {
            ("--api-base", "api_base"): endpoint.api_base,
            ("--api-key-env", "api_key_env"): endpoint.api_key_env,
            ("--model-arg", "model_args"): endpoint.model_args() or None,
        }
        given = {key: value for key, value in model_settings.items() if value is not None}
        if given and not model:
            (flag, field), *_ = given
            raise ConfigError(
                f"{flag} sets the models given with --model, and none is given: add --model NAME, "
                f"or set {field} on the spec's models (models: [{{model: NAME, {field}: ...}}])"
            )
        added = [{"model": name, **{f: v for (_, f), v in given.items()}} for name in model or ()]
        for name in model or ():  # said as typed, before the spec names them models[i]
            with settings_as_options({field: flag for flag, field in model_settings}):
                refuse_a_question_model(name)
            _refuse_unread_settings(name, model or [], given)
        if spec_file is None:
            if not added:
                raise ConfigError(
                    "name the models: give a spec file (coordqa eval-set SPEC.yaml) or --model "
                    "NAME, once per model"
                )
            spec = parse_spec(
                {"models": added, **overrides},
                source="the command line",
                options_from=0,
                options=overrides,
            )
            refuse_repeats(spec, lambda _: "--model")
        else:
            spec = load_spec(spec_file, added=added, **overrides)
            listed = len(spec.models) - len(added)
            refuse_repeats(
                spec,
                lambda index: f"{spec_file}'s models[{index}]" if index < listed else "--model",
            )
    display = set_display(messages, quiet=quiet)
    with live_run(display, messages, SetInterrupted):
        result = evaluate_set(spec, progress=display)
    render_set(result)
    if not result.ok:
        raise typer.Exit(RUN_FAILED_EXIT)


def _refuse_unread_settings(
    name: str, models: list[str], given: dict[tuple[str, str], Any]
) -> None:
    """Refuse the ``--model`` models' endpoint, key or arguments for ``name`` if it reads none.

    They are every ``--model`` model's, so where another of them is behind a server, leaving
    them out (the advice ``coordqa eval`` gives) would break that one: the advice is then to
    give each model its own in a spec file, which is what the spec's per-model keys are for.
    """
    from coordqa.llm.registry import (
        refuse_an_endpoint,
        refuse_unread_model_args,
        runs_in_process,
    )

    served = [other for other in models if not runs_in_process(other)]
    instead = None
    if served:
        flags = " and ".join(flag for flag, _ in given)
        fields = ", ".join(f"{field}: ..." for _, field in given)
        instead = (
            f"{flags} {'is' if len(given) == 1 else 'are'} given to every --model model; "
            f"give each model its own in a spec file (models: [{{model: {served[0]}, "
            f"{fields}}}, {{model: {name}}}]; docs/eval-sets.md), or name {name} in the "
            f"spec file and keep --model {served[0]} {flags} on the command line"
        )
    refuse_unread_model_args(name, given.get(("--model-arg", "model_args")) or {}, instead=instead)
    refuse_an_endpoint(
        name,
        given.get(("--api-base", "api_base")),
        key_given=("--api-key-env", "api_key_env") in given,
        instead=instead,
    )


class EvalSetCommand(TyperCommand):
    """``eval-set``, whose refusal of an option it reads from the spec names the spec key.

    ``coordqa eval`` takes ``--temperature``, ``--types``, ``--max-tokens``...; a set shares
    them among its members and reads them from its spec file
    (:func:`coordqa.evalset.spec.spec_key_of_option`), so "No such option" alone left the user
    guessing (walkthrough 10, #235).
    """

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        """Click's parsing; an option that is a spec key is refused with the key to use."""
        try:
            return super().parse_args(ctx, args)
        except NoSuchOption as error:
            from coordqa.evalset.spec import spec_key_of_option

            key = spec_key_of_option(error.option_name)
            if key is None:
                raise
            raise UsageError(
                f"{error.message}; eval-set takes it as a spec key: `{key}:` at the top of the "
                "spec file (coordqa eval-set SPEC.yaml), shared by every member; see "
                "docs/eval-sets.md",
                ctx,
            ) from None


def register(app: typer.Typer) -> None:
    """Add ``eval-set`` to the root app."""
    app.command("eval-set", cls=EvalSetCommand)(eval_set_command)
