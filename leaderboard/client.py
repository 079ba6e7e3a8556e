"""Sending a bundle to a leaderboard server (``coordqa submit RUN_DIR --to URL``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coordqa.errors import ConfigError, CoordqaError
from coordqa.jsonvalues import load_json

__all__ = [
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


def _post(url: str, path: str, body: bytes, token: str, insecure: bool) -> dict[str, Any]:
    """POST ``body`` to ``<url><path>`` with a bearer token; the server's JSON answer.

    Raises:
        ConfigError: see :func:`check_transport`.
        SubmitError: connection failure, or a refusal (the server's status and explanation).
    """
    import httpx

    check_transport(url, insecure)
    endpoint = url.rstrip("/") + path
    try:
        response = httpx.post(
            endpoint,
            content=body,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            timeout=TIMEOUT_S,
        )
    except httpx.HTTPError as exc:
        raise SubmitError(f"cannot reach the leaderboard at {endpoint}: {exc}") from exc
    try:
        answer = response.json()
    except ValueError:
        answer = {"detail": response.text[:500]}
    if response.status_code not in (200, 201):
        detail = answer.get("detail", answer) if isinstance(answer, dict) else answer
        raise SubmitError(f"the leaderboard refused it (HTTP {response.status_code}): {detail}")
    return dict(answer)


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
    answer = _post(url, "/api/submissions", body, token, insecure)
    return Submitted(
        id=int(answer["id"]),
        created=bool(answer["created"]),
        url=url.rstrip("/") + str(answer["url"]),
        mismatches=list(answer.get("mismatches", [])),
        hidden=answer.get("hidden") is True,
        hidden_reason=_reason(answer.get("hidden_reason")),
    )


MAX_REASON_CHARS = 500
"""Most characters of a hidden entry's reason shown from a server's answer (the board stores at
most 500)."""


def _reason(value: object) -> str | None:
    """A hidden entry's reason from a server's answer, fit to print on a terminal, or None.

    The answer is not trusted: a non-string is dropped, the text is cut to
    :data:`MAX_REASON_CHARS`, and a character a terminal would act on (escape sequences,
    line breaks) is shown as U+FFFD.
    """
    if not isinstance(value, str) or not value.strip():
        return None
    return "".join(c if c.isprintable() else "\ufffd" for c in value[:MAX_REASON_CHARS])


def read_saved_bundle(path: Path) -> dict[str, Any]:
    """The bundle ``coordqa submit RUN --out FILE`` saved in ``path``, to send as it is.

    Only its shape is checked here (an object with a digest and its replies or episodes): the
    board verifies the rest as it does for any bundle.

    Raises:
        ConfigError: the file is too large, not JSON, or not such a bundle.
    """
    how = "give a run directory, or a bundle file written by coordqa submit RUN --out FILE"
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

    Raises:
        ConfigError: see :func:`check_transport`.
        SubmitError: connection failure, or a refusal (the server's status and explanation).
    """
    return _post(url, "/api/endpoints", json.dumps(request).encode("utf-8"), token, insecure)
