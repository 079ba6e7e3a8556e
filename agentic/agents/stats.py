"""Per-episode statistics of one LLM agent: calls, tokens, cost, latency, fallbacks, HM accuracy."""

from __future__ import annotations

from dataclasses import dataclass, field

from coordqa.jsonvalues import JSONObject
from coordqa.llm import Reply, Usage


@dataclass
class AgentStats:
    """Counters of one agent over one episode (reset with the agent)."""

    decisions: int = 0
    """Times the agent was asked to act."""
    forced: int = 0
    """Decisions with a single legal action, taken without a model call."""
    llm_calls: int = 0
    """Model calls made (cache hits included)."""
    calls_by_role: dict[str, int] = field(default_factory=dict)
    """Model calls per role (tom, action, verifier, hypothesis, predict, plan, reprompt)."""
    usage: Usage = field(default_factory=Usage)
    """Tokens and cost spent (cache hits add nothing; cost None when a price is unknown)."""
    cached: int = 0
    """Calls served from the response cache."""
    errors: int = 0
    """Calls that failed for good after the gateway's retries."""
    latency_s: float = 0.0
    """Total wall time spent waiting for the model."""
    reprompts: int = 0
    """Action replies that were unreadable and asked again with a format reminder."""
    empty_replies: dict[str, int] = field(default_factory=dict)
    """Replies with no text (the call succeeded), per role."""
    unreadable_replies: dict[str, int] = field(default_factory=dict)
    """Replies from which nothing could be read, per role: an action or option naming no single
    option, a verifier with no verdict, a free-text reply without its role's labels (each
    attempt counted; empty replies included)."""
    role_fallbacks: dict[str, int] = field(default_factory=dict)
    """Free-text calls that stayed unreadable after one reminder and took their role's
    fallback (no ToM note, no hypothesis, no plan...), per role. Actions: ``fallbacks``."""
    fallbacks: int = 0
    """Decisions that ended in the documented safe fallback action."""
    fallback_reasons: dict[str, int] = field(default_factory=dict)
    """Fallbacks per reason (unreadable, verifier_cap, no_options; ``model_error`` in runs made
    before a failed call failed its episode)."""
    repeated_decisions: int = 0
    """Decisions with the same state, legal actions and chosen action as the one before (an
    agent asked the same question again and answering the same: a deadlock shows here)."""
    failed_actions: int = 0
    """High-level actions of this agent that ended unfinished (Overcooked: became impossible or
    blocked); each is explained to the model at its next decision."""
    verifier_rejections: int = 0
    """Proposed actions the verifier answered Not Okay to (with ``missing_verdict`` reject, also
    those it gave no verdict on)."""
    verifier_missing: int = 0
    """Verifier replies with no verdict line (accepted or rejected as ``missing_verdict`` says)."""
    subgoal_actions: int = 0
    """HM decisions taken from the plan's subgoals without an action call."""
    hypotheses_generated: int = 0
    """HM hypotheses added."""
    predictions_scored: int = 0
    """Partner predictions (HM's, or CAC's k-level ToM) compared with the partner's observed
    behaviour."""
    predictions_correct: int = 0
    """Partner predictions that were right."""
    expectations_scored: int = 0
    """CAC level-2 ToM: decisions at which the agent inferred what the partner expects it to do."""
    expectations_met: int = 0
    """Of those, decisions in which the agent then did what it inferred the partner expects."""
    ladder_asked: dict[str, int] = field(default_factory=dict)
    """ToM ladder side questions asked, per order (introspection, first_order, second_order)."""
    ladder_correct: dict[str, int] = field(default_factory=dict)
    """Of those, questions answered as the engine answers them, per order."""
    reflections: int = 0
    """HM self-reflections: plans made again after the last one changed nothing."""
    belief_updates: int = 0
    """Belief-state updates read (``belief_state`` on)."""
    belief_facts: int = 0
    """Checkable facts in those beliefs (partner's position, held object, card knowledge)."""
    belief_correct: int = 0
    """Of those, facts the belief got right (against the engine's state)."""
    first_validation_decision: int | None = None
    """HM: the decision at which a hypothesis was first validated (None: never)."""
    first_validation_turn: int | None = None
    """HM: the game turn/timestep of that decision."""

    def count_call(self, role: str, reply: Reply) -> None:
        """Add one model call to the counters."""
        self.llm_calls += 1
        _add(self.calls_by_role, role)
        self.cached += int(reply.cached)
        self.errors += int(not reply.ok)
        if reply.ok and not (reply.text or "").strip():
            _add(self.empty_replies, role)
        self.latency_s += reply.latency_s
        if not reply.cached:
            self.usage = self.usage + reply.usage

    def count_unreadable(self, role: str) -> None:
        """Add one reply of ``role`` from which nothing could be read."""
        _add(self.unreadable_replies, role)

    def count_role_fallback(self, role: str) -> None:
        """Add one free-text call of ``role`` that took its role's fallback."""
        _add(self.role_fallbacks, role)

    def count_prediction(self, correct: bool) -> None:
        """Add one scored partner prediction."""
        self.predictions_scored += 1
        self.predictions_correct += int(correct)

    def count_expectation(self, met: bool) -> None:
        """Add one level-2 belief about this agent, met or not by its action."""
        self.expectations_scored += 1
        self.expectations_met += int(met)

    def count_belief(self, correct: list[bool]) -> None:
        """Add one belief update with its checked facts (True: right)."""
        self.belief_updates += 1
        self.belief_facts += len(correct)
        self.belief_correct += sum(correct)

    def count_ladder(self, order: str, correct: bool) -> None:
        """Add one ToM ladder question of ``order``, answered rightly or not."""
        _add(self.ladder_asked, order)
        self.ladder_correct[order] = self.ladder_correct.get(order, 0) + int(correct)

    def count_fallback(self, reason: str) -> None:
        """Add one fallback with its reason code."""
        self.fallbacks += 1
        _add(self.fallback_reasons, reason)

    def to_dict(self) -> JSONObject:
        """JSON-able summary; ratios are None (never 0) when nothing was counted."""
        per_decision = self.decisions or None
        scored = self.predictions_scored or None
        return {
            "decisions": self.decisions,
            "forced": self.forced,
            "llm_calls": self.llm_calls,
            "calls_by_role": dict(self.calls_by_role),
            "calls_per_decision": None if per_decision is None else self.llm_calls / per_decision,
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "cost": self.usage.cost if self.usage.calls else 0.0,
            "cached": self.cached,
            "errors": self.errors,
            "latency_s": self.latency_s,
            "latency_per_decision_s": (
                None if per_decision is None else self.latency_s / per_decision
            ),
            "reprompts": self.reprompts,
            "empty_replies": dict(self.empty_replies),
            "unreadable_replies": dict(self.unreadable_replies),
            "role_fallbacks": dict(self.role_fallbacks),
            "repeated_decisions": self.repeated_decisions,
            "failed_actions": self.failed_actions,
            "fallbacks": self.fallbacks,
            "fallback_reasons": dict(self.fallback_reasons),
            "verifier_rejections": self.verifier_rejections,
            "verifier_missing": self.verifier_missing,
            "subgoal_actions": self.subgoal_actions,
            "hypotheses_generated": self.hypotheses_generated,
            "predictions_scored": self.predictions_scored,
            "predictions_correct": self.predictions_correct,
            "prediction_accuracy": None if scored is None else self.predictions_correct / scored,
            "expectations_scored": self.expectations_scored,
            "expectations_met": self.expectations_met,
            **{f"ladder_{order}_asked": n for order, n in self.ladder_asked.items()},
            **{f"ladder_{order}_correct": n for order, n in self.ladder_correct.items()},
            "reflections": self.reflections,
            "belief_updates": self.belief_updates,
            "belief_facts": self.belief_facts,
            "belief_correct": self.belief_correct,
            "belief_accuracy": (
                None if not self.belief_facts else self.belief_correct / self.belief_facts
            ),
            "first_validation_decision": self.first_validation_decision,
            "first_validation_turn": self.first_validation_turn,
        }


def _add(counts: dict[str, int], key: str) -> None:
    counts[key] = counts.get(key, 0) + 1
