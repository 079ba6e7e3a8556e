"""Is anything listening where the model is served? Asked once, before a run's first unit.

A dead endpoint otherwise costs the first call its whole retry schedule (six attempts with
backoff, tens of seconds) before a run can say anything; a TCP connection answers in
milliseconds and costs no token. Only an explicit ``api_base`` (a self-hosted or local server)
is probed: a provider's own endpoint is left to the calls.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from coordqa.errors import ConfigError, RunFailed

PROBE_TIMEOUT_S = 5.0
"""How long a connection to the endpoint may take before it counts as unreachable."""


def unreachable(api_base: str, timeout_s: float = PROBE_TIMEOUT_S) -> str | None:
    """Why nothing accepts a connection at ``api_base`` (None: something does).

    Raises:
        ConfigError: ``api_base`` is not an http(s) URL with a host.
    """
    parts = urlsplit(api_base)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = 0
    if parts.scheme not in ("http", "https") or not parts.hostname or not port:
        raise ConfigError(
            f"--api-base {api_base!r} is not an http(s) URL with a host (and a valid port); "
            "write e.g. http://127.0.0.1:8000/v1"
        )
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout_s):
            return None
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"


def check_reachable(api_base: str | None) -> None:
    """Raise :class:`RunFailed` when nothing listens at ``api_base`` (None: not probed)."""
    if api_base is None:
        return
    reason = unreachable(api_base)
    if reason is not None:
        raise RunFailed(
            f"stopped before the first call: {api_base} is unreachable: {reason}. Start the "
            "server or fix --api-base, then run the same command again (nothing was stored)."
        )
