"""The overcooked-ai objects a BC partner needs for one layout: the MDP and its action manager.

The featuriser measures distances with the medium-level action manager's motion planner, which
takes seconds to build on the larger layouts, so one pair is kept per layout per process.
"""

from __future__ import annotations

import functools
from typing import Any


@functools.lru_cache(maxsize=8)
def layout_mdp(layout: str) -> tuple[Any, Any]:
    """``(OvercookedGridworld, MediumLevelActionManager)`` of an overcooked-ai layout."""
    from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld
    from overcooked_ai_py.planning.planners import NO_COUNTERS_PARAMS, MediumLevelActionManager

    mdp = OvercookedGridworld.from_layout_name(layout)
    return mdp, MediumLevelActionManager(mdp, NO_COUNTERS_PARAMS)


def game_planner(game: Any) -> tuple[Any, Any]:
    """``(mdp, action manager)`` for a live Overcooked game (the featuriser needs both)."""
    return game.mdp, layout_mdp(game.layout)[1]
