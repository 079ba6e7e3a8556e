"""What Collab Capture and Collab Escape share: room maps, text actions, simultaneous moves.

Both games are played on a small undirected graph of numbered rooms. Their rules are pure
functions of an immutable state (a ``NamedTuple``); the :class:`RoomGame` base class holds one
such state, checks moves against :meth:`RoomGame.legal_actions`, keeps each agent's action
history and writes snapshots. Keeping the rules pure lets the planning players
(:class:`JointPlanner`, solved by :func:`solve`) enumerate exactly the transitions the engine
performs: one source of truth for the rules.
"""

from __future__ import annotations

import abc
import functools
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

from coordqa.errors import ConfigError, GameError
from coordqa.games.agent_profile import (
    AgentProfile,
    BeliefFact,
    BeliefFacts,
    PartnerActionBehaviour,
    ReportTable,
)
from coordqa.games.base import (
    PLAYER_NAMES,
    Game,
    JsonDict,
    Observation,
    Player,
    PlayerSpec,
    ScriptedPlayer,
    StepResult,
)
from coordqa.games.profile import GameProfile, WinCondition
from coordqa.games.seat import SeatView

WAIT = "Wait"
"""The text action for staying in place (both games)."""

COLLAB_TABLE = ReportTable(
    "table7_collab", "Table 7: Collab games (rate and turns when won, mean ± SE)", "won"
)
"""The paper's Table 7, which both games' episodes go into."""


def collab_profile(
    *,
    planner: str,
    facts: BeliefFacts,
    win: WinCondition,
    paper: Mapping[str, Any],
    seeded: bool,
    react_examples: tuple[str, ...],
) -> GameProfile:
    """The profile of a Collab game (Capture or Escape), from what differs between the two.

    Both games: the ``planner`` as strong policy and optimality reference, the goal is the win,
    waiting is the safe fallback (it breaks no rule and loses nothing at once), HM predicts the
    partner's next action among its legal ones, the paper's Table 7. ``facts`` are the belief
    facts (:func:`room_facts` of the game's third character); ``paper`` is what the ``paper``
    agent preset sets in the game; ``seeded``: whether the seed changes the game (a random
    opponent); ``react_examples``: the ReAct baseline's three example responses.
    """
    return GameProfile(
        strong_policy=planner,
        fallback_prefixes=(WAIT,),
        win=win,
        seeded=seeded,
        goal="win",
        agents=AgentProfile(
            behaviour_space=PartnerActionBehaviour,
            belief_facts=facts,
            agent_presets={"paper": paper},
            report_tables=(COLLAB_TABLE,),
            react_examples=react_examples,
        ),
    )


def room_facts(view: SeatView, player: int, other: str) -> list[BeliefFact]:
    """Belief facts of a Collab game: the partner's room and the room of ``other``.

    ``other`` is the state's field of the game's third character (``thief``, ``killer``).
    """
    partner = PLAYER_NAMES[1 - player]
    state = view.observation().state
    partner_room = state.bob if player == 0 else state.alice
    return [
        BeliefFact(f"{partner}'s room", "<room number>", str(partner_room)),
        BeliefFact(f"The {other}'s room", "<room number>", str(getattr(state, other))),
    ]


RECENT_ACTIONS = 5
"""How many of an agent's own past actions its description lists."""

Door = tuple[int, int]
"""A door, named by the connection it sits on (lower room first)."""


class RoomAction(NamedTuple):
    """A parsed text action: what kind and in which room."""

    kind: str
    """``"move"``, ``"press"``, ``"fix"`` or ``"wait"``."""
    room: int
    """The destination room (move) or the room of the button/generator; 0 for wait."""

    def text(self) -> str:
        """The text form an LLM sees, e.g. ``"Move to Room 5"``."""
        return _TEXTS[self.kind].format(room=self.room)


_TEXTS = {
    "move": "Move to Room {room}",
    "press": "Press button in Room {room}",
    "fix": "Fix generator in Room {room}",
    "wait": WAIT,
}

