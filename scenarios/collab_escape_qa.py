"""Collab Escape questions: fixing in time, racing to the exit, who moves where.

The killer's random moves (when it chases nobody) are treated as chosen against us: a question
asks what is *sure* to happen, and an outcome that depends on the seed's dice is answered "only if
the killer's random moves go our way". Every transition is the engine's own
(:class:`~coordqa.games.collab_escape.EscapeModel`), and the partner's intent and the best action
come from :mod:`coordqa.scenarios.collab_solve` (fastest sure escape over joint actions).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from coordqa.games.base import PLAYER_NAMES
from coordqa.games.collab_escape import (
    FIX_TURNS,
    GATE,
    GENERATORS,
    GRAPH,
    INITIAL,
    TURN_LIMIT,
    EscapeModel,
    EscapeState,
    chase_target,
)
from coordqa.games.rooms import STAY, RoomAction
from coordqa.scenarios.collab_solve import (
    best_action_question,
    joint_values,
    plan_outcomes,
    turns_text,
    unique_best,
)
from coordqa.scenarios.model import QuestionDraft, ScenarioRejected

MODEL = EscapeModel()
"""The engine's planning model (its transitions are the engine's rules)."""

EC_KINDS = ("fix_in_time", "partner_exit", "killer_distance")
"""EC question builders of this game."""

ALWAYS = "Yes, whatever the killer's random moves"
SOMETIMES = "Only if the killer's random moves go our way"
NEVER = "No, the killer catches one of us first in every case"
OUTCOME_OPTIONS = (ALWAYS, SOMETIMES, NEVER)
"""Answers of the yes/no-in-the-worst-case questions: every branch, some, none."""

PRONOUNS = ("she", "he")
"""Alice's and Bob's pronouns, for the question sentences."""
POSSESSIVE = ("her", "his")
"""Alice's and Bob's possessive pronouns."""

OBJECTIVE = (
    "the fastest escape that is certain whatever the killer's random moves, for a plan that "
    "chooses each turn's actions after seeing where the killer went"
)
"""What the ToM and JP questions call best: the solver's worst-case value is that of a plan that
reacts to the killer each turn (min over joint actions of max over its random moves, turn by
turn), not of a route fixed in advance, and the question says so."""

DIAMETER = max(max(GRAPH.distances(r).values()) for r in GRAPH.rooms)
"""The longest shortest path of the map: the distance question's options run 1..DIAMETER."""


def ec_kinds_for(state: EscapeState, player: int) -> list[str]:
    """The EC kinds that make a meaningful question in ``state`` for ``player``."""
    kinds = []
    if _unfixed_here(state, state.agents()[player]):
        kinds.append("fix_in_time")
    if state.agents()[1 - player] != GATE:
        kinds.append("partner_exit")
    kinds.append("killer_distance")
    return kinds


def _unfixed_here(state: EscapeState, room: int) -> bool:
    return any(g == room and p < FIX_TURNS for g, p in zip(GENERATORS, state.progress, strict=True))


def ec_question(state: EscapeState, player: int, kind: str) -> QuestionDraft:
    """The EC question of ``kind`` (one of :data:`EC_KINDS`).

    Raises:
        ScenarioRejected: the kind does not apply, or the answer differs between equally short
            routes.
    """
    if kind not in ec_kinds_for(state, player):
        raise ScenarioRejected(
            f"EC kind {kind!r} does not apply here; applicable: {ec_kinds_for(state, player)}"
        )
    builder = {
        "fix_in_time": _fix_in_time,
        "partner_exit": _partner_exit,
        "killer_distance": _killer_distance,
    }[kind]
    return builder(state, player)


def _joint(player: int, mine: RoomAction, partners: RoomAction) -> tuple[RoomAction, RoomAction]:
    return (mine, partners) if player == 0 else (partners, mine)


def _classify(ok: Sequence[bool]) -> int:
    """Index into :data:`OUTCOME_OPTIONS`: every branch succeeds, some do, none does."""
    if all(ok):
        return 0
    return 1 if any(ok) else 2


def _fix_in_time(state: EscapeState, player: int) -> QuestionDraft:
    room = state.agents()[player]
    g = GENERATORS.index(room)
    need = FIX_TURNS - state.progress[g]
    plan = [_joint(player, RoomAction("fix", room), STAY)] * need
    ends = list(plan_outcomes(MODEL, state, plan))
    in_time = need <= TURN_LIMIT - state.turn
    ok = [in_time and not end.killed and end.progress[g] >= FIX_TURNS for end in ends]
    other_fixed = state.progress[1 - g] >= FIX_TURNS
    goal = "the exit gate open" if other_fixed else f"the generator in Room {room} be fixed"
    partner = PLAYER_NAMES[1 - player]
    return QuestionDraft(
        "EC",
        "fix_in_time",
        f"If I fix the generator in Room {room} this turn and keep fixing it until it is fixed, "
        f"while {partner} waits where {PRONOUNS[1 - player]} is, will {goal} without the killer "
        "catching either of us?",
        OUTCOME_OPTIONS,
        (_classify(ok),),
        f"{need} more fix turn(s) needed, {TURN_LIMIT - state.turn} turns left; over all "
        f"{len(ends)} branches of the killer's moves, {sum(ok)} succeed",
        f"fixing the generator in Room {room} against every branch of the killer's moves",
    )


