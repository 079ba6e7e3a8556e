"""What coordqa's tracks need to know about Lamps."""

from __future__ import annotations

from coordqa.directives import DIRECTIVES
from coordqa.games import (
    AgentProfile,
    GameProfile,
    PartnerActionBehaviour,
    ReportTable,
    WinCondition,
)

OPENING = "You are playing a cooperative game with a partner."
"""The opening sentence of coordqa's directives, which Lamps words its own way."""

PROFILE = GameProfile(
    qa_directives={
        kind: text.replace(OPENING, "You are switching on lamps together with a partner.")
        for kind, text in DIRECTIVES.items()
    },
    strong_policy="lamps-convention",
    fallback_prefixes=("Wait",),
    win=WinCondition("lit", "lighting"),
    goal="win",
    agents=AgentProfile(
        behaviour_space=PartnerActionBehaviour,
        report_tables=(
            ReportTable("lamps_self_play", "Lamps self-play (score, mean ± SE)", "self_play"),
        ),
    ),
)
"""Lamps' profile: its own QA wording, the convention player as strong policy, waiting as the
safe fallback, HM predicting the partner's next action, won when every lamp is lit."""