STAY = RoomAction("wait", 0)
"""The parsed form of :data:`WAIT`."""


def door(a: int, b: int) -> Door:
    """The door on connection ``a``-``b`` (order-free).

    >>> door(4, 3)
    (3, 4)
    """
    return (a, b) if a < b else (b, a)


class RoomGraph:
    """An undirected map of numbered rooms; closed doors remove their connection.

    Distances are breadth-first and memoised per (source, closed doors), since both games ask
    for the same few distance tables many times per turn.
    """

    def __init__(self, edges: Iterable[tuple[int, int]]) -> None:
        """Build the graph from its connections."""
        self.edges = tuple(sorted(door(a, b) for a, b in edges))
        adjacency: dict[int, set[int]] = {}
        for a, b in self.edges:
            adjacency.setdefault(a, set()).add(b)
            adjacency.setdefault(b, set()).add(a)
        self.rooms = tuple(sorted(adjacency))
        self._adjacent = {room: tuple(sorted(n)) for room, n in adjacency.items()}
        self._distances: dict[tuple[int, frozenset[Door]], dict[int, int]] = {}

    def room(self, value: Any) -> int:
        """``value`` as a room number of this map (for reading snapshots).

        Raises:
            ValueError: ``value`` is not a room of this map.
        """
        room = int(value)
        if room not in self._adjacent:
            raise ValueError(f"room {value!r} is not on the map (rooms {self.rooms})")
        return room

    def neighbours(self, room: int, closed: frozenset[Door] = frozenset()) -> tuple[int, ...]:
        """Rooms reachable from ``room`` in one move, ascending, skipping closed doors."""
        if not closed:
            return self._adjacent[room]
        return tuple(n for n in self._adjacent[room] if door(room, n) not in closed)

    def distances(self, source: int, closed: frozenset[Door] = frozenset()) -> dict[int, int]:
        """Shortest-path lengths from ``source``; rooms cut off by closed doors are absent."""
        key = (source, closed)
        known = self._distances.get(key)
        if known is None:
            known = {source: 0}
            frontier = deque([source])
            while frontier:
                room = frontier.popleft()
                for nxt in self.neighbours(room, closed):
                    if nxt not in known:
                        known[nxt] = known[room] + 1
                        frontier.append(nxt)
            self._distances[key] = known
        return known

    def distance(self, a: int, b: int, closed: frozenset[Door] = frozenset()) -> float:
        """Shortest-path length from ``a`` to ``b``; ``inf`` when closed doors cut them apart."""
        return self.distances(a, closed).get(b, float("inf"))

    def steps_toward(
        self, source: int, goal: int, closed: frozenset[Door] = frozenset()
    ) -> list[int]:
        """The neighbours of ``source`` that lie on a shortest path to ``goal`` (ascending)."""
        here = self.distance(source, goal, closed)
        return [n for n in self.neighbours(source, closed) if self.distance(n, goal, closed) < here]

    def connections_text(self) -> str:
        """The map as text: ``"1-2, 1-10, 2-3, ..."``."""
        return ", ".join(f"{a}-{b}" for a, b in self.edges)


def parse_action(text: str, legal: Sequence[str]) -> RoomAction:
    """Map a legal text action back to its parsed form.

    Raises:
        GameError: ``text`` is not one of ``legal``.
    """
    if text not in legal:
        raise GameError(f"illegal move {text!r}; legal moves now: {', '.join(legal)}.")
    if text == WAIT:
        return STAY
    for kind, template in _TEXTS.items():
        prefix = template.split("{", 1)[0]
        if kind != "wait" and text.startswith(prefix):
            return RoomAction(kind, int(text[len(prefix) :]))
    raise GameError(f"cannot parse the action {text!r}")


class RoomSeatObservation(NamedTuple):
    """What a seat sees of a room game: everything (both games are fully observable).

    States are immutable, so the game's own values are handed out.
    """

    state: Any
    """The current state."""
    initial: Any
    """The state the episode started from."""


