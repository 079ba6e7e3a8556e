"""An endpoint's secrets stay in the request: the one rule for storing and showing an ``api_base``.

A user may put credentials in the address itself: ``http://user:secret@gpu7:8000/v1`` (HTTP
basic authentication, which the request still sends) or a key in its query (``...?key=sk-1``).
Everything coordqa writes or says about an endpoint (a run's manifest and command line, the
reply cache's keys, an agentic grid's identity, a bundle that leaves the machine, a refusal,
a progress line) carries it only through :func:`stored_endpoint` (on disk) or
:func:`shown_endpoint` (in words): the user name, password, query and fragment never leave the
call. Only the call itself (:mod:`coordqa.llm.direct_provider`, litellm) gets the address as
typed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "PROVIDER",
    "endpoint_route",
    "refused_endpoint",
    "shared_command",
    "shown_endpoint",
    "stored_command",
    "stored_endpoint",
    "stored_endpoints",
]

PROVIDER = "the provider's own endpoint"
"""How a run without ``api_base`` (the litellm provider's endpoint) is named."""

NOT_A_URL = "(an address that is not a URL)"
"""What stands for an ``api_base`` that has no host: it is not shown, as it may hold anything."""


def stored_endpoint(api_base: str | None) -> str | None:
    """``api_base`` as it may be written down: without user, password, query or fragment.

    Otherwise as typed, so that an address without credentials keeps the run identity, the
    folder name and the cache keys it always had. Text that is not a URL with a host is
    :data:`NOT_A_URL` (no call can be made to it; it may be a secret pasted in the wrong place).

    >>> stored_endpoint("http://me:secret@127.0.0.1:8000/v1/?key=sk-1#top")
    'http://127.0.0.1:8000/v1/'
    >>> stored_endpoint("http://127.0.0.1:8000/v1/")
    'http://127.0.0.1:8000/v1/'
    """
    if api_base is None:
        return None
    try:
        parts = urlsplit(api_base.strip())
    except ValueError:  # an unclosed IPv6 bracket
        return NOT_A_URL
    host = parts.netloc.rpartition("@")[2]
    if not parts.scheme or not host:
        return NOT_A_URL
    if (parts.username, parts.password, parts.query, parts.fragment) == (None, None, "", ""):
        return api_base  # the common case, byte for byte as before this rule
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def shown_endpoint(api_base: str | None) -> str:
    """``api_base`` as it may be shown: :func:`stored_endpoint`, its scheme and host lower case.

    >>> shown_endpoint("https://me:secret@GPU7:8000/v1/?key=sk-1")
    'https://gpu7:8000/v1'
    >>> shown_endpoint(None)
    "the provider's own endpoint"
    """
    stored = stored_endpoint(api_base)
    if stored is None:
        return PROVIDER
    if stored == NOT_A_URL:
        return NOT_A_URL
    parts = urlsplit(stored.strip())
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address is written in brackets
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    if not host:
        return NOT_A_URL
    netloc = host if port is None else f"{host}:{port}"
    return f"{parts.scheme.lower()}://{netloc}{parts.path}".rstrip("/")


def refused_endpoint(api_base: str) -> str:
    """Why ``api_base`` cannot be called, showing only what may be shown.

    Text typed without its scheme is shown with ``http://`` in front, as the value to give
    instead, when it reads as an address: a host with a port, an IP address or ``localhost``
    (shown by :func:`shown_endpoint`, so without password or query). Anything else may be a
    key pasted in the wrong place, and is not shown.

    >>> refused_endpoint("127.0.0.1:8000/v1")
    '--api-base has no http:// or https:// in front: give --api-base http://127.0.0.1:8000/v1'
    """
    typed = api_base.strip()
    if "://" not in typed and not any(c.isspace() for c in typed):
        address = f"http://{typed}"
        if _reads_as_an_address(address):
            return (
                "--api-base has no http:// or https:// in front: give "
                f"--api-base {shown_endpoint(address)}"
            )
    return (
        f"--api-base {shown_endpoint(api_base)} is not an http(s) URL with a host (and a valid "
        "port); write e.g. http://127.0.0.1:8000/v1"
    )


def _reads_as_an_address(url: str) -> bool:
    """A host with a port, an IP address or ``localhost``: not a pasted key."""
    import ipaddress

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    host = parts.hostname
    if not host:
        return False
    if port is not None or host == "localhost":
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def endpoint_route(api_base: str, route: str) -> str:
    """The address of ``route`` (``models``, ``chat/completions``) under ``api_base``, as typed.

    The route goes at the end of the path, before any query: a key in the query
    (``...?key=K``) stays a query, which appending to the whole address would have broken
    (``/v1?key=K/chat/completions``). Credentials stay in it: this is the call's address.

    >>> endpoint_route("http://u:pw@h:8000/v1/?key=K", "models")
    'http://u:pw@h:8000/v1/models?key=K'
    """
    parts = urlsplit(api_base.strip())
    path = f"{parts.path.rstrip('/')}/{route}"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))


