"""Solvers for the Overcooked questions of CoordinationQA: exact facts, the partner model, rollouts.

Every answer is computed from the state with the game's own rules (``coordqa.games.overcooked``:
BFS distances of ``layout.py``, pots and hands of ``tasks.py``, grounding of ``grounding.py``,
the ``planner`` rule of ``planner.py``); nothing here re-implements a rule of the game.

* EC (exact): onions still needed for a cooker; which cooker is closer for the partner;
  whether a location is reachable for me or the partner *with the other chef standing where it
  is*; timesteps until a soup is ready (the engine's ``cook_time_remaining``).
* ToM, the partner model: the partner continues the task its hands imply (an onion goes to a
  cooker that takes one, a plate to a cooking or cooked soup, a soup to a delivery location;
  with empty hands it fetches the only item the kitchen still needs; a chef who can reach no
  cooker passes its item over the nearest empty shared counter), to the *nearest* such target.
  Targets at the same smallest walk are all correct on purpose (the model cannot tell them
  apart); a state is kept only when no nearest target is reachable only through me and the
  ``planner`` rule picks one of the intended actions.
* JP: for each of my legal actions, a rollout with the game's grounding: I take the action,
  then both chefs follow the ``planner`` rule (for the partner this is the ToM model above),
  and the score is the sum of the timesteps until each of the next :data:`DELIVERIES`
  deliveries (one not made within :data:`ROLLOUT_WINDOW` counts as the window). Kept only when
  the best action is strictly best by :data:`OBJECT_MARGIN` timesteps over every other object
  action and by :data:`STEP_MARGIN` over the one-step actions (wait, move away, which are
  re-decided after one timestep, so they can only cost a step or two; but setting an item
  aside on a kitchen counter, which is no step of the recipe, must beat them by
  :data:`OBJECT_MARGIN` too), and when the ``planner``
  rule, asked for my next action, picks the same one (the rollout's winner is then also the
  action a sensible policy takes, not an accident of the continuation).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from coordqa.games.base import PLAYER_NAMES
from coordqa.games.overcooked import Overcooked, Task
from coordqa.games.overcooked.layout import Feature
from coordqa.games.overcooked.planner import choose_task
from coordqa.games.overcooked.tasks import (
    AWAY,
    DELIVER,
    HELD_TEXT,
    LOAD,
    PICK,
    POT,
    PUT,
    WAIT,
    Pot,
    counter_item,
    held,
    pot_at,
)
from coordqa.scenarios.model import QuestionDraft, ScenarioRejected

ROLLOUT_WINDOW = 100
"""Timesteps a JP rollout may run: room for two soups (three onions, 20 to cook, plate,
delivery each)."""
DELIVERIES = 2
"""JP scores the next two deliveries: the next one alone is often a soup already under way that
no action of mine changes."""
OBJECT_MARGIN = 3
"""Timesteps by which the best JP action must beat every other object action."""
STEP_MARGIN = 1
"""Timesteps by which the best JP action must beat a one-step action (wait, move away)."""
ONE_STEP_VERBS = (WAIT, AWAY)
"""Actions that last one timestep and are then re-decided."""
ONION_OPTIONS = ("0", "1", "2", "3")
"""Every possible number of onions a cooker can still need."""
ALREADY_COOKED = "it is already cooked"
NOT_COOKING = "it is not cooking"
EQUALLY_CLOSE = "both are equally close"
YES, NO = "Yes", "No"


def partner_name(player: int) -> str:
    """Name of the other chef."""
    return PLAYER_NAMES[1 - player]


def _pronoun(player: int) -> str:
    return "she" if player == 0 else "he"


@dataclass(frozen=True)
class Distance:
    """A walk as the description prints it, from one chef with the other chef in the way."""

    steps: int | None
    """Printed number of steps (the free walk when blocked); None when inaccessible."""
    blocked: bool
    """Reachable only through the other chef's cell."""

    @property
    def clear(self) -> bool:
        """Reachable now, without the other chef moving."""
        return self.steps is not None and not self.blocked


