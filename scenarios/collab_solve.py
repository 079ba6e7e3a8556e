"""Exact solvers behind the Collab questions: guaranteed turns to win over joint actions.

Both room games are small enough to solve exactly. A state's value is the fewest turns in which
Alice and Bob, choosing their actions jointly, are *sure* to win (capture the thief, or escape)
whatever the game's randomness does: the thief is deterministic, and every random move of a
non-chasing killer is treated as chosen against us (worst case). The worst case is the honest
reading of a QA question, because the answer must not depend on dice the question does not show.

The transitions come from the engine's own :class:`~coordqa.games.rooms.PlanningModel`
(``options``/``outcomes``/``result``), so the solver never re-implements a rule.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from coordqa.games.base import PLAYER_NAMES
from coordqa.games.rooms import DISCOUNT, PlanningModel, RoomAction
from coordqa.scenarios.model import QuestionDraft, ScenarioRejected

INF = math.inf
"""The value of a state from which no win can be guaranteed."""

PLANNER_MARGIN = 1e-6
"""How much the planner players' value of the answer must beat every other action's."""

MAX_SWEEPS = 500
"""Upper bound on Bellman sweeps; values are at most the number of states, far below this."""


@dataclass(frozen=True)
class TurnTable:
    """Guaranteed turns to win for every state reachable from one root (turn counter dropped)."""

    rows: dict[Any, int]
    """State (with ``turn=0``) -> row of :attr:`turns`."""
    turns: Any
    """``turns[row]``: fewest turns to a sure win, ``inf`` when none (numpy float array)."""
    expected: Any
    """``expected[k, row]``: the planner players' value with ``k`` turns left, the discounted
    win probability with uniform random moves (numpy array; the last column is "game over")."""


def _key(state: Any) -> Any:
    return state._replace(turn=0)


@functools.lru_cache(maxsize=16)
def turn_table(model: PlanningModel, root: Any) -> TurnTable:
    """Solve min over joint actions of max over outcomes, for every state reachable from ``root``.

    Turns are counted without the turn limit (the rules ignore the turn counter otherwise);
    callers compare a value with the turns left, which is exact because the value is already the
    fastest sure win.
    """
    import numpy as np

    start = _key(root)
    rows: dict[Any, int] = {start: 0}
    order = [start]
    joint_start: list[int] = []
    outcome_start: list[int] = []
    prob: list[float] = []
    won: list[bool] = []
    lost: list[bool] = []
    nxt: list[int] = []
    for state in order:  # grows while we enumerate (breadth-first)
        joint_start.append(len(outcome_start))
        for a in model.options(state, 0):
            for b in model.options(state, 1):
                outcome_start.append(len(nxt))
                for p, after in model.outcomes(state, (a, b)):
                    after = _key(after)
                    result = model.result(after)
                    row = -1
                    if result is None:
                        row = rows.setdefault(after, len(order))
                        if row == len(order):
                            order.append(after)
                    prob.append(p)
                    won.append(result == 1.0)
                    lost.append(result == 0.0)
                    nxt.append(row)
    o_won, o_lost, o_next = np.asarray(won), np.asarray(lost), np.asarray(nxt)
    j_starts, s_starts = np.asarray(outcome_start), np.asarray(joint_start)
    turns = np.full(len(order) + 1, np.inf)  # the last entry stands for "no next state"
    for _ in range(MAX_SWEEPS):
        outcome = np.where(o_won, 1.0, np.where(o_lost, np.inf, 1.0 + turns[o_next]))
        worst = np.maximum.reduceat(outcome, j_starts)
        best = np.minimum.reduceat(worst, s_starts)
        if np.array_equal(best, turns[:-1]):
            break
        turns[:-1] = best
    expected = np.zeros((model.turn_limit + 1, len(order) + 1))
    o_gain = np.asarray(prob) * o_won
    for left in range(1, model.turn_limit + 1):
        gain = o_gain + np.asarray(prob) * DISCOUNT * expected[left - 1, o_next]
        expected[left, :-1] = np.maximum.reduceat(np.add.reduceat(gain, j_starts), s_starts)
    return TurnTable(rows, turns[:-1], expected)


def _table_for(model: PlanningModel, initial: Any, state: Any) -> TurnTable:
    """The table from the game's start when it covers ``state`` (shared), else from ``state``."""
    table = turn_table(model, _key(initial))
    return table if _key(state) in table.rows else turn_table(model, _key(state))


@dataclass(frozen=True)
class JointValues:
    """Sure turns to win after each joint action from one state, with the turn limit applied."""

    options: tuple[tuple[RoomAction, ...], tuple[RoomAction, ...]]
    """Alice's and Bob's legal actions, in the game's order."""
    values: dict[tuple[int, int], float]
    """(Alice's option index, Bob's option index) -> turns (this one included), or ``inf``."""
    expected: dict[tuple[int, int], float]
    """The same joint actions valued as the planner players value them (higher is better)."""

    def best_for(self, player: int) -> list[float]:
        """Per option of ``player``: the sure turns with the partner's best reply."""
        return [
            min(v for key, v in self.values.items() if key[player] == k)
            for k in range(len(self.options[player]))
        ]

    def expected_for(self, player: int) -> list[float]:
        """Per option of ``player``: the planner's value with the partner's best reply."""
        return [
            max(v for key, v in self.expected.items() if key[player] == k)
            for k in range(len(self.options[player]))
        ]


