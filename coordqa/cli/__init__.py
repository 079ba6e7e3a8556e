"""The ``coordqa`` command line: a thin Typer layer over the library.

Each command module parses options into the library's typed configs, calls one library
function and renders the result with rich. Command modules import heavy libraries (litellm,
datasets, the game engines) inside the commands, so ``coordqa --help`` stays fast, and a
command's module is itself imported only when that command is run or its help shown
(:data:`COMMAND_MODULES`): ``coordqa eval`` does not import the agentic track's settings or the
leaderboard's.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
import typer.main
from typer._click.exceptions import NoSuchOption, UsageError  # typer's own click (not exported)
from typer._click.globals import get_current_context  # typer's own click (not exported)
from typer._click.parser import _Option as _ParserOption  # typer's own click (not exported)

if TYPE_CHECKING:
    from typer._click import Command, Context  # typer's own click, whose types it does not export

COMMAND_MODULES: dict[str, str] = {
    "eval": "qa",
    "eval-set": "evalset",
    "score": "runs",
    "report": "runs",
    "results": "runs",
    "compare": "runs",
    "play": "games",
    "submit": "leaderboard",
    "submit-endpoint": "leaderboard",
    "view": "view",
    "runs": "runs",
    "dataset": "dataset",
    "games": "games",
    "agentic": "agentic",
    "partners": "partners",
    "leaderboard": "leaderboard",
}
"""Each top-level command and the module of :mod:`coordqa.cli` whose ``register(app)`` adds it,
in the order ``coordqa --help`` lists them (tests check that each module registers exactly its
commands here)."""

APP_SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}
"""Settings of the root app that its commands' help follows too (plain text, no completion)."""

METAVARS = {
    "<int>": "N",
    "<float>": "NUMBER",
    "<str>": "TEXT",
    "<path>": "PATH",
    "<list[str]>": "TEXT",
    "<list[Path]>": "PATH",
}
"""Placeholders shown in help for an option's value, instead of Typer's Python type names."""


def _name_values(command: Any) -> None:
    """Give every value-taking parameter under ``command`` a plain placeholder for help.

    Typer labels values with Python annotations (``<int>``, ``<list[Path]>``); an option gets a
    placeholder instead (one it sets itself, as ``--model-arg KEY=VALUE``, is kept) and an
    argument shows only its name. A docstring's literal markup (double backticks) is shown as
    one backtick, as the guide writes commands (walkthrough 27: ``--json`` in ``score -h``).
    """
    for sub in getattr(command, "commands", {}).values():
        _name_values(sub)
    if command.help:
        command.help = command.help.replace("``", "`")
    for param in command.params:
        if getattr(param, "help", None):
            param.help = param.help.replace("``", "`")
        if isinstance(param, typer.core.TyperArgument):
            param.__class__ = _Argument
            param.metavar = param.metavar or str(param.name).upper()
        else:
            if type(param) is typer.core.TyperOption:
                param.__class__ = _Option
            if param.metavar is None and not getattr(param, "is_flag", False):
                label = param.display_type(None)
                param.metavar = METAVARS.get(label, label.strip("<>").upper())


class _Argument(typer.core.TyperArgument):
    """A positional argument whose help shows its name (``RUNS``) without a Python type."""

    def display_type_rich(self, ctx: Any) -> str | None:
        """No type label: the argument's name and help say what it takes."""
        return None

    def get_usage_pieces(self, ctx: Context) -> list[str]:
        """``NAME``, ``[NAME]`` when optional, ``NAME...`` when repeatable: click's usage line.

        Typer 0.29 writes a required argument ``{NAME}``, the notation of a set of choices
        (``submit-endpoint [OPTIONS] {MODEL}`` asked which models the braces offered).
        """
        name = str(self.metavar)  # set by _name_values
        shown = name if self.required else f"[{name}]"
        return [shown if self.nargs == 1 else f"{shown}..."]