def distance(game: Overcooked, who: int, feature: Feature) -> Distance:
    """How far ``who`` is from ``feature`` with the other chef standing where it is."""
    players = game.state.players
    reach = game.geometry.reach(players[who].position, feature.pos, players[1 - who].position)
    if reach.free_distance is None:
        return Distance(None, False)
    if reach.distance is None:
        return Distance(reach.free_distance, True)
    return Distance(reach.distance, False)


def pots(game: Overcooked) -> list[tuple[Feature, Pot]]:
    """Every cooker with its content."""
    return [(f, pot_at(game.state, f.pos)) for f in game.geometry.of_kind("c")]


def reaches_a_cooker(game: Overcooked, who: int) -> bool:
    """Whether ``who`` can walk to any cooker (the left chef of Forced Coordination cannot)."""
    return any(distance(game, who, f).steps is not None for f, _ in pots(game))


# --------------------------------------------------------------------------------------- EC


def onions_needed(game: Overcooked, player: int, cooker: str) -> QuestionDraft:
    """How many onions ``cooker`` still needs to be full (0 once cooking or cooked)."""
    pot = pot_at(game.state, game.geometry.feature(cooker).pos)
    needed = 0 if pot.cooking or pot.ready else 3 - pot.onions
    state = "cooked" if pot.ready else "cooking" if pot.cooking else "not cooking"
    return QuestionDraft(
        question_type="EC",
        kind="onions_needed",
        question=f"How many onions are still needed to fill up {cooker}?",
        options=ONION_OPTIONS,
        correct=(ONION_OPTIONS.index(str(needed)),),
        rationale=f"{cooker} holds {pot.onions} onion(s) and is {state}; 3 needed -> {needed}",
        concept=f"how full {cooker} is, and that a cooking or cooked soup takes no onion",
    )


def closer_cooker(game: Overcooked, player: int) -> QuestionDraft:
    """Which of two cookers the partner reaches in fewer steps (exact; ties are an answer).

    Raises:
        ScenarioRejected: the layout has no second cooker, or the partner's way to a cooker
            goes through me (then "closer" depends on whether I step aside).
    """
    partner, name = 1 - player, partner_name(player)
    cookers = game.geometry.of_kind("c")
    if len(cookers) != 2:
        raise ScenarioRejected(f"{game.layout} has {len(cookers)} cooker(s); the question needs 2")
    walks = [distance(game, partner, f) for f in cookers]
    if any(w.blocked for w in walks):
        raise ScenarioRejected(f"{name}'s way to a cooker is blocked by me: no clear comparison")
    neither = f"neither cooker is reachable for {name}"
    options = (cookers[0].name, cookers[1].name, EQUALLY_CLOSE, neither)
    a, b = walks[0].steps, walks[1].steps
    if a is None and b is None:
        answer = neither
    elif a is not None and (b is None or a < b):
        answer = cookers[0].name
    elif b is not None and (a is None or b < a):
        answer = cookers[1].name
    else:
        answer = EQUALLY_CLOSE
    shown = ", ".join(f"{f.name} {_steps(w)}" for f, w in zip(cookers, walks, strict=True))
    return QuestionDraft(
        question_type="EC",
        kind="closer_cooker",
        question=f"Which cooker is closer for {name}?",
        options=options,
        correct=(options.index(answer),),
        rationale=f"{name}'s walks: {shown} -> {answer}",
        concept=f"comparing {name}'s walks to the two cookers",
    )


def _steps(walk: Distance) -> str:
    if walk.steps is None:
        return "inaccessible"
    return f"{walk.steps} step{'' if walk.steps == 1 else 's'}"


