"""Collab Capture questions: where the thief goes, what a door changes, who moves where.

Every answer comes from the engine's own rules: :func:`~coordqa.games.collab_capture.thief_move`
and :func:`~coordqa.games.collab_capture.resolve_capture` for the thief, and
:mod:`coordqa.scenarios.collab_solve` (fastest sure capture over joint actions, the thief being
deterministic) for the partner's intent and the best action.
"""

from __future__ import annotations

from coordqa.games.base import PLAYER_NAMES
from coordqa.games.collab_capture import (
    BUTTONS,
    GRAPH,
    INITIAL,
    TURN_LIMIT,
    CaptureModel,
    CaptureState,
    resolve_capture,
    thief_move,
)
from coordqa.games.rooms import STAY, RoomAction
from coordqa.scenarios.collab_solve import (
    INF,
    best_action_question,
    joint_values,
    turns_text,
    unique_best,
)
from coordqa.scenarios.model import QuestionDraft, ScenarioRejected

PRONOUNS = ("her", "his")
"""Alice's and Bob's possessive pronouns, for the question sentences."""

MODEL = CaptureModel()
"""The engine's planning model (its transitions are the engine's rules)."""

EC_KINDS = ("thief_next", "press_effect", "thief_exits", "my_distance")
"""EC question builders of this game."""

DEAD_ENDS = (7, 8, 9)
"""Rooms off the ring: a thief there can be cornered."""

MAX_DISTANCE = 6
"""Options of the distance question run 1..MAX_DISTANCE (longer than any open path in the house)."""


def ec_kinds_for(state: CaptureState, player: int) -> list[str]:
    """The EC kinds that make a meaningful question in ``state`` for ``player``."""
    kinds = []
    if len(GRAPH.neighbours(state.thief, state.closed)) >= 2:
        kinds.append("thief_next")
    if len(GRAPH.neighbours(state.thief)) > len(GRAPH.neighbours(state.thief, state.closed)):
        kinds.append("thief_exits")
    if state.agents()[player] in BUTTONS:
        kinds.append("press_effect")
    kinds.append("my_distance")
    return kinds


def ec_question(state: CaptureState, player: int, kind: str) -> QuestionDraft:
    """The EC question of ``kind`` (one of :data:`EC_KINDS`).

    Raises:
        ScenarioRejected: the kind does not apply to this state.
    """
    if kind not in ec_kinds_for(state, player):
        raise ScenarioRejected(
            f"EC kind {kind!r} does not apply here; applicable: {ec_kinds_for(state, player)}"
        )
    builder = {
        "thief_next": _thief_next,
        "thief_exits": _thief_exits,
        "press_effect": _press_effect,
        "my_distance": _my_distance,
    }[kind]
    return builder(state, player)


def _room(room: int) -> str:
    return f"Room {room}"


def _thief_room_options(state: CaptureState) -> list[str]:
    """Every room the thief could end the turn in whatever the doors: neighbours, or staying."""
    return [_room(r) for r in GRAPH.neighbours(state.thief)] + [f"It stays in Room {state.thief}"]


def _thief_answer(options: list[str], state: CaptureState, room: int) -> tuple[int, ...]:
    text = _room(room) if room != state.thief else f"It stays in Room {state.thief}"
    return (options.index(text),)


def _thief_next(state: CaptureState, player: int) -> QuestionDraft:
    agents = state.agents()
    room = thief_move(state.thief, agents, state.closed)
    options = _thief_room_options(state)
    safety = {
        r: min(GRAPH.distance(a, r, state.closed) for a in agents)
        for r in GRAPH.neighbours(state.thief, state.closed)
    }
    shown = ", ".join(f"Room {r}: {turns_text(d)}" for r, d in safety.items())
    return QuestionDraft(
        "EC",
        "thief_next",
        "If Alice and Bob both wait this turn, where will the thief be after its move?",
        tuple(options),
        _thief_answer(options, state, room),
        f"open exits of Room {state.thief} with the distance to the closer agent: {shown}; "
        f"the thief takes the farthest (lowest number on ties) -> Room {room}",
        "the thief's flight rule: the room farthest from the closer agent",
    )


def _thief_exits(state: CaptureState, player: int) -> QuestionDraft:
    rooms = [r for r in GRAPH.rooms if r != state.thief]
    open_exits = GRAPH.neighbours(state.thief, state.closed)
    return QuestionDraft(
        "EC",
        "thief_exits",
        "With the doors as they are now, which of these rooms can the thief move to next turn? "
        "(Several may be correct.)",
        tuple(_room(r) for r in rooms),
        tuple(rooms.index(r) for r in open_exits),
        f"Room {state.thief} connects to {list(GRAPH.neighbours(state.thief))}; closed doors "
        f"{sorted(state.closed)} leave {list(open_exits)}",
        f"which doors around the thief's Room {state.thief} are open",
    )


