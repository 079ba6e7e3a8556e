"""Overcooked-AI as a two-player text game, on overcooked-ai 1.1.0.

Every :meth:`Overcooked.step` advances exactly one timestep. A player who chooses a medium-level
text action ("pick up onion from o0") keeps it until it completes or fails (``grounding.py``),
so ``players_to_act()`` lists only players with no action in progress; a player may instead send
one of the primitive engine moves (``PRIMITIVE_NAMES``), which lasts one timestep (BC and neural
partners, replay).

Dynamics (facts/games.md, *ours*): a pot starts cooking by itself when its third onion goes in,
as in the overcooked-ai releases the paper used; 1.1.0 instead starts cooking on an empty-handed
INTERACT, so after each engine step every full idle pot is started (and cooked one tick, as the
old engine did in the same step), and an empty-handed INTERACT facing a pot is a no-op (1.1.0
would start cooking a soup of one or two onions). Cook time 20, 20 points per soup, 400
timesteps by default (option ``horizon``).

When both players' grounded moves would collide (same cell), one of them stays instead:
Alice on even timesteps, Bob on odd ones (*ours*); a player moving by primitives is never
overridden, so it is the grounded player that yields.

For other engineers: ``game.mdp`` is the ``OvercookedGridworld``, ``game.state`` the current
``OvercookedState``, ``game.mlam()`` the layout's cached ``MediumLevelActionManager``
(overcooked-ai's ``NO_COUNTERS_PARAMS``, as ``featurize_state`` and ``GreedyHumanModel`` use),
``game.geometry`` the named objects and distance maps, ``game.current_task(p)`` a player's action
in progress.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from coordqa.errors import ConfigError, GameError
from coordqa.games.base import PLAYER_NAMES, Game, JsonDict, StepResult
from coordqa.games.overcooked import engine
from coordqa.games.overcooked.describe import describe_state
from coordqa.games.overcooked.engine import PRIMITIVE_NAMES
from coordqa.games.overcooked.grounding import Move, next_move
from coordqa.games.overcooked.layout import Pos
from coordqa.games.overcooked.profile import PROFILE
from coordqa.games.overcooked.rules import game_description
from coordqa.games.overcooked.seat import OvercookedSeatObservation, geometry
from coordqa.games.overcooked.tasks import AWAY, WAIT, Task, effect_of, facing, held, legal_tasks
from coordqa.games.profile import GameProfile

LAYOUTS = (
    "cramped_room",
    "asymmetric_advantages",
    "coordination_ring",
    "forced_coordination",
    "counter_circuit_o_1order",
)
"""The paper's five layouts (overcooked-ai 1.1.0 names)."""
DEFAULT_HORIZON = 400
"""Timesteps per episode in the paper's agentic runs."""


class _Outcome(NamedTuple):
    """What one engine step did."""

    result: StepResult
    """The step's result (completed and failed are filled in afterwards)."""
    effects: dict[int, Task]
    """The object action each player's interaction achieved, if any."""


@dataclass
class _Running:
    """A medium-level action in progress."""

    task: Task
    """The action."""
    steps: int = 0
    """Timesteps spent on it so far (checked against ``MAX_TASK_STEPS``)."""


