"""How ``coordqa eval`` shows a run in progress, always on stderr (stdout carries the results).

On a terminal: a live rich progress bar. Elsewhere (nohup, SLURM, CI logs, a pipe): a plain line
every tenth of the run and at least every :data:`PLAIN_EVERY_S` seconds, calls finishing or not,
so a log shows progress (and a run that waits on a server shows it is waiting) without control
characters. The first error of each kind, and parameters
the model does not take, are printed in both modes; ``--quiet`` keeps only those.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, Protocol, TypedDict

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from coordqa.cli._errors import INTERRUPTED_EXIT
from coordqa.words import counted

if TYPE_CHECKING:
    from coordqa.evaluation import EvalProgress
    from coordqa.llm import UsageTotals
    from coordqa.records import QACall, Question
    from coordqa.web.rendering import ExportProgress

Quiet = Annotated[
    bool,
    typer.Option(
        "--quiet", "-q", help="No progress; only errors, the results and the run directory."
    ),
]
"""``--quiet`` of every command with a live progress bar: one meaning everywhere."""

PLAIN_EVERY_S = 30.0
"""Seconds between two plain progress lines (at most)."""

EXPORT_EVERY_S = 5.0
"""Seconds between two plain lines of ``coordqa view --export`` (its pages come fast)."""


READING_NOTE_S = 2.0
"""Seconds of reading runs after which ``view`` and ``report`` say ``reading 85 runs...``."""


REPLY_SHOWN = 300
"""Characters of a reply ``--verbose`` shows (on one line; the run directory holds all)."""


def describe_call(call: QACall, question: Question, snapshot: EvalProgress) -> str:
    """One stored call for ``--verbose``: its id, how its reply reads against the key, the reply.

    ``[3/594] hanabi-03-JP trial 1: B, wrong (key C; read by marker_letter)`` then the reply
    on the next line, newlines shown as ``⏎``.
    """
    from coordqa.choices import option_letter
    from coordqa.scoring import score_call

    head = f"[{snapshot.done}/{snapshot.total}] {call.question_id} trial {call.trial}"
    if not call.ok:
        return f"{head}: error: {call.error}"
    sample = score_call(question, call.trial, call)
    key = ",".join(option_letter(index) for index in question.correct)
    verdict = ("right" if sample.correct else "wrong") if sample.status == "answered" else ""
    reading = ", ".join(part for part in (sample.letter or sample.status, verdict) if part)
    method = sample.choice.method if sample.choice is not None else "none"
    cached = ", from the cache" if call.cached else ""
    text = (call.text or "").replace("\n", " ⏎ ")
    shown = text if len(text) <= REPLY_SHOWN else text[:REPLY_SHOWN] + " …"
    return f"{head}: {reading} (key {key}; read by {method}{cached})\n    reply: {shown}"


def cost_words(totals: UsageTotals) -> str:
    """What was spent: ``cost $0.0123``, or how many calls have no price.

    ``cost unknown for 12 calls``, the priced ones' cost kept when there are any (``cost
    $0.5000 + unknown for 1 call``): the known part is not hidden. A bare ``?`` read like an
    error. Nothing sent is nothing spent (a cache hit costs nothing), and a free call (an
    offline or local model) costs $0. A failed call has no usage to price, so when some failed
    the words say they count the answered ones (``unknown for 12 answered calls`` beside ``13
    calls sent, ..., 1 failed``: the numbers add up). Calls that all failed leave no answered
    call whose price could be unknown: ``cost $0.0000 (no call answered)``.
    """
    usage = totals.usage
    if totals.sent == 0:
        return "cost $0.0000"
    if usage.calls == 0:
        return "cost $0.0000 (no call answered)"
    if usage.cost is not None:
        return f"cost ${usage.cost:.4f}"
    unpriced = usage.unpriced_calls
    answered = "answered " if totals.errors else ""
    unknown = f"unknown for {unpriced} {answered}call{'s' * (unpriced != 1)}"
    known = "" if usage.calls == unpriced else f"${usage.known_cost:.4f} + "
    return f"cost {known}{unknown}"


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


def nothing_to_ask(snapshot: EvalProgress) -> bool:
    """Whether the session found every sample answered: no bar, rate or eta to show."""
    return 0 < snapshot.total <= snapshot.resumed


def already_answered(resumed: int) -> str:
    """``3 samples already answered``: what a resumed run holds (``eval``, ``eval-set``)."""
    return f"{counted(resumed, 'sample')} already answered"


def all_answered(total: int) -> str:
    """``all 594 samples already answered`` (``the 1 sample ...``)."""
    samples = "the 1 sample" if total == 1 else f"all {counted(total, 'sample')}"
    return f"{samples} already answered"


class EvalDisplay:
    """Receives :class:`~coordqa.evaluation.EvalProgress` snapshots and shows them on stderr."""

    def __init__(self, console: Console, *, quiet: bool = False, verbose: bool = False) -> None:
        """Show progress on ``console`` (a stderr console).

        ``quiet``: only errors; ``verbose``: also every call as it is stored, with its reply
        and how it was read.
        """
        self.console = console
        self.quiet = quiet
        self.verbose = verbose
        self.started = False
        self.warned = False

    def __call__(self, snapshot: EvalProgress) -> None:
        """Show one snapshot."""
        if self.verbose and snapshot.call is not None and snapshot.question is not None:
            self.console.print(
                Text(describe_call(snapshot.call, snapshot.question, snapshot)),
                highlight=False,
                soft_wrap=True,
            )
        if snapshot.new_error is not None:
            say_first_error(self.console, snapshot.new_error)
        if snapshot.dropped_params and not self.warned:
            self.warned = True
            self.console.print(
                "[yellow]warning:[/] the model does not take "
                f"{', '.join(snapshot.dropped_params)}: left out of every request "
                "(recorded in manifest.json)",
                highlight=False,
            )
        if self.quiet:
            return
        if not self.started:
            self.started = True
            self.console.print(f"run directory: [bold]{snapshot.run_dir}[/]", highlight=False)
            if nothing_to_ask(snapshot):
                self.console.print(f"{all_answered(snapshot.total)}; nothing to ask")
                return
            if snapshot.resumed:
                self.console.print(f"resuming: {already_answered(snapshot.resumed)}")
            self.start(snapshot)
        if not nothing_to_ask(snapshot):
            self.update(snapshot)

    def start(self, snapshot: EvalProgress) -> None:
        """Begin showing progress (after the run directory is printed)."""

    def update(self, snapshot: EvalProgress) -> None:
        """Show progress."""

    def stop(self) -> None:
        """Stop showing progress (idempotent)."""


class PlainProgress(EvalDisplay):
    """A plain line every tenth of the run, and at least every :data:`PLAIN_EVERY_S` seconds.

    The time lines come from a clock of their own (a daemon thread), so a run whose calls all
    hang still prints one every 30 s with the time elapsed, rather than nothing until a call ends.
    """

    def __init__(self, console: Console, *, quiet: bool = False, verbose: bool = False) -> None:
        """Print lines on ``console``."""
        super().__init__(console, quiet=quiet, verbose=verbose)
        self._last_time = 0.0
        self._last_done = -1
        self._final: EvalProgress | None = None
        self._received = 0.0
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._clock: threading.Thread | None = None

    def start(self, snapshot: EvalProgress) -> None:
        """Start the clock of the time lines."""
        self._clock = threading.Thread(target=self._tick, name="coordqa-progress", daemon=True)
        self._clock.start()

    def update(self, snapshot: EvalProgress) -> None:
        """Print a line when a tenth of the run has passed since the last one (or at the end)."""
        with self._lock:
            self._final, self._received = snapshot, time.monotonic()
            step = max(1, snapshot.total // 10)
            if snapshot.done - self._last_done >= step or snapshot.done == snapshot.total:
                self._line(snapshot, 0.0)

    def stop(self) -> None:
        """Stop the clock; print the last state unless it was just printed."""
        self._stopped.set()
        with self._lock:
            if self._final is not None and self._final.done != self._last_done:
                self._line(self._final, 0.0)

    def _tick(self) -> None:
        """Every :data:`PLAIN_EVERY_S` seconds without a line, print one (the time has moved)."""
        while not self._stopped.wait(PLAIN_EVERY_S / 10):
            with self._lock:
                now = time.monotonic()
                if self._final is not None and now - self._last_time >= PLAIN_EVERY_S:
                    self._line(self._final, now - self._received)

    def _line(self, snapshot: EvalProgress, since: float) -> None:
        """Print ``snapshot`` as it stands ``since`` seconds after it was taken."""
        calls = snapshot.calls
        elapsed = snapshot.elapsed_s + since
        new = snapshot.done - snapshot.resumed
        rate = new / elapsed if elapsed > 0 else 0.0
        remaining = (snapshot.total - snapshot.done) / rate if rate > 0 else None
        eta = _clock(remaining) if remaining is not None else "?"
        self.console.print(
            f"eval {snapshot.done}/{snapshot.total} ({snapshot.done / snapshot.total:.0%}) "
            f"| {rate:.1f} samples/s | {calls.sent} calls, {calls.cache_hits} cached, "
            f"{snapshot.errors} errors | {calls.usage.total_tokens} tok, {cost_words(calls)} "
            f"| {_clock(elapsed)} elapsed, eta {eta}",
            highlight=False,
            soft_wrap=True,
        )
        self._last_time, self._last_done = time.monotonic(), snapshot.done


class _BarFields(TypedDict):
    """The counts a progress bar's task shows beside the bar."""

    calls: int
    """Model calls sent."""
    cached: int
    """Replies served from the cache."""
    errors: int
    """Calls that failed."""
    cost: str
    """Spent so far, in words."""