def _press_effect(state: CaptureState, player: int) -> QuestionDraft:
    me = state.agents()[player]
    press = RoomAction("press", me)
    actions = (press, STAY) if player == 0 else (STAY, press)
    after, _ = resolve_capture(state, actions)
    options = _thief_room_options(state)
    a, b = BUTTONS[me]
    now = "close" if (a, b) not in state.closed else "open"
    caught = " (and is caught there)" if after.captured else ""
    return QuestionDraft(
        "EC",
        "press_effect",
        f"If I press the button in Room {me} this turn and {PLAYER_NAMES[1 - player]} waits, "
        "where will the thief be after its move?",
        tuple(options),
        _thief_answer(options, state, after.thief),
        f"pressing toggles door {a}-{b} ({now}s it) before the thief moves; with closed doors "
        f"{sorted(after.closed)} the thief goes to Room {after.thief}{caught}",
        f"a button press toggles door {a}-{b} before the thief flees",
    )


def _my_distance(state: CaptureState, player: int) -> QuestionDraft:
    me = state.agents()[player]
    distance = GRAPH.distance(me, state.thief, state.closed)
    unreachable = "It cannot be reached through open doors"
    options = [str(d) for d in range(1, MAX_DISTANCE + 1)] + [unreachable]
    answer = unreachable if distance == INF else str(int(distance))
    return QuestionDraft(
        "EC",
        "my_distance",
        "How many moves would I need, at least, to reach the thief's current room through the "
        "doors as they are now?",
        tuple(options),
        (options.index(answer),),
        f"shortest open path from Room {me} to Room {state.thief} with closed doors "
        f"{sorted(state.closed)}: {answer}",
        "the shortest open path to the thief with the doors as they are",
    )


def _decision(state: CaptureState, who: int, label: str) -> tuple[tuple[str, ...], int, str]:
    options, best, listed = unique_best(MODEL, INITIAL, state, who, TURN_LIMIT - state.turn, label)
    return (
        options,
        best,
        f"turns to a sure capture with the best joint continuation: {listed}; the "
        "capture-planner picks the same action",
    )


def tom_question(state: CaptureState, player: int) -> QuestionDraft:
    """The partner's intended action: the unique start of the fastest joint capture."""
    partner = 1 - player
    options, best, rationale = _decision(state, partner, "ToM")
    return QuestionDraft(
        "ToM",
        "partner_intent",
        f"Assume that from this turn on {PLAYER_NAMES[partner]} plays {PRONOUNS[partner]} part "
        "of the fastest capture, with me playing mine (the thief's moves follow its rule, so the "
        f"fastest capture is known in advance). What action does {PLAYER_NAMES[partner]} intend "
        "to take this turn?",
        options,
        (best,),
        f"partner model: {PLAYER_NAMES[partner]} plays {PRONOUNS[partner]} part of the fastest "
        f"capture, I play mine; {rationale}",
        f"{PLAYER_NAMES[partner]}'s part of the fastest capture",
    )


def jp_question(state: CaptureState, player: int) -> QuestionDraft:
    """My best action: the unique one after which the capture comes strictly soonest."""
    return best_action_question(
        *_decision(state, player, "JP"),
        concept(state, player),
        "the fastest capture",
        1 - player,
    )


def concept(state: CaptureState, player: int) -> str:
    """A short phrase from the state's features saying what makes it an edge case (JP)."""
    options, index, _ = _decision(state, player, "JP")
    best = options[index]
    exits = GRAPH.neighbours(state.thief, state.closed)
    phrases = []
    if best.startswith("Press"):
        a, b = BUTTONS[state.agents()[player]]
        verb = "closing" if (a, b) not in state.closed else "opening"
        phrases.append(f"{verb} the door {a}-{b} is the fastest way to corner the thief")
    elif best == STAY.text():
        phrases.append("waiting keeps the thief boxed in")
    elif best.startswith("Move") and int(best.split()[-1]) in BUTTONS:
        phrases.append(f"heading for the button in {best.split(' to ')[1]} is the fastest plan")
    fled = thief_move(state.thief, state.agents(), state.closed)
    if fled in DEAD_ENDS and fled != state.thief:
        phrases.append(f"left alone, the thief runs into the dead end at Room {fled}")
    if len(exits) == 1:
        phrases.append(f"the thief has a single open exit (Room {exits[0]})")
    elif len(exits) == 0:
        phrases.append("the thief is shut in by closed doors")
    values = joint_values(MODEL, INITIAL, state, TURN_LIMIT - state.turn)
    fastest = min(values.values.values())
    if fastest == 1:
        phrases.append("the thief can be caught this turn")
    elif not phrases:
        phrases.append(f"a capture in {turns_text(fastest)} turns needs both agents")
    return "; ".join(phrases)
