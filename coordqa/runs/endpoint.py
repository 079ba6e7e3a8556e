"""Is the model's server there, and does it answer? Asked once, before a run's first unit.

A dead endpoint otherwise costs the first call its whole retry schedule (six attempts with
backoff, tens of seconds) before a run can say anything, and a hung one (it accepts connections
but never answers) costs two waves of per-attempt timeouts (``--timeout``, 120 s each) before the
run gives up. One ``GET {api_base}/models`` answers both in seconds and costs no token: any HTTP
answer, even an error status or a redirect, means a server is there and responding (its body is
not read, and no redirect is followed: :mod:`coordqa.llm.http`). Only an explicit
``api_base`` (a self-hosted or local server) is probed: a provider's own endpoint is left to the
calls.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from coordqa.errors import ConfigError, RunFailed
from coordqa.llm.endpoints import endpoint_route, refused_endpoint, shown_endpoint

CONNECT_TIMEOUT_S = 5.0
"""How long a connection to the endpoint may take before it counts as unreachable."""
ANSWER_TIMEOUT_S = 20.0
"""How long a server that took the connection may take to answer before it counts as hung."""
PROBE_TIMEOUT_S = CONNECT_TIMEOUT_S + ANSWER_TIMEOUT_S
"""The longest the probe takes: a hung server is said within this many seconds."""


SILENT = (
    "it is hung, or still busy: a server such as llama-cpp-python's keeps generating the "
    "requests a client gave up on, as after a --timeout shorter than a generation, and answers "
    "the next one only after them"
)
"""Why a server that took the connection may say nothing: not only a hung one."""

START_OR_FIX = (
    "Start the server or fix its address (--api-base, or api_base: in a spec or grid file)"
)
"""What to do about a server nothing listens at: the address may come from an option or a file
(an eval set's ``mixed.yaml`` was told to fix the --api-base it never gave: walkthrough 14)."""

_ADVICE = {
    False: f"{START_OR_FIX}, then run the same command again",
    True: "Wait for it and run the same command again, raise --timeout so that no call is given "
    "up on, or restart the server",
}
"""What to do about an unreachable server (False) and a silent one (True, :data:`SILENT`)."""


def unreachable(
    api_base: str,
    connect_s: float = CONNECT_TIMEOUT_S,
    answer_s: float = ANSWER_TIMEOUT_S,
) -> str | None:
    """Why the server at ``api_base`` cannot be used: nothing listens, or it never answers.

    None when it answers HTTP (whatever the status).

    Raises:
        ConfigError: ``api_base`` is not an http(s) URL with a host.
    """
    import httpx

    from coordqa.llm.addresses import AddressRefused
    from coordqa.llm.http import sync_client

    parts = urlsplit(api_base)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = 0
    if parts.scheme not in ("http", "https") or not parts.hostname or not port:
        raise ConfigError(refused_endpoint(api_base))
    timeout = httpx.Timeout(answer_s, connect=connect_s)
    try:
        with (
            sync_client(timeout) as client,
            client.stream("GET", endpoint_route(api_base, "models")),
        ):
            pass
    except AddressRefused as exc:
        return str(exc)
    except httpx.ConnectTimeout:
        return f"no connection within {connect_s:g} s"
    except (httpx.ReadTimeout, httpx.WriteTimeout, httpx.PoolTimeout):
        return f"it takes connections but sent no answer within {answer_s:g} s ({SILENT})"
    except httpx.HTTPError as exc:
        from coordqa.llm.retry import describe_error, root_cause

        return describe_error(root_cause(exc))  # the socket's own words: ConnectionRefusedError
    return None


def answer_wait(timeout_s: float) -> float:
    """How long the probe waits for an answer: as long as one attempt may (``--timeout``).

    Under the default timeout (120 s an attempt, which no user asked for), the probe's own
    :data:`ANSWER_TIMEOUT_S`, so a hung server is said within seconds; a timeout a user set is
    what they will wait for a busy server (walkthrough 29: a run stopped by timeouts was told
    to raise --timeout, and with --timeout 150 the probe still gave up after 20 s).
    """
    from coordqa.llm.types import CallPolicy

    return ANSWER_TIMEOUT_S if timeout_s == CallPolicy.timeout_s else timeout_s


def check_reachable(api_base: str | None, timeout_s: float) -> None:
    """Raise :class:`RunFailed` when the server at ``api_base`` is not there or never answers.

    ``timeout_s``: the run's ``--timeout``, which sets how long the probe waits for an answer
    (:func:`answer_wait`). None: nothing to probe (a provider's own endpoint, or a model run
    in this process). The error says "nothing new was stored": a run being resumed keeps what
    it held.
    """
    if api_base is None:
        return
    reason = unreachable(api_base, answer_s=answer_wait(timeout_s))
    if reason is not None:
        advice = _ADVICE[SILENT in reason]
        raise RunFailed(
            f"stopped before the first call: {shown_endpoint(api_base)} is unreachable: {reason}. "
            f"{advice} "
            "(nothing new was stored).",
            stop_kind="unreachable",
            stop_error=reason,
        )


def given_key(place: str | None, key: str) -> str | None:
    """The file key at ``place`` (``models.yaml's models[1]``) that says ``key``; None: none.

    >>> given_key("grid.yaml's models[0]", "name"), given_key(None, "name")
    ("grid.yaml's models[0].name", None)
    """
    return None if place is None else f"{place}.{key}"


def rename_fix(given_at: str | None) -> str:
    """How to give the name a server serves, where the refused one was written.

    None: the ``--model`` option (``use --model openai/NAME``); else the file's key that gave it
    (``set models.yaml's models[1].model to openai/NAME``): a user who never passed ``--model``
    was told to (walkthrough 15 R4), as :data:`START_OR_FIX` says where an address is fixed.
    Followed by the name to give.

    >>> rename_fix(None), rename_fix("grid.yaml's models[0].name")
    ('use --model', "set grid.yaml's models[0].name to")
    """
    return "use --model" if given_at is None else f"set {given_at} to"


def check_served(
    api_base: str | None, model: str, api_key: str | None, given_at: str | None = None
) -> None:
    """Raise :class:`~coordqa.errors.ModelNotServed`: the server lists models, not ``model``.

    Asked after :func:`check_reachable`, before anything is stored: a server that answers every
    name with its one model would otherwise record its replies under the wrong name
    (:func:`coordqa.llm.served.not_served`). ``given_at``: the file key that wrote ``model``
    (None: ``--model``), which the refusal says to fix (:func:`rename_fix`).
    """
    from coordqa.llm.served import not_served

    refusal = not_served(api_base, model, api_key, rename_fix(given_at))
    if refusal is not None:
        raise refusal
