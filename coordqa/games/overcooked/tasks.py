"""Medium-level actions ("tasks"): their text, what they need and do, and which ones are legal.

A task is one sentence of the action vocabulary (``shared/facts/games.md``)::

    pick up onion from o0 / pick up plate from p0 / pick up onion|plate|soup from kN|sN
    place onion in c0 / load soup on plate from c0 / place soup for delivery in d0
    place onion|plate|soup on kN|sN / wait / move away

Every object task ends with one interaction whose effect is a change of what the player holds,
so the same table says what a task needs (``held_before``), what it achieves (``held_after``)
and, read backwards, which task a state change was (:func:`effect_of`), which is how action
histories are kept for any player, including partners that move with primitives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coordqa.games.overcooked.layout import Feature, Geometry, Pos

PICK = "pick"
"""Pick an item up from a dispenser or a counter."""
POT = "pot"
"""Put an onion into a pot."""
LOAD = "load"
"""Load the soup of a pot onto the held plate."""
DELIVER = "deliver"
"""Hand a soup in at a serving location."""
PUT = "put"
"""Put the held item on a counter."""
WAIT = "wait"
"""Stay one timestep."""
AWAY = "away"
"""Step to a free neighbouring cell away from the partner."""

ITEM_OF_OBJECT = {"onion": "onion", "dish": "plate", "soup": "soup"}
"""overcooked-ai object name -> item word in actions."""
OBJECT_OF_ITEM = {word: name for name, word in ITEM_OF_OBJECT.items()}
"""Item word -> overcooked-ai object name."""
HELD_TEXT = {None: "nothing", "onion": "onion", "dish": "plate", "soup": "soup in plate"}
"""overcooked-ai object name (or None) -> inventory and counter wording."""


@dataclass(frozen=True)
class Task:
    """One medium-level action."""

    verb: str
    """PICK, POT, LOAD, DELIVER, PUT, WAIT or AWAY."""
    item: str | None = None
    """onion, plate or soup (object tasks only)."""
    target: str | None = None
    """Name of the object the task ends at (object tasks only)."""

    @property
    def text(self) -> str:
        """The sentence an LLM chooses."""
        templates = {
            PICK: "pick up {item} from {target}",
            POT: "place onion in {target}",
            LOAD: "load soup on plate from {target}",
            DELIVER: "place soup for delivery in {target}",
            PUT: "place {item} on {target}",
            WAIT: "wait",
            AWAY: "move away",
        }
        return templates[self.verb].format(item=self.item, target=self.target)

    @property
    def held_before(self) -> str | None:
        """The object name the player must hold for the task to make sense."""
        return {PICK: None, POT: "onion", LOAD: "dish", DELIVER: "soup"}.get(
            self.verb, OBJECT_OF_ITEM.get(self.item or "")
        )

    @property
    def held_after(self) -> str | None:
        """The object name the player holds once the task is done."""
        if self.verb == PICK:
            return OBJECT_OF_ITEM[self.item or ""]
        return "soup" if self.verb == LOAD else None

    def to_json(self) -> dict[str, str | None]:
        """Plain form for snapshots."""
        return {"verb": self.verb, "item": self.item, "target": self.target}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Task:
        """Inverse of :meth:`to_json`."""
        return cls(data["verb"], data.get("item"), data.get("target"))


def held(player_state: Any) -> str | None:
    """The overcooked-ai name of what a ``PlayerState`` holds (None for empty hands)."""
    obj = player_state.held_object
    return None if obj is None else str(obj.name)


def facing(geometry: Geometry, player_state: Any) -> Feature | None:
    """The named object a player faces, if any."""
    (x, y), (dx, dy) = player_state.position, player_state.orientation
    return geometry.by_pos.get((x + dx, y + dy))


def effect_of(before: str | None, after: str | None, feature: Feature | None) -> Task | None:
    """The object task that turned holding ``before`` into holding ``after`` at ``feature``."""
    if before == after or feature is None:
        return None
    if before is None and after is not None:
        return Task(PICK, ITEM_OF_OBJECT[after], feature.name)
    if before == "dish" and after == "soup":
        return Task(LOAD, "soup", feature.name)
    if after is None and before is not None:
        if feature.kind == "c":
            return Task(POT, "onion", feature.name)
        if feature.kind == "d":
            return Task(DELIVER, "soup", feature.name)
        return Task(PUT, ITEM_OF_OBJECT[before], feature.name)
    return None


@dataclass(frozen=True)
class Pot:
    """What a pot holds, in the words descriptions use."""

    onions: int
    """Onions in it (0-3)."""
    cooking: bool
    """Cooking, not yet done."""
    ready: bool
    """Cooked soup waiting for a plate."""
    remaining: int
    """Timesteps until done (0 unless cooking)."""

    @property
    def accepts_onion(self) -> bool:
        """Whether an onion can still go in."""
        return not self.cooking and not self.ready and self.onions < 3


def pot_at(state: Any, pos: Pos) -> Pot:
    """The pot at ``pos`` in an ``OvercookedState``."""
    soup = state.objects.get(pos)
    if soup is None:
        return Pot(0, False, False, 0)
    cooking = bool(soup.is_cooking)
    remaining = int(soup.cook_time_remaining) if cooking else 0
    return Pot(len(soup.ingredients), cooking, bool(soup.is_ready), remaining)


def counter_item(state: Any, pos: Pos) -> str | None:
    """The object name on the counter at ``pos`` (None when empty)."""
    obj = state.objects.get(pos)
    return None if obj is None else str(obj.name)


def closest_empty_counter(geometry: Geometry, state: Any, player: int) -> Feature | None:
    """The empty kitchen counter (k) ``player`` reaches first.

    The partner's cell counts as an obstacle; counters reachable only through the partner come
    after all others.
    """
    me, partner = _positions(state, player)
    best: tuple[tuple[int, int, int], Feature] | None = None
    for order, feature in enumerate(geometry.of_kind("k")):
        if counter_item(state, feature.pos) is not None:
            continue
        reach = geometry.reach(me, feature.pos, partner)
        if reach.free_distance is None:
            continue
        key = (
            (0, reach.distance, order)
            if reach.distance is not None
            else (1, reach.free_distance, order)
        )
        if best is None or key < best[0]:
            best = (key, feature)
    return None if best is None else best[1]


def _positions(state: Any, player: int) -> tuple[Pos, Pos]:
    return state.players[player].position, state.players[1 - player].position


def legal_tasks(geometry: Geometry, state: Any, player: int) -> list[Task]:
    """The tasks that make sense for ``player``'s inventory, in a stable order.

    Targets the player cannot reach at all (not even through the partner's cell) are left out;
    targets reachable only through the partner stay in (the partner may move).
    """
    me, partner = _positions(state, player)

    def reachable(feature: Feature) -> bool:
        return geometry.reach(me, feature.pos, partner).accessible

    hand = held(state.players[player])
    tasks: list[Task] = []
    counters = [f for f in geometry.features if f.kind in "sk" and reachable(f)]
    if hand is None:
        for kind, item in (("o", "onion"), ("p", "plate")):
            tasks += [Task(PICK, item, f.name) for f in geometry.of_kind(kind) if reachable(f)]
        for feature in counters:
            obj = counter_item(state, feature.pos)
            if obj is not None:
                tasks.append(Task(PICK, ITEM_OF_OBJECT[obj], feature.name))
    else:
        for feature in geometry.of_kind("c") if hand != "soup" else geometry.of_kind("d"):
            if not reachable(feature):
                continue
            if hand == "soup":
                tasks.append(Task(DELIVER, "soup", feature.name))
                continue
            pot = pot_at(state, feature.pos)
            if hand == "onion" and pot.accepts_onion:
                tasks.append(Task(POT, "onion", feature.name))
            elif hand == "dish" and (pot.cooking or pot.ready):
                tasks.append(Task(LOAD, "soup", feature.name))
        closest = closest_empty_counter(geometry, state, player)
        for feature in counters:
            empty = counter_item(state, feature.pos) is None
            if empty and (feature.kind == "s" or feature == closest):
                tasks.append(Task(PUT, ITEM_OF_OBJECT[hand], feature.name))
    return [*tasks, Task(WAIT), Task(AWAY)]