def room_state(view: SeatView, game: type[RoomGame]) -> RoomSeatObservation:
    """The observation of a seat's view of ``game``; another game's view is a GameError."""
    seen = view.observation()
    if view.name != game.name or not isinstance(seen, RoomSeatObservation):
        raise GameError(f"this player plays {game.name}, not {view.name}.")
    return seen


class RoomGame(Game[RoomSeatObservation]):
    """Common machinery of the two room games: simultaneous moves, histories and snapshots.

    Subclasses define the immutable state type, the initial state, the legal actions and the
    pure turn function :meth:`resolve`; this class turns them into the :class:`Game` protocol.
    """

    layouts: ClassVar[tuple[str, ...]] = ("default",)
    turn_limit: ClassVar[int]
    """Turns after which the episode ends without a win."""

    def __init__(self, layout: str | None = None, seed: int = 0, **options: Any) -> None:
        """Create the game; room games take no options (an unknown one is an error)."""
        super().__init__(layout, seed, **options)
        if options:
            raise ConfigError(
                f"{self.name} takes no options, got {', '.join(sorted(options))}; remove them."
            )
        if self.layout not in self.layouts:
            raise ConfigError(
                f"unknown layout {self.layout!r} for {self.name}; available: "
                f"{', '.join(self.layouts)}."
            )
        self.reset()

    # --- what subclasses provide -------------------------------------------------------------
    @abc.abstractmethod
    def initial_state(self) -> Any:
        """The state at the start of an episode."""

    @abc.abstractmethod
    def options_for(self, state: Any, player: int) -> tuple[RoomAction, ...]:
        """The actions ``player`` may take in ``state`` (empty once the game is over)."""

    @abc.abstractmethod
    def resolve(self, state: Any, actions: tuple[RoomAction, RoomAction]) -> tuple[Any, list[str]]:
        """Apply one turn (this game's seed decides any randomness); return state and events."""

    @abc.abstractmethod
    def state_from_json(self, data: Mapping[str, Any]) -> Any:
        """Inverse of ``state_to_json``."""

    @abc.abstractmethod
    def state_to_json(self, state: Any) -> JsonDict:
        """The state as JSON-serialisable data."""

    @abc.abstractmethod
    def won(self) -> bool:
        """Whether the agents have won."""

    # --- the Game protocol ---------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Start again from the initial state (with a new seed when given)."""
        if seed is not None:
            self.seed = seed
        self.state = self.initial_state()
        self.history: tuple[list[str], list[str]] = ([], [])
        self._legal: dict[int, tuple[Any, list[str]]] = {}

    def seat_observation(self, seat: int) -> RoomSeatObservation:
        """The (immutable) current and initial states: nothing is hidden in the room games."""
        return RoomSeatObservation(self.state, self.initial_state())

    def players_to_act(self) -> list[int]:
        """Both agents choose every turn, until the game ends."""
        return [] if self.is_terminal() else [0, 1]

    def legal_actions(self, player: int) -> list[str]:
        """``player``'s text actions now, in the order moves, button/generator, wait.

        Remembered for the current state object (states are immutable, so a new state is a new
        object), because a turn asks for them several times: agent, validation, description.
        """
        _check_player(player)
        known = self._legal.get(player)
        if known is None or known[0] is not self.state:
            known = (self.state, [a.text() for a in self.options_for(self.state, player)])
            self._legal[player] = known
        return list(known[1])

    def step(self, moves: Mapping[int, str]) -> StepResult:
        """Play one turn with both agents' moves (simultaneous)."""
        if self.is_terminal():
            raise GameError(
                f"{self.name} is over (turn {self.state.turn}); reset it to play again."
            )
        if set(moves) != {0, 1}:
            raise GameError(f"{self.name} needs a move from players 0 and 1, got {sorted(moves)}.")
        parsed = (
            parse_action(moves[0], self.legal_actions(0)),
            parse_action(moves[1], self.legal_actions(1)),
        )
        self.state, events = self.resolve(self.state, parsed)
        for player in (0, 1):
            self.history[player].append(moves[player])
        return StepResult(
            executed={0: moves[0], 1: moves[1]},
            reward=1.0 if self.won() else 0.0,
            completed={0: moves[0], 1: moves[1]},
            events=events,
            terminal=self.is_terminal(),
        )

    def score(self) -> float:
        """1 when the agents won, else 0."""
        return 1.0 if self.won() else 0.0

    def last_actions(self, player: int) -> list[str]:
        """``player``'s actions so far, oldest first."""
        _check_player(player)
        return list(self.history[player])

    def snapshot(self) -> JsonDict:
        """Game name, version, layout, seed, the state and both action histories."""
        return {
            **self.snapshot_identity(),
            "state": self.state_to_json(self.state),
            "history": [list(self.history[0]), list(self.history[1])],
        }

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        """Load a snapshot written by :meth:`snapshot` of this game and version."""
        self.check_snapshot_identity(snapshot)
        try:
            state = self.state_from_json(snapshot["state"])
            history = (
                [str(a) for a in snapshot["history"][0]],
                [str(a) for a in snapshot["history"][1]],
            )
            seed = int(snapshot["seed"])
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise GameError(f"malformed {self.name} snapshot: {exc!r}") from exc
        self.layout = str(snapshot.get("layout", self.layouts[0]))
        self.seed = seed
        self.state = state
        self.history = history

    # --- text helpers for subclasses -----------------------------------------------------------
    def position_lines(self, player: int) -> list[str]:
        """Who I am, my room and my partner's: how both games' descriptions open."""
        me, partner = self.state.agents()[player], self.state.agents()[1 - player]
        return [
            f"I am {PLAYER_NAMES[player]}. I am in Room {me}.",
            f"{PLAYER_NAMES[1 - player]} is in Room {partner}.",
        ]

    def memory_lines(self, player: int) -> list[str]:
        """Which turn this is and the episodic part of a description (own and partner's actions).

        The counter names the turn about to be played, so "this turn" in a question is not
        mistaken for the last one played.
        """
        partner = PLAYER_NAMES[1 - player]
        recent = self.history[player][-RECENT_ACTIONS:]
        last = self.history[1 - player][-1:] or ["none yet"]
        played = self.state.turn
        counter = (
            f"The game is over after {played} of {self.turn_limit} turns."
            if self.is_terminal()
            else f"This is turn {played + 1} of {self.turn_limit} ({played} played so far)."
        )
        return [
            counter,
            f"My recent actions (oldest first): {', '.join(recent) if recent else 'none yet'}.",
            f"{partner}'s last action: {last[0]}.",
        ]


