"""A run stopped by Ctrl-C is recorded ``interrupted``, even when a second Ctrl-C follows at once.

Walkthrough 13, R4: ``timeout -s INT 10 coordqa eval --model llamacpp/...`` printed the
interrupted message and exited 130, but the manifest stayed ``running`` (``runs list``:
``stopped``, as after ``kill -9``). GNU ``timeout`` sends the signal to the command and then
to its process group, so the command gets SIGINT twice (so does a user pressing Ctrl-C twice).
The second KeyboardInterrupt landed inside the fsync of the manifest being marked
``interrupted``, before its rename: the mark was lost. Reproduced with the real GGUF by two
SIGINTs sent back to back (1 of 3 runs stayed ``running``, the traceback in the fsync).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coordqa.runs import RunLifecycle
from coordqa.store import RunManifest, RunStore, open_run


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt, as in an interactive ``coordqa`` (main thread)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def worker() -> Iterator[threading.Thread]:
    """Another thread of the process, as llama.cpp's or the executor's, alive while used."""
    done = threading.Event()
    thread = threading.Thread(target=done.wait, daemon=True)
    thread.start()
    yield thread
    done.set()
    thread.join(timeout=5)


@pytest.mark.parametrize("to", ["process", "worker thread"])
def test_a_second_ctrl_c_while_the_interruption_is_recorded_does_not_lose_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    ctrl_c_raises: None,
    worker: threading.Thread,
    to: str,
) -> None:
    """The signal reaches whichever thread the kernel picks; Python handles it in the main
    thread either way, so holding it must not depend on which thread got it."""
    write = RunStore.write_json
    sent: list[str] = []

    def second_ctrl_c(self: RunStore, name: str, data: Any) -> None:
        if isinstance(data, dict) and data.get("status") == "interrupted" and not sent:
            sent.append(name)
            if to == "process":  # arrives in the middle of the write
                os.kill(os.getpid(), signal.SIGINT)
            else:
                signal.pthread_kill(worker.ident or 0, signal.SIGINT)
            time.sleep(0.05)  # the main thread passes many points where a handler may run
        write(self, name, data)

    monkeypatch.setattr(RunStore, "write_json", second_ctrl_c)
    run = RunLifecycle.open(tmp_path / "run", RunManifest(kind="qa", config={}, fingerprint="x"))
    with pytest.raises(KeyboardInterrupt), run, run.session():
        raise KeyboardInterrupt  # the first Ctrl-C
    assert sent == ["manifest.json"]  # the second was sent while the mark was written
    assert open_run(tmp_path / "run").manifest.status == "interrupted"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


@pytest.mark.parametrize("end", ["finished", "failed"])
def test_a_ctrl_c_while_the_end_of_a_session_is_recorded_does_not_lose_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ctrl_c_raises: None, end: str
) -> None:
    """The same race at a session's end: a Ctrl-C in the middle of writing ``finished`` (or
    ``failed``) left the manifest ``running``, which ``runs list`` says of a killed run."""
    write = RunStore.write_json
    sent: list[str] = []

    def ctrl_c_in_the_write(self: RunStore, name: str, data: Any) -> None:
        if isinstance(data, dict) and data.get("status") == end and not sent:
            sent.append(name)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        write(self, name, data)

    monkeypatch.setattr(RunStore, "write_json", ctrl_c_in_the_write)
    run = RunLifecycle.open(tmp_path / "run", RunManifest(kind="qa", config={}, fingerprint="x"))
    with run:
        with run.session():
            pass
        with pytest.raises(KeyboardInterrupt):  # the Ctrl-C still stops what follows
            run.finish() if end == "finished" else run.failed("the server died")
    assert sent == ["manifest.json"]
    assert open_run(tmp_path / "run").manifest.status == end


STUBBORN_SESSION = """
import asyncio, os, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's command has it
from coordqa.runs import lifecycle
lifecycle.STOP_GRACE_S = 1.0

async def stubborn():
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIG)).start()
    while True:  # a cancellation that never ends it (walkthrough 26a: spun 10 minutes)
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            continue

lifecycle.run_to_end(stubborn, interrupted=lambda: "never said", run_dir=None)
"""


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_a_session_that_does_not_stop_when_asked_is_ended_after_the_grace(stop: str) -> None:
    """Walkthrough 26a, B1: once in about 16 tries the first Ctrl-C of an eval left it spinning
    at 100% CPU for 10 minutes without ending. However a session fails to unwind, the process
    ends ``STOP_GRACE_S`` after the first stop, exit 130, with a line that says so."""
    import subprocess
    import sys

    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", STUBBORN_SESSION.replace("signal.SIG)", f"signal.{stop})")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 130, done.stderr
    assert time.monotonic() - started < 30
    assert done.stderr.strip() == (
        "interrupted: stopping took longer than 1 s, so it ended at once; everything finished "
        "so far is stored. Run the same command again to resume."
    ), done.stderr


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_as_the_session_returns_is_said_as_an_interruption(
    ctrl_c_raises: None, stop: int
) -> None:
    """Walkthrough 30: a Ctrl-C that landed just after a run's last call cancelled its task
    after the session's last await; asyncio then ended the task cancelled although the
    session had returned, and the command died with CancelledError's traceback and status 1."""
    import asyncio

    from coordqa.errors import RunInterrupted
    from coordqa.runs.lifecycle import run_to_end

    async def session() -> str:
        await asyncio.sleep(0)
        os.kill(os.getpid(), stop)  # handled here, in the main thread, before the return
        return "answered"

    with pytest.raises(RunInterrupted, match="said after the stop"):
        run_to_end(session, interrupted=lambda: "said after the stop", run_dir=None)
