"""Task allocation for the ``planner`` scripted player: which medium-level action to take next.

The rule, aware of the partner (its hands and its action in progress):

* A player who can reach no cooker is a *feeder* (the left half of Forced Coordination): it
  keeps the shared counters stocked with the onions the cookers still need and, while a soup
  cooks and no plate is on its way, with a plate; whatever it holds goes on a shared counter.
* Everyone else is a *finisher*: holding something, it does the obvious next step (onion into the
  fullest cooker that still takes one, plate to the soup closest to done, soup to delivery).
  With empty hands it picks up a soup left on a counter, else fetches a plate when more soups
  cook than plates are on their way, else fetches an onion when cookers need more onions than
  the partner is bringing, else waits (or moves away when it stands in the partner's way).
* Sources and targets are the nearest reachable ones (the partner's cell is an obstacle).
  When both players are free at once, the one nearer a plate takes the plate job.
* A player whose target is reachable only through the partner waits; when the two block each
  other, Alice moves away on even timesteps and Bob on odd ones. A player with nothing to do
  moves away when it stands in the partner's way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from coordqa.games.overcooked.layout import Feature, Geometry
from coordqa.games.overcooked.tasks import (
    AWAY,
    DELIVER,
    LOAD,
    OBJECT_OF_ITEM,
    PICK,
    POT,
    PUT,
    WAIT,
    Pot,
    Task,
    counter_item,
    held,
    legal_tasks,
    pot_at,
)

FAR = 10_000
"""Distance rank of a target reachable only through the partner (after every free one)."""


class _View:
    """The facts one decision needs, seen from ``player``."""

    def __init__(
        self, geometry: Geometry, state: Any, player: int, partner_task: Task | None
    ) -> None:
        self.geometry, self.state, self.player = geometry, state, player
        self.me = state.players[player].position
        self.other = state.players[1 - player].position
        self.hand = held(state.players[player])
        self.partner_hand = held(state.players[1 - player])
        self.partner_task = partner_task
        self.pots = [(f, pot_at(state, f.pos)) for f in geometry.of_kind("c")]

    def rank(self, feature: Feature, player_pos: Any = None, other: Any = None) -> int | None:
        """Walking distance used to choose targets; None when unreachable."""
        reach = self.geometry.reach(player_pos or self.me, feature.pos, other or self.other)
        if reach.distance is not None:
            return reach.distance
        return None if reach.free_distance is None else FAR + reach.free_distance

    def nearest(self, features: Iterable[Feature]) -> Feature | None:
        """The reachable feature with the smallest rank (first in name order on ties)."""
        ranked = [(r, i, f) for i, f in enumerate(features) if (r := self.rank(f)) is not None]
        return min(ranked, key=lambda item: (item[0], item[1]))[2] if ranked else None

    def reaches_pot(self, player_pos: Any, other: Any) -> bool:
        """Whether a player standing at ``player_pos`` can reach any cooker."""
        return any(self.rank(f, player_pos, other) is not None for f, _ in self.pots)

    def counters_with(self, obj: str) -> list[Feature]:
        """Counters (shared first, then kitchen) holding ``obj``."""
        return [
            f
            for f in self.geometry.features
            if f.kind in "sk" and counter_item(self.state, f.pos) == obj
        ]


def choose_task(geometry: Geometry, state: Any, player: int, partner_task: Task | None) -> Task:
    """The planner's next medium-level action for ``player`` (always one of the legal ones)."""
    view = _View(geometry, state, player, partner_task)
    legal = legal_tasks(geometry, state, player)
    feeder = not view.reaches_pot(view.me, view.other)
    if view.hand is not None:
        wanted = _feeder_drop(view) if feeder else _finish(view)
    else:
        wanted = _feeder_fetch(view) if feeder else _fetch(view)
    if wanted is None or wanted not in legal:
        return _idle(view)
    target = geometry.by_name.get(wanted.target or "")
    if target is None or not geometry.reach(view.me, target.pos, view.other).blocked:
        return wanted
    if _blocks_partner(view) and player == state.timestep % 2:
        return Task(AWAY)
    return Task(WAIT)


def _onions_missing(view: _View) -> int:
    return sum(3 - pot.onions for _, pot in view.pots if pot.accepts_onion)


def _soups_waiting(view: _View) -> int:
    return sum(1 for _, pot in view.pots if pot.cooking or pot.ready)


def _feeder_drop(view: _View) -> Task | None:
    empty = [f for f in view.geometry.of_kind("s") if counter_item(view.state, f.pos) is None]
    target = view.nearest(empty)
    item = {"onion": "onion", "dish": "plate", "soup": "soup"}[view.hand or ""]
    return None if target is None else Task(PUT, item, target.name)