def shortest_paths(source: int, goal: int) -> Iterator[list[int]]:
    """Every shortest path from ``source`` to ``goal`` as the rooms entered, in order."""
    if source == goal:
        yield []
        return
    for step in GRAPH.steps_toward(source, goal):
        for rest in shortest_paths(step, goal):
            yield [step, *rest]


def _partner_exit(state: EscapeState, player: int) -> QuestionDraft:
    partner = 1 - player
    start = state.agents()[partner]
    verdicts: dict[tuple[int, ...], tuple[int, int, int]] = {}
    for path in shortest_paths(start, GATE):
        plan = [_joint(partner, RoomAction("move", room), STAY) for room in path]
        ends = list(plan_outcomes(MODEL, state, plan))
        in_time = len(path) <= TURN_LIMIT - state.turn
        ok = [in_time and not end.killed for end in ends]
        verdicts[tuple(path)] = (_classify(ok), sum(ok), len(ends))
    answers = {v[0] for v in verdicts.values()}
    shown = "; ".join(f"via {list(p)}: {v[1]} of {v[2]} branches safe" for p, v in verdicts.items())
    if len(answers) != 1:
        raise ScenarioRejected(f"EC partner_exit: equally short routes disagree ({shown})")
    name = PLAYER_NAMES[partner]
    return QuestionDraft(
        "EC",
        "partner_exit",
        f"If {name} walks straight to Room {GATE} (the exit) along a shortest path while I wait, "
        f"will {PRONOUNS[partner]} get there without the killer catching either of us (the turn "
        f"{PRONOUNS[partner]} arrives included)?",
        OUTCOME_OPTIONS,
        (answers.pop(),),
        f"shortest routes from Room {start}, all killer branches: {shown}",
        f"{name}'s shortest routes to the exit against every branch of the killer's moves",
    )


def _killer_distance(state: EscapeState, player: int) -> QuestionDraft:
    me = state.agents()[player]
    distance = int(GRAPH.distance(state.killer, me))
    options = tuple(str(d) for d in range(1, DIAMETER + 1))
    return QuestionDraft(
        "EC",
        "killer_distance",
        "How many moves does the killer need, at least, to reach my current room?",
        options,
        (options.index(str(distance)),),
        f"shortest path from Room {state.killer} to Room {me}: {distance}",
        "the shortest path from the killer to me on the map",
    )


def _decision(state: EscapeState, who: int, label: str) -> tuple[tuple[str, ...], int, str]:
    options, best, listed = unique_best(MODEL, INITIAL, state, who, TURN_LIMIT - state.turn, label)
    return (
        options,
        best,
        "turns to a sure escape (worst case over the killer's random moves) with the best joint "
        f"continuation: {listed}; the escape-planner (random moves equally likely) picks the "
        "same action",
    )


def tom_question(state: EscapeState, player: int) -> QuestionDraft:
    """The partner's intended action: the unique start of the fastest sure escape."""
    partner = 1 - player
    options, best, rationale = _decision(state, partner, "ToM")
    name = PLAYER_NAMES[partner]
    return QuestionDraft(
        "ToM",
        "partner_intent",
        f"Assume that from this turn on {name} plays {POSSESSIVE[partner]} part of {OBJECTIVE}, "
        f"with me playing mine. What action does {name} intend to take this turn?",
        options,
        (best,),
        f"partner model: fastest sure escape, I play my part; {rationale}",
        f"{name}'s part of the fastest sure escape",
    )


def jp_question(state: EscapeState, player: int) -> QuestionDraft:
    """My best action: the unique one after which a sure escape comes strictly soonest."""
    return best_action_question(
        *_decision(state, player, "JP"),
        concept(state, player),
        OBJECTIVE,
        1 - player,
    )


def concept(state: EscapeState, player: int) -> str:
    """A short phrase from the state's features saying what makes it an edge case (JP)."""
    options, index, _ = _decision(state, player, "JP")
    phrases = []
    near = GRAPH.neighbours(state.killer)
    target = chase_target(state)
    if all(room in near for room in state.agents()):
        phrases.append("killer adjacent to both agents keeps its target")
    elif target is not None:
        phrases.append(f"the killer chases {'me' if target == player else 'my partner'}")
    for g, p in zip(GENERATORS, state.progress, strict=True):
        if p == FIX_TURNS - 1:
            phrases.append(f"one more fix turn finishes the generator in Room {g}")
    if state.gate_open():
        phrases.append(f"the gate is open: race to Room {GATE}")
    elif GATE in state.agents():
        who = "I" if state.agents()[player] == GATE else "my partner"
        phrases.append(f"{who} already stand{'' if who == 'I' else 's'} at the closed gate")
    if options[index] == RoomAction("move", state.killer).text():
        phrases.append("stepping into the killer's room is safe: it moves where I was")
    if not phrases:
        values = joint_values(MODEL, INITIAL, state, TURN_LIMIT - state.turn)
        fastest = min(values.values.values())
        phrases.append(f"a sure escape needs {turns_text(fastest)} turns of joint play")
    return "; ".join(phrases)
