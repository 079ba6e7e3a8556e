"""What a failed board job says: one sentence for its submitter, the details for the board's admin.

Anyone may read a job (``GET /api/jobs``), and its submitter reads the error to learn what to
fix. :func:`job_failure` is the one place a failure becomes that sentence: what failed and what
to do, in the submitter's terms. It never carries a URL, a path of the board's machine, advice
meant for someone at a terminal ("run the same command again") or a key; at most a short
excerpt of what the endpoint said, with keys and addresses taken out and quotes and control
characters escaped. The full message, keys redacted, goes to the admin (the worker's log and
``coordqa leaderboard job list``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from coordqa.errors import CoordqaError, ModelNotServed, RunFailed
from coordqa.leaderboard.db import QuotaError
from coordqa.leaderboard.verify import VerificationError
from coordqa.llm.redaction import redact
from coordqa.words import agreeing, counted

__all__ = [
    "BudgetExceeded",
    "GridIncomplete",
    "JobFailure",
    "job_failure",
]

EXCERPT_CHARS = 80
"""Longest excerpt of the endpoint's own words a public error quotes."""
CLOSEST_SHOWN = 3
"""Most of an endpoint's listed model names a job error repeats (the closest to the model's)."""
NAME_CHARS = 60
"""Longest excerpt of one listed model name a job error repeats."""
DETAIL_CHARS = 2_000
"""Longest detail kept for the admin (an endpoint chooses how long its errors are)."""

_STATUS = re.compile(r"\bHTTP (\d{3})\b|\banswered (3\d\d) \(a redirect")
"""An HTTP status as coordqa's providers word it (``HTTP 401``; a redirect: ``answered 307 (a
redirect``, :class:`coordqa.llm.http.RedirectRefused`)."""
_REFUSED_ADDRESS = "a loopback or private address"
"""How the board's address checks say an endpoint resolved to its own network (registration,
and :class:`coordqa.llm.addresses.AddressRefused` at each connection)."""
_ADDRESS = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://\S+")
_IPV4 = r"\d{1,3}(?:\.\d{1,3}){3}"
_IPV6 = rf"[0-9A-Fa-f]{{0,4}}(?::[0-9A-Fa-f]{{0,4}}){{2,7}}(?:{_IPV4})?(?:%\w+)?"
_HOST = r"[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*"
_SOCKET_ADDRESS = re.compile(
    r"\(\s*'[^']*'\s*(?:,\s*\d+\s*)+\)"  # the OS's ('127.0.0.1', 18122[, 0, 0])
    rf"|(?<![\w.:\[-])(?:\[{_IPV6}\]|{_HOST}):\d{{1,5}}\b"  # host:port, [::1]:8000
    rf"|(?<![\w.:-])(?:{_IPV4}|{_IPV6})(?![\w.:])"  # a bare IPv4 or IPv6 address
)
"""A network address without a scheme, as the operating system and HTTP clients word one:
``('host', port)`` tuples, ``host:port`` (IPv6 in brackets) and bare IP addresses. A time
such as ``12:30`` reads as one too; a word too many is taken out rather than an address left in."""
_PATH = re.compile(r"(?<![\w:/.])/(?:[\w.\-~]+/)+[\w.\-~]*")
_OPTION_NOTE = re.compile(r"\s*\(--[a-z][\w-]*(?:\s[^()]*)?\)")
"""coordqa's pointer to the option behind a limit (``(--timeout)``, ``(--max-connection-failures
10)``), which a submitter cannot set on the board."""
_OPTION = re.compile(r"(?<![\w-])--[a-z][\w-]*")
_TIMED_OUT = re.compile(r"^timed out after [\d.]+ s$")
"""How :func:`coordqa.llm.retry.describe_error` says an attempt ran out of time (its option
note taken out): coordqa's words, not the endpoint's."""
_ERROR_NAMES = re.compile(r"^(?:[\w.]*(?:Error|Exception)\b\s*[:\-]?\s*)+")
_LAST_ERROR = "last error: "
_OUR_WORDS = "; not retried"


class BudgetExceeded(CoordqaError):
    """A job spent one of its budgets (calls, tokens, seconds, disk) before it finished."""

    def __init__(self, budget: str, limit: float, spent: float) -> None:
        """Name the budget, its limit and what was spent."""
        unit = {"disk": "MB"}.get(budget, budget)
        super().__init__(f"the job's budget of {limit:g} {unit} is spent ({spent:g} {unit})")
        self.budget = budget
        self.limit = limit
        self.spent = spent