def reachable(game: Overcooked, player: int, who: int, target: str) -> QuestionDraft:
    """Whether ``who`` can walk next to ``target`` now, the other chef staying where it is."""
    walk = distance(game, who, game.geometry.feature(target))
    if who == player:
        question = (
            f"With {partner_name(player)} standing where {_pronoun(1 - player)} is now, "
            f"can I reach {target}?"
        )
        subject = "my"
    else:
        question = f"With me standing where I am now, can {partner_name(player)} reach {target}?"
        subject = f"{partner_name(player)}'s"
    if walk.steps is None:
        why = f"no walk from {subject} cell reaches {target}"
    elif walk.blocked:
        why = f"the only walk to {target} goes through the other chef's cell"
    else:
        why = f"{target} is {_steps(walk)} away on a free path"
    answer = YES if walk.clear else NO
    return QuestionDraft(
        question_type="EC",
        kind="reachable",
        question=question,
        options=(YES, NO),
        correct=((YES, NO).index(answer),),
        rationale=f"{why} -> {answer}",
        concept=f"whether a path to {target} is free with the other chef standing still",
    )


def soup_timer(game: Overcooked, player: int, cooker: str) -> QuestionDraft:
    """Timesteps until the soup in ``cooker`` is ready, from the engine's cook time left."""
    pot = pot_at(game.state, game.geometry.feature(cooker).pos)
    if pot.cooking:
        left = pot.remaining
        numbers = _distractors(left)
        answer = str(left)
        why = f"{cooker} is cooking with {left} timestep{'' if left == 1 else 's'} left"
    else:
        numbers = ["1", "10", "20"]
        answer = ALREADY_COOKED if pot.ready else NOT_COOKING
        why = f"{cooker} holds {pot.onions} onion(s), {'cooked' if pot.ready else 'not cooking'}"
    options = (*numbers, ALREADY_COOKED, NOT_COOKING)
    return QuestionDraft(
        question_type="EC",
        kind="soup_timer",
        question=f"How many timesteps until the soup in {cooker} is ready?",
        options=options,
        correct=(options.index(answer),),
        rationale=f"{why} -> {answer}",
        concept=f"the cooking time left in {cooker}",
    )


TOTAL_OPTIONS = tuple(str(n) for n in range(7))
"""Every number of onions two cookers can still need together."""


def onions_total(game: Overcooked, player: int) -> QuestionDraft:
    """How many onions all the cookers that take onions still need together.

    Raises:
        ScenarioRejected: the layout has fewer than two cookers (the question would be
            ``onions_needed``).
    """
    found = pots(game)
    if len(found) < 2:
        raise ScenarioRejected(f"{game.layout} has one cooker: ask onions_needed instead")
    parts = []
    total = 0
    for feature, pot in found:
        need = 3 - pot.onions if pot.accepts_onion else 0
        total += need
        state = "cooked" if pot.ready else "cooking" if pot.cooking else f"holds {pot.onions}"
        parts.append(f"{feature.name} {state} -> {need}")
    return QuestionDraft(
        question_type="EC",
        kind="onions_total",
        question="How many more onions must be put into the cookers, all cookers together, "
        "before every cooker that can still take onions is full? (Onions that Alice or Bob "
        "hold are not in a cooker yet.)",
        options=TOTAL_OPTIONS,
        correct=(TOTAL_OPTIONS.index(str(total)),),
        rationale=f"{'; '.join(parts)} -> {total}",
        concept="adding up what every cooker still needs; cooking or cooked soups need nothing",
    )


def onions_to_fetch(game: Overcooked, player: int) -> QuestionDraft:
    """How many onions must still come from the dispensers to fill every cooker that takes one.

    An inference over three parts of the state: what each cooker still needs (a cooking or
    cooked soup needs nothing), the onions the chefs hold and the onions lying on counters.
    """
    missing = 0
    parts = []
    for feature, pot in pots(game):
        need = 3 - pot.onions if pot.accepts_onion else 0
        missing += need
        state = "cooked" if pot.ready else "cooking" if pot.cooking else f"holds {pot.onions}"
        parts.append(f"{feature.name} {state} -> needs {need}")
    hands = [held(p) for p in game.state.players].count("onion")
    counters = [
        counter_item(game.state, f.pos) for f in game.geometry.features if f.kind in "sk"
    ].count("onion")
    answer = max(missing - hands - counters, 0)
    options = tuple(str(n) for n in range(3 * len(parts) + 1))
    return QuestionDraft(
        question_type="EC",
        kind="onions_to_fetch",
        question="How many more onions must be taken from the onion dispensers so that every "
        "cooker that can still take onions gets full? (Onions that Alice or Bob hold, or that "
        "lie on a counter, are already taken; a cooker that is cooking or holds a cooked soup "
        "takes none.)",
        options=options,
        correct=(options.index(str(answer)),),
        rationale=f"{'; '.join(parts)}; {missing} needed - {hands} held - {counters} on counters "
        f"-> {answer}",
        concept="what the cookers still need, less the onions already held or on counters",
    )


