"""How the CLI reports errors: one red line and an exit status, not a traceback.

Exit status: 0 done, 1 run failed (:class:`~coordqa.errors.RunFailed`), 2 bad options (any other
:class:`~coordqa.errors.CoordqaError`), 130 interrupted (:class:`~coordqa.errors.RunInterrupted`),
141 output closed by its reader (:class:`OutputClosed`, ``| head``).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from coordqa.errors import (
    INTERRUPTED_EXIT as INTERRUPTED_EXIT,  # where the commands find it
    ConfigError,
    CoordqaError,
    RunFailed,
    RunInterrupted,
    SettingError,
)
from coordqa.stops import sigterm_as_ctrl_c

RUN_FAILED_EXIT = 1
"""Exit status of a run stopped by errors or left with more failures than allowed."""

BAD_OPTIONS_EXIT = 2
"""Exit status of a bad option, name or file (nothing was run)."""


OUTPUT_CLOSED_EXIT = 141
"""Exit status when the reader of the output closed it (``coordqa ... | head``): 128 + SIGPIPE,
what a shell tool that SIGPIPE ends returns (``git log | head``). What was finished is stored."""


class OutputClosed(Exception):
    """The reader of the command's output closed it (a broken pipe) while the command wrote.

    Not an ``OSError``: Typer, as Click, ends a command on an ``EPIPE`` with exit status 1, "run
    failed", although nothing failed (walkthrough 28, R1), and so does rich. The root group
    (:class:`coordqa.cli._RootGroup`) and every rich console (:func:`run_app`) raise this
    instead, and :func:`run_app` ends the command with :func:`output_closed`.
    """


def _raise_output_closed(console: Console) -> None:
    """What a rich console does when its output's reader has gone: :class:`OutputClosed`.

    rich's own ends the process with exit status 1 (``SystemExit(1)``), as Typer does.
    """
    console.quiet = True
    raise OutputClosed


def output_closed() -> int:
    """Send what is left of the output nowhere, and return :data:`OUTPUT_CLOSED_EXIT`.

    As Python's documentation advises for a broken pipe: stdout (and stderr when it goes into
    the same pipe, ``2>&1 | head``) is pointed at ``os.devnull``, so the final flush of what is
    still buffered does not fail again ("Exception ignored ... BrokenPipeError"). SIGPIPE keeps
    Python's handling (ignored, an error on write): the command also writes to sockets of model
    servers, where a closed connection is an error to report, not the end of the process.
    """
    try:
        out = sys.stdout.fileno()
        err = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (captured in process)
        return OUTPUT_CLOSED_EXIT
    nowhere = os.open(os.devnull, os.O_WRONLY)
    try:
        if _same_file(out, err):
            os.dup2(nowhere, err)
        os.dup2(nowhere, out)
    finally:
        os.close(nowhere)
    return OUTPUT_CLOSED_EXIT


@contextmanager
def broken_pipe_as_output_closed() -> Iterator[None]:
    """Within, a broken pipe of the command's own output raises :class:`OutputClosed`.

    Only of its own output (:func:`_output_gone`): a broken pipe of a socket (a model server
    that hung up) is an error of the run, and is raised as it came.
    """
    try:
        yield
    except BrokenPipeError:
        if not _output_gone():
            raise
        raise OutputClosed from None


def _output_gone() -> bool:
    """Whether the reader of stdout or stderr has gone: a pipe whose reading end is closed.

    The pipe's writing end then polls as an error (``POLLERR``); a file, a terminal or a pipe
    still read does not. Where ``poll`` is missing, a broken pipe is taken as the output's.
    """
    import select

    if not hasattr(select, "poll"):  # pragma: no cover - Windows
        return True
    for stream in (sys.stdout, sys.stderr):
        try:
            descriptor = stream.fileno()
        except (AttributeError, OSError, ValueError):  # not a file (captured in process)
            continue
        poller = select.poll()
        poller.register(descriptor, 0)  # errors are reported whatever is asked
        if any(events & select.POLLERR for _, events in poller.poll(0)):
            return True
    return False


def _closed_output(error: BaseException) -> bool:
    """Whether ``error`` is a closed output, alone or among the errors of a task group.

    A run's progress line that finds its output closed stops the run's task group.
    """
    grouped = getattr(error, "exceptions", None)  # ExceptionGroup (a backport on 3.10)
    if isinstance(grouped, tuple):
        return any(_closed_output(inner) for inner in grouped)
    return isinstance(error, OutputClosed) or (
        isinstance(error, BrokenPipeError) and _output_gone()
    )


def _same_file(first: int, second: int) -> bool:
    try:
        one, other = os.fstat(first), os.fstat(second)
    except OSError:
        return False
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


messages = Console(stderr=True, soft_wrap=True)
"""Errors and notes: stderr."""


def exit_status(error: CoordqaError) -> int:
    """The exit status that reports ``error``."""
    if isinstance(error, RunInterrupted):
        return INTERRUPTED_EXIT
    if isinstance(error, RunFailed):
        return RUN_FAILED_EXIT
    return BAD_OPTIONS_EXIT


def report(error: CoordqaError) -> None:
    """Print ``error`` as one line on stderr: red for a failure, yellow for an interruption."""
    if isinstance(error, RunInterrupted):
        messages.print(Text(str(error), style="yellow"), highlight=False)
    else:
        messages.print(Text.assemble(("error: ", "bold red"), str(error)), highlight=False)


@contextmanager
def settings_as_options(options: Mapping[str, str]) -> Iterator[None]:
    """Within, a library's refused setting is named by the command's option for it.

    ``options`` maps the library's parameter names (``trials``, ``policy.timeout_s``) to the
    command's options (``--trials``, ``--timeout``): the command's one map of them, also for
    the other settings a refusal's advice names (:attr:`SettingError.also`). A setting the map
    lacks keeps the library's name.
    """
    try:
        yield
    except SettingError as error:
        if not {error.setting, *error.also} & set(options):
            raise
        raise ConfigError(error.as_options(options)) from None


@contextmanager
def interrupted_as(stopped: str) -> Iterator[None]:
    """Within, Ctrl-C or SIGTERM ends the command with the line ``stopped`` (exit 130).

    Typer ends a command that Ctrl-C interrupts with status 130 and no word: a user who
    stops it in its first seconds (imports, a database being opened) cannot tell whether it
    ever started (walkthrough 21, R5); a SIGTERM (``timeout``, ``kill``) ended it with no word
    at all (walkthrough 26a).
    """
    try:
        with sigterm_as_ctrl_c():
            yield
    except KeyboardInterrupt:
        raise RunInterrupted(stopped) from None


def nothing_written_to(out: Path | None) -> AbstractContextManager[None]:
    """Within, Ctrl-C says that nothing was written to ``out`` (none: no output, no line).

    A command writing generated output reads its runs or board first; a Ctrl-C then ended it
    with status 130 and no word (walkthrough 24). The output folder is untouched until the
    writer finishes (:func:`coordqa.outputs.generated_output`), so the line is the one it says
    too (:func:`coordqa.outputs.nothing_written`: and that an earlier output there is kept).
    """
    if out is None:
        return nullcontext()
    from coordqa.outputs import nothing_written

    return interrupted_as(nothing_written(out))


_warned: set[str] = set()
"""The warnings this command printed (reset by :func:`run_app`)."""


def warn(line: str) -> None:
    """Print ``warning: LINE`` on stderr, unless this command printed it already.

    A run's files are read more than once by one command (to resume, then to score), and a
    reading warning comes both as it happens (the run store's log, ``RUN: TEXT``) and with the
    results (``RunAnalysis.warnings``, shown as ``RUN: TEXT`` too): each is printed once.
    """
    if line in _warned:
        return
    _warned.add(line)
    messages.print(Text.assemble(("warning: ", "yellow"), line), highlight=False)


WARNING_LOGS = ("coordqa.store", "coordqa.runs.moved")
"""The library's loggers whose warnings the CLI prints (:func:`warn`): the run store's (a
repaired file: ``RUN: TEXT``, from its modules' child loggers) and a resumed run's moved
endpoint (:mod:`coordqa.runs.moved`)."""


class _StoreWarnings(logging.Handler):
    """Prints the warnings of :data:`WARNING_LOGS` through :func:`warn`."""

    def emit(self, record: logging.LogRecord) -> None:
        warn(record.getMessage())


def run_app(app: Callable[..., Any]) -> None:
    """Run ``app`` (a Typer app or its click command); report a :class:`CoordqaError` plainly.

    The warnings of :data:`WARNING_LOGS` are printed as they happen, each once (:func:`warn`).
    A Ctrl-C that Python reports as another error ends the command as a Ctrl-C, exit 130; a
    closed output (:class:`OutputClosed`) ends it with no word, exit 141.
    """
    Console.on_broken_pipe = _raise_output_closed  # type: ignore[method-assign,assignment]
    logs = [logging.getLogger(name) for name in WARNING_LOGS]
    handler = _StoreWarnings(logging.WARNING)
    _warned.clear()
    for log in logs:
        log.addHandler(handler)
    try:
        _run_reporting(app)
    except Exception as error:  # also where the error's own line found stderr closed
        if not _closed_output(error):
            raise
        sys.exit(output_closed())
    finally:
        for log in logs:
            log.removeHandler(handler)


def _run_reporting(app: Callable[..., Any]) -> None:
    """Run ``app``; a :class:`CoordqaError` or a Ctrl-C is one line and its exit status."""
    try:
        app()
    except CoordqaError as error:
        report(error)
        sys.exit(exit_status(error))
    except RuntimeError as error:
        if not isinstance(error.__cause__, KeyboardInterrupt):
            raise
        # Python 3.11 wraps a Ctrl-C that lands while a class is made (a dataclass's field, in
        # a command's lazy import) as "RuntimeError: Error calling __set_name__"
        messages.print("[yellow]interrupted[/]")
        sys.exit(INTERRUPTED_EXIT)
