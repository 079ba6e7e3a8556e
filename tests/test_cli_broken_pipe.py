"""A command whose output's reader has gone (``coordqa ... | head -1``) ends as a shell tool does.

Typer (as Click) ends a command whose stdout pipe is closed with exit status 1, which the guide
reads "run failed", although nothing failed (walkthrough 28, R1). Every command ends the same
way instead, from the console script: no word, exit status 141 (128 + SIGPIPE, what ``git log |
head`` returns), and what was finished is stored. Only a real process has a pipe to close, so
these run the installed ``coordqa`` script.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

OUTPUT_CLOSED_EXIT = 141  # 128 + SIGPIPE
COORDQA = str(Path(sys.executable).with_name("coordqa"))
NOISE = ("Traceback", "BrokenPipe", "Exception ignored", "error:")


def into_a_closed_reader(
    *args: str | Path, cwd: Path, stderr_too: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run ``coordqa ARGS | head -1`` once ``head`` has read its line and gone: the pipe's
    reading end is closed before the command writes, so its first write finds it closed (as
    ``head`` leaves it, without the race of when ``head`` exits). With ``stderr_too``, stderr
    goes into the pipe too (``2>&1 | head -1``)."""
    read, write = os.pipe()
    os.close(read)
    env = {**os.environ, "COORDQA_CACHE_DIR": str(cwd / "cache"), "COLUMNS": "80"}
    try:
        return subprocess.run(
            [COORDQA, *map(str, args)],
            stdout=write,
            stderr=write if stderr_too else subprocess.PIPE,
            text=True,
            cwd=cwd,
            env=env,
            timeout=300,
        )
    finally:
        os.close(write)


def assert_quiet_141(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == OUTPUT_CLOSED_EXIT, done.stderr
    assert not [word for word in NOISE if word in (done.stderr or "")], done.stderr


def eval_random(out: Path, cwd: Path, limit: int = 6) -> subprocess.CompletedProcess[str]:
    args = ("eval", "--model", "random", "--trials", "1", "--limit", str(limit), "--out", out)
    return subprocess.run(
        [COORDQA, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COORDQA_CACHE_DIR": str(cwd / "cache")},
        timeout=300,
    )


def scored(run: Path) -> int:
    return len((run / "scores.jsonl").read_text().splitlines())


def test_eval_into_a_closed_pipe_exits_141_quietly_with_its_run_stored(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "random"
    done = into_a_closed_reader(
        "eval", "--model", "random", "--trials", "1", "--limit", "6", "--out", run, cwd=tmp_path
    )
    assert_quiet_141(done)
    assert scored(run) == 6
    assert json.loads((run / "summary.json").read_text())
    again = eval_random(run, tmp_path)
    assert again.returncode == 0, again.stderr
    assert scored(run) == 6  # complete: the rerun asked nothing again


@pytest.mark.parametrize(
    "args",
    [
        ("runs", "list", "runs"),
        ("report", "runs", "--reference", "scripted", "--out", "report"),
        ("dataset", "list"),
        ("--help",),
        ("eval", "--help"),
    ],
    ids=" ".join,
)
def test_every_command_into_a_closed_pipe_exits_141_quietly(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    for model in ("random", "scripted"):
        made = subprocess.run(
            [COORDQA, "eval", "--model", model, "--trials", "1", "--limit", "6"]
            + ["--out", f"runs/{model}"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env={**os.environ, "COORDQA_CACHE_DIR": str(tmp_path / "cache")},
            timeout=300,
        )
        assert made.returncode == 0, made.stderr
    assert_quiet_141(into_a_closed_reader(*args, cwd=tmp_path))


def test_eval_stopped_midway_by_a_closed_pipe_keeps_what_finished_and_resumes(
    tmp_path: Path,
) -> None:
    """``eval 2>&1 | head -1``: ``head`` reads the run directory's line and goes, and a progress
    line of the running eval finds the pipe closed. The samples answered are kept; the same
    command resumes them."""
    run = tmp_path / "runs" / "random"
    args = ("eval", "--model", "random", "--trials", "3", "--out", str(run))
    env = {**os.environ, "COORDQA_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "80"}
    proc = subprocess.Popen(
        [COORDQA, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=tmp_path
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().decode().startswith("run directory:")
    proc.stdout.close()
    assert proc.wait(timeout=300) == OUTPUT_CLOSED_EXIT
    kept = len((run / "calls.jsonl").read_text().splitlines())
    again = subprocess.run(
        [COORDQA, *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert again.returncode == 0, again.stderr
    if kept:
        assert f"resuming: {kept} samples already answered" in again.stderr
    assert scored(run) == 198 * 3


def test_a_broken_pipe_of_a_socket_is_not_taken_for_a_closed_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A model server that hangs up breaks a socket's pipe, not the output: that error stays
    the run's. Only a pipe whose reader has gone is a closed output."""
    from coordqa.cli._errors import OutputClosed, broken_pipe_as_output_closed

    read, write = os.pipe()
    with os.fdopen(write, "w") as out, os.fdopen(read) as reader:
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", out)
        with pytest.raises(BrokenPipeError), broken_pipe_as_output_closed():
            raise BrokenPipeError(32, "Broken pipe")  # as a socket's send raises it
        reader.close()
        with pytest.raises(OutputClosed), broken_pipe_as_output_closed():
            raise BrokenPipeError(32, "Broken pipe")