def room_player(cls: type[Player], game: str, description: str) -> PlayerSpec:
    """The registry entry of a scripted room-game player class (named ``cls.name``).

    The players take no options (:func:`~coordqa.games.make_player` refuses any).
    """

    def factory(game_name: str, layout: str | None) -> Player:
        return cls()

    return PlayerSpec(cls.name, (game,), factory, description)


def _check_player(player: int) -> None:
    if player not in (0, 1):
        raise GameError(f"player must be 0 (Alice) or 1 (Bob), got {player!r}.")


class PlanningModel(abc.ABC):
    """The rules of a room game as a joint decision problem, for :class:`JointPlanner`.

    States are the game's own immutable states; ``outcomes`` must call the same pure rule
    functions as the engine, so the planner never disagrees with the game.
    """

    turn_limit: int
    """The game's turn limit (the planning horizon from turn 0)."""

    @abc.abstractmethod
    def options(self, state: Any, player: int) -> tuple[RoomAction, ...]:
        """Legal actions of ``player`` in ``state``, in the game's order."""

    @abc.abstractmethod
    def outcomes(
        self, state: Any, actions: tuple[RoomAction, RoomAction]
    ) -> list[tuple[float, Any]]:
        """(probability, next state) pairs of one turn; the game's randomness, marginalised."""

    @abc.abstractmethod
    def result(self, state: Any) -> float | None:
        """1.0 for a won state, 0.0 for a lost one (turn limit aside), None while playing."""