def joint_values(model: PlanningModel, initial: Any, state: Any, turns_left: int) -> JointValues:
    """Sure turns to win after each joint action in ``state`` (``inf`` beyond ``turns_left``)."""
    table = _table_for(model, initial, state)
    options = (model.options(state, 0), model.options(state, 1))
    values: dict[tuple[int, int], float] = {}
    expected: dict[tuple[int, int], float] = {}
    for i, a in enumerate(options[0]):
        for j, b in enumerate(options[1]):
            outcomes = model.outcomes(state, (a, b))
            worst = max(_outcome_turns(model, table, after) for _, after in outcomes)
            values[(i, j)] = worst if worst <= turns_left else INF
            expected[(i, j)] = sum(
                p * _outcome_value(model, table, after, turns_left - 1) for p, after in outcomes
            )
    return JointValues(options, values, expected)


def _outcome_turns(model: PlanningModel, table: TurnTable, after: Any) -> float:
    result = model.result(after)
    if result == 1.0:
        return 1.0
    if result == 0.0:
        return INF
    return 1.0 + float(table.turns[table.rows[_key(after)]])


def _outcome_value(model: PlanningModel, table: TurnTable, after: Any, left: int) -> float:
    result = model.result(after)
    if result is not None:
        return result
    return DISCOUNT * float(table.expected[left, table.rows[_key(after)]])


def strict_best(values: Sequence[float]) -> int | None:
    """Index of the unique smallest finite value, or None when it ties or nothing is finite."""
    finite = [v for v in values if v < INF]
    if not finite:
        return None
    low = min(finite)
    winners = [i for i, v in enumerate(values) if v == low]
    return winners[0] if len(winners) == 1 else None


def turns_text(value: float) -> str:
    """``"3"`` or ``"no sure win"`` for a rationale."""
    return "no sure win" if value == INF else str(int(value))


def unique_best(
    model: PlanningModel, initial: Any, state: Any, who: int, turns_left: int, label: str
) -> tuple[tuple[str, ...], int, str]:
    """``who``'s legal actions, the one with strictly the fewest sure turns, and the values.

    Each action is valued with the partner's best reply (the joint plan). The answer must also be
    the planner players' unique choice (their value, which weighs random moves as equally likely
    instead of the worst case, beats every other action by :data:`PLANNER_MARGIN`), so the key
    holds under either reading of "best". ``label`` names the question in rejection messages.

    Raises:
        ScenarioRejected: no action is strictly fastest, none wins within ``turns_left``, or the
            planner players would pick (or tie with) another action.
    """
    values = joint_values(model, initial, state, turns_left)
    per, planned = values.best_for(who), values.expected_for(who)
    texts = tuple(a.text() for a in values.options[who])
    listed = "; ".join(f"{t}: {turns_text(v)}" for t, v in zip(texts, per, strict=True))
    best = strict_best(per)
    if best is None:
        raise ScenarioRejected(
            f"{label}: no action of {PLAYER_NAMES[who]} is strictly fastest ({listed})"
        )
    rivals = [v for k, v in enumerate(planned) if k != best]
    if rivals and planned[best] - max(rivals) < PLANNER_MARGIN:
        shown = "; ".join(f"{t}: {v:.4f}" for t, v in zip(texts, planned, strict=True))
        raise ScenarioRejected(
            f"{label}: the fastest sure win starts with {texts[best]!r} but the planner players' "
            f"values do not single it out ({shown})"
        )
    return texts, best, listed


def best_action_question(
    options: tuple[str, ...], best: int, rationale: str, concept: str, objective: str, partner: int
) -> QuestionDraft:
    """The JP question both Collab games ask, from :func:`unique_best`'s options and answer.

    One place for its wording, so the two games' JP questions cannot drift apart. The question
    states the ``objective`` that makes an action best (e.g. "the fastest escape that is safe
    whatever the killer's random moves") and that the partner plays its part of the same plan:
    without them two winning actions could both be called best.
    """
    name = PLAYER_NAMES[partner]
    pronoun = ("her", "his")[partner]
    return QuestionDraft(
        "JP",
        "best_action",
        f"What is the best next action for me, the first step of {objective}, with {name} "
        f"playing {pronoun} part of the same plan?",
        options,
        (best,),
        f"partner assumed to play {pronoun} part of the best joint plan; {rationale}",
        concept,
    )


def plan_outcomes(
    model: PlanningModel, state: Any, plan: Sequence[tuple[RoomAction, RoomAction]]
) -> Iterator[Any]:
    """Every end state of playing the joint ``plan`` from ``state``, one per random branch.

    A branch stops early when the game ends (a win or a loss) before the plan does.
    """
    if not plan or model.result(state) is not None:
        yield state
        return
    for _, after in model.outcomes(state, plan[0]):
        yield from plan_outcomes(model, after, plan[1:])
