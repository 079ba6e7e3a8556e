"""A local OpenAI-compatible chat server for tests and benchmarks.

Model code is tested at the HTTP boundary: a real ``openai/<anything>`` model is pointed at this
server with ``api_base=server.base_url`` (through either transport, direct or litellm), so
retries, timeouts, limits and the cache are exercised through the same client stack that talks
to real providers. Faults (429 with Retry-After, 500, slow replies, broken 200 bodies, client
errors) are scripted per request index, and so are a hostile endpoint's (a redirect, a body that
never ends, a reply of many megabytes, absurd token counts, a body dripped a byte at a time).

The server binds to ``127.0.0.1`` on a free port (or on a given one, to play a server that comes
back where it was), serves from daemon threads, answers each request
exactly once and stops when its ``with`` block ends. Nothing in it loops without bound: a slow
reply waits at most ``Fault.sleep_s`` and wakes early when the server stops. It prints nothing:
it often shares its process with the command under test, whose stderr the test reads. A client
that drops a connection is counted (``dropped``); any other failure of a request handler is
raised when the ``with`` block ends.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import urlsplit

from coordqa.errors import ConfigError
from coordqa.jsonvalues import JSONObject

Responder = Callable[[dict[str, Any], int], str]
"""Computes the reply text from the request body and the request's index (0-based)."""

FaultKind = Literal[
    "status",
    "slow",
    "disconnect",
    "invalid_json",
    "no_choices",
    "empty_content",
    "missing_content",
    "redirect",
    "endless",
    "huge",
    "usage",
    "drip",
]

_NO_RESPONSE = 0
"""Status that tells the handler to close the connection without answering."""

_CHAT_PATHS = frozenset({"/v1/chat/completions", "/chat/completions"})
_MODELS_PATHS = frozenset({"/v1/models", "/models"})


LLAMA_CPP_PYTHON_TOO_LONG = (
    '{"error":{"message":"This model\'s maximum context length is 2048 tokens. However, you '
    "requested 2542 tokens (2510 in the messages, 32 in the completion). Please reduce the "
    'length of the messages or completion.","type":"invalid_request_error","param":"messages",'
    '"code":"context_length_exceeded"}}'
)
"""The body of llama-cpp-python's server's 400 for a prompt longer than its context."""


