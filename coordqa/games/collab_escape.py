"""Collab Escape: two agents fix two generators and flee through a gate while a killer hunts them.

Rules (``shared/facts/games.md``; the choices marked *ours* are this engine's):

* Map (ours, symmetric): 1-2, 1-10, 2-3, 3-4, 3-8, 4-5, 5-6, 6-7, 7-8, 8-9, 9-10.
* Start: Alice in Room 1, Bob in Room 2, the killer in Room 6.
* Generators in Rooms 1 and 6. "Fix generator in Room N" is allowed in an unfixed generator's
  room. A generator is fixed after 2 consecutive turns in which it was worked on; a turn in which
  nobody works on a half-fixed generator resets it to 0 (ours: two agents fixing the same generator
  in one turn count as one turn of work). When both are fixed, the exit gate in Room 7 opens.
* Each turn the killer first decides, from the rooms at the start of the turn: if exactly one
  agent is in an adjacent room it will move to that agent's room; if both are, it keeps the agent
  it chased on the previous turn (Alice when it chased no one); otherwise it will move to a random
  adjacent room. Then both agents act at once ("Move to Room N" to an adjacent room, fix, "Wait").
  If the gate is open and an agent stands in Room 7, the agents escape at once. Otherwise the killer
  moves (it never stays) and kills when it ends the turn in an agent's room.
* Randomness (ours): the killer's random move is the ``k``-th adjacent room (ascending), ``k`` a
  hash of the game seed and the turn number, so a snapshot needs no generator state.
* The episode ends at escape, at a kill, or after 50 turns (ours). Score: 1 for an escape.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from typing import Any, NamedTuple

from coordqa.games.agent_profile import BeliefFact
from coordqa.games.base import (
    PLAYER_NAMES,
    JsonDict,
    Observation,
    ScriptedPlayer,
    player_catalog,
)
from coordqa.games.profile import WinCondition
from coordqa.games.rooms import (
    STAY,
    JointPlanner,
    PlanningModel,
    RoomAction,
    RoomGame,
    RoomGraph,
    collab_profile,
    room_facts,
    room_player,
    room_state,
)
from coordqa.games.seat import SeatView

GRAPH = RoomGraph(
    [(1, 2), (1, 10), (2, 3), (3, 4), (3, 8), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)]
)
"""The map: a ten-room ring with the shortcut 3-8."""

GENERATORS = (1, 6)
"""Rooms with a generator, in the order of :attr:`EscapeState.progress`."""

GATE = 7
"""The room of the exit gate."""

FIX_TURNS = 2
"""Consecutive turns of work a generator needs."""

TURN_LIMIT = 50


def escape_facts(view: SeatView, player: int) -> list[BeliefFact]:
    """Belief facts: the partner's room and the killer's room."""
    return room_facts(view, player, "killer")


PROFILE = collab_profile(
    planner="escape-planner",
    facts=escape_facts,
    win=WinCondition("escaped", "escape"),
    seeded=True,  # the killer moves at random
    paper={
        "agent_options": {"cac": {"use_tom": True, "use_verifier": False}},
        "generate": {"temperature": 0.6, "top_p": 0.9},
    },
    react_examples=(
        "Thought: Bob has stayed in Room 6 fixing its generator for two turns, so his strategy "
        "is to fix it while I keep the killer busy. The killer is far from both of us; I fix "
        "the other generator so the gate opens sooner.\nSubgoals:\n"
        "1. Fix generator in Room 1\n2. Fix generator in Room 1",
        "Thought: The killer is next to me and chases the nearest agent, while Bob keeps "
        "fixing. I lead the killer away from Bob's generator.\nSubgoals:\n"
        "1. Move to Room 2\n2. Move to Room 3",
        "Thought: Both generators are fixed and the gate in Room 7 is open; Bob is already "
        "heading there. I take the way to Room 7 that avoids the killer's room.\nSubgoals:\n"
        "1. Move to Room 8\n2. Move to Room 7",
    ),
)
"""Collab Escape's profile: the ``escape-planner`` as strong policy and optimality reference,
won when ``escaped``, waiting as the safe fallback, the paper's Table 7."""


