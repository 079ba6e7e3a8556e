"""Sending a bundle to a leaderboard server (``coordqa submit RUN_DIR --to URL``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from coordqa.errors import CoordqaError

__all__ = ["SubmitError", "Submitted", "submit_bundle"]

TIMEOUT_S = 120.0
"""Upper bound on one submission request (the server re-scores before answering)."""


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


def submit_bundle(bundle: dict[str, Any], url: str, token: str) -> Submitted:
    """POST ``bundle`` to ``<url>/api/submissions`` with a bearer token.

    Raises:
        SubmitError: connection failure, or a refusal (the message holds the server's status
            and its explanation).
    """
    import httpx

    endpoint = url.rstrip("/") + "/api/submissions"
    body = json.dumps(bundle, ensure_ascii=False).encode("utf-8")
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
        raise SubmitError(
            f"the leaderboard refused the submission (HTTP {response.status_code}): {detail}"
        )
    return Submitted(
        id=int(answer["id"]),
        created=bool(answer["created"]),
        url=url.rstrip("/") + str(answer["url"]),
        mismatches=list(answer.get("mismatches", [])),
    )
