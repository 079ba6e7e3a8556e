"""The LLM agents: CAC, Hypothetical Minds (HM) and the LLM-only baseline.

Importing this package registers them as players (``cac``, ``hm``, ``llm``) for all four games.
Build one through the player registry, as matches do::

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
from coordqa.games.base import register_player

__all__ = [
    "FALLBACK_PREFERENCES",
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

AGENT_GAMES = ("hanabi", "overcooked", "collab_capture", "collab_escape")
"""Every agent plays all four games."""

register_player(
    "cac",
    games=AGENT_GAMES,
    kind="llm",
    description="CAC: ToM, action and verifier LLM calls (options use_tom, use_verifier, "
    "max_verifier_retries)",
)(agent_factory(CACAgent))
register_player(
    "hm",
    games=AGENT_GAMES,
    kind="llm",
    description="Hypothetical Minds: hypotheses scored by Rescorla-Wagner, plans (options "
    "alpha, c, threshold, top_k, initial_value, variant=hm|vmp|mmp|mmp_eval)",
)(agent_factory(HMAgent))
register_player(
    "llm",
    games=AGENT_GAMES,
    kind="llm",
    description="LLM-only baseline: one action call per decision",
)(agent_factory(LLMOnlyAgent))