class EscapeState(NamedTuple):
    """Everything that decides the future of a Collab Escape episode (besides the seed)."""

    alice: int
    """Alice's room."""
    bob: int
    """Bob's room."""
    killer: int
    """The killer's room."""
    target: int | None = None
    """The agent (0 or 1) the killer chased on the previous turn; None when it wandered."""
    progress: tuple[int, int] = (0, 0)
    """Consecutive turns of work on the generators in Rooms 1 and 6 (2 = fixed)."""
    turn: int = 0
    """Turns played."""
    escaped: bool = False
    """Whether an agent went through the open gate."""
    killed: bool = False
    """Whether the killer caught an agent."""

    def agents(self) -> tuple[int, int]:
        """Alice's and Bob's rooms."""
        return (self.alice, self.bob)

    def gate_open(self) -> bool:
        """Whether both generators are fixed."""
        return all(p >= FIX_TURNS for p in self.progress)

    def over(self) -> bool:
        """Escaped, killed or out of turns."""
        return self.escaped or self.killed or self.turn >= TURN_LIMIT


INITIAL = EscapeState(alice=1, bob=2, killer=6)


def agent_options(state: EscapeState, player: int) -> tuple[RoomAction, ...]:
    """Moves to adjacent rooms, fixing an unfixed generator here, then waiting."""
    if state.over():
        return ()
    room = state.agents()[player]
    moves = [RoomAction("move", n) for n in GRAPH.neighbours(room)]
    fix = [
        RoomAction("fix", room)
        for g, p in zip(GENERATORS, state.progress, strict=True)
        if g == room and p < FIX_TURNS
    ]
    return (*moves, *fix, STAY)


def chase_target(state: EscapeState) -> int | None:
    """The agent the killer will move onto this turn, or None when it moves at random."""
    near = GRAPH.neighbours(state.killer)
    adjacent = [i for i, room in enumerate(state.agents()) if room in near]
    if len(adjacent) == 1:
        return adjacent[0]
    if len(adjacent) == 2:
        return 0 if state.target is None else state.target
    return None


def killer_destinations(state: EscapeState) -> tuple[int, ...]:
    """Rooms the killer may end in this turn: the chased agent's room, or each neighbour."""
    return _destinations(state, chase_target(state))


def _destinations(state: EscapeState, target: int | None) -> tuple[int, ...]:
    if target is not None:
        return (state.agents()[target],)
    return GRAPH.neighbours(state.killer)