@dataclass(frozen=True)
class Fault:
    """What goes wrong with one request. Build one with the class methods."""

    kind: FaultKind
    """``status``: an error status; ``slow``: a normal reply after ``sleep_s``; ``disconnect``:
    the connection is closed without an answer (a server that died); ``empty_content``: a
    well-formed 200 reply whose content is empty (the model answered nothing); the others: a
    200 reply that is not a reply (invalid JSON, no ``choices``, a message with no content and
    no finish reason)."""
    status: int = 200
    """HTTP status of a ``status`` fault."""
    retry_after: str | None = None
    """Value of the Retry-After header, if any (seconds, as the header's text)."""
    sleep_s: float = 0.0
    """Delay before a ``slow`` reply; longer than the client timeout simulates a timeout."""
    message: str = ""
    """The error message of a ``status`` fault, as a provider would word it."""
    body: str = ""
    """A ``status`` fault's whole body, sent as it is (empty: OpenAI's error object around
    :attr:`message`): a server's own error body, verbatim."""
    finish_reason: str = "stop"
    """The finish reason of an ``empty_content`` reply."""
    location: str = ""
    """Where a ``redirect`` points."""
    size: int = 0
    """Bytes an ``endless`` body sends at most (its bound), or characters of a ``huge`` reply."""
    usage: Any = None
    """The ``usage`` object of a ``usage`` reply, as sent (any JSON: negative, absurd...)."""

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1.0) -> Fault:
        """A 429 Too Many Requests, with a Retry-After header unless ``retry_after`` is None."""
        header = None if retry_after is None else f"{retry_after:g}"
        return cls("status", status=429, retry_after=header)

    @classmethod
    def error(cls, status: int = 500, message: str = "", body: str = "") -> Fault:
        """An error status (500 for a server error, 400/401 for permanent client errors).

        ``body``: the whole body, as a server sends it (else one made of ``message``).
        """
        return cls(
            "status", status=status, message=message or f"scripted fault {status}", body=body
        )

    @classmethod
    def context_exceeded(cls) -> Fault:
        """A 400 as llama-cpp-python's server sends it for a prompt over its context (``--n_ctx``).

        Its body verbatim, as the server (0.3) answered a 2,510-token prompt at ``--n_ctx 2048``.
        """
        return cls.error(400, body=LLAMA_CPP_PYTHON_TOO_LONG)

    @classmethod
    def bad_key(cls) -> Fault:
        """A 401 as OpenAI words it for a wrong API key."""
        return cls.error(401, "Incorrect API key provided: sk-wrong. You can find your key at ...")

    @classmethod
    def unknown_model(cls) -> Fault:
        """A 404 as OpenAI words it for a model that does not exist."""
        return cls.error(404, "The model `no-such-model` does not exist or you do not have access.")

    @classmethod
    def bad_parameter(cls) -> Fault:
        """A 400 as OpenAI words it for a parameter the model does not accept."""
        return cls.error(400, "Unsupported parameter: 'top_p' is not supported with this model.")

    @classmethod
    def slow(cls, sleep_s: float) -> Fault:
        """A reply delayed by ``sleep_s`` seconds (a timeout when it exceeds the client's)."""
        return cls("slow", sleep_s=sleep_s)

    @classmethod
    def disconnect(cls) -> Fault:
        """The connection is closed without an answer, as by a server that crashed."""
        return cls("disconnect")

    @classmethod
    def invalid_json(cls) -> Fault:
        """A 200 reply whose body is not JSON."""
        return cls("invalid_json")

    @classmethod
    def no_choices(cls) -> Fault:
        """A 200 reply whose JSON body has no ``choices``."""
        return cls("no_choices")

    @classmethod
    def empty_content(cls, finish_reason: str = "stop") -> Fault:
        """A well-formed 200 reply with empty content, as a model that answered nothing.

        ``finish_reason``: ``stop``, it ended its turn at once; ``length``, it spent its token
        budget before answering.
        """
        return cls("empty_content", finish_reason=finish_reason)

    @classmethod
    def missing_content(cls) -> Fault:
        """A 200 reply whose message has no content and whose choice no finish reason."""
        return cls("missing_content")

    @classmethod
    def redirect(cls, location: str, status: int = 307) -> Fault:
        """A redirect (``status`` 3xx) to ``location``, which a client must not follow."""
        return cls("redirect", status=status, location=location)

    @classmethod
    def endless(cls, bound_bytes: int = 256 << 20) -> Fault:
        """A 200 whose body never ends: 64 kB chunks, no length, until the client stops reading.

        ``bound_bytes``: the most the server sends (its loop is bounded), far beyond what a
        client may read.
        """
        return cls("endless", size=bound_bytes)

    @classmethod
    def huge(cls, chars: int = 10 << 20) -> Fault:
        """A well-formed reply whose text is ``chars`` characters long (10 MB by default)."""
        return cls("huge", size=chars)

    @classmethod
    def tokens(cls, prompt_tokens: Any, completion_tokens: Any) -> Fault:
        """A normal reply that reports these token counts (any JSON value: -10**9, 1e15, "x")."""
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}
        return cls("usage", usage=usage)

    @classmethod
    def drip(cls, interval_s: float = 1.0) -> Fault:
        """A normal reply whose body is sent one byte every ``interval_s`` seconds."""
        return cls("drip", sleep_s=interval_s)


@dataclass(frozen=True)
class _Paced:
    """A body sent piece by piece (a hostile endpoint's).

    ``data`` ``repeat`` times, ``step`` bytes a write, ``interval_s`` between writes; with a
    Content-Length when ``declared``, else until the connection closes.
    """

    data: bytes
    step: int
    interval_s: float
    declared: bool
    repeat: int = 1

    @property
    def length(self) -> int:
        return len(self.data) * self.repeat


Body = bytes | _Paced
"""What a handler sends: a whole body, or one paced out (hostile faults)."""

_CHUNK = b"x" * 65536
"""The piece an endless body repeats."""


