"""The overcooked-ai objects a BC partner needs: the gridworld and its action manager.

Both come from the Overcooked game's engine bridge (cached per layout, planners pickled in the
user cache), so partners featurise with exactly the gridworld the game plays on.
"""

from __future__ import annotations

from typing import Any


def layout_mdp(layout: str) -> tuple[Any, Any]:
    """``(OvercookedGridworld, MediumLevelActionManager)`` of an overcooked-ai layout."""
    from coordqa.games.overcooked import engine

    return engine.gridworld(layout), engine.action_manager(layout)
