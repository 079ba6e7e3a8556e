"""Decision accuracy: how often an agent chose what the game's strong policy would have chosen.

CoordinationQA scores a model's joint-planning answers against an answer key; the agentic
counterpart is the share of an agent's decisions that agree with the game's strong policy
(``GameProfile.strong_policy``) at the same moment. A match runs that policy as a *shadow* of
each LLM agent's seat: it is handed exactly what the agent is handed (``reset``, each ``act``
observation, each ``observe``), so a stateful policy (Hanabi's convention player) follows the
episode the agent actually plays, and at each decision its choice is compared with the agent's.
Decisions with a single legal action are handed to the shadow but not counted: there was
nothing to decide.

It is what the noise curve of ``benchmarks/bench_bot.py`` plots score against (the ``bot`` model
with ``noise=p`` sets it), and a column of the agentic report for any model. The shadow never
changes the episode: its choices go nowhere else, and if the policy fails on a state the agent
reached, the shadow stops and the episode records why (``PolicyAgreement.error``) instead of
failing.
"""

from __future__ import annotations

from collections.abc import Callable

from coordqa.agentic.records import PolicyAgreement
from coordqa.games.base import Observation, Player, StepResult, game_profile, make_player
from coordqa.games.seat import SeatView


class PolicyShadow:
    """The strong policy in one agent seat, counting the decisions where the agent agreed."""

    def __init__(self, name: str, policy: Player) -> None:
        """Shadow a seat with ``policy``, the registered player ``name``."""
        self.name = name
        self.policy = policy
        self.decisions = 0
        self.agreed = 0
        self.error: str | None = None

    @classmethod
    def for_game(cls, game: str, layout: str) -> PolicyShadow | None:
        """The shadow of ``game``'s strong policy (None when its profile names none)."""
        strong = game_profile(game).strong_policy
        return None if strong is None else cls(strong, make_player(strong, game, layout))

    def _run(self, call: str, step: Callable[[], None]) -> None:
        """Run one call into the policy unless it already failed; a failure stops the shadow."""
        if self.error is not None:
            return
        try:
            step()
        except Exception as exc:  # noqa: BLE001 (a measurement must not fail the episode)
            self.error = f"{self.name} failed in {call}: {type(exc).__name__}: {exc}"

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        """Hand the policy the seat's start."""
        self._run("reset", lambda: self.policy.reset(view, player, seed))

    async def compare(self, observation: Observation, action: str) -> None:
        """Ask the policy at the agent's decision; count it when there was a choice."""
        if self.error is not None:
            return
        try:
            chosen = await self.policy.act(observation)
        except Exception as exc:  # noqa: BLE001 (a measurement must not fail the episode)
            self.error = f"{self.name} failed in act: {type(exc).__name__}: {exc}"
            return
        if len(observation.legal_actions) > 1:
            self.decisions += 1
            self.agreed += chosen == action

    def observe(self, view: SeatView, player: int, result: StepResult) -> None:
        """Hand the policy the step the seat was shown."""
        self._run("observe", lambda: self.policy.observe(view, player, result))

    def result(self) -> PolicyAgreement:
        """The counts so far, as stored with the episode."""
        return PolicyAgreement(
            policy=self.name, decisions=self.decisions, agreed=self.agreed, error=self.error
        )