TIMING_GAP = 4
"""Timing options differ from the answer by at least this many timesteps, so a reader who is a
step or two off (turning to face an object, the timestep of the interaction) still picks it."""
TIMING_WINDOW = 80
"""Timesteps a timing simulation may run before the state is rejected."""


def _timing_options(answer: int, readings: Iterable[int]) -> tuple[str, ...]:
    """The answer and up to three wrong readings, in ascending order.

    Each reading is at least :data:`TIMING_GAP` from the answer and from the other readings.
    """
    chosen = [answer]
    for value in readings:
        if value >= 1 and all(abs(value - c) >= TIMING_GAP for c in chosen):
            chosen.append(value)
        if len(chosen) == 4:
            break
    return tuple(str(v) for v in sorted(chosen))


def _simulate(game: Overcooked, player: int, task: str, done: Any) -> int:
    """Timesteps until ``done(game)`` when I start ``task`` and then wait, the partner waiting.

    Raises:
        ScenarioRejected: it does not happen within :data:`TIMING_WINDOW` timesteps.
    """
    sim = Overcooked.from_snapshot(game.snapshot())
    if not isinstance(sim, Overcooked):
        raise ScenarioRejected(f"not an Overcooked snapshot: {type(sim).__name__}")
    for elapsed in range(1, TIMING_WINDOW + 1):
        first = elapsed == 1
        sim.step({p: task if (p == player and first) else WAIT_TEXT for p in sim.players_to_act()})
        if done(sim):
            return elapsed
    raise ScenarioRejected(f"{task!r} does not finish within {TIMING_WINDOW} timesteps")


WAIT_TEXT = "wait"
"""The text of the one-timestep wait action."""


def _clear_walk(game: Overcooked, player: int, cooker: str) -> int:
    walk = distance(game, player, game.geometry.feature(cooker))
    if not walk.clear or walk.steps is None:
        raise ScenarioRejected(f"my way to {cooker} is not free: the timing depends on the partner")
    return walk.steps


def onion_cooked_in(game: Overcooked, player: int, cooker: str) -> QuestionDraft:
    """Timesteps until the soup in ``cooker`` is cooked if I put my onion in it now (its third).

    Raises:
        ScenarioRejected: I hold no onion, the cooker does not hold exactly two onions, or my
            way there is not free.
    """
    pot = pot_at(game.state, game.geometry.feature(cooker).pos)
    if held(game.state.players[player]) != "onion" or not (pot.accepts_onion and pot.onions == 2):
        raise ScenarioRejected(f"I hold no onion for {cooker}, or it does not need exactly one")
    walk = _clear_walk(game, player, cooker)
    position = game.geometry.feature(cooker).pos
    answer = _simulate(
        game, player, f"place onion in {cooker}", lambda g: pot_at(g.state, position).ready
    )
    partner = partner_name(player)
    options = _timing_options(answer, (20, walk, answer + 10, answer - 10))
    return QuestionDraft(
        question_type="EC",
        kind="onion_cooked_in",
        question=f"If I put my onion in {cooker} now and {partner} waits, about how many "
        f"timesteps from now will the soup in {cooker} be cooked? (Choose the closest.)",
        options=options,
        correct=(options.index(str(answer)),),
        rationale=f"{cooker} holds 2 onions and I am {_steps(Distance(walk, False))} away: the "
        f"walk and the interaction, then 20 timesteps of cooking; simulated: {answer}",
        concept=f"the third onion starts {cooker} cooking: my walk plus the cooking time",
    )