def _feeder_fetch(view: _View) -> Task | None:
    shared = view.geometry.of_kind("s")
    on_shared = [counter_item(view.state, f.pos) for f in shared]
    plate_coming = "dish" in on_shared or view.partner_hand in ("dish", "soup")
    if _soups_waiting(view) and not plate_coming:
        return _pick(view, "plate")
    if _onions_missing(view) > on_shared.count("onion") + (view.partner_hand == "onion"):
        return _pick(view, "onion")
    return None


def _pick(view: _View, item: str) -> Task | None:
    kind = {"onion": "o", "plate": "p"}[item]
    sources = view.geometry.of_kind(kind) + view.counters_with(OBJECT_OF_ITEM[item])
    source = view.nearest(sources)
    return None if source is None else Task(PICK, item, source.name)


def _finish(view: _View) -> Task | None:
    if view.hand == "soup":
        serving = view.nearest(view.geometry.of_kind("d"))
        return Task(DELIVER, "soup", serving.name) if serving else _feeder_drop(view)
    if view.hand == "onion":
        open_pots = [(f, p) for f, p in view.pots if p.accepts_onion and view.rank(f) is not None]
        if open_pots:
            fullest = max(p.onions for _, p in open_pots)
            target = view.nearest(f for f, p in open_pots if p.onions == fullest)
            return Task(POT, "onion", target.name) if target else None
        return _put_aside(view, "onion")
    soups = [(f, p) for f, p in view.pots if (p.cooking or p.ready) and view.rank(f) is not None]
    if soups:
        soonest = min(_time_left(p) for _, p in soups)
        target = view.nearest(f for f, p in soups if _time_left(p) == soonest)
        return Task(LOAD, "soup", target.name) if target else None
    if any(p.onions for _, p in view.pots):
        return None
    return _put_aside(view, "plate")


def _time_left(pot: Pot) -> int:
    return 0 if pot.ready else pot.remaining


def _put_aside(view: _View, item: str) -> Task | None:
    for task in legal_tasks(view.geometry, view.state, view.player):
        if task.verb == PUT and task.target and task.target.startswith("k"):
            return Task(PUT, item, task.target)
    return None


def _fetch(view: _View) -> Task | None:
    soup_counters = view.counters_with("soup")
    if soup_counters and view.nearest(view.geometry.of_kind("d")) is not None:
        source = view.nearest(soup_counters)
        if source is not None:
            return Task(PICK, "soup", source.name)
    partner_busy_with = view.partner_task.verb if view.partner_task else None
    partner_item = view.partner_task.item if view.partner_task else None
    partner_finishes = view.reaches_pot(view.other, view.me)
    plates_coming = int(
        partner_finishes and (view.partner_hand == "dish" or partner_item == "plate")
    )
    if _soups_waiting(view) > plates_coming and not _partner_nearer_plate(view):
        task = _pick(view, "plate")
        if task is not None:
            return task
    onions_coming = int(
        partner_finishes
        and (
            view.partner_hand == "onion" or (partner_busy_with == PICK and partner_item == "onion")
        )
    )
    if _onions_missing(view) > onions_coming:
        return _pick(view, "onion")
    return None


def _partner_nearer_plate(view: _View) -> bool:
    """Both free and empty-handed: leave the plate to the partner if it is nearer."""
    if view.partner_task is not None or view.partner_hand is not None:
        return False
    if not view.reaches_pot(view.other, view.me):
        return False
    sources = view.geometry.of_kind("p") + view.counters_with("dish")
    mine = [r for f in sources if (r := view.rank(f)) is not None]
    theirs = [r for f in sources if (r := view.rank(f, view.other, view.me)) is not None]
    if not mine or not theirs:
        return bool(theirs)
    return (min(theirs), 1 - view.player) < (min(mine), view.player)


NEEDS = {None: "op", "onion": "c", "dish": "c", "soup": "d"}
"""Object kinds a player holding this (overcooked-ai name) heads for next."""


def _blocks_partner(view: _View) -> bool:
    """Whether every place the partner is going (or must go next) is reachable only through me."""
    task = view.partner_task
    if task is not None and task.target is not None:
        targets = [view.geometry.feature(task.target)]
    else:
        targets = [f for f in view.geometry.features if f.kind in NEEDS[view.partner_hand]]
    reaches = [view.geometry.reach(view.other, f.pos, view.me) for f in targets]
    return any(r.blocked for r in reaches) and not any(r.distance is not None for r in reaches)


def _idle(view: _View) -> Task:
    """Wait, unless I stand in the partner's way."""
    return Task(AWAY) if _blocks_partner(view) else Task(WAIT)
