"""The LLM-only baseline: one action call per decision, over the same memory as CAC."""

from __future__ import annotations

from typing import Any

from coordqa.agentic.agents.base import LLMAgent, Recorder, check_options
from coordqa.agentic.agents.memory import memory_text
from coordqa.games.base import Observation
from coordqa.llm import GenerateConfig, Model


class LLMOnlyAgent(LLMAgent):
    """Working plus episodic memory -> one action call (reprompt and fallback as every agent)."""

    name = "llm"

    async def decide(self, observation: Observation) -> str:
        """One action call."""
        game = observation.game
        memory = memory_text(game, self.player)
        pick = await self.choose_action(game, observation.legal_actions, memory)
        return pick.action


def make_llm(
    game_name: str,
    layout: str | None,
    *,
    model: Model | str,
    generate: GenerateConfig | None = None,
    recorder: Recorder | None = None,
    **agent_options: Any,
) -> LLMOnlyAgent:
    """Registry factory; the baseline takes no options."""
    check_options("llm", agent_options, ())
    return LLMOnlyAgent(game_name, layout, model=model, generate=generate, recorder=recorder)