def plate_filled_in(game: Overcooked, player: int, cooker: str) -> QuestionDraft:
    """Timesteps until the soup of ``cooker`` is on my plate if I go to load it now.

    Raises:
        ScenarioRejected: I hold no plate, the cooker has no soup cooking or cooked, or my way
            there is not free.
    """
    pot = pot_at(game.state, game.geometry.feature(cooker).pos)
    if held(game.state.players[player]) != "dish" or not (pot.cooking or pot.ready):
        raise ScenarioRejected(f"I hold no plate, or {cooker} has no soup cooking or cooked")
    walk = _clear_walk(game, player, cooker)
    answer = _simulate(
        game,
        player,
        f"load soup on plate from {cooker}",
        lambda g: held(g.state.players[player]) == "soup",
    )
    partner = partner_name(player)
    left = pot.remaining
    options = _timing_options(answer, (walk + left, left, walk, answer + 10, answer + 20))
    return QuestionDraft(
        question_type="EC",
        kind="plate_filled_in",
        question=f"I hold a plate. If I go to load the soup from {cooker} now and {partner} "
        f"waits, about how many timesteps from now will the soup be on my plate? (Choose the "
        "closest.)",
        options=options,
        correct=(options.index(str(answer)),),
        rationale=f"walk {_steps(Distance(walk, False))}, cooking time left {left}: I wait at "
        f"{cooker} for whichever is longer, then load; simulated: {answer}",
        concept=f"waiting at {cooker}: the longer of my walk and the cooking time left",
    )


def _distractors(left: int) -> list[str]:
    """The right number plus two plausible wrong ones (time elapsed, a few steps off)."""
    numbers: list[int] = []
    for value in (left, 20 - left, left + 5, left - 5, left + 2, left - 2):
        if 1 <= value <= 20 and value not in numbers:
            numbers.append(value)
    return [str(n) for n in numbers[:3]]


# --------------------------------------------------------------------------------------- ToM


@dataclass(frozen=True)
class Intent:
    """What the partner model says a chef will do next, and why."""

    tasks: tuple[Task, ...]
    """The intended medium-level action; several when their targets are equally near."""
    reason: str
    """The computed values behind it."""


def _nearest(
    game: Overcooked, who: int, features: Iterable[Feature], what: str
) -> tuple[list[Feature], int]:
    """The reachable features at the smallest walk (several on a tie), and that walk.

    Raises:
        ScenarioRejected: none is reachable, or a nearest one is reachable only through the
            other chef (then whether it is nearest depends on the other chef moving).
    """
    walks = [(distance(game, who, f), f) for f in features]
    ranked = [(w.steps, w, f) for w, f in walks if w.steps is not None]
    if not ranked:
        raise ScenarioRejected(f"{PLAYER_NAMES[who]} can reach no {what}")
    best = min(steps for steps, _, _ in ranked)
    nearest = [(w, f) for steps, w, f in ranked if steps == best]
    if any(w.blocked for w, _ in nearest):
        raise ScenarioRejected(f"{PLAYER_NAMES[who]}'s nearest {what} is blocked")
    return [f for _, f in nearest], best


def _named(features: list[Feature]) -> str:
    return " and ".join(f.name for f in features)


def _item_sources(game: Overcooked, who: int, item: str) -> list[Feature]:
    """Where ``who`` fetches ``item``: dispensers, and counters holding one unless a feeder.

    A chef who reaches no cooker (a feeder) puts items on the shared counters for the other chef:
    those count as on their way (:func:`_coming`), and taking one back would undo the pass, so
    only dispensers are its sources. For every other chef an item on a counter is a source, and
    it is not counted as on its way.
    """
    kind, obj = {"onion": ("o", "onion"), "plate": ("p", "dish")}[item]
    dispensers = game.geometry.of_kind(kind)
    if not reaches_a_cooker(game, who):
        return dispensers
    counters = [
        f
        for f in game.geometry.features
        if f.kind in "sk" and counter_item(game.state, f.pos) == obj
    ]
    return dispensers + counters


