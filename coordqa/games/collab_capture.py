"""Collab Capture: two agents corner a fleeing thief in a nine-room house with two doors.

Rules (``shared/facts/games.md``; the choices marked *ours* are this engine's):

* Map: ring 1-2-3-4-5-6-1, dead ends 5-7-8 and 6-9. Door 1-2 (button in Room 9) starts closed,
  door 3-4 (button in Room 8) starts open. Closed doors stop everyone, the thief included.
* Start: Alice in Room 1, Bob in Room 6, the thief in Room 2.
* Each turn both agents act at once: "Move to Room N" (adjacent, through an open door),
  "Press button in Room N" (the room the agent stands in; the press takes the turn) or "Wait".
  Moves are checked against the doors as they were at the start of the turn; then pressed buttons
  toggle their doors (*ours:* two presses of one button in the same turn toggle it once).
* Then the thief moves: among the rooms it can enter it takes the one farthest (shortest path on
  the current door graph; cut-off rooms count as infinitely far) from the closer agent, ties to the
  lowest room number. It stays only when every door around it is closed.
* Capture: the thief ends the turn in an agent's room, or swaps rooms with an agent along a
  connection. The episode ends at capture or after 30 turns. Score: 1 for a capture.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, NamedTuple

from coordqa.games.agent_profile import BeliefFact
from coordqa.games.base import (
    JsonDict,
    Observation,
    ScriptedPlayer,
    player_catalog,
)
from coordqa.games.profile import WinCondition
from coordqa.games.rooms import (
    STAY,
    Door,
    JointPlanner,
    PlanningModel,
    RoomAction,
    RoomGame,
    RoomGraph,
    collab_profile,
    door,
    room_facts,
    room_player,
    room_state,
)
from coordqa.games.seat import SeatView

GRAPH = RoomGraph([(1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 1), (5, 7), (7, 8), (6, 9)])
"""The house: a ring of six rooms with dead ends 5-7-8 and 6-9."""

BUTTONS: dict[int, Door] = {9: (1, 2), 8: (3, 4)}
"""Button room -> the door its button toggles."""

TURN_LIMIT = 30


def capture_facts(view: SeatView, player: int) -> list[BeliefFact]:
    """Belief facts: the partner's room and the thief's room."""
    return room_facts(view, player, "thief")


PROFILE = collab_profile(
    planner="capture-planner",
    facts=capture_facts,
    win=WinCondition("captured", "capture"),
    seeded=False,  # the thief is deterministic
    paper={
        "agent_options": {"cac": {"use_tom": False, "use_verifier": False}},
        "generate": {"temperature": 0.6, "top_p": 0.9},
        "prompt": {"stateless": True},
    },
    react_examples=(
        "Thought: Bob keeps moving towards the thief from the east, so his strategy is to chase "
        "it. The thief flees away from him towards Room 4; I close the door it is heading for "
        "instead of chasing it too.\nSubgoals:\n1. Move to Room 8\n2. Press button in Room 8",
        "Thought: Bob waits in Room 2, guarding that side of the house. The thief is in Room 5 "
        "between us: if I come from the other side it is trapped.\nSubgoals:\n"
        "1. Move to Room 6\n2. Move to Room 5",
        "Thought: Bob has closed the door behind the thief, so it can only flee through my side. "
        "I stay where I am so it cannot pass me.\nSubgoals:\n1. Wait\n2. Wait",
    ),
)
"""Collab Capture's profile: the ``capture-planner`` as strong policy and optimality reference,
won when ``captured``, waiting as the safe fallback, the paper's Table 7."""


class CaptureState(NamedTuple):
    """Everything that decides the future of a Collab Capture episode."""

    alice: int
    """Alice's room."""
    bob: int
    """Bob's room."""
    thief: int
    """The thief's room."""
    closed: frozenset[Door]
    """Doors that are closed now."""
    turn: int = 0
    """Turns played."""
    captured: bool = False
    """Whether the thief has been caught."""

    def agents(self) -> tuple[int, int]:
        """Alice's and Bob's rooms."""
        return (self.alice, self.bob)


