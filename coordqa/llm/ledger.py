"""Usage accounting: what each model and each role (tom, action, verifier, qa, ...) has used.

:meth:`UsageLedger.record` is the only place a call's usage is counted, so totals shown in a
progress bar, stored in a run manifest and summed per role always agree. Cache hits are counted
as hits and add no usage, because nothing was spent on them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from coordqa.jsonvalues import JSONObject
from coordqa.llm.types import Reply, Usage


@dataclass(frozen=True)
class UsageTotals:
    """Counts over a set of calls, for progress displays and reports."""

    usage: Usage = field(default_factory=Usage)
    """Tokens and cost actually spent (cache hits add nothing)."""
    requests: int = 0
    """Calls asked of the gateway (answered, failed or served from the cache)."""
    cache_hits: int = 0
    """Calls served from the response cache."""
    errors: int = 0
    """Calls that failed for good (error replies)."""
    attempts: int = 0
    """Requests actually sent to the provider, retries included."""

    @property
    def sent(self) -> int:
        """Calls that went to the provider (requests not served from the cache)."""
        return self.requests - self.cache_hits

    def to_json(self) -> JSONObject:
        """Plain data for JSON summaries."""
        return {
            "requests": self.requests,
            "sent": self.sent,
            "cache_hits": self.cache_hits,
            "errors": self.errors,
            "attempts": self.attempts,
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "cost": self.usage.cost,
            "unpriced_calls": self.usage.unpriced_calls,
            "known_cost": self.usage.known_cost,
            "implausible_token_counts": self.usage.implausible_counts,
        }

    def __add__(self, other: UsageTotals) -> UsageTotals:
        return UsageTotals(
            self.usage + other.usage,
            self.requests + other.requests,
            self.cache_hits + other.cache_hits,
            self.errors + other.errors,
            self.attempts + other.attempts,
        )


def totals_of(reply: Reply) -> UsageTotals:
    """The contribution of one reply to the totals."""
    return UsageTotals(
        usage=Usage() if reply.cached else reply.usage,
        requests=1,
        cache_hits=int(reply.cached),
        errors=int(not reply.ok),
        attempts=reply.attempts,
    )


class UsageLedger:
    """Totals per (model, role). Thread-safe; may be shared by several models."""

    def __init__(self) -> None:
        """Create an empty ledger."""
        self._totals: dict[tuple[str, str], UsageTotals] = {}
        self._lock = threading.Lock()

    def record(self, model: str, role: str, reply: Reply) -> None:
        """Count one finished call. The only function that records usage."""
        with self._lock:
            key = (model, role)
            self._totals[key] = self._totals.get(key, UsageTotals()) + totals_of(reply)

    def by_role(self) -> dict[str, UsageTotals]:
        """Totals per role (summed over models)."""
        return self._group(lambda model, role: role)

    def by_model(self) -> dict[str, UsageTotals]:
        """Totals per model (summed over roles)."""
        return self._group(lambda model, role: model)

    def total(self) -> UsageTotals:
        """Totals over everything recorded."""
        return self._group(lambda model, role: "").get("", UsageTotals())

    def _group(self, key_of: Callable[[str, str], str]) -> dict[str, UsageTotals]:
        with self._lock:
            items = list(self._totals.items())
        grouped: dict[str, UsageTotals] = {}
        for (model, role), totals in sorted(items):
            key = key_of(model, role)
            grouped[key] = grouped.get(key, UsageTotals()) + totals
        return grouped
