"""Interrupting ``coordqa eval`` (Ctrl-C, then SIGKILL) and resuming: nothing lost, nothing redone.

The model server runs in the test process, the interrupted CLI runs in subprocesses (a signal
needs a process of its own); the server's latency keeps the run mid-way when it is interrupted.
The resuming run needs no process of its own and runs in the test process (:mod:`cli_support`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from cli_support import coordqa
from test_evaluate_support import answers, question_of, write_dataset

from coordqa.llm.testing import LocalOpenAIServer
from coordqa.store import open_run, read_qa_run

TRIALS = 3
CONCURRENCY = 3
QUESTIONS = 12


def stored_lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def start(command: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def wait_for_calls(calls: Path, count: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 90
    while stored_lines(calls) < count:
        if proc.poll() is not None or time.monotonic() > deadline:
            output = proc.communicate()[0] if proc.poll() is not None else ""
            raise AssertionError(f"the run did not reach {count} calls: {output}")
        time.sleep(0.05)


@pytest.mark.slow  # two CLI processes, each importing litellm: about 20 s
def test_ctrl_c_then_sigkill_then_resume(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=QUESTIONS // 3)
    out = tmp_path / "run"
    calls_file = out / "calls.jsonl"
    env = {**os.environ, "COORDQA_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "300"}
    total = QUESTIONS * TRIALS
    with LocalOpenAIServer(answers(), latency_s=0.25) as server:
        args = [
            "eval",
            "--model",
            "openai/test-model",
            "--api-base",
            server.base_url,
            "--dataset",
            dataset,
            "--trials",
            str(TRIALS),
            "--concurrency",
            str(CONCURRENCY),
            "--no-cache",
            "--out",
            str(out),
        ]
        command = [sys.executable, "-c", "from coordqa.cli import main; main()", *args]
        first = start(command, env)
        wait_for_calls(calls_file, 6, first)
        first.send_signal(signal.SIGINT)
        output = first.communicate(timeout=60)[0]
        assert first.returncode == 130, output
        assert "Run the same command again to resume" in output
        assert open_run(out).manifest.status == "interrupted"
        after_ctrl_c = stored_lines(calls_file)

        second = start(command, env)
        wait_for_calls(calls_file, after_ctrl_c + 6, second)
        second.kill()
        second.wait(timeout=30)
        after_kill = stored_lines(calls_file)
        assert after_kill < total

        third = coordqa(*args, env={"COORDQA_CACHE_DIR": env["COORDQA_CACHE_DIR"]}, columns=300)
        assert third.returncode == 0, third.stdout + third.stderr
        assert "resuming" in third.stderr and "resuming" not in third.stdout
        asked = Counter(question_of(body) for body in server.requests)

    run = read_qa_run(out)
    calls = Counter(call.key for call in run.calls())
    assert len(calls) == total and set(calls.values()) == {1}  # no stored call was repeated
    samples = run.samples()
    assert len(samples) == total and all(s.status == "answered" for s in samples)
    assert not run.warnings  # the scores file covers every call
    assert run.manifest.status == "finished" and run.manifest.sessions == 3
    # Only calls in flight when a session was stopped (at most CONCURRENCY each) are re-sent.
    assert len(asked) == QUESTIONS and min(asked.values()) == TRIALS
    assert sum(asked.values()) <= total + 2 * CONCURRENCY