INITIAL = CaptureState(alice=1, bob=6, thief=2, closed=frozenset({(1, 2)}))


def agent_options(state: CaptureState, player: int) -> tuple[RoomAction, ...]:
    """Moves through open doors, the button of the agent's room, then waiting."""
    if state.captured or state.turn >= TURN_LIMIT:
        return ()
    room = state.agents()[player]
    moves = [RoomAction("move", n) for n in GRAPH.neighbours(room, state.closed)]
    press = [RoomAction("press", room)] if room in BUTTONS else []
    return (*moves, *press, STAY)


def thief_move(thief: int, agents: tuple[int, int], closed: frozenset[Door]) -> int:
    """The thief's deterministic choice given the agents' new rooms and the doors."""
    options = GRAPH.neighbours(thief, closed)
    if not options:
        return thief

    def safety(room: int) -> float:
        return min(GRAPH.distance(agent, room, closed) for agent in agents)

    best = max(safety(room) for room in options)
    return min(room for room in options if safety(room) == best)


def resolve_capture(
    state: CaptureState, actions: tuple[RoomAction, RoomAction]
) -> tuple[CaptureState, list[str]]:
    """One turn: agents act at once, buttons toggle doors, the thief flees, capture is checked."""
    old = state.agents()
    new = tuple(a.room if a.kind == "move" else room for a, room in zip(actions, old, strict=True))
    toggled = {BUTTONS[a.room] for a in actions if a.kind == "press"}
    closed = state.closed ^ frozenset(toggled)
    thief = thief_move(state.thief, (new[0], new[1]), closed)
    events = [
        f"the door between Room {d[0]} and Room {d[1]} is now {'closed' if d in closed else 'open'}"
        for d in sorted(toggled)
    ]
    swapped = any(o == thief and n == state.thief for o, n in zip(old, new, strict=True))
    captured = thief in new or swapped
    if captured:
        events.append(f"the thief was caught in Room {thief}")
    after = CaptureState(new[0], new[1], thief, closed, state.turn + 1, captured)
    return after, events


class CollabCapture(RoomGame):
    """Collab Capture as a two-player text game (see the module docstring for the rules)."""

    name = "collab_capture"
    version = "collab_capture-v1"
    turn_limit = TURN_LIMIT
    profile = PROFILE
    state: CaptureState

    def initial_state(self) -> CaptureState:
        """The facts' start: Alice 1, Bob 6, thief 2, door 1-2 closed."""
        return INITIAL

    def options_for(self, state: CaptureState, player: int) -> tuple[RoomAction, ...]:
        """See :func:`agent_options`."""
        return agent_options(state, player)

    def resolve(
        self, state: CaptureState, actions: tuple[RoomAction, RoomAction]
    ) -> tuple[CaptureState, list[str]]:
        """See :func:`resolve_capture` (the game has no randomness)."""
        return resolve_capture(state, actions)

    def is_terminal(self) -> bool:
        """Captured, or the turn limit reached."""
        return self.state.captured or self.state.turn >= TURN_LIMIT

    def won(self) -> bool:
        """Whether the thief was caught."""
        return self.state.captured

    def metrics(self) -> dict[str, float]:
        """``captured`` (0/1) and ``turns`` played."""
        return {"captured": float(self.state.captured), "turns": float(self.state.turn)}

    def describe(self, player: int) -> str:
        """My room, partner's, thief's, doors, turn, my recent actions, partner's last action."""
        lines = [*self.position_lines(player), f"The thief is in Room {self.state.thief}."]
        for button, (a, b) in BUTTONS.items():
            status = "closed" if (a, b) in self.state.closed else "open"
            lines.append(
                f"The door between Room {a} and Room {b} is {status} "
                f"(its button is in Room {button})."
            )
        return "\n".join([*lines, *self.memory_lines(player)])

    def game_description(self) -> str:
        """The rules as the agents are told them."""
        doors = " ".join(
            f"The door between Room {a} and Room {b} is toggled by the button in Room {button}."
            for button, (a, b) in BUTTONS.items()
        )
        return (
            "Collab Capture. Alice and Bob work together to catch a thief in a house of 9 rooms. "
            f"Rooms are connected as follows: {GRAPH.connections_text()}. {doors} "
            "At the start the door between Room 1 and Room 2 is closed and the door between "
            "Room 3 and Room 4 is open. A closed door cannot be crossed by anyone, the thief "
            "included. Each turn happens in this order: (1) Alice and Bob act at the same time, "
            "and a move goes through a door as it is at the start of the turn; (2) every button "
            "pressed this turn toggles its door (opens it if closed, closes it if open; two "
            "presses of one button in the same turn toggle it once); (3) the thief moves, "
            "through the doors as they are after the toggles. The thief always moves to an "
            "adjacent room it can enter (it stays only when it cannot move): the one farthest, "
            "by the shortest open path, from the closer of Alice and Bob (in their rooms after "
            "step 1), choosing the lowest room number on ties. The thief is caught when it ends "
            "a turn in Alice's or Bob's room, or swaps rooms with one of them. Catch it within "
            f"{TURN_LIMIT} turns. Actions: 'Move to Room N' (an adjacent room through an open "
            "door), 'Press button in Room N' (the room you are in, when it has a button; "
            "pressing takes your turn, and the door toggles before the thief moves), 'Wait'."
        )

    def state_to_json(self, state: CaptureState) -> JsonDict:
        """Rooms, closed doors (sorted pairs), turn and capture flag."""
        data = state._asdict()
        data["closed"] = [list(d) for d in sorted(state.closed)]
        return data

    def state_from_json(self, data: Mapping[str, Any]) -> CaptureState:
        """Inverse of :meth:`state_to_json`."""
        return CaptureState(
            alice=GRAPH.room(data["alice"]),
            bob=GRAPH.room(data["bob"]),
            thief=GRAPH.room(data["thief"]),
            closed=frozenset(door(GRAPH.room(a), GRAPH.room(b)) for a, b in data["closed"]),
            turn=int(data["turn"]),
            captured=bool(data["captured"]),
        )