def _coming(game: Overcooked, who: int) -> tuple[int, int]:
    """Onions and plates on their way to the cookers, as ``who``'s empty-handed rule counts them.

    The other chef's onion (plate) counts when that chef can reach a cooker. For a feeder
    (``who`` reaches no cooker) the onions (plates) already on the shared counters count too:
    it put them there for the other chef. Nothing that ``who`` would fetch is counted, so a
    source is never also "on its way" (the rule stated in :data:`PARTNER_MODEL`).
    """
    state = game.state
    other = held(state.players[1 - who])
    brings = reaches_a_cooker(game, 1 - who)
    onions = int(brings and other == "onion")
    plates = int(brings and other == "dish")
    if not reaches_a_cooker(game, who):
        shared = [counter_item(state, f.pos) for f in game.geometry.of_kind("s")]
        onions += shared.count("onion")
        plates += shared.count("dish")
    return onions, plates


def _needed_item(game: Overcooked, who: int) -> str:
    """The only item the kitchen still needs, beyond what is on its way (:func:`_coming`).

    Raises:
        ScenarioRejected: both onions and plates are needed, or neither.
    """
    missing = sum(3 - p.onions for _, p in pots(game) if p.accepts_onion)
    soups = sum(1 for _, p in pots(game) if p.cooking or p.ready)
    onions_coming, plates_coming = _coming(game, who)
    needs = [
        item
        for item, need in (("onion", missing > onions_coming), ("plate", soups > plates_coming))
        if need
    ]
    if len(needs) != 1:
        raise ScenarioRejected(f"the kitchen needs {needs or 'nothing'}: no single next item")
    return needs[0]


def implied_intent(game: Overcooked, who: int) -> Intent:
    """The partner model: the task ``who``'s hands and position imply (see the module doc).

    Raises:
        ScenarioRejected: the model gives no clear action.
    """
    hand = held(game.state.players[who])
    geometry = game.geometry
    if hand is not None and not reaches_a_cooker(game, who):
        empty = [f for f in geometry.of_kind("s") if counter_item(game.state, f.pos) is None]
        item = {"onion": "onion", "dish": "plate", "soup": "soup"}[hand]
        targets, steps = _nearest(game, who, empty, "empty shared counter")
        verb, why = PUT, f"cannot reach a cooker, passes the {item}"
    elif hand == "soup":
        item, verb, why = "soup", DELIVER, "holds soup"
        targets, steps = _nearest(game, who, geometry.of_kind("d"), "delivery location")
    elif hand == "onion":
        open_pots = [f for f, p in pots(game) if p.accepts_onion]
        item, verb, why = "onion", POT, "holds onion"
        targets, steps = _nearest(game, who, open_pots, "cooker that takes an onion")
    elif hand == "dish":
        soups = [(f, p) for f, p in pots(game) if p.cooking or p.ready]
        soonest = min((0 if p.ready else p.remaining for _, p in soups), default=None)
        first = [f for f, p in soups if (0 if p.ready else p.remaining) == soonest]
        item, verb, why = "soup", LOAD, f"holds plate, soup done in {soonest}"
        targets, steps = _nearest(game, who, first, "soup closest to done")
    else:
        item = _needed_item(game, who)
        verb, why = PICK, f"empty hands, only {item}s needed"
        targets, steps = _nearest(game, who, _item_sources(game, who, item), f"{item} source")
    tasks = tuple(Task(verb, item, f.name) for f in targets)
    return Intent(tasks, f"{why}; nearest: {_named(targets)} ({_steps(Distance(steps, False))})")


PARTNER_MODEL = (
    "Assume {name} follows this rule and does not plan around me: holding an onion, {he} puts "
    "it in the nearest cooker that still takes one; holding a plate, {he} goes to load the soup "
    "that will be ready first (the nearest one on a tie); holding a soup, {he} delivers it at "
    "the nearest delivery location; with empty hands, {he} fetches the one item the kitchen "
    "still needs: onions while the cookers need more onions than are on their way, plates while "
    "more soups cook or wait than plates are on their way. On their way are the onion or plate "
    "I hold if I can reach a cooker, and, only if {he} can reach no cooker, those on the shared "
    "counters. {He} fetches it from the nearest dispenser, or the nearest counter holding one if "
    "{he} can reach a cooker (a chef who can reach no cooker never takes back what lies on a "
    "counter). If {he} can reach no cooker, {he} puts what {he} holds on the nearest empty "
    'shared counter. "Nearest" is by {his} walks listed above; targets equally near are all '
    "right."
)
"""The partner model of the Overcooked ToM questions, stated in every question."""


