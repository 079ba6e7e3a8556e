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
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from coordqa.errors import INTERRUPTED_EXIT, RunFailed, RunInterrupted
from coordqa.runs.watch import ErrorWatch
from coordqa.stops import handle_stops, stops_held
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
        (:func:`~coordqa.stops.stops_held`) and then stops what follows.
        """
        self.store.mark_started()
        try:
            yield self.store
        except (asyncio.CancelledError, KeyboardInterrupt):
            with stops_held():
                self.store.mark_interrupted()
            if on_interrupt is not None:
                on_interrupt()
            raise

    def finish(self) -> None:
        """End the session with the run complete; a Ctrl-C meanwhile waits for the mark."""
        with stops_held():
            self.store.mark_finished()

    def failed(
        self, message: str, result: object = None, watch: ErrorWatch | None = None
    ) -> RunFailed:
        """Mark the session failed (a Ctrl-C meanwhile waits for the mark); return the error.

        ``result`` is what the session did; ``watch`` the session's errors, whose stopping
        error and first error of each kind the exception carries apart from the message.
        """
        with stops_held():
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


STOP_GRACE_S = 20.0
"""How long a stopped session may take to end before the process ends at once (exit 130)."""


class _Stopper:
    """Ctrl-C and SIGTERM for one session: the first cancels the session's task.

    The session then unwinds through its ``except CancelledError`` and ``finally`` blocks (the
    run is marked interrupted, queued records are written), however deep in task groups it is;
    a second stop raises KeyboardInterrupt at once. This is what ``asyncio.run`` does for Ctrl-C
    (Python 3.11 and later), here for SIGTERM too. A session still running
    :data:`STOP_GRACE_S` after the first stop is not waited for: the process ends, exit 130,
    with a line saying so (walkthrough 26a: once in about 16 tries the first Ctrl-C of an eval
    left it spinning at 100% CPU, unstopped, for 10 minutes). Every record is written and
    flushed as it is made, so ending then loses nothing finished, as ``kill -9`` loses nothing.
    """

    def __init__(self, task: asyncio.Task[Any], loop: asyncio.AbstractEventLoop) -> None:
        self.task = task
        self.loop = loop
        self.requested = False
        self._deadline = threading.Timer(STOP_GRACE_S, _end_at_once)
        self._deadline.daemon = True

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.requested or self.task.done():
            raise KeyboardInterrupt
        self.requested = True
        self._deadline.start()
        self.task.cancel()
        self.loop.call_soon_threadsafe(lambda: None)  # wake the loop if it waits on I/O

    def ended(self) -> None:
        """The session ended (however): the deadline is off."""
        self._deadline.cancel()


def _end_at_once() -> None:
    """End the process, exit 130: a session did not end :data:`STOP_GRACE_S` after its stop."""
    import sys

    print(
        f"interrupted: stopping took longer than {STOP_GRACE_S:g} s, so it ended at once; "
        "everything finished so far is stored. Run the same command again to resume.",
        file=sys.stderr,
        flush=True,
    )
    sys.stdout.flush()
    os._exit(INTERRUPTED_EXIT)


def _only_interruptions(error: BaseException) -> bool:
    """Whether ``error`` is a Ctrl-C or a cancellation, alone or grouped by a task group."""
    grouped = getattr(error, "exceptions", None)  # BaseExceptionGroup (a backport on 3.10)
    if isinstance(grouped, tuple) and grouped:
        return all(_only_interruptions(inner) for inner in grouped)
    return isinstance(error, (KeyboardInterrupt, asyncio.CancelledError))


def _interruptions_said_once(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's exception handler: a task that ended in an interruption is not logged.

    GNU ``timeout -s INT`` sends SIGINT twice (see :func:`~coordqa.stops.stops_held`): the
    second raises KeyboardInterrupt inside a task, and ``asyncio.run`` then logged "unhandled
    exception during asyncio.run() shutdown" with the task group's whole traceback before the
    run's own interrupted line (walkthrough 24). The run says the interruption; anything else
    is logged.
    """
    error = context.get("exception")
    if isinstance(error, BaseException) and _only_interruptions(error):
        return
    loop.default_exception_handler(context)


async def _terminable(session: Callable[[], Coroutine[Any, Any, T]], stops: list[_Stopper]) -> T:
    """Await ``session()``; Ctrl-C or SIGTERM cancels it and ends as KeyboardInterrupt.

    The stop handler is put in ``stops``, so that its deadline holds until the event loop is
    closed too (:func:`run_to_end`).
    """
    task = asyncio.current_task()
    if task is None:  # pragma: no cover - always inside asyncio.run
        return await session()
    asyncio.get_running_loop().set_exception_handler(_interruptions_said_once)
    stopper = _Stopper(task, asyncio.get_running_loop())
    stops.append(stopper)
    with handle_stops(stopper):
        try:
            return await session()
        except asyncio.CancelledError:
            if stopper.requested:
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
    stops: list[_Stopper] = []
    try:
        return asyncio.run(_terminable(session, stops))
    except KeyboardInterrupt:
        raise error(interrupted(), run_dir) from None
    except asyncio.CancelledError:
        # a stop that lands as the session returns cancels the task after its last await:
        # asyncio ends the task cancelled all the same, outside _terminable (walkthrough 30:
        # CancelledError's traceback and status 1 after the run's last call)
        if any(stopper.requested for stopper in stops):
            raise error(interrupted(), run_dir) from None
        raise
    finally:
        for stopper in stops:
            stopper.ended()
