"""Sending a bundle to a leaderboard server (``coordqa submit RUN_DIR --to URL``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coordqa.errors import ConfigError, CoordqaError
from coordqa.jsonvalues import load_json

__all__ = [
    "SUBMIT_TAKES",
    "SubmitError",
    "Submitted",
    "check_transport",
    "read_saved_bundle",
    "register_endpoint",
    "submit_bundle",
]

LOOPBACK = ("localhost", "127.0.0.1", "::1")
"""Hosts whose traffic never leaves this machine (plain http carries a token safely there)."""

TIMEOUT_S = 120.0
"""Upper bound on one submission request (the server re-scores before answering)."""

SAVED_BUNDLE_MAX_BYTES = 256 * 1024 * 1024
"""Largest bundle file :func:`read_saved_bundle` reads: far above a board's body limit (20 MiB
by default; a full v1 run is under 1 MB), only a bound on what a wrong path makes it read."""


class SubmitError(CoordqaError):
    """The server could not be reached, or refused the bundle (its status and message)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        """``field``: the bundle's field the board's refusal names (``model.display_name``)."""
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Submitted:
    """The server's answer to an accepted bundle."""

    id: int
    """The submission's id on the server."""
    created: bool
    """False when the server already had this exact bundle."""
    url: str
    """The submission's page."""
    mismatches: list[str]
    """Where the bundle's reported numbers differ from the server's."""
    hidden: bool = False
    """The entry it already had is hidden by the board's admin: stored, not ranked."""
    hidden_reason: str | None = None
    """Why, as the entry's page says (None: no reason given)."""
    trials: int | None = None
    """A new entry's trials per question (agentic: episodes), as the board stored them; None
    when the board does not say (a resent bundle, an older board)."""
    beside: tuple[tuple[int, int], ...] = ()
    """``(id, trials)`` of the submitter's other ranked entries of this model and test (an
    earlier submission of the run with fewer trials, say), which stay ranked beside it."""


def check_transport(url: str, insecure: bool = False) -> None:
    """Refuse to send a token to ``url`` unencrypted, unless to this machine or ``insecure``.

    A bearer token sent over plain http can be read (and reused) by anyone on the way. Loopback
    addresses (``localhost``, ``127.0.0.1``, ``::1``) never leave this machine, so a local
    board takes plain http.

    Raises:
        ConfigError: ``url`` is not http(s), or is plain http to another machine without
            ``insecure``.
    """
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"--to must be an http(s) URL such as https://lb.example.org, got {url!r}"
        )
    if parts.scheme == "http" and parts.hostname not in LOOPBACK and not insecure:
        raise ConfigError(
            f"--to {url} is plain http: the token would cross the network unencrypted. Use the "
            "board's https:// address, or add --insecure if you trust every network in between"
        )


NO_SUCH_ROUTE = frozenset({404, 405})
"""Statuses a POST to a board's route never gets from a coordqa board (its POST routes always
exist): the URL is another server, such as a ``coordqa view`` (walkthrough 11, #170, which was
told only "the leaderboard refused it (HTTP 404): Not Found")."""