class ProgressBar(EvalDisplay):
    """A live rich progress bar, for a terminal."""

    def __init__(self, console: Console, *, quiet: bool = False, verbose: bool = False) -> None:
        """Draw on ``console``."""
        super().__init__(console, quiet=quiet, verbose=verbose)
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            TextColumn("[bold]eval"),
            BarColumn(bar_width=16),
            MofNCompleteColumn(),
            TextColumn("{task.fields[calls]} calls {task.fields[cached]} cached"),
            TextColumn("{task.fields[errors]} err {task.fields[cost]}"),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=console,
        )
        self.task: Any = None

    def start(self, snapshot: EvalProgress) -> None:
        """Show the bar."""
        self.task = self.progress.add_task(  # from the resumed samples: the speed is this session's
            "eval", total=snapshot.total, completed=snapshot.resumed, **self._fields(snapshot)
        )
        self.progress.start()

    def update(self, snapshot: EvalProgress) -> None:
        """Move the bar."""
        self.progress.update(self.task, completed=snapshot.done, **self._fields(snapshot))

    def stop(self) -> None:
        """Remove the live display."""
        self.progress.stop()

    @staticmethod
    def _fields(snapshot: EvalProgress) -> _BarFields:
        calls = snapshot.calls
        return {
            "calls": calls.sent,
            "cached": calls.cache_hits,
            "errors": snapshot.errors,
            "cost": cost_words(calls),
        }