def _default_responder(body: JSONObject, index: int) -> str:
    """Reply with a fixed answer, whatever was asked."""
    return "Answer: A"


def _fault_table(faults: Mapping[int, Fault] | Sequence[Fault | None] | None) -> dict[int, Fault]:
    """Normalise a fault script (mapping by request index, or a list with None for 'no fault')."""
    if faults is None:
        return {}
    if isinstance(faults, Mapping):
        table = dict(faults)
    else:
        table = {index: fault for index, fault in enumerate(faults) if fault is not None}
    for index, fault in table.items():
        if not isinstance(fault, Fault):
            raise ConfigError(
                f"faults[{index}] is {fault!r}; expected a Fault (e.g. Fault.error(500)) or None"
            )
    return table


def _word_count(text: str) -> int:
    """A stand-in for a tokenizer: the number of whitespace-separated words."""
    return len(text.split())


class LocalOpenAIServer:
    """An OpenAI-compatible ``/v1/chat/completions`` endpoint on 127.0.0.1, for tests.

    Example:
        >>> with LocalOpenAIServer(faults={0: Fault.error(500)}) as server:  # doctest: +SKIP
        ...     model = get_model("openai/test-model", api_base=server.base_url)
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency_s: float = 0.0,
        faults: Mapping[int, Fault] | Sequence[Fault | None] | None = None,
        always: Fault | None = None,
        api_key: str | None = None,
        models: Sequence[str] = (),
        port: int = 0,
        one_at_a_time: bool = False,
    ) -> None:
        """Configure the server; it starts when the ``with`` block is entered.

        Args:
            responder: computes the reply text from (request body, request index); the default
                always replies ``Answer: A``.
            latency_s: delay added to every reply (to measure concurrency and throughput).
            faults: per request index (0-based, in arrival order), what goes wrong; a mapping
                ``{index: Fault}`` or a list with ``None`` for requests served normally.
            always: the fault of every request that ``faults`` does not name (a wrong key, a
                missing model...).
            api_key: the key the server accepts: a request without ``Authorization: Bearer
                <api_key>`` gets :meth:`Fault.bad_key` (None: any key, or none, is accepted).
            models: the model ids ``GET /v1/models`` lists (none by default: the server answers
                every name it is sent, and a run refuses a name a listing leaves out).
            port: the port to listen on (0: a free one). A server started on the port of one
                that stopped plays a server that came back (a run that failed there resumes).
            one_at_a_time: answer one request at a time, ``GET /v1/models`` included, as
                llama-cpp-python's server does: a request waits until the one before it is
                done, even one whose client gave up on it (a ``slow`` fault plays a long
                generation).
        """
        if latency_s < 0:
            raise ConfigError(f"latency_s must be >= 0, got {latency_s}")
        self.responder: Responder = responder or _default_responder
        self.latency_s = latency_s
        self._faults = _fault_table(faults)
        if always is not None and not isinstance(always, Fault):
            raise ConfigError(f"always is {always!r}; expected a Fault, e.g. Fault.bad_key()")
        self._always = always
        self.api_key = api_key
        self.models = list(models)
        self._port = port
        self._one_at_a_time = threading.Lock() if one_at_a_time else None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._requests: list[dict[str, Any]] = []
        self._authorizations: list[str] = []
        self._times: list[tuple[float, float]] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._dropped = 0
        self._hits = 0
        self._hosts: list[str] = []
        self._paced_bytes = 0
        self._failures: list[str] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The ``api_base`` to give a litellm ``openai/<name>`` model, e.g. ``http://127.0.0.1:PORT/v1``."""
        if self._httpd is None:
            raise ConfigError("LocalOpenAIServer is not running; use it in a `with` block")
        return f"http://127.0.0.1:{self._httpd.server_port}/v1"

    @property
    def requests(self) -> list[JSONObject]:
        """A copy of the JSON bodies received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def authorizations(self) -> list[str]:
        """The Authorization header of each request ('' when absent), in arrival order."""
        with self._lock:
            return list(self._authorizations)

    @property
    def count(self) -> int:
        """The number of chat requests received so far."""
        with self._lock:
            return len(self._requests)

    @property
    def times(self) -> list[tuple[float, float]]:
        """(arrived, answered) wall-clock times of each request answered so far, in that order.

        Wall clock (``time.time()``), so that a benchmark can compare them with the times of
        the client's process.
        """
        with self._lock:
            return list(self._times)

    @property
    def max_in_flight(self) -> int:
        """The largest number of requests the server was handling at the same moment."""
        with self._lock:
            return self._max_in_flight

    @property
    def hits(self) -> int:
        """Every HTTP request received, of any method and path (a redirect's target has 0)."""
        with self._lock:
            return self._hits

    @property
    def hosts(self) -> list[str]:
        """The Host header of every request received, in arrival order."""
        with self._lock:
            return list(self._hosts)

    @property
    def paced_bytes(self) -> int:
        """Bytes of paced bodies (``endless``, ``drip``) the client took before it stopped."""
        with self._lock:
            return self._paced_bytes

    @property
    def dropped(self) -> int:
        """Connections the client closed or reset while the server read or answered them."""
        with self._lock:
            return self._dropped

    def __enter__(self) -> LocalOpenAIServer:
        self._httpd = _Server(("127.0.0.1", self._port), _make_handler(self), self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},  # so that leaving the `with` block is quick
            name="LocalOpenAIServer",
            daemon=True,
        )
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            failures = list(self._failures)
        if failures and exc_info[0] is None:
            raise RuntimeError(
                f"LocalOpenAIServer: {len(failures)} request(s) failed in the server; the first:\n"
                + failures[0]
            )

    def _handler_failed(self, error: BaseException | None) -> None:
        """Count a dropped connection; keep any other failure of a request handler."""
        with self._lock:
            if isinstance(error, ConnectionError):
                self._dropped += 1
            else:
                self._failures.append("".join(traceback.format_exception(error)))

    def _hit(self, host: str) -> None:
        with self._lock:
            self._hits += 1
            self._hosts.append(host)

    def _paced(self, sent: int) -> None:
        with self._lock:
            self._paced_bytes += sent

    def _admit(self, body: JSONObject, authorization: str) -> int:
        """Record a request and return its index."""
        with self._lock:
            self._requests.append(body)
            self._authorizations.append(authorization)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            return len(self._requests) - 1

    def _finish(self, arrived: float) -> None:
        with self._lock:
            self._in_flight -= 1
            self._times.append((arrived, time.time()))

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        """Wait for the request before this one to be done, when answering one at a time."""
        if self._one_at_a_time is None:
            yield
            return
        with self._one_at_a_time:
            yield

    def _wait(self, seconds: float) -> None:
        """Sleep, waking early when the server stops."""
        if seconds > 0:
            self._stop.wait(seconds)

    def respond(
        self, body: JSONObject, authorization: str = ""
    ) -> tuple[int, dict[str, str], Body]:
        """Compute (status, headers, body) for one chat request (called by the handler)."""
        with self._turn():
            return self._respond(body, authorization)

    def _respond(self, body: JSONObject, authorization: str) -> tuple[int, dict[str, str], Body]:
        arrived = time.time()
        index = self._admit(body, authorization)
        try:
            self._wait(self.latency_s)
            fault = self._faults.get(index, self._always)
            if self.api_key is not None and authorization != f"Bearer {self.api_key}":
                fault = Fault.bad_key()
            if fault is not None and fault.kind == "slow":
                self._wait(fault.sleep_s)
            return self._reply(body, index, fault)
        finally:
            self._finish(arrived)

    def _reply(
        self, body: JSONObject, index: int, fault: Fault | None
    ) -> tuple[int, dict[str, str], Body]:
        if fault is not None and fault.kind == "disconnect":
            return _NO_RESPONSE, {}, b""
        if fault is not None and fault.kind == "redirect":
            return fault.status, {"Location": fault.location}, b""
        if fault is not None and fault.kind == "endless":
            repeat = max(1, fault.size // len(_CHUNK))
            return 200, {}, _Paced(_CHUNK, len(_CHUNK), 0.0, declared=False, repeat=repeat)
        if fault is not None and fault.kind == "status":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            error = {"error": {"message": fault.message, "type": "test_fault"}}
            return fault.status, headers, (fault.body or json.dumps(error)).encode()
        if fault is not None and fault.kind == "invalid_json":
            return 200, {}, b'{"id": "broken", "choices": [{'
        kind = None if fault is None else fault.kind
        if fault is not None and kind == "empty_content":
            payload = _completion(body, index, "", fault.finish_reason)
        elif fault is not None and kind == "huge":
            payload = _completion(body, index, "x" * fault.size + " Answer: A")
        else:
            payload = _completion(body, index, self.responder(body, index))
        if kind == "no_choices":
            del payload["choices"]
        if kind == "missing_content":
            payload["choices"] = [{"index": 0, "message": {"role": "assistant"}}]
        if fault is not None and kind == "usage":
            payload["usage"] = fault.usage
        encoded = json.dumps(payload).encode()
        if fault is not None and kind == "drip":
            return 200, {}, _Paced(encoded, 1, fault.sleep_s, declared=True)
        return 200, {}, encoded


def _completion(body: JSONObject, index: int, text: str, finish_reason: str = "stop") -> JSONObject:
    """An OpenAI chat.completion object with word counts standing in for token counts."""
    messages = body.get("messages")
    turns = messages if isinstance(messages, list) else []
    prompt = " ".join(str(m.get("content", "")) for m in turns if isinstance(m, dict))
    prompt_tokens, completion_tokens = _word_count(prompt), _word_count(text)
    return {
        "id": f"chatcmpl-local-{index}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "local"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default of 5 refuses connections under concurrent tests

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[BaseHTTPRequestHandler],
        owner: LocalOpenAIServer,
    ) -> None:
        super().__init__(address, handler)
        self.owner = owner

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Report to the owner instead of printing a traceback on the shared stderr."""
        self.owner._handler_failed(sys.exc_info()[1])


def _make_handler(server: LocalOpenAIServer) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to ``server``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 30
        # Without this, small replies wait ~40 ms for a delayed ACK (Nagle), which would
        # dominate every latency measured against this server.
        disable_nagle_algorithm = True

        def do_POST(self) -> None:  # noqa: N802 (the name http.server dispatches to)
            server._hit(self.headers.get("Host", ""))
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if urlsplit(self.path).path not in _CHAT_PATHS:  # a query is the endpoint's own
                self._send(404, {}, b'{"error": {"message": "not found"}}')
                return
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                self._send(400, {}, b'{"error": {"message": "request body is not JSON"}}')
                return
            self._send(*server.respond(body, self.headers.get("Authorization", "")))

        def do_GET(self) -> None:  # noqa: N802 (the name http.server dispatches to)
            server._hit(self.headers.get("Host", ""))
            if urlsplit(self.path).path not in _MODELS_PATHS:
                self._send(404, {}, b'{"error": {"message": "not found"}}')
                return
            listed = [{"id": name, "object": "model"} for name in server.models]
            with server._turn():
                self._send(200, {}, json.dumps({"object": "list", "data": listed}).encode())

        def _send(self, status: int, headers: dict[str, str], payload: Body) -> None:
            if status == _NO_RESPONSE:
                self.close_connection = True
                return
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if isinstance(payload, bytes) or payload.declared:
                    length = len(payload) if isinstance(payload, bytes) else payload.length
                    self.send_header("Content-Length", str(length))
                else:  # a body without a length ends when the connection does
                    self.send_header("Connection", "close")
                    self.close_connection = True
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if isinstance(payload, bytes):
                    self.wfile.write(payload)
                else:
                    self._pace(payload)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (a timeout): nothing to send

        def _pace(self, body: _Paced) -> None:
            """Send ``body`` piece by piece; stop when the server stops or the client does."""
            sent = 0
            try:
                for _ in range(body.repeat):
                    for start in range(0, len(body.data), body.step):
                        if server._stop.is_set():
                            return
                        self.wfile.write(body.data[start : start + body.step])
                        self.wfile.flush()
                        sent += min(body.step, len(body.data) - start)
                        server._wait(body.interval_s)
            finally:
                server._paced(sent)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (base signature)
            """Stay quiet: tests assert on ``requests``, not on the server log."""

    return Handler
