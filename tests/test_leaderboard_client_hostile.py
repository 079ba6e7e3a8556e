"""A leaderboard's answers are another machine's: ``coordqa submit`` bounds and checks them.

Each attack is a stand-in board on 127.0.0.1 that answers one way; the client must not read an
unbounded body, follow a redirect (the bearer token would go with it), print terminal control
or rich markup a board sent, or stop with a traceback on an answer of the wrong shape.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from coordqa.leaderboard.client import (
    MAX_SHOWN_CHARS,
    SubmitError,
    register_endpoint,
    submit_bundle,
)
from coordqa.llm.bounds import MAX_BODY_BYTES

TOKEN = "cqa_secret-token"


class _Board(BaseHTTPRequestHandler):
    """Answers every POST with the class's ``status``, ``answer_headers`` and ``body``; keeps
    the paths asked (``hits``)."""

    status = 200
    answer_headers: dict[str, str] = {}
    body = b"{}"
    hits: list[str] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        type(self).hits.append(self.path)
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(self.status)
        for name, value in {"Content-Type": "application/json", **self.answer_headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        """Quiet: the test reads what the client says, not the server's log."""


@pytest.fixture
def board() -> Iterator[tuple[str, type[_Board]]]:
    handler = type("Board", (_Board,), {"hits": [], "answer_headers": {}})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _answer(handler: type[_Board], status: int, payload: object, **headers: str) -> None:
    handler.status = status
    handler.body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    handler.answer_headers = headers


def test_an_answer_longer_than_the_body_bound_is_not_read(
    board: tuple[str, type[_Board]],
) -> None:
    url, handler = board
    _answer(handler, 200, b'{"id": 1, "pad": "' + b"x" * (MAX_BODY_BYTES + 10) + b'"}')
    with pytest.raises(SubmitError, match="longer than") as refused:
        submit_bundle({"track": "qa"}, url, TOKEN)
    assert TOKEN not in str(refused.value)


def test_a_redirect_is_refused_and_not_followed(board: tuple[str, type[_Board]]) -> None:
    """The token would go wherever the board points: a redirect to another local port."""
    url, handler = board
    _answer(handler, 307, {}, Location=f"{url}/elsewhere")
    with pytest.raises(SubmitError, match="redirect") as refused:
        submit_bundle({"track": "qa"}, url, TOKEN)
    assert handler.hits == ["/api/submissions"], "the redirect was followed"
    assert "--to" in str(refused.value) and TOKEN not in str(refused.value)


@pytest.mark.parametrize("send", [submit_bundle, register_endpoint])
def test_a_refusals_detail_is_printable_and_bounded(
    board: tuple[str, type[_Board]], send: object
) -> None:
    url, handler = board
    _answer(handler, 422, {"detail": "bad\x1b[2J\x07[bold red]owned[/]" + "y" * 5_000})
    with pytest.raises(SubmitError) as refused:
        send({"track": "qa"}, url, TOKEN)  # type: ignore[operator]
    message = str(refused.value)
    assert "\x1b" not in message and "\x07" not in message
    assert "bad\ufffd[2J\ufffd" in message
    assert len(message) < MAX_SHOWN_CHARS + 100


def test_a_long_refusal_is_cut_after_a_whole_word_and_says_it_was_cut(
    board: tuple[str, type[_Board]],
) -> None:
    """Walkthrough 12 #122: a board's 409 was cut at 500 characters mid-word ("ranks the same
    results o"), with no sign that more was said. The cut ends after a whole word, marked with
    an ellipsis; a text within the bound is shown whole."""
    url, handler = board
    words = " ".join(f"word{n:04d}" for n in range(400))  # 9 characters a word, 3,599 in all
    _answer(handler, 409, {"detail": words})
    with pytest.raises(SubmitError) as refused:
        submit_bundle({"track": "qa"}, url, TOKEN)
    shown = str(refused.value).split(": ", 1)[1]
    assert shown.endswith("\u2026") and len(shown) <= MAX_SHOWN_CHARS + 1, shown
    assert words.startswith(shown[:-1]) and words[len(shown) - 1] == " ", shown[-30:]
    whole = words[: MAX_SHOWN_CHARS - 9]
    _answer(handler, 409, {"detail": whole})
    with pytest.raises(SubmitError) as refused:
        submit_bundle({"track": "qa"}, url, TOKEN)
    assert str(refused.value).endswith(whole)


