"""Grounding: the primitive move that advances a medium-level action by one timestep.

Rules (facts/games.md; choices marked *ours*):

* An object task walks the shortest path to a floor cell next to its target (the partner's cell
  is an obstacle, re-planned every timestep), turns to face the target, and interacts. Ties
  between equally short paths go to the first move in north, south, east, west order.
* The task fails, after staying one timestep, when what it needs is gone (the hands are not as
  required, the counter was emptied or filled, the pot is full or has no soup), when no free cell
  next to the target can be reached (*ours*: no spinning), or after ``MAX_TASK_STEPS``.
* "load soup on plate" on a pot still cooking walks there and waits, facing it, until the soup is
  done (*ours*), so a player can fetch the plate ahead of time.
* "wait" stays one timestep; "move away" steps to the free neighbouring cell farthest (by walking
  distance) from the partner, ties in north, south, east, west order; with no free neighbour it
  stays and fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coordqa.games.overcooked.layout import STEPS, Geometry, Pos
from coordqa.games.overcooked.tasks import (
    AWAY,
    DELIVER,
    LOAD,
    PICK,
    POT,
    PUT,
    WAIT,
    Task,
    counter_item,
    held,
    pot_at,
)

MAX_TASK_STEPS = 80
"""Timesteps after which a medium-level action is abandoned (a retry cap the original agent
lacked). Enough for the longest walk on the paper's layouts plus a full cook time."""


@dataclass(frozen=True)
class Move:
    """The next primitive of a task."""

    primitive: str
    """north, south, east, west, stay or interact."""
    failed: bool = False
    """The task ends now as impossible (the primitive is then "stay")."""
    reason: str = ""
    """Why it failed, in words for the player (empty unless ``failed``)."""


_NAMES = {None: "nothing", "dish": "a plate", "onion": "an onion", "soup": "a soup"}
"""overcooked-ai object names as the descriptions say them."""


def next_move(geometry: Geometry, state: Any, player: int, task: Task, steps: int) -> Move:
    """The primitive that advances ``task`` for ``player``; ``steps`` timesteps already spent."""
    if task.verb == WAIT:
        return Move("stay")
    me = state.players[player]
    partner = state.players[1 - player].position
    if task.verb == AWAY:
        return _move_away(geometry, me.position, partner)
    if steps >= MAX_TASK_STEPS:
        return Move("stay", True, f"it was still not done after {MAX_TASK_STEPS} timesteps")
    impossible = _why_impossible(geometry, state, player, task)
    if impossible is not None:
        return Move("stay", True, impossible)
    target = geometry.feature(task.target or "").pos
    distances = geometry.distances_to(target, partner)
    here = distances.get(me.position)
    if here is None:
        return Move("stay", True, f"the way to {task.target} is blocked by the other chef")
    if here > 0:
        for move, cell in geometry.neighbours(me.position):
            if distances.get(cell) == here - 1:
                return Move(move)
    face = _direction(me.position, target)
    if tuple(me.orientation) != face[1]:
        return Move(face[0])
    if task.verb == LOAD and not pot_at(state, target).ready:
        return Move("stay")
    return Move("interact")


def _why_impossible(geometry: Geometry, state: Any, player: int, task: Task) -> str | None:
    """Why ``task`` cannot be done any more, or None while it still can."""
    holding = held(state.players[player])
    if holding != task.held_before:
        return f"it needs {_NAMES[task.held_before]} in hand, and I hold {_NAMES[holding]}"
    feature = geometry.feature(task.target or "")
    if task.verb == PICK and feature.kind in "ks":
        if counter_item(state, feature.pos) != task.held_after:
            return f"{feature.name} no longer holds {_NAMES[task.held_after]}"
    elif task.verb == PUT:
        if counter_item(state, feature.pos) is not None:
            return f"{feature.name} is no longer empty"
    elif task.verb == POT:
        if not pot_at(state, feature.pos).accepts_onion:
            return f"{feature.name} takes no more onions (it is full or cooking)"
    elif task.verb == LOAD:
        pot = pot_at(state, feature.pos)
        if not (pot.cooking or pot.ready):
            return f"{feature.name} has no soup cooking or cooked"
    elif task.verb not in (PICK, DELIVER):
        return f"{task.text!r} is not an object action"
    return None


def _direction(source: Pos, target: Pos) -> tuple[str, Pos]:
    offset = (target[0] - source[0], target[1] - source[1])
    for move, step in STEPS:
        if step == offset:
            return move, step
    raise ValueError(f"{target} is not next to {source}")


def _move_away(geometry: Geometry, me: Pos, partner: Pos) -> Move:
    from_partner = geometry.distances_from(partner)
    options = [(move, cell) for move, cell in geometry.neighbours(me) if cell != partner]
    if not options:
        return Move("stay", True, "there is no free cell to step to")
    best = max(options, key=lambda option: from_partner.get(option[1], -1))
    return Move(best[0])