def _serves_one(task: Task) -> bool:
    """Whether the task's target serves one chef only: a soup, a counter's item, a free counter.

    Dispensers and delivery locations serve both. If both chefs' rules aim at the same target
    that serves one, who gets it depends on the other's plan.
    """
    counter = (task.target or "")[:1] in ("k", "s")
    return task.verb == LOAD or (task.verb in (PICK, PUT) and counter)


def _visible(game: Overcooked, player: int, task: Task) -> bool:
    """Whether every object the task names is in the state text.

    The partner's legal actions can name a counter only the partner would use, which the text
    (written for me) never describes.
    """
    if not task.target:
        return True
    return re.search(rf"\b{re.escape(task.target)}\b", game.describe(player)) is not None


def _contested(game: Overcooked, player: int, intent: Intent) -> str | None:
    """The target my own rule would also take, when it serves only one of us (else None)."""
    try:
        mine = implied_intent(game, player)
    except ScenarioRejected:
        return None
    ours = {(t.verb, t.target) for t in mine.tasks if _serves_one(t)}
    shared = [t.text for t in intent.tasks if (t.verb, t.target) in ours]
    return shared[0] if shared else None


def partner_intent(game: Overcooked, player: int) -> QuestionDraft:
    """The partner's intended next action under the stated partner model, agreed by the planner.

    The question states the model (:data:`PARTNER_MODEL`). Options are the partner's legal
    actions that name only objects the state text shows.

    Raises:
        ScenarioRejected: the model is unclear, its action is not legal or names an object the
            text never shows, my own rule would take the same soup or item first, or the planner
            disagrees (two reasonable readings of the state).
    """
    partner = 1 - player
    name = partner_name(player)
    intent = implied_intent(game, partner)
    tasks = [t for t in game.legal_tasks(partner) if _visible(game, player, t)]
    options = tuple(t.text for t in tasks)
    texts = [task.text for task in intent.tasks]
    if any(text not in options for text in texts):
        raise ScenarioRejected(f"{name}'s implied actions {texts} are not all legal and shown")
    contested = _contested(game, player, intent)
    if contested is not None:
        raise ScenarioRejected(f"my own rule also goes for {contested!r}: who gets it is unclear")
    planned = choose_task(game.geometry, game.state, partner, game.current_task(player))
    if planned not in intent.tasks:
        raise ScenarioRejected(f"partner model says {texts} but the planner rule {planned.text!r}")
    he = _pronoun(partner)
    words = {"name": name, "he": he, "He": he.capitalize(), "his": ("her", "his")[partner]}
    return QuestionDraft(
        question_type="ToM",
        kind="partner_intent",
        question=f"{PARTNER_MODEL.format(**words)} What action does {name} intend to take next?",
        options=options,
        correct=tuple(sorted(options.index(text) for text in texts)),
        rationale=f"{intent.reason} -> {' or '.join(texts)}",
        concept=f"{name}'s next action under the stated partner model, from what "
        f"{_pronoun(partner)} holds and the nearest target",
    )


# --------------------------------------------------------------------------------------- JP