class _Option(typer.core.TyperOption):
    """An option that takes one value refuses a second one on the command line.

    Click keeps the last of two values without a word, so ``eval --model random --model
    scripted`` ran scripted alone. A list option (``multiple``) adds its repeats up
    (:mod:`coordqa.cli._lists`) and a flag may be given twice; an option that stores one value
    is parsed by :class:`_StoredOnce` instead.
    """

    def add_to_parser(self, parser: Any, ctx: Context) -> None:
        """Click's parsing, with the one-value parsing of this option's names."""
        super().add_to_parser(parser, ctx)
        if self.multiple or self.count:
            return
        for name in self.opts:
            option = parser._long_opt.get(name) or parser._short_opt.get(name)
            if option is not None and option.action == "store":
                option.__class__ = _StoredOnce


class _StoredOnce(_ParserOption):
    """Click's parser option for a one-value option, refusing the value given a second time."""

    def process(self, value: Any, state: Any) -> None:
        """Store the value, or refuse it when one was given before."""
        if self.dest in state.opts:
            _refuse_repeat(self.obj, (state.opts[self.dest], value))
        super().process(value, state)


REPEAT_HINTS = {"--model": "to evaluate several models use coordqa eval-set"}
"""What to do instead of repeating an option, where repeating it meant something else."""

SECRET_WORDS = frozenset({"key", "token", "password", "secret"})
"""The last word of an option whose value is a secret (``--token``; ``--api-key-env`` names a
variable and ``--max-tokens`` a number): its repeat is refused without its values."""

SHOWN_VALUE = 40
"""The most characters of a repeated option's value that its refusal shows."""


def _refuse_repeat(option: Any, values: tuple[Any, Any]) -> NoReturn:
    """Refuse ``option`` given twice, naming both values unless it holds a secret."""
    from coordqa.errors import ConfigError

    flag = max(option.opts, key=len)
    hidden = option.hide_input or flag.rsplit("-", 1)[-1] in SECRET_WORDS
    shown = "" if hidden else " (" + ", ".join(_shown(value) for value in values) + ")"
    hint = REPEAT_HINTS.get(flag)
    raise ConfigError(f"{flag} given twice{shown}: give it once" + (f"; {hint}" if hint else ""))


def _shown(value: Any) -> str:
    """A value as the user typed it, less any credential, cut at :data:`SHOWN_VALUE` characters."""
    from coordqa.llm.redaction import redact

    text = redact(" ".join(map(str, value)) if isinstance(value, (tuple, list)) else str(value))
    return text if len(text) <= SHOWN_VALUE else text[: SHOWN_VALUE - 3] + "..."


class _SuggestingGroup(typer.core.TyperGroup):
    """A group whose unknown command is offered the close ones by the project's one rule.

    Typer suggests commands by difflib's default cutoff, and from the loaded ones only; this
    group asks :func:`coordqa.registry.did_you_mean` among every command it lists, loaded or
    not, so ``coordqa evl`` and ``coordqa leaderboard jbo`` read like every other unknown name.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.suggest_commands = False  # Typer's own suggestion; resolve_command gives this one

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        """Click's resolution; ``No such command 'X'.`` followed by the close commands."""
        try:
            return super().resolve_command(ctx, args)
        except UsageError as error:
            from coordqa.registry import did_you_mean  # rapidfuzz: only for a wrong name

            hint = did_you_mean(args[0], self.list_commands(ctx)) if args else ""
            if hint:
                error.message = f"{error.message.rstrip('.')}.{hint}"
            raise


def _suggest_commands(command: Any) -> None:
    """Make ``command`` and every group under it a :class:`_SuggestingGroup` (Typer's are plain)."""
    if type(command) is typer.core.TyperGroup:
        command.__class__ = _SuggestingGroup
        command.suggest_commands = False
    for sub in getattr(command, "commands", {}).values():
        _suggest_commands(sub)