def _post(url: str, path: str, body: bytes, token: str, insecure: bool) -> dict[str, Any]:
    """POST ``body`` to ``<url><path>`` with a bearer token; the server's JSON answer.

    The board is another machine, so its answer is read as an endpoint's is
    (:mod:`coordqa.llm.http`): no redirect is followed (the token would go with it), and the
    body is read within :data:`~coordqa.llm.bounds.MAX_BODY_BYTES` and the deadline.

    Raises:
        ConfigError: see :func:`check_transport`.
        SubmitError: connection failure, a redirect, a body out of bounds, no such route (a
            server that is no coordqa board), a refusal (the server's status and its
            explanation, made printable), or an answer that is not a JSON object.
    """
    import httpx

    from coordqa.llm.http import BodyRefused, read_body_sync, sync_client

    check_transport(url, insecure)
    endpoint = url.rstrip("/") + path
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    try:
        with (
            sync_client(httpx.Timeout(TIMEOUT_S)) as client,
            client.stream("POST", endpoint, content=body, headers=headers) as response,
        ):
            if response.is_redirect:
                raise SubmitError(
                    f"the leaderboard at {endpoint} answered {response.status_code} (a "
                    "redirect); coordqa follows no redirect, since the token would go with it: "
                    "give the board's own address as --to"
                )
            raw = read_body_sync(response, TIMEOUT_S)
    except httpx.ConnectError as exc:  # nothing listens there (walkthrough 31: no next step)
        raise SubmitError(
            f"cannot reach the leaderboard at {endpoint}: {exc}; start the board (coordqa "
            "leaderboard serve) or fix --to"
        ) from exc
    except httpx.HTTPError as exc:
        raise SubmitError(f"cannot reach the leaderboard at {endpoint}: {exc}") from exc
    except BodyRefused as exc:
        raise SubmitError(f"did not read the leaderboard's answer at {endpoint}: {exc}") from exc
    try:
        answer: object = json.loads(raw)
    except ValueError:
        answer = raw.decode("utf-8", "replace")
    if response.status_code not in (200, 201):
        detail = answer.get("detail", answer) if isinstance(answer, dict) else answer
        shown = printable(detail if isinstance(detail, str) else json.dumps(detail))
        if response.status_code in NO_SUCH_ROUTE:
            raise SubmitError(
                f"{printable(url)} does not look like a coordqa leaderboard: it has no {path} "
                f"(HTTP {response.status_code}: {shown}); check --to, the board's own address"
            )
        field = answer.get("field") if isinstance(answer, dict) else None
        raise SubmitError(
            f"the leaderboard refused it (HTTP {response.status_code}): {shown}",
            field if isinstance(field, str) else None,
        )
    if not isinstance(answer, dict):
        raise _not_understood(endpoint)
    return answer


def _not_understood(endpoint: str) -> SubmitError:
    return SubmitError(
        f"the leaderboard at {endpoint} accepted the request, but its answer is not an answer "
        "coordqa understands; check that --to is a coordqa leaderboard of a compatible version"
    )


def submit_bundle(
    bundle: dict[str, Any], url: str, token: str, *, insecure: bool = False
) -> Submitted:
    """POST ``bundle`` to ``<url>/api/submissions`` with a bearer token.

    Plain http is refused except to this machine or with ``insecure`` (:func:`check_transport`).

    Raises:
        ConfigError: see :func:`check_transport`.
        SubmitError: connection failure, or a refusal (the message holds the server's status
            and its explanation).
    """
    body = json.dumps(bundle, ensure_ascii=False).encode("utf-8")
    endpoint = url.rstrip("/") + "/api/submissions"
    answer = _post(url, "/api/submissions", body, token, insecure)
    entry, page = answer.get("id"), answer.get("url")
    if type(entry) is not int or not isinstance(page, str):
        raise _not_understood(endpoint)
    mismatches = answer.get("mismatches", [])
    lines = [printable(str(line)) for line in mismatches] if isinstance(mismatches, list) else []
    if len(lines) > MAX_MISMATCH_LINES:
        lines[MAX_MISMATCH_LINES:] = [f"... and {len(lines) - MAX_MISMATCH_LINES} more"]
    reason = answer.get("hidden_reason")
    return Submitted(
        id=entry,
        created=answer.get("created") is True,
        url=url.rstrip("/") + printable(page),
        mismatches=lines,
        hidden=answer.get("hidden") is True,
        hidden_reason=printable(reason) if isinstance(reason, str) and reason.strip() else None,
        trials=trials if type(trials := answer.get("trials")) is int else None,
        beside=_entries_beside(answer.get("beside")),
    )


def _entries_beside(value: Any) -> tuple[tuple[int, int], ...]:
    """The board's ``beside`` list as ``(id, trials)`` pairs: whole numbers only, at most 10."""
    if not isinstance(value, list):
        return ()
    pairs = ((item.get("id"), item.get("trials")) for item in value[:10] if isinstance(item, dict))
    return tuple((i, n) for i, n in pairs if type(i) is int and type(n) is int)


JOB_STATUSES = ("queued", "running", "done")
"""The states of an earlier job the board names beside a registration (it made or may make an
entry)."""


