"""What the agents' optional features need of a game's profile, and the one refusal of each.

A feature an agent's options turn on reads a field of the game's
:class:`~coordqa.games.AgentProfile`, the game's own code against a contract of
:mod:`coordqa.games.agent_profile`: the belief state its ``belief_facts``, the ToM question ladder
its ``tom_ladder``, ``--no-partner-info`` its ``without_partner_info``, and partner prediction
(HM, PlanReAct, CAC's k-level ToM) its ``behaviour_space``: the partner behaviours predicted and
observed (Hanabi's next move, Overcooked's next completed object action, the Collab games' action
this turn: :class:`coordqa.games.PartnerActionBehaviour`). A game whose profile leaves the field
unset refuses the feature, with the message below: when a grid is read
(:func:`check_features`, through :attr:`coordqa.games.PlayerSpec.game_check`), and again when an
agent is built.
"""

from __future__ import annotations

from typing import Any

from coordqa.games import (
    GAMES,
    BeliefFacts,
    PartnerBehaviour,
    PartnerInfoRedaction,
    TomLadder,
    game_profile,
)
from coordqa.games.agent_profile import AgentProfile, served

__all__ = [
    "behaviour_for",
    "behaviour_space",
    "belief_facts",
    "check_features",
    "partner_info_redaction",
    "tom_ladder",
]


def _agents(game_name: str) -> AgentProfile:
    return game_profile(game_name).agents


def behaviour_space(game_name: str) -> type[PartnerBehaviour]:
    """The partner-behaviour space of ``game_name`` (refused when its profile gives none)."""
    return served(
        _agents(game_name).behaviour_space, lambda: _refusal("behaviour_space", game_name)
    )


def behaviour_for(game_name: str) -> PartnerBehaviour:
    """A fresh behaviour space for one agent in ``game_name`` (see :func:`behaviour_space`)."""
    return behaviour_space(game_name)()


def belief_facts(game_name: str) -> BeliefFacts:
    """The checkable belief facts of ``game_name`` (refused when its profile gives none)."""
    return served(_agents(game_name).belief_facts, lambda: _refusal("belief_facts", game_name))


def tom_ladder(game_name: str) -> TomLadder:
    """The ToM question ladder of ``game_name`` (refused when its profile gives none)."""
    return served(_agents(game_name).tom_ladder, lambda: _refusal("tom_ladder", game_name))


def partner_info_redaction(game_name: str, shown: bool) -> PartnerInfoRedaction | None:
    """The game's description rewriter for ``partner_info`` off; None when it is on."""
    if shown:
        return None
    redact = _agents(game_name).without_partner_info
    return served(redact, lambda: _refusal("without_partner_info", game_name))


def check_features(game_name: str, options: Any, *, observes_partner: bool) -> None:
    """Refuse the first feature ``options`` turn on that ``game_name`` cannot serve.

    ``observes_partner``: the agent predicts or observes its partner's behaviours whatever its
    options (HM, PlanReAct); CAC does with k-level ToM (``tom_level`` above 0).

    Raises:
        ConfigError: the feature, the profile field it needs, and what to do.
    """
    if getattr(options, "belief_state", False):
        belief_facts(game_name)
    if getattr(options, "tom_ladder", 0):
        tom_ladder(game_name)
    partner_info_redaction(game_name, getattr(options, "partner_info", True))
    if observes_partner or getattr(options, "tom_level", 0) > 0:
        behaviour_space(game_name)


_REFUSALS = {
    "behaviour_space": (
        "HM, PlanReAct and k-level ToM cannot predict a partner in game {game!r}: its GameProfile "
        "names no agents.behaviour_space. Set it to a coordqa.games.PartnerBehaviour subclass, "
        "e.g. coordqa.games.PartnerActionBehaviour for a game whose players complete one action "
        "per step."
    ),
    "belief_facts": (
        "the belief state has no checkable facts for game {game!r}: its GameProfile names no "
        "agents.belief_facts. Set it to a function (SeatView, player) -> "
        "list[coordqa.games.BeliefFact], or drop belief_state (--belief-state)."
    ),
    "tom_ladder": (
        "the ToM question ladder needs hidden information; in {game!r} every fact is common "
        "knowledge (its GameProfile names no agents.tom_ladder). Use it in {ladders}, or drop "
        "tom_ladder."
    ),
    "without_partner_info": (
        "--no-partner-info (partner_info: false) is the LLM-Coordination paper's Overcooked "
        "ablation; game {game!r} does not say how to leave the partner's inventory and location "
        "out of its description (its GameProfile names no agents.without_partner_info). Use it "
        "in overcooked, or drop it."
    ),
}
"""Per profile field, what an agent feature that needs it says when a game leaves it unset."""


def _refusal(field: str, game_name: str) -> str:
    ladders = [name for name, game in GAMES.items() if game.profile.agents.tom_ladder]
    return _REFUSALS[field].format(
        game=game_name, ladders=", ".join(ladders) or "a game whose profile names one"
    )
