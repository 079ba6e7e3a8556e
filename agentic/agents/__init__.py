"""The LLM agents: CAC, Hypothetical Minds (HM) and the LLM-only baseline.

They are players ``cac``, ``hm`` and ``llm`` of all four games (:data:`CAC`, :data:`HM`,
:data:`LLM_ONLY`, in the player registry through coordqa's ``coordqa.players`` entry points, so
no import is needed first). Build one through the player registry, as matches do::

    make_player("cac", "hanabi", model=get_model("openai/gpt-4o"), recorder=records.append,
                use_tom=True, use_verifier=True, max_verifier_retries=2)

Factories take ``(game_name, layout, *, model, generate=None, recorder=None, **agent_options)``;
``agent.stats()`` gives the episode's calls, tokens, cost, latency, fallbacks, verifier
rejections and HM prediction accuracy.
"""

from coordqa.agentic.agents.base import ActionPick, LLMAgent, Recorder, agent_factory
from coordqa.agentic.agents.cac import CACAgent, CACOptions, parse_verdict
from coordqa.agentic.agents.hm import VARIANTS, HMAgent, HMOptions
from coordqa.agentic.agents.hypotheses import HMParams, Hypothesis, HypothesisBook, rescorla_wagner
from coordqa.agentic.agents.llm_only import LLMOnlyAgent
from coordqa.agentic.agents.memory import FALLBACK_PREFERENCES, fallback_action
from coordqa.agentic.agents.stats import AgentStats
from coordqa.games.base import GAME_NAMES, PlayerSpec

__all__ = [
    "CAC",
    "FALLBACK_PREFERENCES",
    "HM",
    "LLM_ONLY",
    "VARIANTS",
    "ActionPick",
    "AgentStats",
    "CACAgent",
    "CACOptions",
    "HMAgent",
    "HMOptions",
    "HMParams",
    "Hypothesis",
    "HypothesisBook",
    "LLMAgent",
    "LLMOnlyAgent",
    "Recorder",
    "agent_factory",
    "fallback_action",
    "parse_verdict",
    "rescorla_wagner",
]

CAC = PlayerSpec(
    "cac",
    GAME_NAMES,
    agent_factory(CACAgent),
    "CAC: ToM, action and verifier LLM calls (options use_tom, use_verifier, "
    "max_verifier_retries, tom_level=0|1|2, belief_state, tom_ladder=N)",
    kind="llm",
)
"""The CAC agent's registry entry (entry point ``cac``)."""
HM = PlayerSpec(
    "hm",
    GAME_NAMES,
    agent_factory(HMAgent),
    "Hypothetical Minds: hypotheses scored by Rescorla-Wagner, plans (options "
    "alpha, c, threshold, top_k, initial_value, variant=hm|vmp|mmp|mmp_eval, "
    "belief_state, self_reflection, tom_ladder=N)",
    kind="llm",
)
"""The Hypothetical Minds agent's registry entry (entry point ``hm``)."""
LLM_ONLY = PlayerSpec(
    "llm",
    GAME_NAMES,
    agent_factory(LLMOnlyAgent),
    "LLM-only baseline: one action call per decision",
    kind="llm",
)
"""The LLM-only baseline's registry entry (entry point ``llm``)."""
