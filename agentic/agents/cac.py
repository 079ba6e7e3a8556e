"""CAC, the Cognitive Architecture for Coordination (LLM-Coordination paper, section 3).

One decision: an optional Theory of Mind call interprets the partner's last action and states
what the partner needs (its answer joins the working memory); the action call picks a lettered
legal action (:meth:`LLMAgent.choose_action`); an optional verifier call checks it for rule
following and safety. On "Verification: Not Okay" the action model is asked again without the
rejected actions, at most ``max_verifier_retries`` times (None: no cap, as in the paper's code;
the re-asks still end, since each one offers one action fewer).

Decisions this module makes (the paper's code left them open):

- The ToM call is skipped until the partner has acted: there is nothing to interpret yet (the
  paper's Hanabi agent made no ToM call before the partner's first move either).
- After the cap (every proposal rejected, or nothing left to propose) the agent takes the game's
  safe fallback action (:func:`~coordqa.agentic.agents.memory.fallback_action`) among the
  actions the verifier did not reject, recorded as a fallback with reason ``verifier_cap``; only
  when the verifier rejected every legal action does it fall back among all of them.
- A verifier reply with no verdict line is recorded ``verdict: "missing"`` and counted in
  ``verifier_missing`` (the report gives it per decision). What it decides is the option
  ``missing_verdict``: ``accept`` (coordqa's default) takes the proposal unverified, since a
  verifier that cannot format an answer is no evidence that the action is unsafe, and rejecting
  would turn every format slip into a re-ask and, at the cap, a fallback; ``reject`` (the
  ``paper`` preset) treats it as "Not Okay", as the authors' code does (it accepts only a reply
  that says Okay), counted as a rejection too.
- The verdict is read from the last "Verification:" line; "Not Okay" is checked before "Okay".
- Fallback actions (unreadable action replies) are not verified: they are safe by construction.

The switches ``use_tom=False`` and ``use_verifier=False`` give the paper's ablation: LLM alone,
+ verification, + verification + ToM. ``tom_level`` (0, 1, 2) adds k-level predictions of the
partner to the ToM step (:mod:`~coordqa.agentic.agents.tom_levels`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.base import ActionPick, LLMAgent
from coordqa.agentic.agents.ladder import check_every
from coordqa.agentic.agents.memory import partner_last_action
from coordqa.agentic.agents.replies import labelled_lines, section, strip_markdown
from coordqa.agentic.agents.tom_levels import PartnerPredictor, check_level
from coordqa.agentic.records import Rejection, TomPayload, VerifierPayload
from coordqa.directives import format_labels
from coordqa.errors import ConfigError
from coordqa.games.base import PLAYER_NAMES, Observation, StepResult
from coordqa.games.seat import SeatView
from coordqa.llm import Reply
from coordqa.options import OPTIONS_CONFIG, flag

VerifierVerdict = Literal["okay", "not_okay"]

_VERDICT = re.compile(r"verification\s*[:\-]\s*(not\s+okay|not\s+ok|okay|ok)\b", re.IGNORECASE)


def parse_verdict(text: str | None) -> VerifierVerdict | None:
    r"""The verdict of the last "Verification:" line, or None when there is none.

    >>> parse_verdict("Risky.\nVerification: Not Okay")
    'not_okay'
    >>> parse_verdict("Verification: Not Okay... on reflection, **Verification:** Okay.")
    'okay'
    >>> parse_verdict("It looks okay to me.") is None
    True
    """
    matches = list(_VERDICT.finditer(strip_markdown(text)))
    if not matches:
        return None
    return "not_okay" if matches[-1].group(1).lower().startswith("not") else "okay"


@dataclass(frozen=True)
class CACOptions:
    """CAC's switches (defaults: the full architecture)."""

    __pydantic_config__ = OPTIONS_CONFIG

    use_tom: bool = field(default=True, metadata=flag("--no-tom", sets=False))
    """Ask the Theory of Mind model before each action call."""
    use_verifier: bool = field(default=True, metadata=flag("--no-verifier", sets=False))
    """Check each proposed action with the verifier model."""
    max_verifier_retries: int | None = field(default=2, metadata=flag("--max-verifier-retries"))
    """Re-asks of the action model after a rejection, then the safe fallback; none: no cap
    (re-ask until the verifier accepts or has rejected every legal action)."""
    tom_level: int = field(default=0, metadata=flag("--tom-level"))
    """k-level ToM: 0 interprets the partner's last action only; 1 also predicts the partner's
    next behaviour from its point of view; 2 also infers what the partner expects of me first.
    Levels 1 and 2 need use_tom."""
    tom_ladder: int = field(default=0, metadata=flag("--tom-ladder"))
    """Ask the ToM question ladder (side calls) at decision 1 and every N-th after it; 0: never
    (Hanabi only)."""
    belief_state: bool = field(default=False, metadata=flag("--belief-state", sets=True))
    """Keep an explicit belief state, rewritten at each decision and checked against the
    engine."""
    partner_info: bool = field(default=True, metadata=flag("--no-partner-info", sets=False))
    """Show the partner's inventory and location in the working memory; off: the
    LLM-Coordination paper's Overcooked ablation (section 4.1.2), for games whose profile
    says how to leave them out."""
    missing_verdict: Literal["accept", "reject"] = field(
        default="accept", metadata=flag("--missing-verdict")
    )
    """What a verifier reply with no verdict line counts as: accept (take the proposal
    unverified) or reject (re-ask as after Not Okay, as the authors' code does). Counted either
    way (verifier_missing)."""

    def __post_init__(self) -> None:
        check_level(self.tom_level)
        check_every(self.tom_ladder)
        if self.tom_level and not self.use_tom:
            raise ConfigError(
                f"tom_level={self.tom_level} needs the ToM step, which is off (--no-tom, "
                "use_tom: false, or the paper preset in Overcooked and Collab Capture): turn it "
                "on (drop --no-tom, or use_tom: true in agent_options), or use "
                "tom_level 0 (--tom-level 0)"
            )
        retries = self.max_verifier_retries
        if retries is None:
            return
        if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
            raise ConfigError(
                f"max_verifier_retries must be an integer >= 0 or null (no cap), got {retries!r} "
                "(0 verifies once and never re-asks)"
            )