class Overcooked(Game[OvercookedSeatObservation]):
    """Two chefs cook onion soups on one of the paper's five kitchens."""

    name: ClassVar[str] = "overcooked"
    version: ClassVar[str] = "overcooked-v1"
    layouts: ClassVar[tuple[str, ...]] = LAYOUTS
    profile: ClassVar[GameProfile] = PROFILE

    def __init__(self, layout: str | None = None, seed: int = 0, **options: Any) -> None:
        """Create a game on ``layout``; the only option is ``horizon`` (timesteps, default 400)."""
        unknown = sorted(set(options) - {"horizon"})
        if unknown:
            raise ConfigError(f"Overcooked options are: horizon; got unknown {unknown}")
        horizon = options.get("horizon", DEFAULT_HORIZON)
        if not isinstance(horizon, int) or horizon < 1:
            raise ConfigError(f"horizon must be a positive number of timesteps, got {horizon!r}")
        super().__init__(layout, seed, horizon=horizon)
        if self.layout not in LAYOUTS:
            raise ConfigError(f"unknown Overcooked layout {self.layout!r}; use one of {LAYOUTS}")
        self.horizon = horizon
        self._load_layout(self.layout)
        self.reset(seed)

    def _load_layout(self, layout: str) -> None:
        self.layout = layout
        self.mdp: Any = engine.gridworld(layout)
        self.geometry = geometry(layout)

    def mlam(self) -> Any:
        """overcooked-ai's ``MediumLevelActionManager`` for this layout.

        Cached per process and on disk under the user cache directory.
        """
        return engine.action_manager(self.layout)

    def reset(self, seed: int | None = None) -> None:
        """Start from the layout's standard start state (the game itself draws no randomness)."""
        if seed is not None:
            self.seed = seed
        self.state: Any = self.mdp.get_standard_start_state().deepcopy()
        self._tasks: list[_Running | None] = [None, None]
        self._interrupted: list[Task | None] = [None, None]
        self._history: list[list[str]] = [[], []]
        self._score = 0.0
        self._deliveries = 0

    # ----------------------------------------------------------------- queries

    def players_to_act(self) -> list[int]:
        """Players with no medium-level action in progress (nobody once the game is over)."""
        if self.is_terminal():
            return []
        return [p for p in (0, 1) if self._tasks[p] is None]

    def legal_tasks(self, player: int) -> list[Task]:
        """The medium-level actions of :meth:`legal_actions`, as structured tasks."""
        return legal_tasks(self.geometry, self.state, player)

    def legal_actions(self, player: int) -> list[str]:
        """Medium-level text actions that make sense for ``player``'s inventory, stable order."""
        return [task.text for task in self.legal_tasks(player)]

    def current_task(self, player: int) -> Task | None:
        """``player``'s medium-level action in progress, if any."""
        running = self._tasks[player]
        return None if running is None else running.task

    def describe(self, player: int) -> str:
        """Working-memory text for ``player`` (see ``describe.py``)."""
        return describe_state(
            self.geometry, self.state, player, self._history[player], self._interrupted[player]
        )

    def interrupt(self) -> None:
        """End every action in progress here, so both chefs choose again now.

        Each player's dropped action is remembered and shown in its description ("I was on my
        way to ...") until that player starts another, so a position half-way along a walk is
        explained by the text (CoordinationQA states are taken this way; play never does it).
        """
        for player, running in enumerate(self._tasks):
            if running is not None:
                self._interrupted[player] = running.task
        self._tasks = [None, None]

    def interrupted(self, player: int) -> Task | None:
        """The action :meth:`interrupt` dropped for ``player`` (None once it acts again)."""
        return self._interrupted[player]

    def seat_observation(self, seat: int) -> OvercookedSeatObservation:
        """A copy of the state and the partner's action in progress."""
        return OvercookedSeatObservation(self.state.deepcopy(), self.current_task(1 - seat))

    def game_description(self) -> str:
        """Rules, objective and action vocabulary."""
        return game_description(self.horizon)

    def last_actions(self, player: int) -> list[str]:
        """What ``player`` achieved so far (each object action that took effect), oldest first."""
        return list(self._history[player])

    def is_terminal(self) -> bool:
        """Whether the horizon is reached."""
        return int(self.state.timestep) >= self.horizon

    def score(self) -> float:
        """Points so far (20 per delivered soup)."""
        return self._score

    def metrics(self) -> dict[str, float]:
        """Deliveries, score and timesteps played."""
        return {
            "deliveries": float(self._deliveries),
            "score": self._score,
            "timesteps": float(self.state.timestep),
        }

    # ----------------------------------------------------------------- stepping

    def step(self, moves: Mapping[int, str]) -> StepResult:
        """One timestep: start the given actions, ground every action in progress, step.

        Raises:
            GameError: the game is over, a player who must act gave no move, a busy player was
                given one, or a move is neither a legal text action nor a primitive.
        """
        started = self._validate(moves)
        for player in moves:
            self._interrupted[player] = None
        for player, task in started.items():
            self._tasks[player] = _Running(task)
        plans: dict[int, Move] = {}
        primitives: dict[int, str] = {}
        for player in (0, 1):
            running = self._tasks[player]
            if running is None:
                primitives[player] = moves[player]
            else:
                plans[player] = next_move(
                    self.geometry, self.state, player, running.task, running.steps
                )
                primitives[player] = plans[player].primitive
        self._yield_on_collision(primitives, set(plans))
        before = self.state
        outcome = self._apply(primitives)
        for player, move in plans.items():
            self._settle(player, move, primitives[player], before, outcome)
        return outcome.result

    def replay_step(
        self, executed: Mapping[int, str], decisions: Mapping[int, str] | None = None
    ) -> StepResult:
        """Re-run a stored step.

        With ``decisions`` (the moves the players chose), the step is played again exactly and
        its primitives must equal ``executed``; that also rebuilds actions in progress. Without
        them the primitives are applied directly and actions in progress are dropped.

        Raises:
            GameError: a move is not a primitive, or the replayed primitives differ.
        """
        if decisions is not None:
            result = self.step(decisions)
            if dict(result.executed) != dict(executed):
                raise GameError(
                    f"replay mismatch at timestep {self.state.timestep - 1}: decisions "
                    f"{dict(decisions)} now execute {result.executed}, stored {dict(executed)}"
                )
            return result
        if self.is_terminal():
            raise GameError("the episode is over; no step can be replayed")
        bad = {p: m for p, m in executed.items() if m not in PRIMITIVE_NAMES}
        if bad or set(executed) != {0, 1}:
            raise GameError(
                f"replay needs one primitive for each player ({', '.join(PRIMITIVE_NAMES)}); "
                f"got {dict(executed)}"
            )
        self._tasks = [None, None]
        return self._apply({p: executed[p] for p in (0, 1)}).result

    def _validate(self, moves: Mapping[int, str]) -> dict[int, Task]:
        if self.is_terminal():
            raise GameError(f"the episode is over (timestep {self.state.timestep}); no more moves")
        to_act = self.players_to_act()
        missing = [p for p in to_act if p not in moves]
        busy = [p for p in moves if p not in to_act]
        if missing or busy:
            raise GameError(
                f"moves are needed from players {to_act} exactly; missing {missing}, "
                f"given for players with an action in progress or unknown {busy}"
            )
        started: dict[int, Task] = {}
        for player, move in moves.items():
            if move in PRIMITIVE_NAMES:
                continue
            options = {task.text: task for task in self.legal_tasks(player)}
            if move not in options:
                raise GameError(
                    f"{PLAYER_NAMES[player]} cannot {move!r} now; legal actions: "
                    f"{', '.join(options)}; or a primitive: {', '.join(PRIMITIVE_NAMES)}"
                )
            started[player] = options[move]
        return started

    def _destination(self, player: int, primitive: str) -> Pos:
        pos = self.state.players[player].position
        step = engine.DIRECTIONS.get(primitive)
        if step is None:
            return pos
        cell = (pos[0] + step[0], pos[1] + step[1])
        return cell if cell in self.geometry.floor else pos

    def _yield_on_collision(self, primitives: dict[int, str], grounded: set[int]) -> None:
        here = [self.state.players[p].position for p in (0, 1)]
        there = [self._destination(p, primitives[p]) for p in (0, 1)]
        if there[0] != there[1] and not (there[0] == here[1] and there[1] == here[0]):
            return
        movers = [p for p in sorted(grounded) if there[p] != here[p]]
        if movers:
            yielder = self.state.timestep % 2 if len(movers) == 2 else movers[0]
            primitives[yielder] = "stay"

    def _apply(self, primitives: dict[int, str]) -> _Outcome:
        """Step the engine with both primitives under our dynamics; update score and histories."""
        table = engine.primitives()
        before = self.state
        joint = []
        for player in (0, 1):
            name = primitives[player]
            feature = facing(self.geometry, before.players[player])
            idle_at_pot = (
                name == "interact"
                and held(before.players[player]) is None
                and feature is not None
                and feature.kind == "c"
            )
            joint.append(table["stay" if idle_at_pot else name])
        after, infos = self.mdp.get_state_transition(before, tuple(joint))
        self._auto_cook(after)
        reward = float(sum(infos["sparse_reward_by_agent"]))
        delivered = sum(bool(flag) for flag in infos["event_infos"]["soup_delivery"])
        self._score += reward
        self._deliveries += delivered
        self.state = after
        effects: dict[int, Task] = {}
        for player in (0, 1):
            effect = effect_of(
                held(before.players[player]),
                held(after.players[player]),
                facing(self.geometry, before.players[player]),
            )
            if effect is not None:
                effects[player] = effect
                self._history[player].append(effect.text)
        result = StepResult(
            executed=dict(primitives),
            reward=reward,
            events=[f"{PLAYER_NAMES[p]}: {effect.text}" for p, effect in effects.items()],
            terminal=self.is_terminal(),
        )
        return _Outcome(result, effects)

    def _auto_cook(self, state: Any) -> None:
        for pot in self.geometry.of_kind("c"):
            soup = state.objects.get(pot.pos)
            if soup is not None and soup.is_idle and len(soup.ingredients) == 3:
                soup.begin_cooking()
                soup.cook()

    def _settle(
        self, player: int, move: Move, primitive: str, before: Any, outcome: _Outcome
    ) -> None:
        """End or continue ``player``'s action after the step, recording how it ended."""
        running = self._tasks[player]
        if running is None:
            return
        task = running.task
        if move.failed:
            done: bool | None = False
        elif task.verb == WAIT:
            done = True
        elif task.verb == AWAY:
            done = self.state.players[player].position != before.players[player].position
        elif primitive == "interact":
            done = outcome.effects.get(player) == task
        else:
            done = None
        if done is None:
            running.steps += 1
            return
        self._tasks[player] = None
        (outcome.result.completed if done else outcome.result.failed)[player] = task.text
        if not done:
            outcome.result.failure_reasons[player] = move.reason or "it could not be completed"

    # ----------------------------------------------------------------- snapshots

    def snapshot(self) -> JsonDict:
        """Layout, seed, horizon, the engine state, score, actions in progress and histories.

        Actions dropped by :meth:`interrupt` are stored under ``interrupted`` only when there are
        some, so snapshots of ordinary play keep their form.
        """
        tasks = [
            None if r is None else {"task": r.task.to_json(), "steps": r.steps} for r in self._tasks
        ]
        snapshot = {
            **self.snapshot_identity(),
            "horizon": self.horizon,
            "timestep": int(self.state.timestep),
            "state": _jsonable(self.state.to_dict()),
            "score": self._score,
            "deliveries": self._deliveries,
            "tasks": tasks,
            "history": [list(h) for h in self._history],
        }
        if any(self._interrupted):
            snapshot["interrupted"] = [
                None if t is None else t.to_json() for t in self._interrupted
            ]
        return snapshot

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        """Make this game exactly the one ``snapshot`` describes.

        Raises:
            GameError: the snapshot is for another game, version or an unknown layout.
        """
        self.check_snapshot_identity(snapshot)
        layout = str(snapshot.get("layout"))
        if layout not in LAYOUTS:
            raise GameError(f"snapshot layout {layout!r} is not one of {LAYOUTS}")
        OvercookedState = engine.overcooked("mdp.overcooked_mdp").OvercookedState  # noqa: N806

        self._load_layout(layout)
        self.seed = int(snapshot["seed"])
        self.horizon = int(snapshot["horizon"])
        self.options = {"horizon": self.horizon}
        self.state = OvercookedState.from_dict(snapshot["state"]).deepcopy()
        self._score = float(snapshot["score"])
        self._deliveries = int(snapshot["deliveries"])
        self._tasks = [
            None if t is None else _Running(Task.from_json(t["task"]), int(t["steps"]))
            for t in snapshot["tasks"]
        ]
        self._history = [list(h) for h in snapshot["history"]]
        self._interrupted = [
            None if t is None else Task.from_json(t)
            for t in snapshot.get("interrupted", [None, None])
        ]

    @classmethod
    def from_snapshot(cls, snapshot: Mapping[str, Any]) -> Game:
        """Build a game (with the snapshot's horizon) from :meth:`snapshot` output."""
        game = cls(layout=snapshot.get("layout"), seed=int(snapshot.get("seed", 0)))
        game.restore(snapshot)
        return game


def _jsonable(value: Any) -> Any:
    """Tuples become lists, so a snapshot equals its own JSON round trip."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