ATTEMPTS_GROUPED_S = 0.5
"""Timed-out attempts said within this many seconds of the first, alike but for their call, are
said in one line: calls sent together (8 in flight) time out together."""

NAMES_SHOWN = 3
"""Calls a grouped line names; it counts the others."""


class _AttemptLines(logging.Handler):
    """Writes timed-out attempts as ``warning:`` lines on the stderr console, naming each call.

    Attempts that differ only in their call (``attempt 1 of 6 timed out after 5 s``, for 8
    questions in flight) and come within :data:`ATTEMPTS_GROUPED_S` of each other are one line:
    ``warning: 8 calls: attempt 1 of 6 timed out ...; retrying (hanabi-01-EC trial 0, ... and 5
    more)``. A lone attempt is said with its call's name in front.
    """

    def __init__(self, console: Console) -> None:
        super().__init__(logging.WARNING)
        self.console = console
        self._pending: dict[str, list[str]] = {}
        """What each attempt said (its record's ``attempt``) -> the calls that said it."""
        self._timer: threading.Timer | None = None
        self._guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        what = getattr(record, "attempt", None) or record.getMessage()
        with self._guard:
            self._pending.setdefault(what, []).append(getattr(record, "call", ""))
            if self._timer is None:
                self._timer = threading.Timer(ATTEMPTS_GROUPED_S, self.flush)
                self._timer.daemon = True
                self._timer.start()

    def flush(self) -> None:
        """Print what is pending, one line per kind of attempt."""
        with self._guard:
            pending, self._pending = self._pending, {}
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        for what, calls in pending.items():
            self.console.print(
                Text.assemble(("warning:", "yellow"), " ", grouped(what, calls)), soft_wrap=True
            )


