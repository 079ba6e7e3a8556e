"""The LLM-only baseline: one action call per decision, over the same memory as CAC."""

from __future__ import annotations

from coordqa.agentic.agents.base import LLMAgent
from coordqa.games.base import Observation


class LLMOnlyAgent(LLMAgent):
    """Working plus episodic memory -> one action call (reprompt and fallback as every agent)."""

    name = "llm"
    version = "llm-v5"

    async def decide(self, observation: Observation) -> str:
        """One action call."""
        game = observation.view
        memory = self.memory(game)
        pick = await self.choose_action(game, observation.legal_actions, memory)
        return pick.action