class _RootGroup(_SuggestingGroup):
    """The ``coordqa`` group: commands loaded on first use, their values named plainly in help.

    Click asks a group for a command by name (:meth:`get_command`) and for the names it has
    (:meth:`list_commands`); this one answers from :data:`COMMAND_MODULES` and imports a
    command's module the first time it is asked for it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _name_values(self)

    def list_commands(self, ctx: Context) -> list[str]:
        """Every command, loaded or not."""
        return list(COMMAND_MODULES)

    def make_context(
        self, info_name: str | None, args: list[str], parent: Context | None = None, **extra: Any
    ) -> Context:
        """Click's parsing, where ``--help`` and ``--version`` print.

        A closed output is :class:`~coordqa.cli._errors.OutputClosed`, as in :meth:`invoke`.
        """
        from coordqa.cli._errors import broken_pipe_as_output_closed

        with broken_pipe_as_output_closed():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: Context) -> Any:
        """Run the command; an unknown option of any command under it is offered the close ones.

        Output whose reader closed it (``| head``) raises
        :class:`~coordqa.cli._errors.OutputClosed`: Typer would end the command with exit
        status 1, "run failed" (walkthrough 28, R1); :func:`run_cli` ends it with 141.

        Click suggests options at difflib's cutoff of 0.6 on names with their dashes, which
        every option shares: ``--seed`` was offered ``--insecure`` and ``--trails`` three
        options. The one rule (:func:`coordqa.registry.suggest`) compares the names without
        their dashes, among every option of the command: a typo still finds its option
        (``--modle``: ``--model``) and an option a command does not have finds none.

        A Ctrl-C before the command's own code began (:data:`BEGUN`) says that nothing was run.
        """
        from coordqa.cli._errors import broken_pipe_as_output_closed

        try:
            with broken_pipe_as_output_closed():
                return super().invoke(ctx)
        except (KeyboardInterrupt, RuntimeError) as error:
            # Python 3.11 wraps a Ctrl-C that lands while a class is made (a dataclass's field,
            # in a command's import) as "RuntimeError: Error calling __set_name__"
            ctrl_c = isinstance(error, KeyboardInterrupt) or isinstance(
                error.__cause__, KeyboardInterrupt
            )
            if not ctrl_c or ctx.meta.get(BEGUN):
                raise  # the command's own code: it says what it stopped (a server: nothing)
            from coordqa.errors import NOTHING_STARTED, RunInterrupted

            raise RunInterrupted(NOTHING_STARTED) from None
        except NoSuchOption as error:
            from coordqa.registry import offer

            options = _long_options(error.ctx) if error.ctx is not None else []
            hint = offer(_close_options(error.option_name, options))
            error.possibilities = None  # click's "(Possible options: ...)"; hint says it
            error.message = f"{error.message}.{hint}" if hint else error.message
            raise

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        """The command ``cmd_name``, its module imported and registered if it was not yet."""
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            for name, command in registered_commands(COMMAND_MODULES[cmd_name]).items():
                _name_values(command)
                _suggest_commands(command)
                _mark_begun(command)
                self.add_command(command, name)
        return super().get_command(ctx, cmd_name)


BEGUN = "coordqa.begun"
"""Key of the context's ``meta``, set once a command's own code (its callback) has begun.

Until then (its module imported, its options read and checked) a Ctrl-C has run nothing, and
:meth:`_RootGroup.invoke` says so (:data:`~coordqa.errors.NOTHING_STARTED`, exit 130), where
Typer ended the command with status 130 and no word (walkthrough 28, R2). Afterwards the
command says what it stopped, or nothing (a server stopped by Ctrl-C).
"""


ENDED = threading.Event()
"""Set once the running command's callback has returned (:func:`run_cli` clears it).

