"""A resumed run asked at another endpoint: said once, before its calls, where each answer is from.

A run may be resumed at another ``api_base`` (servers move between cluster jobs:
:data:`coordqa.evaluation.RESUME_MAY_CHANGE`), but the server there may serve another model
under the same name, and its answers would join the stored ones in one run that keeps only the
latest endpoint. So the move is never silent: :func:`say_if_moved` logs one warning on this
module's logger (the CLI prints it on stderr, as the run store's; an API user sees it through
:mod:`logging`). Endpoints are shown without credentials
(:func:`~coordqa.llm.endpoints.shown_endpoint`).
"""

from __future__ import annotations

import logging

from coordqa.llm.endpoints import endpoint_address, shown_endpoint

log = logging.getLogger(__name__)
"""One warning per resumed session whose endpoint moved (:func:`say_if_moved`)."""


def moved_endpoint(stored: str | None, asked: str | None) -> str | None:
    """What to tell a user whose run last answered at ``stored`` and now asks at ``asked``.

    None when both are one endpoint (:func:`~coordqa.llm.endpoints.endpoint_address`). The
    manifest keeps the latest session's endpoint only, so the notice credits that session
    alone with it (walkthrough 23 R4: "the answers this run holds came from" the last of two).
    """
    if endpoint_address(stored) == endpoint_address(asked):
        return None
    return (
        f"this run's last session asked {shown_endpoint(stored)}; this session asks "
        f"{shown_endpoint(asked)}, and its answers join the run's in one run. If that server "
        "serves another model under the same name, stop and give another --out"
    )


def say_if_moved(run: str, stored: str | None, asked: str | None) -> None:
    """Log :func:`moved_endpoint`'s notice for the run at ``run``, if the endpoint moved.

    Call it once per session, before its first call, and only when the run holds answers and
    this session sends calls: otherwise nothing is mixed.
    """
    notice = moved_endpoint(stored, asked)
    if notice is not None:
        log.warning("%s: %s", run, notice)