def same_registrations(answer: Any) -> tuple[tuple[int, str, int | None, str | None], ...]:
    """The board's ``same`` list as ``(job, status, entry, grid)``: checked, at most 10.

    The token's earlier jobs of the endpoint it registered again
    (:func:`coordqa.leaderboard.jobs.same_registrations`); the board is another machine, so a
    malformed item is left out and a grid's name is shown printable and cut.
    """
    value = answer.get("same") if isinstance(answer, dict) else None
    if not isinstance(value, list):
        return ()
    found = []
    for item in value[:10]:
        if not isinstance(item, dict):
            continue
        job, status, entry, grid = (item.get(k) for k in ("job", "status", "entry", "grid"))
        if type(job) is not int or status not in JOB_STATUSES:
            continue
        if entry is not None and type(entry) is not int:
            continue
        shown_grid = printable(grid)[:80] if isinstance(grid, str) else None
        found.append((job, str(status), entry, shown_grid))
    return tuple(found)


MAX_SHOWN_CHARS = 1000
"""Most characters of one text from a board's answer shown (a reason, a refusal, a mismatch):
room for a board's longest refusal (a duplicate's, which names each field that differs:
walkthrough 12 #122), and a bound still, as the board is another machine."""

MAX_WORD_CHARS = 40
"""How far back a cut text looks for the end of a word: a longer "word" is cut within it."""

CUT_MARK = "\u2026"
"""What ends a text cut to :data:`MAX_SHOWN_CHARS`, so its reader knows more was said."""

MAX_MISMATCH_LINES = 20
"""Most mismatch lines of one answer shown; the rest are counted."""


def printable(text: str) -> str:
    """``text`` from a board's answer, fit to print on a terminal.

    The answer is not trusted: the text is cut to :data:`MAX_SHOWN_CHARS`, after its last whole
    word and marked (:data:`CUT_MARK`), and a character a terminal would act on (escape
    sequences, bells, line breaks) is shown as U+FFFD.
    """
    if len(text) > MAX_SHOWN_CHARS:
        kept = text[:MAX_SHOWN_CHARS]
        if not text[MAX_SHOWN_CHARS].isspace():
            space = max(kept.rfind(" "), kept.rfind("\n"), kept.rfind("\t"))
            kept = kept[:space] if space >= MAX_SHOWN_CHARS - MAX_WORD_CHARS else kept
        text = kept.rstrip() + CUT_MARK
    return "".join(c if c.isprintable() else "\ufffd" for c in text)


SUBMIT_TAKES = "a run directory, or a bundle file written by coordqa submit RUN --out FILE"
"""What ``coordqa submit`` takes, as its refusals of another path say it (walkthrough 17, R9)."""


def read_saved_bundle(path: Path) -> dict[str, Any]:
    """The bundle ``coordqa submit RUN --out FILE`` saved in ``path``, to send as it is.

    Only its shape is checked here (an object with a digest and its replies or episodes): the
    board verifies the rest as it does for any bundle.

    Raises:
        ConfigError: the file is too large, not JSON, or not such a bundle.
    """
    how = f"give {SUBMIT_TAKES}"
    if path.stat().st_size > SAVED_BUNDLE_MAX_BYTES:
        raise ConfigError(
            f"{path} is larger than any bundle ({SAVED_BUNDLE_MAX_BYTES} bytes); {how}"
        )
    try:
        data = load_json(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}); {how}") from None
    tracks = ("replies", "episodes")
    if not (
        isinstance(data, dict)
        and isinstance(data.get("digest"), str)
        and any(isinstance(data.get(key), list) for key in tracks)
    ):
        raise ConfigError(f"{path} is not a bundle written by coordqa submit --out; {how}")
    return data


def register_endpoint(
    request: dict[str, Any], url: str, token: str, *, insecure: bool = False
) -> dict[str, Any]:
    """POST a board-run registration to ``<url>/api/endpoints``; the server's answer (its jobs).

    First, from this machine, the endpoint's model listing is asked as ``coordqa eval`` asks it
    (:func:`~coordqa.llm.served.not_served`): a model it does not list is refused here, with
    the name to give, instead of failing its job later. An endpoint this machine cannot reach
    (the board may) or that lists nothing is left to the board's worker; the board's own
    handler never calls an endpoint (its address guard runs in the worker).

    Raises:
        ModelNotServed: the endpoint lists models, not the request's.
        ConfigError: see :func:`check_transport`.
        SubmitError: connection failure, or a refusal (the server's status and explanation).
    """
    from coordqa.llm.served import not_served

    base, model, key = (request.get(field) for field in ("api_base", "model", "api_key"))
    refusal = not_served(base, str(model or ""), key, "register it as")  # the server checks all
    if refusal is not None:
        raise refusal
    return _post(url, "/api/endpoints", json.dumps(request).encode("utf-8"), token, insecure)