A Ctrl-C after that (while its contexts close, where Typer ends a command with 130 and no word)
interrupts nothing: the command's work and output are whole, and its status stands (walkthrough
30: ``eval`` ended with 130 and no word after printing every table).
"""


def _mark_begun(command: Any) -> None:
    """Make every command under ``command`` say when its callback begins and returns.

    :data:`BEGUN` (in the context's ``meta``) as it begins, :data:`ENDED` once it returned.
    """
    for sub in getattr(command, "commands", {}).values():
        _mark_begun(sub)
    callback = command.callback
    if hasattr(command, "commands") or callback is None:
        return  # a group's callback runs before its command is even read

    @functools.wraps(callback)
    def begun(*args: Any, **kwargs: Any) -> Any:
        get_current_context().meta[BEGUN] = True
        result = callback(*args, **kwargs)
        ENDED.set()
        return result

    command.callback = begun


def _long_options(ctx: Context) -> list[str]:
    """The ``--names`` of the options of ``ctx``'s command (generated ones, ``--no-`` forms)."""
    return [
        name
        for param in ctx.command.get_params(ctx)
        for name in [*param.opts, *param.secondary_opts]
        if name.startswith("--")
    ]


def _close_options(typed: str, options: Sequence[str]) -> list[str]:
    """The option closest to ``typed`` when their leading dashes are left out, if one is close.

    Only the closest: a command's options share stems (``--model``, ``--model-arg``), so a typo
    of one is also a part of its siblings, which the rule's match within a longer name offers
    too (``--modle``: ``--model``, ``--model-arg``). One option was meant.
    """
    bare = {option.lstrip("-"): option for option in options}
    from coordqa.registry import suggest

    return [bare[name] for name in suggest(typed.lstrip("-"), list(bare), limit=1)]


def registered_commands(module: str) -> dict[str, Command]:
    """The click commands that ``coordqa.cli.<module>.register`` adds to an app, by name."""
    holder = typer.Typer(**APP_SETTINGS)
    importlib.import_module(f"coordqa.cli.{module}").register(holder)
    return dict(typer.main.get_group(holder).commands)


app = typer.Typer(
    cls=_RootGroup,
    name="coordqa",
    help="Measure how well language models coordinate: CoordinationQA and agentic cross-play.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    **APP_SETTINGS,
)


def _print_version(value: bool) -> None:
    if value:
        from coordqa._version import __version__

        print(f"coordqa {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version of coordqa and exit.",
        ),
    ] = False,
) -> None:
    """Measure how well language models coordinate: CoordinationQA and agentic cross-play."""


def run_cli() -> int:
    """Run the app on ``sys.argv`` and return its exit status; the process is left running.

    coordqa errors become one line on stderr and their exit status (:mod:`coordqa.cli._errors`),
    ``sys.exit(code)`` its status as Python gives it: None is 0, a number is itself, anything
    else is printed on stderr and is 1. Tests run commands in process through this;
    :func:`main` is the console script.
    """
    from coordqa.cli._errors import run_app
    from coordqa.errors import INTERRUPTED_EXIT

    ENDED.clear()
    try:
        run_app(app)
    except SystemExit as stop:
        if stop.code == INTERRUPTED_EXIT and ENDED.is_set():
            return 0  # a Ctrl-C as the command's contexts closed: it was done (ENDED)
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1
    return 0


def main() -> NoReturn:
    """Console-script entry point: run the app (:func:`run_cli`), then end the process at once.

    It ends as soon as threads, exit handlers and stdout and stderr are done (:func:`_leave`):
    every command has closed, and for runs fsynced, whatever it wrote before it returns, and the
    interpreter's own teardown of thousands of modules (litellm and the OpenAI SDK among them)
    would keep the user waiting 1.5-2 s for nothing.
    """
    _leave(run_cli())


def _leave(status: int) -> NoReturn:
    """End the process with ``status`` as Python's own exit does, less the module teardown.

    What a normal exit does first is done here too: threads that are not daemons are waited
    for (``threading._shutdown``, which also shuts thread pools down), exit handlers run
    (``atexit``: logging's flush, anything a user or library registered), and stdout and
    stderr are flushed. Only the interpreter's teardown is skipped. A Ctrl-C meanwhile cuts that
    short and ends the process at once with ``status``: the command is done, and its output is
    written as it is printed (walkthrough 30: Python's traceback after a whole run).
    """
    with contextlib.suppress(KeyboardInterrupt):
        threading._shutdown()  # type: ignore[attr-defined]
        atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader of what was still buffered has gone (``| head``)
        from coordqa.cli._errors import output_closed

        status = output_closed()
    os._exit(status)
