"""The long-term memory the LLM-Coordination paper gave its Overcooked agents.

The paper added a hand-written description of each layout to the rules; here it is computed from
the layout's geometry (``paper_description``, named by Overcooked's profile).
"""

from __future__ import annotations

from typing import Any

from coordqa.games.base import PLAYER_NAMES
from coordqa.games.overcooked.seat import geometry as layout_geometry, kitchen
from coordqa.games.seat import SeatView


def paper_description(view: SeatView) -> str:
    """The long-term memory of the LLM-Coordination paper: the rules and the layout's parts."""
    return f"{view.game_description().rstrip()}\n\n{layout_description(view)}"


_KIND_NAMES = {
    "o": "onion dispensers",
    "p": "plate dispensers",
    "d": "delivery locations",
    "c": "cookers",
    "s": "shared counters",
    "k": "kitchen counters",
}


def layout_description(view: SeatView) -> str:
    """Which objects each chef can reach on this layout, from the layout's own geometry.

    The paper gave the model a hand-written description of each layout; this one is computed
    from the grid (the floor each chef can walk on from its starting cell), so it is right for
    every layout and names objects as the state descriptions do.
    """
    geometry = layout_geometry(view.layout)
    starts = [tuple(player.position) for player in kitchen(view).state.players]
    reach = []
    for start in starts:
        floor = set(geometry.distances_from(start))
        reach.append(
            [f for f in geometry.features if any(c in floor for c in geometry.stand_cells(f.pos))]
        )
    if reach[0] == reach[1]:
        return (
            f"Layout ({view.layout}): one open kitchen; both chefs can reach {_listing(reach[0])}."
        )
    both = [f for f in reach[0] if f in reach[1]]
    parts = [f"Layout ({view.layout}): the kitchen is split into two parts."]
    for player in (0, 1):
        own = [f for f in reach[player] if f not in both]
        parts.append(f"{PLAYER_NAMES[player]}'s part has {_listing(own) or 'nothing else'}.")
    if both:
        parts.append(f"Both parts reach {_listing(both)}.")
    if any(f.kind == "s" for f in both):
        parts.append("Items put on a shared counter can be picked up from either side.")
    return " ".join(parts)


def _listing(features: list[Any]) -> str:
    groups = []
    for kind, noun in _KIND_NAMES.items():
        names = [f.name for f in features if f.kind == kind]
        if names:
            groups.append(f"{noun} {', '.join(names)}")
    return "; ".join(groups)