class _Solution(NamedTuple):
    """A solved game from one root: which joint action is best, per state and turns left."""

    rows: dict[Any, int]
    """State (with turn 0) -> row."""
    joint: list[tuple[int, int]]
    """Joint-action id -> (Alice's option index, Bob's option index)."""
    best: Any
    """``best[turns_left, row]``: the joint-action id to play (numpy int array)."""


DISCOUNT = 0.999
"""A win T turns ahead is worth ``DISCOUNT ** T``: values stay within 5% of the win probability
over a 50-turn game, and ties between equally safe plans go to the faster one."""


def solve(model: PlanningModel, root: Any) -> _Solution:
    """Exact finite-horizon dynamic programming over joint actions from ``root``.

    Enumerates every state reachable from ``root`` (turn counter dropped: the rules do not
    depend on it except through the limit, which becomes the horizon), then runs one backward
    induction step per turn of the limit, vectorised with numpy.
    """
    import numpy as np

    start = root._replace(turn=0)
    index: dict[Any, int] = {start: 0}
    order = [start]
    joint: list[tuple[int, int]] = []
    first: list[int] = []
    out_joint: list[int] = []
    out_prob: list[float] = []
    out_win: list[float] = []
    out_next: list[int] = []
    for state in order:  # grows while we enumerate (breadth-first)
        first.append(len(joint))
        options = [model.options(state, p) for p in (0, 1)]
        for i, a in enumerate(options[0]):
            for j, b in enumerate(options[1]):
                for prob, after in model.outcomes(state, (a, b)):
                    after = after._replace(turn=0)
                    result = model.result(after)
                    row = -1
                    if result is None:
                        row = index.setdefault(after, len(order))
                        if row == len(order):
                            order.append(after)
                    out_joint.append(len(joint))
                    out_prob.append(prob)
                    out_win.append(result or 0.0)
                    out_next.append(row)
                joint.append((i, j))
    starts = np.asarray(first)
    owner = np.repeat(np.arange(len(order)), np.diff(np.append(starts, len(joint))))
    o_joint, o_prob = np.asarray(out_joint), np.asarray(out_prob)
    o_win, o_next = np.asarray(out_win), np.asarray(out_next)
    ids = np.arange(len(joint))
    value = np.zeros(len(order) + 1)  # the extra last entry stands for "game over"
    best = np.zeros((model.turn_limit + 1, len(order)), dtype=np.int32)
    for left in range(1, model.turn_limit + 1):
        gain = o_prob * (o_win + DISCOUNT * value[o_next])
        q = np.bincount(o_joint, weights=gain, minlength=len(joint))
        top = np.maximum.reduceat(q, starts)
        choice = np.where(q >= top[owner] - 1e-12, ids, len(joint))
        best[left] = np.minimum.reduceat(choice, starts)
        value[:-1] = top
    return _Solution(index, joint, best)


class JointPlanner(ScriptedPlayer):
    """Plays its part of the best joint plan, assuming the partner runs the same planner.

    Both agents solve the same problem with the same tie-breaking, so they agree on the joint
    action without talking. With another partner it still plays the best joint continuation from
    whatever state it finds (it re-plans every turn). Deterministic: no seed is used.
    """

    model: ClassVar[PlanningModel]
    game_class: ClassVar[type[RoomGame]]

    def choose(self, observation: Observation) -> str:
        """The own component of the optimal joint action for the current state."""
        seen = room_state(observation.view, self.game_class)
        state = seen.state
        solution = _solution(self.model, seen.initial)
        if state._replace(turn=0) not in solution.rows:
            solution = _solution(self.model, state._replace(turn=0))
        row = solution.rows[state._replace(turn=0)]
        plan = solution.joint[int(solution.best[self.model.turn_limit - state.turn, row])]
        return self.model.options(state, observation.player)[plan[observation.player]].text()


@functools.lru_cache(maxsize=8)
def _solution(model: PlanningModel, root: Any) -> _Solution:
    """Solve once per (model, root) per process (a root is the start or an unforeseen state)."""
    return solve(model, root)