def grouped(what: str, calls: list[str]) -> str:
    """One line for the calls that said ``what``: the call's name, or how many and which.

    >>> grouped("attempt 1 of 6 timed out after 5 s (--timeout); retrying", ["q1 trial 0"])
    'q1 trial 0: attempt 1 of 6 timed out after 5 s (--timeout); retrying'
    >>> grouped("attempt 2 of 2 timed out after 1 s (--timeout); stopping", ["a", "b", "c", "d"])
    '4 calls: attempt 2 of 2 timed out after 1 s (--timeout); stopping (a, b, c and 1 more)'
    """
    if len(calls) == 1:
        return f"{calls[0]}: {what}" if calls[0] else what
    named = [call for call in calls if call]
    shown = ", ".join(named[:NAMES_SHOWN])
    rest = len(calls) - min(len(named), NAMES_SHOWN)
    names = f"{shown} and {rest} more" if shown and rest else shown
    return f"{len(calls)} calls: {what}" + (f" ({names})" if names else "")


def say_first_error(console: Console, error: str, where: str = "") -> None:
    """Print the first error of its kind (``where``: `` in LABEL``), after what caused it.

    The timed-out attempts wait up to :data:`ATTEMPTS_GROUPED_S` to be grouped, and the error
    their call gave up with comes sooner: it was printed above the attempt that caused it
    (walkthrough 7, #184). So the attempts said so far are printed first.
    """
    from coordqa.llm import retry

    for handler in retry.log.handlers:
        if isinstance(handler, _AttemptLines):
            handler.flush()
    console.print(f"[red]error[/]{where} (first of its kind): {escape(error)}", highlight=False)


@contextmanager
def attempt_lines(console: Console) -> Iterator[None]:
    """Show on ``console`` every timed-out attempt as it happens (:mod:`coordqa.llm.retry`'s log).

    A retried attempt is otherwise silent until its call gives up: with a 120 s --timeout and
    three attempts, six minutes without a word. Each line names its call (a question and trial,
    an agent's episode, seat, step and role), or how many calls timed out together and which.
    """
    from coordqa.llm import retry

    handler = _AttemptLines(console)
    retry.log.addHandler(handler)
    try:
        yield
    finally:
        retry.log.removeHandler(handler)
        handler.flush()


class Stoppable(Protocol):
    """A live display (:class:`EvalDisplay`, :class:`~coordqa.cli._set_progress.SetDisplay`)."""

    def stop(self) -> None:
        """Leave the terminal to plain output; again is harmless."""


@contextmanager
def live_run(display: Stoppable, console: Console, interrupted: type[Exception]) -> Iterator[None]:
    """Run a command's body with ``display`` live and :func:`attempt_lines` on ``console``.

    The display is stopped however the body ends, before anything else is printed; the run's
    own interruption (``interrupted``, raised once what finished is stored) ends the command
    with its message and exit status 130, alike for ``eval`` and ``eval-set``.
    """
    try:
        with attempt_lines(console):
            yield
    except interrupted as stop:
        display.stop()
        console.print(f"[yellow]{stop}[/]", highlight=False)
        raise typer.Exit(INTERRUPTED_EXIT) from None
    finally:
        display.stop()


