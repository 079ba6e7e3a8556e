"""The working-memory text of an Overcooked state, from one player's point of view.

Sections, in the paper's order (facts/games.md; the lettered "Available Actions" list is added
by the prompt, not here)::

    <Inventory>: I am holding onion. Bob is holding nothing.
    <My Location Information>: o0 is 2 units away. ... c0 is 4 units away blocked by Bob. ...
    <Bob's Location Information>: o0 is 1 unit away. ... d0 is inaccessible. ...
    <Environment Details>: c0 contains 1 out of 3 onions. c0 is off. soup in c0 is not cooking.
        k2 is the closest empty kitchen counter. k0 contains plate. s0 contains onion. s1 is empty.
    <My Action History>: pick up onion from o0; place onion in c0. I was on my way to pick up
        onion from o1 when this choice came up (not done yet).   [only in QA states]

Distances (see ``layout.py``): "N units away" is the walk with the other player's cell as an
obstacle; "N units away blocked by X" means the object can be reached only through X's cell and N
is the walk if X stepped aside; "inaccessible" means no walk reaches it at all. Locations listed:
every dispenser, serving location, cooker and shared counter, then the kitchen counters that hold
something and the describing player's closest empty one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coordqa.games.base import PLAYER_NAMES
from coordqa.games.overcooked.layout import Feature, Geometry, Pos
from coordqa.games.overcooked.tasks import (
    HELD_TEXT,
    Task,
    closest_empty_counter,
    counter_item,
    held,
    pot_at,
)

HISTORY_LENGTH = 5
"""How many of the player's latest actions the description lists."""


def describe_state(
    geometry: Geometry,
    state: Any,
    player: int,
    history: Sequence[str],
    interrupted: Task | None = None,
) -> str:
    """The description of ``state`` for ``player`` (0 = Alice, 1 = Bob).

    ``interrupted``: the player's action that was under way when the state was taken and was
    dropped so the player chooses again now; the history says so, because the position is
    part-way along that action's walk, not where the last finished action left it.
    """
    partner = 1 - player
    partner_name = PLAYER_NAMES[partner]
    closest = closest_empty_counter(geometry, state, player)
    places = _places(geometry, state, closest)
    me_pos, partner_pos = state.players[player].position, state.players[partner].position
    recent = "; ".join(history[-HISTORY_LENGTH:]) if history else "none yet"
    lines = [
        f"<Inventory>: I am holding {HELD_TEXT[held(state.players[player])]}. "
        f"{partner_name} is holding {HELD_TEXT[held(state.players[partner])]}.",
        "<My Location Information>: "
        + _distances(geometry, places, me_pos, partner_pos, partner_name),
        f"<{partner_name}'s Location Information>: "
        + _distances(geometry, places, partner_pos, me_pos, "me"),
        "<Environment Details>: " + _environment(geometry, state, closest),
        f"<My Action History>: {recent}."
        + (
            f" I was on my way to {interrupted.text} when this choice came up (not done yet)."
            if interrupted is not None
            else ""
        ),
    ]
    return "\n".join(lines)


def without_partner_info(text: str, player: int) -> str:
    """``player``'s description without the partner's inventory and location section.

    LLM-Coordination's Overcooked ablation (section 4.1.2) takes both out of the agent's working
    memory. What stays: "blocked by <partner>" in the player's own distances, which is about the
    player's paths (a walk the partner stands in), not a report of where the partner is.
    """
    partner = PLAYER_NAMES[1 - player]
    kept = []
    for line in text.splitlines():
        if line.startswith(f"<{partner}'s Location Information>"):
            continue
        if line.startswith("<Inventory>"):
            line = line.split(f" {partner} is holding ", 1)[0]
        kept.append(line)
    return "\n".join(kept)


def _places(geometry: Geometry, state: Any, closest: Feature | None) -> list[Feature]:
    return [
        f
        for f in geometry.features
        if f.kind != "k" or f == closest or counter_item(state, f.pos) is not None
    ]


def distance_phrase(geometry: Geometry, me: Pos, target: Pos, other: Pos, other_name: str) -> str:
    """The phrase after a name: 3 units away, 1 unit away blocked by Bob, or inaccessible."""
    reach = geometry.reach(me, target, other)
    if reach.free_distance is None:
        return "is inaccessible"
    steps = reach.free_distance if reach.distance is None else reach.distance
    phrase = f"is {steps} unit{'' if steps == 1 else 's'} away"
    return f"{phrase} blocked by {other_name}" if reach.blocked else phrase


def _distances(
    geometry: Geometry, places: list[Feature], me: Pos, other: Pos, other_name: str
) -> str:
    return " ".join(
        f"{f.name} {distance_phrase(geometry, me, f.pos, other, other_name)}." for f in places
    )


def _environment(geometry: Geometry, state: Any, closest: Feature | None) -> str:
    sentences = []
    for cooker in geometry.of_kind("c"):
        pot = pot_at(state, cooker.pos)
        if pot.ready:
            status = "cooked"
        elif pot.cooking:
            status = f"still cooking ({pot.remaining} timesteps left)"
        else:
            status = "not cooking"
        sentences.append(
            f"{cooker.name} contains {pot.onions} out of 3 onions. "
            f"{cooker.name} is {'on' if pot.cooking else 'off'}. "
            f"soup in {cooker.name} is {status}."
        )
    if closest is not None:
        sentences.append(f"{closest.name} is the closest empty kitchen counter.")
    elif geometry.of_kind("k"):
        sentences.append("No empty kitchen counter is within my reach.")
    for counter in geometry.features:
        obj = counter_item(state, counter.pos)
        if counter.kind == "k" and obj is not None:
            sentences.append(f"{counter.name} contains {HELD_TEXT[obj]}.")
        elif counter.kind == "s":
            content = "is empty" if obj is None else f"contains {HELD_TEXT[obj]}"
            sentences.append(f"{counter.name} {content}.")
    return " ".join(sentences)