class CaptureModel(PlanningModel):
    """Collab Capture as a joint decision problem (the thief is deterministic)."""

    turn_limit = TURN_LIMIT

    def options(self, state: CaptureState, player: int) -> tuple[RoomAction, ...]:
        """See :func:`agent_options`."""
        return agent_options(state, player)

    def outcomes(
        self, state: CaptureState, actions: tuple[RoomAction, RoomAction]
    ) -> list[tuple[float, CaptureState]]:
        """The single next state."""
        return [(1.0, resolve_capture(state, actions)[0])]

    def result(self, state: CaptureState) -> float | None:
        """1.0 once captured."""
        return 1.0 if state.captured else None


class CapturePlanner(JointPlanner):
    """Shortest joint plan to a capture, knowing the thief's policy exactly."""

    name = "capture-planner"
    model = CaptureModel()
    game_class = CollabCapture


class CaptureGreedy(ScriptedPlayer):
    """The greedy chaser: one step along a shortest open path to the thief's current room.

    Ties between equally short first steps are broken with the player's seed. With no open
    path it presses the button of its room if there is one, and otherwise waits.
    """

    name = "capture-greedy"

    def __init__(self) -> None:
        """Start with seed 0 (``reset`` reseeds per episode)."""
        self.rng = random.Random(0)

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        """Reseed the tie-breaker."""
        self.rng = random.Random(seed)

    def choose(self, observation: Observation) -> str:
        """Step toward the thief."""
        state = room_state(observation.view, CollabCapture).state
        room = state.agents()[observation.player]
        steps = GRAPH.steps_toward(room, state.thief, state.closed)
        if steps:
            return RoomAction("move", self.rng.choice(steps)).text()
        if room in BUTTONS:
            return RoomAction("press", room).text()
        return STAY.text()


PLAYERS = player_catalog(
    room_player(
        CapturePlanner,
        "collab_capture",
        "plans the shortest joint capture, modelling the thief exactly (deterministic)",
    ),
    room_player(
        CaptureGreedy,
        "collab_capture",
        "moves along a shortest open path toward the thief (seeded tie-breaks)",
    ),
)
"""The scripted players of collab_capture."""
