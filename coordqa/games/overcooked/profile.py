"""What the tracks need to know about Overcooked (:class:`~coordqa.games.GameProfile`)."""

from __future__ import annotations

from coordqa.games.agent_profile import AgentProfile, ReportTable
from coordqa.games.overcooked.describe import without_partner_info
from coordqa.games.overcooked.paper import paper_description
from coordqa.games.overcooked.tom import REACT_EXAMPLES, OvercookedBehaviour, overcooked_facts
from coordqa.games.profile import GameProfile

_PAPER_SAMPLING = {"temperature": 0.6, "top_p": 0.9}
"""The authors' Overcooked and Collab agents (``LLMManager`` defaults)."""

PROFILE = GameProfile(
    strong_policy="planner",
    # wait one step: it breaks no rule and loses nothing at once
    fallback_prefixes=("wait",),
    cross_play_seats=(0, 1),
    seeded=False,  # the engine is deterministic: seeds matter only to players that draw
    goal="first_reward",
    agents=AgentProfile(
        behaviour_space=OvercookedBehaviour,
        belief_facts=overcooked_facts,
        agent_presets={
            "paper": {
                "agent_options": {"cac": {"use_tom": False, "use_verifier": False}},
                "generate": _PAPER_SAMPLING,
                "prompt": {"answer_only": True, "paper_texts": True},
            },
            # the Hypothetical Minds paper's cooking agent (D.6) reflects when an action plan
            # did not change the world; PlanReAct shares its planner
            "hm-paper": {
                "agent_options": {
                    "hm": {"self_reflection": True},
                    "planreact": {"self_reflection": True},
                }
            },
        },
        paper_description=paper_description,
        without_partner_info=without_partner_info,
        reward_unit=20.0,
        react_examples=REACT_EXAMPLES,
        report_tables=(
            ReportTable(
                "table1_overcooked_self_play",
                "Table 1: Overcooked self-play (score, mean ± SE)",
                "self_play_by_layout",
            ),
            ReportTable(
                "table4_overcooked_cross_play",
                "Table 4: Overcooked with partners (seat 0 / seat 1)",
                "cross_play_by_seat",
            ),
        ),
    ),
)
"""Overcooked's profile: the medium-level planner as strong policy and optimality reference (the
first delivered soup is the goal), both seats in cross-play (paper Table 4), Tables 1 and 4."""
