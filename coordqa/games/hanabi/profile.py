"""What the tracks need to know about Hanabi (:class:`~coordqa.games.GameProfile`)."""

from __future__ import annotations

from coordqa.directives import directives
from coordqa.games.agent_profile import AgentProfile, ReportTable
from coordqa.games.hanabi.conventions import paper_description
from coordqa.games.hanabi.inference import HandAdversary
from coordqa.games.hanabi.tom import (
    REACT_EXAMPLES,
    HanabiBehaviour,
    hanabi_facts,
    ladder_questions,
)
from coordqa.games.profile import GameProfile

SELF_PLAY_SEEDS = (321, 212, 628)
"""Seeds of the LLM-Coordination paper's three self-play Hanabi games."""
CROSS_PLAY_SEEDS = (45, 114, 4788)
"""Seeds of the paper's three cross-play Hanabi games."""

PROFILE = GameProfile(
    # Hanabi is turn-based: the JP directive times the partner's move "on their next turn"
    qa_directives=directives(turn_based=True),
    strong_policy="hanabi-convention",
    # discard the oldest card (the engine lists "Discard my Card 0" first; a discard never costs
    # a life), or, when discarding is illegal (8 reveal tokens), the first legal reveal
    fallback_prefixes=("Discard my Card", "Reveal"),
    inference_probe=HandAdversary,
    self_play_seeds=SELF_PLAY_SEEDS,
    cross_play_seeds=CROSS_PLAY_SEEDS,
    agents=AgentProfile(
        tom_format=(
            "Partner Action Explanation: <one sentence on why your partner made their last move>\n"
            "Clue Suggestion: <which colour or rank you should reveal to your partner, and why>"
        ),
        verifier_example=(
            " (for example, playing a card that may not be playable when the team has one life "
            "left)"
        ),
        behaviour_space=HanabiBehaviour,
        belief_facts=hanabi_facts,
        tom_ladder=ladder_questions,
        agent_presets={
            "paper": {
                "agent_options": {
                    "cac": {
                        "use_tom": True,
                        "use_verifier": True,
                        "max_verifier_retries": None,
                        "missing_verdict": "reject",
                    }
                },
                "generate": {"temperature": 0.6, "top_p": 1.0},
                "prompt": {"paper_texts": True},
            }
        },
        paper_description=paper_description,
        react_examples=REACT_EXAMPLES,
        report_tables=(
            ReportTable(
                "table2_hanabi_self_play",
                "Table 2: Hanabi self-play (score out of 25, mean ± SE)",
                "self_play",
            ),
            ReportTable(
                "table5_hanabi_cross_play",
                "Table 5: Hanabi self-play and cross-play (mean ± SE)",
                "cross_play_by_partner",
            ),
        ),
    ),
)
"""Hanabi's profile: the turn-based JP wording, the paper's seeds and Tables 2 and 5, the
convention bot (this package's own conventions) as strong policy, the paper's ToM format and
verifier example; no goal state (no plan optimality)."""