def random_pick(seed: int, turn: int, choices: int) -> int:
    """Deterministic stand-in for a random index in ``range(choices)`` on ``turn`` of seed ``seed``.

    A counter-based generator: hashing (seed, turn) makes every turn's draw independent of the
    past, so snapshots restore exactly without a random-state blob.
    """
    digest = hashlib.blake2b(f"collab_escape:{seed}:{turn}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % choices


def resolve_escape(
    state: EscapeState, actions: tuple[RoomAction, RoomAction], pick: int
) -> tuple[EscapeState, list[str]]:
    """One turn, with the killer's random move given as the index ``pick`` into its options."""
    moved, events = agents_act(state, actions)
    if moved.escaped:
        return moved, events
    return killer_moves(state, moved, pick, events)


def agents_act(
    state: EscapeState, actions: tuple[RoomAction, RoomAction]
) -> tuple[EscapeState, list[str]]:
    """The agents' half of a turn: moves, generator work, the gate and an escape.

    The result's ``target`` already holds this turn's chase decision, taken before anyone moved.
    """
    new = tuple(
        a.room if a.kind == "move" else room
        for a, room in zip(actions, state.agents(), strict=True)
    )
    worked = {a.room for a in actions if a.kind == "fix"}
    progress = tuple(
        p if p >= FIX_TURNS else (p + 1 if g in worked else 0)
        for g, p in zip(GENERATORS, state.progress, strict=True)
    )
    events = [
        f"the generator in Room {g} is fixed"
        for g, p, q in zip(GENERATORS, state.progress, progress, strict=True)
        if q >= FIX_TURNS > p
    ]
    moved = EscapeState(
        new[0],
        new[1],
        state.killer,
        chase_target(state),
        (progress[0], progress[1]),
        state.turn + 1,
    )
    if moved.gate_open() and GATE in new:
        events.append(f"{PLAYER_NAMES[new.index(GATE)]} escaped through the gate in Room {GATE}")
        return moved._replace(escaped=True), events
    return moved, events


def killer_moves(
    before: EscapeState, moved: EscapeState, pick: int, events: list[str]
) -> tuple[EscapeState, list[str]]:
    """The killer's half: it goes to its ``pick``-th destination and kills whoever is there."""
    destinations = _destinations(before, moved.target)
    killer = destinations[pick % len(destinations)]
    agents = moved.agents()
    if killer not in agents:
        return moved._replace(killer=killer), events
    caught = f"the killer caught {PLAYER_NAMES[agents.index(killer)]} in Room {killer}"
    return moved._replace(killer=killer, killed=True), [*events, caught]


class CollabEscape(RoomGame):
    """Collab Escape as a two-player text game (see the module docstring for the rules)."""

    name = "collab_escape"
    version = "collab_escape-v2"
    restores_versions = ("collab_escape-v1",)
    turn_limit = TURN_LIMIT
    profile = PROFILE
    state: EscapeState

    def initial_state(self) -> EscapeState:
        """The facts' start: Alice 1, Bob 2, killer 6, nothing fixed."""
        return INITIAL

    def options_for(self, state: EscapeState, player: int) -> tuple[RoomAction, ...]:
        """See :func:`agent_options`."""
        return agent_options(state, player)

    def resolve(
        self, state: EscapeState, actions: tuple[RoomAction, RoomAction]
    ) -> tuple[EscapeState, list[str]]:
        """See :func:`resolve_escape`; the killer's random move comes from the seed and turn."""
        options = len(killer_destinations(state))
        return resolve_escape(state, actions, random_pick(self.seed, state.turn, options))

    def is_terminal(self) -> bool:
        """Escaped, killed, or the turn limit reached."""
        return self.state.over()

    def won(self) -> bool:
        """Whether the agents escaped."""
        return self.state.escaped

    def metrics(self) -> dict[str, float]:
        """``escaped`` and ``killed`` (0/1) and ``turns`` played."""
        return {
            "escaped": float(self.state.escaped),
            "killed": float(self.state.killed),
            "turns": float(self.state.turn),
        }

    def describe(self, player: int) -> str:
        """My room, partner's room, killer's room and intent, generators and gate, turn, actions."""
        state = self.state
        lines = [
            *self.position_lines(player),
            f"The killer is in Room {state.killer}.",
            self._intent_text(player),
        ]
        for room, progress in zip(GENERATORS, state.progress, strict=True):
            if progress >= FIX_TURNS:
                lines.append(f"The generator in Room {room} is fixed.")
            else:
                lines.append(
                    f"The generator in Room {room} is not fixed ({progress} of {FIX_TURNS} "
                    "consecutive fix turns done)."
                )
        gate = "open" if state.gate_open() else "closed"
        lines.append(f"The exit gate in Room {GATE} is {gate}.")
        return "\n".join([*lines, *self.memory_lines(player)])

    def _intent_text(self, player: int) -> str:
        if self.is_terminal():
            return "The game is over."
        target = chase_target(self.state)
        if target is None:
            return "The killer is not chasing anyone: it will move to a random adjacent room."
        who = "me" if target == player else PLAYER_NAMES[target]
        room = self.state.agents()[target]
        return f"The killer is chasing {who}: it will move to Room {room} next."

    def game_description(self) -> str:
        """The rules as the agents are told them."""
        return (
            "Collab Escape. Alice and Bob must escape from a killer in a house of 10 rooms. "
            f"Rooms are connected as follows: {GRAPH.connections_text()}. There are generators "
            f"in Room {GENERATORS[0]} and Room {GENERATORS[1]}; each needs {FIX_TURNS} "
            "consecutive turns of fixing by an agent standing in its room (two agents fixing it "
            "in the same turn count as one turn), and a generator nobody works on for a turn "
            "loses its progress. When both generators are fixed, the exit gate in Room "
            f"{GATE} opens. Each turn happens in this order: (1) the killer decides: if exactly "
            "one of you is in a room next to it, it will move into that person's room as it is "
            "now; if both are, it chases the one it chased on the previous turn, or Alice if on "
            "the previous turn it chased nobody (moved at random); otherwise it will move to a "
            "random adjacent room. It never stays. You are told where the killer is and whom it "
            "chases. (2) You both act at the same time; the fixing of this turn counts at once. "
            f"If the gate is open after your actions (also when this turn's fixing opened it) and "
            f"one of you stands in Room {GATE} (also one who was already there), you escape at "
            "once, before the killer moves. (3) The "
            "killer moves to the room it decided on, even if the person it chased has left it; "
            "if it ends the move in your room you lose (passing each other between two rooms is "
            f"not a catch). You have {TURN_LIMIT} turns. Actions: 'Move to Room N' (an adjacent "
            "room), 'Fix generator in Room N' (the room you are in), 'Wait'."
        )

    def state_to_json(self, state: EscapeState) -> JsonDict:
        """All fields; progress as a list."""
        data = state._asdict()
        data["progress"] = list(state.progress)
        return data

    def state_from_json(self, data: Mapping[str, Any]) -> EscapeState:
        """Inverse of :meth:`state_to_json`."""
        target = data["target"]
        progress = [int(p) for p in data["progress"]]
        return EscapeState(
            alice=GRAPH.room(data["alice"]),
            bob=GRAPH.room(data["bob"]),
            killer=GRAPH.room(data["killer"]),
            target=None if target is None else int(target),
            progress=(progress[0], progress[1]),
            turn=int(data["turn"]),
            escaped=bool(data["escaped"]),
            killed=bool(data["killed"]),
        )


class EscapeModel(PlanningModel):
    """Collab Escape as a joint decision problem; the killer's random moves are uniform."""

    turn_limit = TURN_LIMIT

    def options(self, state: EscapeState, player: int) -> tuple[RoomAction, ...]:
        """See :func:`agent_options`."""
        return agent_options(state, player)

    def outcomes(
        self, state: EscapeState, actions: tuple[RoomAction, RoomAction]
    ) -> list[tuple[float, EscapeState]]:
        """One outcome per room the killer may end in, equally likely."""
        moved, events = agents_act(state, actions)
        if moved.escaped:
            return [(1.0, moved)]
        count = len(_destinations(state, moved.target))
        return [(1.0 / count, killer_moves(state, moved, k, events)[0]) for k in range(count)]

    def result(self, state: EscapeState) -> float | None:
        """1.0 escaped, 0.0 killed, None while playing."""
        if state.escaped:
            return 1.0
        return 0.0 if state.killed else None


class EscapePlanner(JointPlanner):
    """The joint plan with the highest escape probability, then the fastest.

    Exact dynamic programming over the killer's policy, its random moves taken as uniform (the
    planner does not peek at the seed).
    """

    name = "escape-planner"
    model = EscapeModel()
    game_class = CollabEscape


class EscapeGreedy(ScriptedPlayer):
    """A simple greedy generator-fixer that flees when chased.

    In order: when the killer is chasing me, move to the adjacent room farthest from the killer;
    else fix the generator I stand on if it is not fixed; else, when the gate is open, step toward
    Room 7; else step toward the nearest unfixed generator (preferring one my partner is not in).
    It never looks ahead, so it walks next to the killer and is chased off half-fixed
    generators. Ties are broken with the player's seed.
    """

    name = "escape-greedy"

    def __init__(self) -> None:
        """Start with seed 0 (``reset`` reseeds per episode)."""
        self.rng = random.Random(0)

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        """Reseed the tie-breaker."""
        self.rng = random.Random(seed)

    def choose(self, observation: Observation) -> str:
        """Flee, fix, or walk to the goal."""
        state: EscapeState = room_state(observation.view, CollabEscape).state
        me = observation.player
        room = state.agents()[me]
        if chase_target(state) == me:
            away = GRAPH.distances(state.killer)
            options = GRAPH.neighbours(room)
            far = max(away[n] for n in options)
            return RoomAction(
                "move", self.rng.choice([n for n in options if away[n] == far])
            ).text()
        unfixed = [g for g, p in zip(GENERATORS, state.progress, strict=True) if p < FIX_TURNS]
        if room in unfixed:
            return RoomAction("fix", room).text()
        goal = GATE if not unfixed else self._nearest(room, unfixed, state.agents()[1 - me])
        return RoomAction("move", self.rng.choice(GRAPH.steps_toward(room, goal))).text()

    def _nearest(self, room: int, generators: list[int], partner: int) -> int:
        free = [g for g in generators if g != partner] or generators
        return min(free, key=lambda g: (GRAPH.distance(room, g), g))


PLAYERS = player_catalog(
    room_player(
        EscapePlanner,
        "collab_escape",
        "maximises the escape probability by exact planning (deterministic)",
    ),
    room_player(
        EscapeGreedy,
        "collab_escape",
        "greedy generator-fixer that flees when chased, no lookahead (seeded tie-breaks)",
    ),
)
"""The scripted players of collab_escape."""