def test_mismatches_and_url_from_a_board_are_printable_and_bounded(
    board: tuple[str, type[_Board]],
) -> None:
    url, handler = board
    many = [f"line {n}\x1b]0;title\x07" for n in range(500)]
    answer = {"id": 4, "created": True, "url": "/submissions/4\x1b[2J", "mismatches": many}
    _answer(handler, 201, answer)
    submitted = submit_bundle({"track": "qa"}, url, TOKEN)
    assert submitted.url == f"{url}/submissions/4\ufffd[2J"
    assert len(submitted.mismatches) <= 21
    assert not any("\x1b" in line or "\x07" in line for line in submitted.mismatches)
    assert submitted.mismatches[-1] == "... and 480 more"


@pytest.mark.parametrize(
    "payload",
    [b"not json", [1, 2], {"created": True}, {"id": "four", "created": True, "url": "/s/4"}],
)
def test_an_accepted_answer_of_the_wrong_shape_is_an_error_not_a_traceback(
    board: tuple[str, type[_Board]], payload: object
) -> None:
    url, handler = board
    _answer(handler, 200, payload)
    with pytest.raises(SubmitError, match="not an answer coordqa understands"):
        submit_bundle({"track": "qa"}, url, TOKEN)


@pytest.mark.parametrize(
    ("sent", "shown"),
    [
        ("spam\x1b[2J\nrun this", "spam\ufffd[2J\ufffdrun this"),  # no terminal control
        ("x" * 10_000, "x" * MAX_SHOWN_CHARS + "\u2026"),  # bounded; one word: cut within it
        (["not", "text"], None),
        ("   ", None),
    ],
)
def test_a_hidden_reason_from_a_board_is_printable_and_bounded(
    board: tuple[str, type[_Board]], sent: object, shown: str | None
) -> None:
    """Walkthrough 9: a resent hidden entry is said to be hidden, with the board's reason."""
    url, handler = board
    answer = {"id": 3, "created": False, "url": "/submissions/3", "mismatches": []}
    _answer(handler, 200, answer | {"hidden": True, "hidden_reason": sent})
    submitted = submit_bundle({"track": "qa"}, url, TOKEN)
    assert submitted.hidden is True and submitted.hidden_reason == shown


@pytest.mark.parametrize("status", [404, 405])
@pytest.mark.parametrize(
    ("send", "path"), [(submit_bundle, "/api/submissions"), (register_endpoint, "/api/endpoints")]
)
def test_a_server_that_is_no_leaderboard_is_named_so(
    board: tuple[str, type[_Board]], send: object, path: str, status: int
) -> None:
    """``--to`` a ``coordqa view`` server was told "the leaderboard refused it (HTTP 404): Not
    Found" (walkthrough 11, #170): a board's POST routes always exist, so a 404 or 405 there
    says the URL is no coordqa leaderboard, with the server's own words made printable."""
    url, handler = board
    _answer(handler, status, {"detail": "Not \x1b[2JFound"})
    with pytest.raises(SubmitError) as refused:
        send({"track": "qa"}, url, TOKEN)  # type: ignore[operator]
    message = str(refused.value)
    assert message.startswith(f"{url} does not look like a coordqa leaderboard: it has no {path}")
    assert f"HTTP {status}: Not \ufffd[2JFound" in message and "check --to" in message
    assert "refused it" not in message and "\x1b" not in message
    assert handler.hits == [path]


@pytest.mark.parametrize(("sent", "read"), [(3, 3), (True, None), ("3", None), (2.5, None)])
def test_a_new_entrys_trials_from_a_board_are_a_whole_number_or_unknown(
    board: tuple[str, type[_Board]], sent: object, read: int | None
) -> None:
    """The board's count of the new entry's trials decides which entries beside it submit offers
    to hide (walkthrough 13 #252): anything but a whole number is not known, so none is."""
    url, handler = board
    answer = {"id": 5, "created": True, "url": "/submissions/5", "mismatches": []}
    _answer(handler, 201, answer | {"trials": sent, "beside": [{"id": 1, "trials": 2}]})
    submitted = submit_bundle({"track": "qa"}, url, TOKEN)
    assert submitted.trials == read and submitted.beside == ((1, 2),)
