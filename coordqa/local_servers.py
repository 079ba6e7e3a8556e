"""Plumbing of the local servers that tests and benchmarks start: a free port, and stopping.

One home for the shutdown order, so every caller gives a server process the same chance to run
its shutdown handlers before it is killed, and none leaves a zombie behind.
"""

from __future__ import annotations

import socket
import subprocess
from typing import Any

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
