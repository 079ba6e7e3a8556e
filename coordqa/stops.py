"""Ctrl-C and SIGTERM, the two ways a command is stopped: one home for their handlers.

A SIGTERM (``kill``, ``timeout``, a scheduler) stops a command as Ctrl-C does
(:func:`sigterm_as_ctrl_c`), instead of Python's default that ends the process on the spot with
no ``finally`` run; a step that must not be cut in two holds both (:func:`stops_held`) or drops
Ctrl-C (:func:`ctrl_c_ignored`). Handlers are swapped in the main thread only, where Python runs
them; elsewhere these do nothing.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = [
    "STOPS",
    "ctrl_c_ignored",
    "handle_stops",
    "sigterm_as_ctrl_c",
    "stops_held",
]

STOPS = {signal.SIGINT, signal.SIGTERM}
"""The signals that stop a command (Ctrl-C, and ``kill`` or a scheduler's SIGTERM)."""


@contextmanager
def stops_held() -> Iterator[None]:
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
    previous = {stop: signal.signal(stop, lambda signum, _: held.append(signum)) for stop in STOPS}
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


@contextmanager
def _swapped(stops: Sequence[int], handler: Any) -> Iterator[None]:
    """Install ``handler`` for ``stops`` while inside (main thread only: elsewhere, nothing)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {stop: signal.signal(stop, handler) for stop in stops}
    try:
        yield
    finally:
        for stop, earlier in previous.items():
            signal.signal(stop, signal.SIG_DFL if earlier is None else earlier)


@contextmanager
def handle_stops(handler: Callable[[int, FrameType | None], Any]) -> Iterator[None]:
    """Install ``handler`` for Ctrl-C and SIGTERM while inside (main thread only).

    Ctrl-C is left alone where it is ignored (a shell's background job), as Python leaves it.
    """
    taken = [stop for stop in STOPS if signal.getsignal(stop) is not signal.SIG_IGN]
    with _swapped(taken, handler):
        yield


def _raise_ctrl_c(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt while inside, as Ctrl-C does (main thread only).

    Python's default for SIGTERM ends the process on the spot: no ``except`` or ``finally``
    runs, so a board worker's claimed job stayed "running" until its lease ran out (walkthrough
    15). Inside, code that handles Ctrl-C handles SIGTERM the same way; a session run with
    :func:`~coordqa.runs.run_to_end` inside still has its SIGTERM cancel its task, as before.
    """
    with _swapped([signal.SIGTERM], _raise_ctrl_c):
        yield


@contextmanager
def ctrl_c_ignored() -> Iterator[None]:
    """Within, Ctrl-C is ignored (in the main thread, where its handler is).

    Moving the files in takes a moment, and stopped halfway it would leave neither the earlier
    output nor the new one.
    """
    with _swapped([signal.SIGINT], signal.SIG_IGN):
        yield