class GridIncomplete(CoordqaError):
    """A grid job's episodes did not all finish (the runner did not stop the run)."""

    def __init__(self, failed: int, skipped: int, first_error: str | None) -> None:
        """Count what did not finish and keep the first error."""
        super().__init__(
            f"the grid did not finish: {counted(failed, 'episode')} failed and {skipped} "
            f"{agreeing(skipped, 'was', 'were')} skipped"
            + ("" if first_error is None else f" (first error: {first_error})")
        )
        self.failed = failed
        self.skipped = skipped
        self.first_error = first_error


@dataclass(frozen=True)
class JobFailure:
    """A failed job's two messages."""

    public: str
    """One sentence for the submitter (the job's public ``error``)."""
    detail: str
    """The full message for the board's admin (keys redacted, at most :data:`DETAIL_CHARS`)."""


def job_failure(exc: BaseException, secrets: Sequence[str | None] = ()) -> JobFailure:
    """The public sentence and the admin's detail of a job that ended on ``exc``.

    ``secrets`` are the endpoint's key and the job's secret seeds: taken out of both (an error
    of the private split's generation may name its seed).

    >>> job_failure(BudgetExceeded("calls", 5000, 5003)).public.split(": ")[1]
    "ask the board's admin to raise it, or register the endpoint again"
    """
    detail = redact(f"{type(exc).__name__}: {exc}", secrets)
    if len(detail) > DETAIL_CHARS:
        detail = detail[:DETAIL_CHARS] + f"... ({len(detail)} characters)"
    return JobFailure(_public(exc, secrets), detail)


def _public(exc: BaseException, secrets: Sequence[str | None]) -> str:
    if isinstance(exc, RunFailed):
        return _run_failed(exc, secrets)
    if isinstance(exc, BudgetExceeded):
        return _budget(exc)
    if isinstance(exc, ModelNotServed):
        return _not_served(exc, secrets)
    if isinstance(exc, GridIncomplete):
        said = "" if exc.first_error is None else _said(exc.first_error, secrets)
        return (
            f"{counted(exc.failed, 'episode')} of the grid failed and {exc.skipped} "
            f"{'was' if exc.skipped == 1 else 'were'} skipped{said}: "
            "check that the endpoint answers reliably, then register it again"
        )
    if isinstance(exc, QuotaError):
        return (
            "the submitting token's visible entries and other unfinished jobs leave no room "
            f"under the board's quota of {exc.quota} per token: ask the board's admin to hide "
            "old entries or raise the quota, then register again"
        )
    if isinstance(exc, VerificationError):
        return (
            f"the board refused the job's results ({_excerpt(exc.problem, secrets, 200)}): "
            "register again once that is fixed"
        )
    return (
        "the board could not run the job (a fault on the board's side, logged for its admin): "
        "register the endpoint again later, or ask the board's admin"
    )


def _not_served(exc: ModelNotServed, secrets: Sequence[str | None]) -> str:
    """The model the endpoint does not serve, with the few listed names closest to it.

    The names are the endpoint's words: at most :data:`CLOSEST_SHOWN`, each an excerpt of at
    most :data:`NAME_CHARS` (escaped, without addresses or keys).
    """
    names = ", ".join(_excerpt(n, secrets, NAME_CHARS) for n in exc.closest[:CLOSEST_SHOWN])
    closest = f"; the closest names it lists: {names}" if names else " (it lists others)"
    return (
        f"the endpoint does not serve the model{closest}: register it again with a model "
        "name it serves"
    )