class CACAgent(LLMAgent):
    """The CAC agent (ToM -> action -> verifier)."""

    name = "cac"
    version = "cac-v7"
    options_class = CACOptions
    options: CACOptions

    def __init__(self, game_name: str, layout: str | None, **settings: Any) -> None:
        """Create the agent (settings as :class:`LLMAgent`; options default to full CAC)."""
        super().__init__(game_name, layout, **settings)
        self.predictor = PartnerPredictor(self, self.options.tom_level)

    def reset(self, game: SeatView, player: int, seed: int) -> None:
        """Start a new episode; no prediction pending."""
        super().reset(game, player, seed)
        self.predictor.reset(game, player)

    def observe(self, game: SeatView, player: int, result: StepResult) -> None:
        """Score a pending k-level prediction against the partner's behaviour, then as LLMAgent."""
        self.predictor.observe(game, result)
        super().observe(game, player, result)

    async def decide(self, observation: Observation) -> str:
        """ToM notes (and k-level predictions), propose-and-verify, then the safe fallback."""
        action = await self._decide(observation)
        self.predictor.took(action)
        return action

    async def _decide(self, observation: Observation) -> str:
        game, legal = observation.view, list(observation.legal_actions)
        notes = []
        if self.options.use_tom:
            notes = [await self.theory_of_mind(game), *await self.predictor.predict(game, legal)]
        rejected: list[str] = []
        rejections: list[str] = []
        for _ in range(self._attempts(len(legal))):
            memory = self.memory(game, *notes, *rejections)
            pick = await self.choose_action(game, legal, memory, exclude=rejected)
            if pick.fallback is not None or not self.options.use_verifier:
                return pick.action
            verdict, reason = await self.verify(game, legal, pick)
            if verdict == "okay" or (verdict is None and self.options.missing_verdict == "accept"):
                return pick.action
            rejected.append(pick.action)
            rejections.append(f"Rejected as unsafe or against the rules: {pick.action}. {reason}")
            if len(rejected) >= len(legal):
                break
        detail = f"the verifier rejected {len(rejected)} proposal(s): {'; '.join(rejected)}"
        return self.fall_back(legal, "verifier_cap", detail, avoid=rejected).action

    def _attempts(self, legal: int) -> int:
        """Action calls allowed in one decision: 1, plus the re-asks after rejections."""
        if not self.options.use_verifier:
            return 1
        cap = self.options.max_verifier_retries
        return legal if cap is None else 1 + cap

    async def theory_of_mind(self, game: SeatView) -> str:
        """The ToM model's reading of the partner's last action: the lines of its format.

        '' without a call before the partner has acted (nothing to interpret), and '' when the
        reply had none of its format's labels after one reminder (the fallback: no note).
        """
        partner = PLAYER_NAMES[1 - self.player]
        last = partner_last_action(game, self.player)
        if last is None:
            self.note_event("notes", f"ToM skipped: {partner} has not acted yet")
            return ""
        memory = self.memory(game, f"{partner}'s last action was: {last}.")
        messages = prompts.tom_messages(self.game_name, self.long_term_memory(game), memory)

        labels = format_labels(messages[0].content)

        def read(reply: Reply) -> tuple[str | None, TomPayload]:
            return labelled_lines(reply.text, labels), TomPayload(partner_last_action=last)

        text = await self.ask_labelled("tom", messages, read, "no ToM note this decision")
        return f"Theory of Mind notes about {partner}:\n{text}" if text else ""

    async def verify(
        self, game: SeatView, legal: list[str], pick: ActionPick
    ) -> tuple[VerifierVerdict | None, str]:
        """Ask the verifier about ``pick``; count and record a rejection or a missing verdict.

        The verifier is given the action (LLM-Coordination C.3): the state (the agent's memory
        without this decision's ToM notes and earlier rejections), the legal actions, the
        proposal and its reason.
        """
        messages = prompts.verifier_messages(
            self.game_name,
            self.long_term_memory(game),
            self.memory(game),
            legal,
            pick.action,
            section(pick.explanation, "explanation") or "",
        )

        def read(reply: Reply) -> tuple[VerifierVerdict | None, VerifierPayload]:
            verdict = parse_verdict(reply.text)
            payload = VerifierPayload(verdict=verdict or "missing", proposed_action=pick.action)
            return verdict, payload

        reply, verdict = await self.ask("verifier", messages, read)
        reason = _reason(reply.text)
        if verdict is None:
            self._stats.verifier_missing += 1
            if self.options.missing_verdict == "accept":
                self.note_event("notes", f"verifier gave no verdict; accepted {pick.action!r}")
                return verdict, reason
            reason = f"The verifier gave no verdict. {reason}".strip()
        if verdict != "okay":
            self._stats.verifier_rejections += 1
            self.note_event("verifier_rejections", Rejection(action=pick.action, reason=reason))
        return verdict, reason


def _reason(text: str | None, limit: int = 300) -> str:
    """The verifier's explanation without its verdict line, shortened for the next prompt."""
    lines = [line for line in (text or "").splitlines() if not _VERDICT.search(line)]
    reason = " ".join(" ".join(lines).split())
    return reason if len(reason) <= limit else reason[: limit - 3] + "..."
