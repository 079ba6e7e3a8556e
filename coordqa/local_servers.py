"""Plumbing of the local servers that tests and benchmarks start.

A free port (:func:`free_port`), a ``coordqa`` command serving in a subprocess
(:class:`CommandServer`), and stopping a server process (:func:`stop_process`). One home for the
shutdown order, so every caller gives a server process the same chance to run its shutdown
handlers before it is killed, and none leaves a zombie behind.
"""

from __future__ import annotations

import abc
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import IO, Any, TypeVar

from coordqa.errors import CoordqaError

STARTUP_TIMEOUT_S = 60.0
"""How long a command server may take to become ready before it is stopped and reported."""

KILL_WAIT_S = 30.0
"""How long to wait for a process to end after SIGKILL (which it cannot refuse)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (nothing listens there)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop_process(process: subprocess.Popen[Any], grace_s: float = 10.0) -> None:
    """Terminate ``process`` (SIGTERM), then SIGKILL it if it is still running after ``grace_s``.

    A process that has already exited is left alone.
    """
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        kill_process(process)


def kill_process(process: subprocess.Popen[Any]) -> None:
    """SIGKILL ``process`` (no shutdown handler runs, as in a crash) and wait for it to end."""
    if process.poll() is None:
        process.kill()
        process.wait(timeout=KILL_WAIT_S)


_Server = TypeVar("_Server", bound="CommandServer")


class CommandServer(abc.ABC):
    """A ``coordqa`` command serving on 127.0.0.1 in a subprocess; ``with`` starts and stops it.

    Subclasses start it in :meth:`start` with :meth:`_launch` and :meth:`_wait_until`.
    """

    process: subprocess.Popen[bytes] | None = None

    @abc.abstractmethod
    def start(self: _Server) -> _Server:
        """Start the command and wait (bounded) until it serves; return the server."""

    def _launch(self, args: Sequence[str], output: IO[bytes] | int) -> subprocess.Popen[bytes]:
        """Run ``coordqa ARGS`` (this Python, this coordqa) with stdout and stderr to ``output``."""
        command = [sys.executable, "-c", "from coordqa.cli import main; main()", *args]
        self.process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        return self.process

    def _wait_until(
        self,
        process: subprocess.Popen[bytes],
        ready: Callable[[], bool],
        exited: Callable[[], str],
        waiting_for: str,
    ) -> None:
        """Poll ``ready`` for up to :data:`STARTUP_TIMEOUT_S`.

        Raises:
            CoordqaError: the process exited first (the message is ``exited()``), or the time ran
                out (the process is stopped; the message is ``waiting_for`` and the limit).
        """
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if ready():
                return
            if process.poll() is not None:
                raise CoordqaError(exited())
            time.sleep(0.1)
        self.stop()
        raise CoordqaError(f"{waiting_for} within {STARTUP_TIMEOUT_S} s")

    def stop(self) -> None:
        """Terminate the server (SIGTERM, then SIGKILL after 10 s)."""
        if self.process is not None:
            stop_process(self.process)

    def __enter__(self: _Server) -> _Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