def _run_failed(exc: RunFailed, secrets: Sequence[str | None]) -> str:
    """The sentence of a run that stopped on the endpoint's refusal or ended on its errors."""
    if _REFUSED_ADDRESS in (exc.stop_error or ""):
        return (
            "the endpoint's address resolved to a loopback or private address when the board "
            "called it, and this board calls only public addresses: register an address that "
            "resolves to a public one"
        )
    if exc.stop_kind == "unreachable":
        said = _said(exc.stop_error or "", secrets)
        return (
            f"the endpoint did not answer{said}: make sure it is up and reachable from the "
            "internet at the address registered, then register it again"
        )
    if exc.stop_kind is not None:
        error = exc.stop_error or ""
        found = _STATUS.search(error)
        status = None if found is None else int(found.group(1) or found.group(2))
        said = _said(error, secrets)
        if status in (401, 403):
            return (
                f"the endpoint refused the key ({status}){said}: register it again with a "
                "working key"
            )
        if status == 404:
            return (
                f"the endpoint does not serve the model (404){said}: register it again with a "
                "model name it serves"
            )
        if status is not None and 300 <= status < 400:
            return (
                f"the endpoint answered with a redirect ({status}), which the board never "
                "follows: register the address it redirects to"
            )
        code = "" if status is None else f" ({status})"
        return (
            f"the endpoint refused the board's requests{code}{said}: fix what it refuses (its "
            "model name or the sampling parameters temperature, top_p, max_tokens and seed), then "
            "register it again"
        )
    first = exc.first_errors[0] if exc.first_errors else ""
    return (
        f"too many of the endpoint's calls failed{_said(first, secrets) if first else ''}: "
        "check that it answers reliably, then register it again"
    )


def _budget(exc: BudgetExceeded) -> str:
    limit = f"{exc.limit:g}"
    if exc.budget == "tokens":
        return (
            f"the endpoint reported more tokens than the job's budget of {limit}: make its "
            "replies shorter, or ask the board's admin for a larger budget"
        )
    if exc.budget == "seconds":
        return (
            f"the job ran out of its {limit} seconds before it finished: the endpoint answers too "
            "slowly; make it faster, or ask the board's admin for more time"
        )
    if exc.budget == "disk":
        return (
            f"the endpoint's replies filled the job's disk budget of {limit} MB: make its "
            "replies shorter (a few hundred tokens are enough), then register it again"
        )
    return (
        f"the job used its budget of {limit} model calls before it finished (no call past it "
        "was sent): ask the board's admin to raise it, or register the endpoint again"
    )


def endpoint_words(error: str) -> str:
    """What the endpoint itself said in a call's error, without coordqa's framing.

    >>> endpoint_words("gave up after 6 attempts; last error: InternalServerError: down")
    'down'
    >>> endpoint_words("AuthenticationError: bad key; not retried (HTTP 401: no call can succeed)")
    'bad key'
    >>> endpoint_words("gave up after 6 attempts (--max-attempts); last error: timed out after "
    ...                "120 s (--timeout)")
    'timed out after 120 s'
    """
    said = error.rpartition(_LAST_ERROR)[2] if _LAST_ERROR in error else error
    said = _OPTION_NOTE.sub("", said.partition(_OUR_WORDS)[0])
    return _ERROR_NAMES.sub("", said.strip()).replace("OpenAIException - ", "")


def _said(error: str, secrets: Sequence[str | None]) -> str:
    """``; it said "..."`` with an excerpt of the endpoint's words, or nothing when it said none.

    An attempt that ran out of time is said in the board's words (``; a call timed out after
    120 s``): the endpoint said nothing.
    """
    words = endpoint_words(error)
    if _TIMED_OUT.match(words):
        return f"; a call {words}"
    quoted = _excerpt(words, secrets, EXCERPT_CHARS)
    return f"; it said {quoted}" if quoted != '""' else ""


def _excerpt(text: str, secrets: Sequence[str | None], limit: int) -> str:
    r"""``text`` as a short quoted excerpt: keys, addresses, paths and options out, escaped, cut.

    Addresses are URLs and, without a scheme, what :data:`_SOCKET_ADDRESS` matches.

    Escaped as a JSON string whose ``<``, ``>`` and ``&`` are written ``\u003c``..., so no
    reader of the error (a page, a terminal) takes the endpoint's words for markup. A
    command-line option is no use to a submitter (the board runs the job).

    >>> print(_excerpt('"Bearer sk-abcdef1234" <b> at https://x.example/v1 in /srv/j-3', (), 80))
    "\"Bearer [redacted]\" \u003cb\u003e at (an address) in (a path)"
    >>> print(_excerpt("no key: give --api-key-env NAME", (), 80))
    "no key: give (an option) NAME"
    >>> print(_excerpt("Connect call failed ('127.0.0.1', 18122); host [::1]:80, 10.0.0.1", (), 80))
    "Connect call failed (an address); host (an address), (an address)"
    """
    text = redact(text, secrets)
    text = _PATH.sub("(a path)", _ADDRESS.sub("(an address)", text))
    text = _SOCKET_ADDRESS.sub("(an address)", text)
    text = _OPTION.sub("(an option)", text)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
