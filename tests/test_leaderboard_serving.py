"""Serving (leaderboard and viewer): header deadlines, a cap on connections, a busy port, http.

Issue 26's probe held 19,990 half-open connections on the board until file descriptors ran out,
saw ``serve`` on a busy port print "startup complete" and then a traceback, and ``coordqa
submit --to http://...`` send its token in clear. Each is checked here against a real uvicorn
server on 127.0.0.1 (in a thread of this process).
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from typer.testing import CliRunner

from coordqa.cli import app as cli_app
from coordqa.errors import ConfigError
from coordqa.leaderboard.client import check_transport
from coordqa.web.serving import guarded_protocol, listen


@pytest.fixture
def served() -> Iterator[tuple[int, int]]:
    """A tiny app served with a 1 s header deadline and at most 20 connections: (port, cap)."""
    import uvicorn

    app = FastAPI()

    @app.get("/")
    def root() -> dict[str, str]:
        return {"ok": "yes"}

    sock = listen("127.0.0.1", 0)
    config = uvicorn.Config(app, http=guarded_protocol(1.0, 20), log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    yield sock.getsockname()[1], 20
    server.should_exit = True
    thread.join(timeout=30)
    sock.close()


def response(conn: socket.socket, ends_with: bytes) -> bytes:
    """Bytes read from ``conn`` until they end with ``ends_with`` (or 20 reads, or 10 s)."""
    conn.settimeout(10)
    answer = b""
    for _ in range(20):
        chunk = conn.recv(4096)
        answer += chunk
        if not chunk or answer.endswith(ends_with):
            break
    return answer


def closed_by_server(conn: socket.socket, within_s: float) -> bool:
    """Whether the server closes ``conn`` (EOF or reset) within ``within_s`` seconds."""
    conn.settimeout(within_s)
    try:
        return conn.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_a_connection_that_never_finishes_its_headers_is_closed(served: tuple[int, int]) -> None:
    port, _ = served
    with socket.create_connection(("127.0.0.1", port)) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no blank line: never done
        started = time.monotonic()
        assert closed_by_server(slow, within_s=10)
        assert time.monotonic() - started < 5
    with socket.create_connection(("127.0.0.1", port)) as silent:  # sends nothing at all
        assert closed_by_server(silent, within_s=10)


def test_a_kept_alive_connection_has_the_same_deadline_for_its_next_request(
    served: tuple[int, int],
) -> None:
    port, _ = served
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert b"200 OK" in response(conn, b'{"ok":"yes"}')
        conn.sendall(b"GET / HTTP/1.1\r\nHost: 1")  # the next request stalls
        assert closed_by_server(conn, within_s=10)


def test_connections_beyond_the_cap_are_closed_at_once(served: tuple[int, int]) -> None:
    port, cap = served
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(cap)]
    try:
        time.sleep(0.2)
        extra = socket.create_connection(("127.0.0.1", port))
        assert closed_by_server(extra, within_s=0.9)  # before any header deadline
        extra.close()
    finally:
        for conn in held:
            conn.close()
    time.sleep(0.2)
    with socket.create_connection(("127.0.0.1", port)) as again:  # room again once they left
        again.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert b"200 OK" in response(again, b'{"ok":"yes"}')


def test_a_busy_port_is_one_clear_error(tmp_path: Path) -> None:
    from coordqa.evaluation import EvalConfig, evaluate

    run = evaluate(EvalConfig(model="random", dataset="example", out=tmp_path / "run")).run_dir
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=f"already listens on 127.0.0.1:{port}"):
            listen("127.0.0.1", port)
        db = f"sqlite:///{tmp_path / 'lb.sqlite3'}"
        for command in (
            ["leaderboard", "serve", "--db", db, "--port", str(port)],
            ["view", str(run), "--port", str(port)],
        ):
            result = CliRunner().invoke(cli_app, command)
            assert result.exit_code != 0
            assert isinstance(result.exception, ConfigError), result.output
            assert "startup complete" not in result.output.lower()


@pytest.mark.parametrize(
    ("url", "insecure", "refused"),
    [
        ("http://lb.example.org", False, "plain http: the token would cross the network"),
        ("http://10.0.0.5:8000", False, "plain http"),
        ("http://lb.example.org", True, None),
        ("https://lb.example.org", False, None),
        ("http://127.0.0.1:8000", False, None),
        ("http://localhost:8000", False, None),
        ("http://[::1]:8000", False, None),
        ("ftp://lb.example.org", False, "must be an http(s) URL"),
    ],
)
def test_a_token_is_sent_over_plain_http_only_to_this_machine_or_when_insecure(
    url: str, insecure: bool, refused: str | None
) -> None:
    if refused is None:
        check_transport(url, insecure)
    else:
        with pytest.raises(ConfigError, match=re.escape(refused)):
            check_transport(url, insecure)


def test_submit_refuses_plain_http_before_reading_the_run(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli_app,
        ["submit", str(tmp_path / "no-run"), "--to", "http://lb.example.org", "--token", "cqa_x"],
    )
    assert isinstance(result.exception, ConfigError)
    assert "--insecure" in str(result.exception)


def test_a_submission_body_that_trickles_in_is_answered_408(tmp_path: Path) -> None:
    import uvicorn

    from coordqa.leaderboard.server import create_app
    from coordqa.leaderboard.tokens import create_token

    app = create_app(f"sqlite:///{tmp_path / 'lb.sqlite3'}", body_timeout_s=1.0)
    token = create_token(app.state.db, "slow")
    sock = listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, http=guarded_protocol(), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        with socket.create_connection(sock.getsockname()) as conn:
            conn.sendall(
                b"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Authorization: Bearer " + token.encode() + b"\r\n"
                b'Content-Length: 1000\r\n\r\n{"format": '  # then nothing more
            )
            answer = response(conn, b'from a faster connection"}')
        assert b"408" in answer.split(b"\r\n")[0]
        assert b"did not arrive within 1 s" in answer
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        app.state.db.dispose()


def test_a_mistyped_ranking_is_offered_the_closest_choice(tmp_path: Path) -> None:
    """Walkthrough 14 #299: ``serve --ranking boardrun`` listed the choices without the one meant
    (and ``serve --help`` left ``uploaded`` out)."""
    from coordqa.leaderboard.server import create_app

    with pytest.raises(ConfigError) as refused:
        create_app(f"sqlite:///{tmp_path / 'board.db'}", ranking="boardrun")
    said = str(refused.value)
    assert said == (
        "--ranking 'boardrun' is not one of all, uploaded, board-run. Did you mean 'board-run'?"
    ), said
    assert not (tmp_path / "board.db").exists()  # refused before the database is made
