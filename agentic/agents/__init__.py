"""The LLM agents: CAC, Hypothetical Minds (HM), HM's baselines and the LLM-only baseline.

They are players ``cac``, ``hm``, ``react``, ``reflexion``, ``planreact`` and ``llm`` of every
registered game (:data:`CAC`, :data:`HM`, :data:`REACT`, :data:`REFLEXION`, :data:`PLANREACT`,
:data:`LLM_ONLY`, in the player registry through coordqa's ``coordqa.players`` entry points, so
no import is needed first; HM and PlanReAct play the games whose profile names a partner
behaviour space). Build one through the player registry, as matches do::

    make_player("cac", "hanabi", model=get_model("openai/gpt-4o"), recorder=records.append,
                use_tom=True, use_verifier=True, max_verifier_retries=2)

Factories take ``(game_name, layout, *, model, generate=None, recorder=None, **agent_options)``;
``agent.stats()`` gives the episode's calls, tokens, cost, latency, fallbacks, verifier
rejections and HM prediction accuracy.
"""

from coordqa.agentic.agents.base import ActionPick, LLMAgent, agent_factory, agent_spec
from coordqa.agentic.agents.cac import CACAgent, CACOptions, parse_verdict
from coordqa.agentic.agents.hm import VARIANTS, HMAgent, HMOptions
from coordqa.agentic.agents.hypotheses import HMParams, Hypothesis, HypothesisBook, rescorla_wagner
from coordqa.agentic.agents.llm_only import LLMOnlyAgent
from coordqa.agentic.agents.memory import fallback_action
from coordqa.agentic.agents.planning import (
    PlanningOptions,
    PlanReActAgent,
    ReActAgent,
    ReflexionAgent,
)
from coordqa.agentic.agents.stats import AgentStats
from coordqa.agentic.records import Recorder

__all__ = [
    "CAC",
    "HM",
    "LLM_ONLY",
    "PLANREACT",
    "REACT",
    "REFLEXION",
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
    "PlanReActAgent",
    "PlanningOptions",
    "ReActAgent",
    "ReflexionAgent",
    "Recorder",
    "agent_factory",
    "agent_spec",
    "fallback_action",
    "parse_verdict",
    "rescorla_wagner",
]

CAC = agent_spec(CACAgent, "CAC: ToM, action and verifier LLM calls")
"""The CAC agent's registry entry (entry point ``cac``)."""
HM = agent_spec(HMAgent, "Hypothetical Minds: hypotheses scored by Rescorla-Wagner, plans")
"""The Hypothetical Minds agent's registry entry (entry point ``hm``)."""
LLM_ONLY = agent_spec(LLMOnlyAgent, "LLM-only baseline: one action call per decision")
"""The LLM-only baseline's registry entry (entry point ``llm``)."""
PLANREACT = agent_spec(
    PlanReActAgent, "PlanReAct (HM paper baseline): HM's planner and subgoals, no ToM module"
)
"""HM's PlanReAct baseline (entry point ``planreact``)."""
REACT = agent_spec(ReActAgent, "ReAct (HM paper baseline): reason, then subgoals")
"""HM's ReAct baseline (entry point ``react``)."""
REFLEXION = agent_spec(
    ReflexionAgent, "Reflexion (HM paper baseline): ReAct with reflections kept in memory"
)
"""HM's Reflexion baseline (entry point ``reflexion``)."""
