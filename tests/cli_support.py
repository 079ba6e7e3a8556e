"""Run ``coordqa`` inside the test process as a shell runs it: exit status, stdout and stderr apart.

A subprocess per command costs a Python start plus the command's imports (litellm alone is about
4 s of CPU), which made the CLI tests the slowest part of the suite. :func:`coordqa` calls the
console-script entry point's body :func:`coordqa.cli.run_cli` instead (:func:`coordqa.cli.main`
would end the test process), so a ``CoordqaError`` still becomes
one ``error:`` line and exit status 2 exactly as in a shell, with ``sys.argv``, the environment and
the working directory set for the call and restored afterwards, and stdout and stderr captured
apart. Neither stream is a terminal, as with a pipe: plain progress lines, no control codes.

What only a real process shows stays with subprocesses, in the few tests that need it: signals
(Ctrl-C, SIGKILL and resuming), what a fresh process imports, output read from a pipe while the
command runs.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
import typer.main
from typer.core import TyperGroup
from typer.testing import CliRunner

from coordqa.cli import app, run_cli
from coordqa.llm import CACHE_DIR_ENV
from coordqa.paths import DATA_DIR_ENV

USER_DIR_VARIABLES = (
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "HF_HOME",
    CACHE_DIR_ENV,
    DATA_DIR_ENV,
)
"""Where libraries put user files on Linux (platformdirs, matplotlib, Hugging Face, coordqa).

The tests point them into a temporary home (conftest.py), and so does a documentation page's run
(doc_examples_support.py). ``HOME`` itself is kept: tools found under it (the assembled gemma
model of the real-model tests) are read, never written, by the tests."""


CONSOLE_MODULES = (
    "coordqa.cli._errors",
    "coordqa.cli.agentic",
    "coordqa.cli.dataset",
    "coordqa.cli.evalset",
    "coordqa.cli.games",
    "coordqa.cli.leaderboard",
    "coordqa.cli.qa",
    "coordqa.cli.runs",
    "coordqa.cli.view",
)
"""The CLI's modules that make a rich ``Console`` when imported.

rich fixes a console's width for good when it is made while ``COLUMNS`` is set; made without
it, the console reads ``COLUMNS`` each time it prints. A command module is imported when a
command first asks for it, inside an invocation that sets ``COLUMNS`` (:func:`coordqa`): the
first test to call it would fix its width for every later test (a ``columns=200`` call made
80-column checks of ``report`` fail when it ran first). Imported here, outside any
invocation, each console takes the width of each call, as one process per command does."""


def _import_console_modules() -> None:
    import importlib

    saved = os.environ.pop("COLUMNS", None)
    try:
        for module in CONSOLE_MODULES:
            importlib.import_module(module)
    finally:
        if saved is not None:
            os.environ["COLUMNS"] = saved


_import_console_modules()


@dataclass(frozen=True)
class CliResult:
    """What a shell would see of one ``coordqa`` command (the fields of a ``CompletedProcess``)."""

    returncode: int
    """The exit status: 0 done, 1 run failed, 2 bad options, 130 interrupted, 141 output closed."""
    stdout: str
    """Everything written to standard output."""
    stderr: str
    """Everything written to standard error."""


def coordqa(
    *args: str | Path,
    env: Mapping[str, str | None] | None = None,
    cwd: Path | None = None,
    columns: int = 80,
) -> CliResult:
    """Run ``coordqa ARGS`` through its entry point in this process.

    Args:
        args: the command line after ``coordqa``.
        env: environment variables to set for the call (None removes one); the rest is inherited.
        cwd: the working directory of the call (default: the current one).
        columns: the terminal width the command sees (``COLUMNS``), 80 as a default terminal.
    """
    with _as_a_shell(args, env, cwd, columns) as (stdout, stderr):
        status = run_cli()
        sys.stdout.flush()
        sys.stderr.flush()
        return CliResult(status, stdout.getvalue().decode(), stderr.getvalue().decode())


def parse_command(
    *args: str | Path, env: Mapping[str, str | None] | None = None, cwd: Path | None = None
) -> tuple[tuple[str, ...], dict[str, Any]]:
    """Parse ``coordqa ARGS`` as Click does before it runs a command, and run nothing.

    Returns the command's path (``("leaderboard", "serve")``) and its parameters as the command
    would receive them. Raises typer's click ``UsageError`` (an unknown command or option, a
    missing argument, a bad choice or value) as the real command line would; ``--help`` raises
    ``typer.Exit`` after printing the help into a discarded buffer. Parameters read
    from the environment or the working directory (``envvar=``, ``exists=True``) see ``env``
    and ``cwd``, as :func:`coordqa` gives them.
    """
    with _as_a_shell(args, env, cwd):
        command: Any = typer.main.get_command(app)
        context = command.make_context("coordqa", [str(arg) for arg in args])
        path: tuple[str, ...] = ()
        while isinstance(command, TyperGroup):
            # What Group.invoke hands its subcommand: the words the group did not parse.
            rest = [*context._protected_args, *context.args]
            if not rest:
                if not command.invoke_without_command:
                    context.fail("Missing command.")
                break
            name, command, rest = command.resolve_command(context, rest)
            context = command.make_context(name, rest, parent=context)
            path += (str(name),)
        return path, dict(context.params)


@contextmanager
def _as_a_shell(
    args: Sequence[str | Path],
    env: Mapping[str, str | None] | None,
    cwd: Path | None,
    columns: int = 80,
) -> Iterator[tuple[Any, Any]]:
    """``sys.argv``, the environment and the working directory of ``coordqa ARGS``, with stdout
    and stderr captured apart (yielded as byte buffers), all restored afterwards."""
    environment = {"COLUMNS": str(columns), **(env or {})}
    with (
        CliRunner().isolation(env=environment) as (stdout, stderr, _),
        _argv(["coordqa", *map(str, args)]),
        _working_directory(cwd),
    ):
        yield stdout, stderr


@contextmanager
def _argv(argv: list[str]) -> Iterator[None]:
    saved = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = saved


@contextmanager
def _working_directory(cwd: Path | None) -> Iterator[None]:
    saved = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved)


def command_at(path: Sequence[str]) -> Any:
    """The click command of ``coordqa PATH...`` (``("agentic", "run")``), loaded as Click loads
    it: the root group imports a command's module only when asked for it by name."""
    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.get_command(typer.Context(command), name)
    return command


def command_paths(path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command and group of ``coordqa`` under ``path``, the root first."""
    yield path
    command = command_at(path)
    if isinstance(command, TyperGroup):
        for name in command.list_commands(typer.Context(command)):
            yield from command_paths((*path, name))


def assert_export_progress(done: CliResult, total: str) -> None:
    """``done`` exported and said its progress as plain lines on stderr: ``exporting: 2 of 2
    runs, 31 pages written`` for ``total`` ``2 runs``, the last one counting all of them."""
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("exporting: ")]
    assert lines and all(f" of {total}, " in line for line in lines), done.stderr
    done_first = total.split(" ")[0]
    assert lines[-1].startswith(f"exporting: {done_first} of {total}, ")
    assert "pages written" in lines[-1]
    assert "\x1b" not in done.stderr and "exporting" not in done.stdout  # plain, on stderr
    assert done.stdout.startswith("wrote ")


@contextmanager
def closed_port() -> Iterator[int]:
    """A port of 127.0.0.1 where nothing listens while the block runs.

    Bound and never listening: a connection is refused, and no other process can take the port
    meanwhile (a fixed port met a walkthrough's server on it in a CI rehearsal).
    """
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])