def stored_endpoints(settings: Any) -> Any:
    """``settings`` (a run's, as JSON) with every ``api_base`` in it as :func:`stored_endpoint`.

    At any depth: a grid names one for itself and one for each of its models.

    >>> stored_endpoints({"api_base": "http://u:pw@h/v1", "models": [{"api_base": None}]})
    {'api_base': 'http://h/v1', 'models': [{'api_base': None}]}
    """
    return _each_endpoint(settings, stored_endpoint)


def endpoint_address(api_base: str | None) -> str | None:
    """What makes two endpoints one: :func:`shown_endpoint`, case-blind but for its path.

    A trailing slash, the scheme's and host's case and credentials aside, two spellings of an
    endpoint are one server: a resumed run asked at either is asked where it was
    (walkthrough 19 #196 to #198). None for no endpoint (the provider's own).

    >>> endpoint_address("HTTP://u:pw@GPU7:8000/v1/") == endpoint_address("http://gpu7:8000/v1")
    True
    """
    if api_base is None:
        return None
    parts = urlsplit(shown_endpoint(api_base))
    return f"{parts.scheme}://{parts.netloc.lower()}{parts.path.rstrip('/')}"


def addressed_endpoints(settings: Any) -> Any:
    """``settings`` with every ``api_base`` in it as :func:`endpoint_address`, to compare runs.

    >>> addressed_endpoints({"api_base": "http://h/v1/"}) == addressed_endpoints(
    ...     {"api_base": "http://H/v1"})
    True
    """
    return _each_endpoint(settings, endpoint_address)


def _each_endpoint(settings: Any, form: Callable[[str], str | None]) -> Any:
    """``settings`` (as JSON) with every ``api_base`` string in it, at any depth, as ``form``."""
    if isinstance(settings, dict):
        return {
            key: form(value)
            if key == "api_base" and isinstance(value, str)
            else _each_endpoint(value, form)
            for key, value in settings.items()
        }
    if isinstance(settings, list):
        return [_each_endpoint(item, form) for item in settings]
    return settings


def stored_command(argv: Sequence[str]) -> list[str]:
    """A command line as a run records it: every URL in it as :func:`stored_endpoint` keeps it.

    Both spellings of an option are read: ``--api-base URL`` and ``--api-base=URL``.

    >>> stored_command(["coordqa", "eval", "--api-base=http://u:pw@h:8000/v1", "--limit", "2"])
    ['coordqa', 'eval', '--api-base=http://h:8000/v1', '--limit', '2']
    """
    return [_rewritten(argument, _stored_value) for argument in argv]


def shared_command(argv: Sequence[str]) -> list[str]:
    """A recorded command line as it may leave the machine (a bundle, an exported page).

    :func:`stored_command`, with the executable named without its folder and every absolute
    path cut to ``…/`` and its last part: folders of the machine it ran on (a home folder, a
    user name) are not the reader's business, and would not exist on theirs.

    >>> shared_command(["/home/a/bin/coordqa", "eval", "--out", "/home/a/runs/x", "--limit=2"])
    ['coordqa', 'eval', '--out', '…/x', '--limit=2']
    """
    stored = stored_command(argv)
    executable = [PurePath(word).name for word in stored[:1]]
    return executable + [_rewritten(word, _shared_value) for word in stored[1:]]


def _shared_value(value: str) -> str | None:
    if not PurePath(value).is_absolute() and not value.startswith("~"):
        return None
    return f"…/{PurePath(value).name}"


def _stored_value(value: str) -> str | None:
    return str(stored_endpoint(value)) if "://" in value else None


def _rewritten(argument: str, rewrite: Callable[[str], str | None]) -> str:
    """``argument`` (``VALUE``, or ``--option=VALUE``) with its value as ``rewrite`` gives it.

    ``rewrite`` returns None for a value to keep as it is.
    """
    option, equals, value = argument.partition("=") if argument.startswith("-") else ("", "", "")
    if not equals:
        option, value = "", argument
    new = rewrite(value)
    return argument if new is None else f"{option}{equals}{new}"