def eval_display(console: Console, *, quiet: bool, verbose: bool = False) -> EvalDisplay:
    """A progress bar on a terminal, plain lines elsewhere."""
    if console.is_terminal and not quiet:
        return ProgressBar(console, verbose=verbose)
    return PlainProgress(console, quiet=quiet, verbose=verbose)


@contextmanager
def reading_note(console: Console, runs: int) -> Iterator[None]:
    """Say ``reading 85 runs...`` on ``console`` (stderr) once, if reading takes a while.

    ``coordqa view`` and ``coordqa report`` read every run before they show or write anything:
    85 runs took minutes with nothing on screen (a blind walkthrough). The line comes when the
    reading has taken :data:`READING_NOTE_S` seconds, so a quick read stays quiet, as an export
    that ends within :data:`EXPORT_EVERY_S` says no progress line.
    """
    words = f"reading {counted(runs, 'run')}..."

    def say() -> None:
        console.print(words, highlight=False, markup=False, soft_wrap=True)

    if READING_NOTE_S <= 0:
        say()
        yield
        return
    timer = threading.Timer(READING_NOTE_S, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def export_words(state: ExportProgress) -> str:
    """``12 of 85 runs, 3,400 pages written`` (``12 of 85 submissions, ...`` on a leaderboard)."""
    pages = "page" if state.pages_written == 1 else "pages"
    pages_written = f"{state.pages_written:,} {pages} written"
    return f"{state.runs_done} of {counted(state.runs_total, state.unit)}, {pages_written}"


class ExportDisplay:
    """Shows :class:`~coordqa.web.rendering.ExportProgress` on stderr while an export writes.

    ``coordqa view --export`` and ``coordqa leaderboard export`` (which said nothing while it
    wrote, a blind walkthrough) show the same display. On a terminal a live bar of the runs
    (or submissions); elsewhere (a pipe, a log file) a plain line
    ``exporting: 12 of 85 runs, 3,400 pages written`` at most every :data:`EXPORT_EVERY_S`
    seconds, and the last count when the export ends if a line was said: 85 runs of 13,989
    pages took 3.5 minutes and said nothing in between (walkthrough 26, R4). An export that
    ends within the first interval says no line.
    """

    def __init__(self, console: Console) -> None:
        """Show progress on ``console`` (a stderr console)."""
        self.console = console
        self._started = time.monotonic()
        self._last_time: float | None = None
        self._last: ExportProgress | None = None
        self._shown: ExportProgress | None = None
        self._bar: Any = None
        self._task: Any = None
        if console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._bar = Progress(
                TextColumn("[bold]exporting {task.fields[items]}"),
                BarColumn(bar_width=24),
                MofNCompleteColumn(),
                TextColumn("{task.fields[pages]}"),
                console=console,
                transient=True,
            )

    def __call__(self, state: ExportProgress) -> None:
        """Show one state."""
        self._last = state
        if self._bar is not None:
            if self._task is None:
                items = f"{state.unit}s"
                self._task = self._bar.add_task(
                    "export", total=state.runs_total, pages="", items=items
                )
                self._bar.start()
            pages = f"{state.pages_written:,} pages written"
            self._bar.update(self._task, completed=state.runs_done, pages=pages)
            return
        since = self._started if self._last_time is None else self._last_time
        if time.monotonic() - since >= EXPORT_EVERY_S:
            self._line(state)

    def stop(self) -> None:
        """Remove the bar, or say the last count if a line was said before it (idempotent)."""
        if self._bar is not None:
            self._bar.stop()
        elif self._shown is not None and self._last is not None and self._last != self._shown:
            self._line(self._last)

    def _line(self, state: ExportProgress) -> None:
        self.console.print(f"exporting: {export_words(state)}", highlight=False, soft_wrap=True)
        self._last_time, self._shown = time.monotonic(), state
