"""A run's lifecycle: open or resume its directory, run a session, end the session with a status.

Every kind of run (``coordqa eval``, ``coordqa agentic run/grid``, ``coordqa play``) goes
through the same steps, so they stop, resume and report the same way:

1. :meth:`RunLifecycle.open` creates the run directory, or resumes the run there when its
   identity (configuration, dataset, fingerprint) is the one asked for; another run is refused
   (:meth:`coordqa.store.RunStore.open_or_create` names the differences);
2. :meth:`RunLifecycle.session` marks a session started and, when Ctrl-C, SIGTERM or a
   cancellation ends it early, ``interrupted``. Drivers write each unit (a QA call, an episode)
   the moment it exists, so even ``kill -9`` loses no finished unit, and a resumed run skips
   every unit already stored;
3. :meth:`RunLifecycle.finish` or :meth:`RunLifecycle.failed` end the session as ``finished`` or
   ``failed`` (:class:`~coordqa.errors.RunFailed`, exit status 1 in the CLI);
4. :func:`run_to_end` runs a session's coroutine from synchronous code and turns Ctrl-C and
   SIGTERM into one exception, :class:`~coordqa.errors.RunInterrupted` (exit status 130), whose
   message says what is kept and how to resume; :func:`sigterm_as_ctrl_c` does the same for
   the synchronous code around sessions (a board worker's), so a SIGTERM never kills the
   process where Ctrl-C would have let it put its work back.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from coordqa.errors import RunFailed, RunInterrupted
from coordqa.runs.watch import ErrorWatch
from coordqa.store import RunManifest, RunStore

T = TypeVar("T")


class RunLifecycle:
    """One run directory, opened by a driver for one session. Use it as a context manager."""

    def __init__(self, store: RunStore) -> None:
        """Drive the run held by ``store`` (opened for writing); prefer :meth:`open`."""
        self.store = store

    @classmethod
    def open(cls, out: str | os.PathLike[str], manifest: RunManifest) -> RunLifecycle:
        """Create the run at ``out``, or resume it if it is the run ``manifest`` describes.

        Raises:
            StoreError: ``out`` holds a run with another identity (the message lists the
                differences and the fix).
        """
        return cls(RunStore.open_or_create(out, manifest))

    @property
    def path(self) -> Path:
        """The run directory."""
        return self.store.path

    @contextmanager
    def session(self, on_interrupt: Callable[[], object] | None = None) -> Iterator[RunStore]:
        """Mark a session started; mark it interrupted if Ctrl-C, SIGTERM or a cancel ends it.

        ``on_interrupt`` runs after the mark (a QA run rescores what it stored); the
        interruption then goes on up. A second Ctrl-C or SIGTERM waits for the mark
        (:func:`_stops_held`) and then stops what follows.
        """
        self.store.mark_started()
        try:
            yield self.store
        except (asyncio.CancelledError, KeyboardInterrupt):
            with _stops_held():
                self.store.mark_interrupted()
            if on_interrupt is not None:
                on_interrupt()
            raise

    def finish(self) -> None:
        """End the session with the run complete; a Ctrl-C meanwhile waits for the mark."""
        with _stops_held():
            self.store.mark_finished()

    def failed(
        self, message: str, result: object = None, watch: ErrorWatch | None = None
    ) -> RunFailed:
        """Mark the session failed (a Ctrl-C meanwhile waits for the mark); return the error.

        ``result`` is what the session did; ``watch`` the session's errors, whose stopping
        error and first error of each kind the exception carries apart from the message.
        """
        with _stops_held():
            self.store.mark_failed()
        if watch is None:
            return RunFailed(message, result)
        stop = watch.stopped_by
        return RunFailed(
            message,
            result,
            stop_kind=None if stop is None else stop.kind,
            stop_error=None if stop is None else stop.error,
            first_errors=tuple(watch.first_errors.values()),
        )

    def close(self) -> None:
        """Release the run directory (close the streams and the write lock)."""
        self.store.close()

    def __enter__(self) -> RunLifecycle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_STOPS = {signal.SIGINT, signal.SIGTERM}
"""The signals that stop a session (Ctrl-C, and ``kill`` or a scheduler's SIGTERM)."""


@contextmanager
def _stops_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while inside: one sent meanwhile is handled as it ends.

    Marking a run interrupted rewrites its manifest (write, fsync, rename). GNU ``timeout -s
    INT`` signals the command and then its process group, so the command gets SIGINT twice (as
    from a user pressing Ctrl-C twice): the second KeyboardInterrupt landed inside the fsync,
    the rename never happened, and the run stayed ``running``. Inside, a stop is only noted;
    after, the handler it would have reached runs (raising KeyboardInterrupt, as it would have).
    Python runs signal handlers in the main thread whichever thread the signal reached (a
    llama.cpp or executor thread), so the handlers are swapped, not the thread's signal mask;
    in another thread no handler can interrupt the mark, and nothing is swapped.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = {stop: signal.signal(stop, lambda signum, _: held.append(signum)) for stop in _STOPS}
    try:
        yield
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)
        for signum in held:
            handler = previous[signal.Signals(signum)]
            if callable(handler):
                handler(signum, None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(signum)


class _Terminate:
    """SIGTERM handling for one session: the first cancels the session's task, as Ctrl-C does.

    The session then unwinds through its ``except CancelledError`` and ``finally`` blocks (the
    run is marked interrupted, queued records are written), however deep in task groups it is;
    a second SIGTERM raises KeyboardInterrupt at once. This is what ``asyncio.run`` does for
    Ctrl-C (Python 3.11 and later).
    """

    def __init__(self, task: asyncio.Task[Any], loop: asyncio.AbstractEventLoop) -> None:
        self.task = task
        self.loop = loop
        self.requested = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.requested or self.task.done():
            raise KeyboardInterrupt
        self.requested = True
        self.task.cancel()
        self.loop.call_soon_threadsafe(lambda: None)  # wake the loop if it waits on I/O


@contextmanager
def _handle_sigterm(handler: Callable[[int, FrameType | None], Any]) -> Iterator[None]:
    """Install ``handler`` for SIGTERM while inside (main thread only: elsewhere, nothing)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _raise_ctrl_c(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt while inside, as Ctrl-C does (main thread only).

    Python's default for SIGTERM ends the process on the spot: no ``except`` or ``finally``
    runs, so a board worker's claimed job stayed "running" until its lease ran out (walkthrough
    15). Inside, code that handles Ctrl-C handles SIGTERM the same way; a session run with
    :func:`run_to_end` inside still has its SIGTERM cancel its task, as before.
    """
    with _handle_sigterm(_raise_ctrl_c):
        yield


def _only_interruptions(error: BaseException) -> bool:
    """Whether ``error`` is a Ctrl-C or a cancellation, alone or grouped by a task group."""
    grouped = getattr(error, "exceptions", None)  # BaseExceptionGroup (a backport on 3.10)
    if isinstance(grouped, tuple) and grouped:
        return all(_only_interruptions(inner) for inner in grouped)
    return isinstance(error, (KeyboardInterrupt, asyncio.CancelledError))


def _interruptions_said_once(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's exception handler: a task that ended in an interruption is not logged.

    GNU ``timeout -s INT`` sends SIGINT twice (see :func:`_stops_held`): the second raises
    KeyboardInterrupt inside a task, and ``asyncio.run`` then logged "unhandled exception
    during asyncio.run() shutdown" with the task group's whole traceback before the run's own
    interrupted line (walkthrough 24). The run says the interruption; anything else is logged.
    """
    error = context.get("exception")
    if isinstance(error, BaseException) and _only_interruptions(error):
        return
    loop.default_exception_handler(context)


async def _terminable(session: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Await ``session()``; a SIGTERM cancels it and ends as KeyboardInterrupt, like Ctrl-C."""
    task = asyncio.current_task()
    if task is None:  # pragma: no cover - always inside asyncio.run
        return await session()
    asyncio.get_running_loop().set_exception_handler(_interruptions_said_once)
    terminate = _Terminate(task, asyncio.get_running_loop())
    with _handle_sigterm(terminate):
        try:
            return await session()
        except asyncio.CancelledError:
            if terminate.requested:
                raise KeyboardInterrupt from None
            raise


def run_to_end(
    session: Callable[[], Coroutine[Any, Any, T]],
    *,
    interrupted: Callable[[], str],
    run_dir: Path | None,
    error: type[RunInterrupted] = RunInterrupted,
) -> T:
    """Run ``session()`` in a new event loop; Ctrl-C or SIGTERM raise :class:`RunInterrupted`.

    Args:
        session: makes the coroutine of one session.
        interrupted: says, after the interruption, what is kept and how to resume.
        run_dir: the run directory (carried by the exception), if any.
        error: the interruption raised, :class:`RunInterrupted` or a kind of it (an eval set's).

    Raises:
        RunInterrupted: Ctrl-C or SIGTERM stopped the session.
    """
    try:
        return asyncio.run(_terminable(session))
    except KeyboardInterrupt:
        raise error(interrupted(), run_dir) from None
