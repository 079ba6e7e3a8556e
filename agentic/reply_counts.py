"""What a run's agents made of their models' replies, counted per role (issue 37).

The per-decision table gives rates per configuration; this is the run's plain tally, printed
after the tables by ``coordqa agentic run``, ``grid`` and ``report`` (as ``coordqa eval`` prints
its empty replies): per role, the calls, the empty replies, the replies nothing could be read
from, and the free-text calls that took their role's fallback; and the decisions that fell back
to the game's safe action. A run in which every decision with a choice fell back played nothing
of the model's (an endpoint that answers only empty content, a model prompted in a format it
cannot follow): :attr:`ReplyCounts.all_fell_back` says so, and ``--max-fallback-rate`` turns a
rate above the limit into a failed run (:func:`fallback_failure`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ReplyCounts", "fallback_failure"]


@dataclass
class ReplyCounts:
    """The reply tallies of some episodes' LLM agents (every seat an agent played)."""

    decisions: int = 0
    """Decisions with a choice (several legal actions): the ones a model was asked about."""
    fallbacks: int = 0
    """Of those, decisions that ended in the game's safe fallback action."""
    calls: Counter[str] = field(default_factory=Counter)
    """Model calls per role."""
    empty: Counter[str] = field(default_factory=Counter)
    """Empty replies per role."""
    unreadable: Counter[str] = field(default_factory=Counter)
    """Replies nothing could be read from, per role (empty ones included)."""
    role_fallbacks: Counter[str] = field(default_factory=Counter)
    """Free-text calls that took their role's fallback after one reminder, per role."""

    @classmethod
    def of(cls, seat_stats: Iterable[Mapping[str, Any]]) -> ReplyCounts:
        """Sum the statistics (``LLMAgent.stats()``) of each agent seat."""
        counts = cls()
        for stats in seat_stats:
            if "llm_calls" not in stats:  # a scripted partner's seat, or no agent
                continue
            counts.decisions += int(stats.get("decisions", 0)) - int(stats.get("forced", 0))
            counts.fallbacks += int(stats.get("fallbacks", 0))
            counts.calls.update(stats.get("calls_by_role") or {})
            counts.empty.update(stats.get("empty_replies") or {})
            counts.unreadable.update(stats.get("unreadable_replies") or {})
            counts.role_fallbacks.update(stats.get("role_fallbacks") or {})
        return counts

    @property
    def fallback_rate(self) -> float | None:
        """Fallbacks per decision with a choice (None: no such decision)."""
        return self.fallbacks / self.decisions if self.decisions else None

    @property
    def all_fell_back(self) -> bool:
        """Whether every decision with a choice (at least one) fell back."""
        return self.decisions > 0 and self.fallbacks == self.decisions

    def lines(self) -> list[str]:
        """The tally in a few lines (nothing when no agent decided)."""
        if not self.decisions and not self.calls:
            return []
        rate = self.fallback_rate
        shown = [
            f"fallbacks: {self.fallbacks} of {self.decisions} decisions with a choice"
            + ("" if rate is None else f" ({rate:.2f})")
        ]
        for name, counts in (
            ("empty replies", self.empty),
            ("unreadable replies", self.unreadable),
        ):
            if counts:
                per_role = ", ".join(
                    f"{role} {n} of {self.calls[role]}" for role, n in sorted(counts.items())
                )
                shown.append(f"{name}: {per_role} calls")
        if self.role_fallbacks:
            per_role = ", ".join(f"{role} {n}" for role, n in sorted(self.role_fallbacks.items()))
            shown.append(
                f"free-text calls unreadable after a reminder (no note, plan...): {per_role}"
            )
        return shown

    def all_fell_back_warning(self) -> str:
        """The warning for a run in which every decision fell back ('' otherwise)."""
        if not self.all_fell_back:
            return ""
        empty = sum(self.empty.values())
        cause = (
            f"{empty} of {sum(self.calls.values())} replies were empty"
            if empty
            else "no reply could be read as an action"
        )
        return (
            f"every one of the {self.decisions} decisions with a choice fell back to the game's "
            f"safe action ({cause}): no move of this run is the model's. Check the endpoint and "
            "the model's prompt format; --max-fallback-rate fails such a run."
        )


def fallback_failure(counts: ReplyCounts, limit: float | None) -> str | None:
    """Why a run fails for its fallback rate: above ``limit`` (None: no limit, never fails)."""
    rate = counts.fallback_rate
    if limit is None or rate is None or rate <= limit:
        return None
    return (
        f"{counts.fallbacks} of {counts.decisions} decisions with a choice fell back to the "
        f"game's safe action: fallback rate {rate:.2f}, above --max-fallback-rate {limit:g}. "
        "The episodes are stored (the same command fails again on them); look at the replies "
        "(coordqa view) before trusting the run."
    )