def state_features(game: Overcooked, player: int) -> str:
    """A short phrase naming what makes the state an edge case, from its features.

    It names facts of the state (a blocked path, a split kitchen, a pot one onion short, a soup
    cooked or cooking), never an answer.
    """
    partner = partner_name(player)
    hand = held(game.state.players[player])
    features: list[str] = []
    targets = [t.target for t in game.legal_tasks(player) if t.target]
    targets += [f.name for f in game.geometry.of_kind("c")]
    for target in targets:
        if distance(game, player, game.geometry.feature(target)).blocked:
            features.append(f"{partner} blocks my only path to {target}")
            break
    if not reaches_a_cooker(game, player):
        features.append("I can reach no cooker: items pass over the shared counters")
    elif not reaches_a_cooker(game, 1 - player):
        features.append(f"{partner} can reach no cooker: items pass over the shared counters")
    for feature, pot in pots(game):
        if hand == "onion" and pot.onions == 2 and pot.accepts_onion:
            features.append(f"{feature.name} needs one more onion and I hold one")
        elif pot.ready:
            features.append(f"soup in {feature.name} is cooked and waiting for a plate")
        elif pot.cooking:
            plural = "" if pot.remaining == 1 else "s"
            features.append(
                f"soup in {feature.name} cooks for {pot.remaining} more timestep{plural}"
            )
    if hand == "soup":
        features.append("I carry a finished soup")
    if held(game.state.players[1 - player]) == "soup":
        features.append(f"{partner} carries a finished soup")
    if not features:
        features.append(
            f"I hold {HELD_TEXT[hand]}, {partner} holds "
            f"{HELD_TEXT[held(game.state.players[1 - player])]}"
        )
    return "; ".join(features[:2])


def rollout(snapshot: Mapping[str, Any], player: int, first: str, window: int) -> int:
    """Summed timesteps until each of the next :data:`DELIVERIES` deliveries.

    ``player`` starts with ``first``; after it completes or fails, both chefs follow the
    ``planner`` rule, stepped with the game's own grounding. A delivery not made within
    ``window`` timesteps counts as ``window``.
    """
    game = Overcooked.from_snapshot(snapshot)
    if not isinstance(game, Overcooked):
        raise ScenarioRejected(f"not an Overcooked snapshot: {type(game).__name__}")
    start = game.metrics()["deliveries"]
    times: list[int] = []
    for elapsed in range(window):
        if game.is_terminal() or len(times) == DELIVERIES:
            break
        moves = {
            p: first if (p == player and elapsed == 0) else _planner(game, p).text
            for p in game.players_to_act()
        }
        game.step(moves)
        made = int(game.metrics()["deliveries"] - start)
        times += [elapsed + 1] * (min(made, DELIVERIES) - len(times))
    return sum(times) + window * (DELIVERIES - len(times))


def _planner(game: Overcooked, who: int) -> Task:
    return choose_task(game.geometry, game.state, who, game.current_task(1 - who))


def best_action(game: Overcooked, player: int, window: int = ROLLOUT_WINDOW) -> QuestionDraft:
    """My best next action by rollouts (see the module doc for the margins).

    Raises:
        ScenarioRejected: no action delivers within the window, or the best one does not beat
            every other by its margin.
    """
    tasks = game.legal_tasks(player)
    snapshot = game.snapshot()
    values = {t.text: rollout(snapshot, player, t.text, window) for t in tasks}
    nothing = window * DELIVERIES
    best_value, best = min((v, text) for text, v in values.items())
    if best_value == nothing:
        raise ScenarioRejected(f"no action leads to a delivery within {window} timesteps")
    best_task = next(t for t in tasks if t.text == best)
    aside = best_task.verb == PUT and (best_task.target or "").startswith("k")
    for task in tasks:
        value = values[task.text]
        if task.text == best:
            continue
        one_step = task.verb in ONE_STEP_VERBS and not aside
        margin = STEP_MARGIN if one_step else OBJECT_MARGIN
        if value - best_value < margin:
            raise ScenarioRejected(
                f"no clear best action: {best!r} scores {best_value}, {task.text!r} {value} "
                f"(margin {margin} needed)"
            )
    planned = _planner(game, player).text
    if planned != best:
        raise ScenarioRejected(f"rollouts favour {best!r} but the planner rule picks {planned!r}")
    shown = "; ".join(f"{t.text} {values[t.text]}" for t in tasks)
    options = tuple(t.text for t in tasks)
    return QuestionDraft(
        question_type="JP",
        kind="best_action",
        question="What is the best next action for me?",
        options=options,
        correct=(options.index(best),),
        rationale=(
            f"timesteps to each of the next {DELIVERIES} deliveries, summed (then both follow "
            f"the planner rule; one not made within {window} counts {window}): {shown}"
        ),
        concept=state_features(game, player),
    )
