"""The planner and subgoal actor shared by HM and its baselines (Hypothetical Minds paper).

The paper compares HM with ReAct, Reflexion and PlanReAct and says "prompts and architectures
are shared across baselines ... the only difference between PlanReAct and Hypothetical Minds is
that high-level planning is mediated by the Theory of Mind module". What is shared lives here:

- the **planner** (role ``plan``, the paper's eq. 3: z = LLM(M, h*)): a strategy, then the
  **subgoal module** (role ``subgoals``, eq. 4: g = LLM(O, M, z)), a second call that turns it
  into the next 3-6 actions (the paper: "first generates a high-level plan ... then feeds this
  plan to a subgoal module");
- the **subgoal actor**: each decision takes the plan's next subgoal while it names a legal
  action, and otherwise asks the action call (the same machinery as CAC) with the plan in memory;
- **self-reflection** (role ``reflection``) before a new plan: when the last plan changed nothing
  (``self_reflection``), or after every plan as the paper's cooking agent does
  (``reflect_every_plan``).

The agents differ in when they plan and what conditions the plan:

- ``hm`` (:mod:`~coordqa.agentic.agents.hm`): plans after each ToM update, conditioned on its
  hypothesis about the partner;
- ``planreact``: the same plan call at the same moments (its first decision and after each
  observed partner behaviour), with no ToM module, so no hypothesis;
- ``react``: no high-level plan: when the last subgoals have run out (or one is not legal), one
  call reasons about the state and lists the next subgoals (role ``react``), ReAct's "reason
  then act";
- ``reflexion``: ReAct, reflecting on the last subgoals and what they achieved before each new
  ReAct call; its reflections stay in memory (the last :data:`REFLECTIONS_SHOWN`), as Reflexion
  keeps verbal feedback for later attempts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.base import LLMAgent
from coordqa.agentic.agents.features import behaviour_for
from coordqa.agentic.agents.ladder import check_every
from coordqa.agentic.agents.memory import offered_options
from coordqa.agentic.agents.reflection import (
    PlanMoment,
    read_reflection,
    reflection_messages,
    world_signature,
)
from coordqa.agentic.agents.replies import section, subgoal_action, subgoals
from coordqa.agentic.records import PlanPayload
from coordqa.directives import format_labels
from coordqa.games.base import Observation, StepResult
from coordqa.games.seat import SeatView
from coordqa.llm import Reply
from coordqa.options import OPTIONS_CONFIG, flag

REFLECTIONS_SHOWN = 3
"""How many of Reflexion's latest reflections its memory shows."""


@dataclass(frozen=True)
class PlanningOptions:
    """The switches of every agent that plans with subgoals (HM and its baselines)."""

    __pydantic_config__ = OPTIONS_CONFIG

    self_reflection: bool = field(default=False, metadata=flag("--self-reflection", sets=True))
    """Before a new plan, reflect on the last one when it changed nothing."""
    reflect_every_plan: bool = field(
        default=False, metadata=flag("--reflect-every-plan", sets=True)
    )
    """Before every new plan, reflect on the last one and what it achieved, as the paper's
    cooking agent does (not only when it changed nothing)."""
    tom_ladder: int = field(default=0, metadata=flag("--tom-ladder"))
    """Ask the ToM question ladder (side calls) at decision 1 and every N-th after it; 0: never
    (Hanabi only)."""
    belief_state: bool = field(default=False, metadata=flag("--belief-state", sets=True))
    """Keep an explicit belief state, rewritten at each decision and checked against the
    engine."""

    def __post_init__(self) -> None:
        check_every(self.tom_ladder)


class PlanningAgent(LLMAgent):
    """An agent that plans subgoals and follows them (the shared part of HM and its baselines).

    Subclasses decide when to plan (:meth:`decide`) and call :meth:`make_plan` or
    :meth:`reason_and_act`, then :meth:`follow_plan`.
    """

    options_class: ClassVar[type | None] = PlanningOptions
    options: PlanningOptions

    def __init__(self, game_name: str, layout: str | None, **settings: Any) -> None:
        """Create the agent (settings as :class:`LLMAgent`) with no plan yet."""
        super().__init__(game_name, layout, **settings)
        self.plan: str | None = None
        self.subgoals: list[str] = []
        self.planned_at: PlanMoment | None = None

    def reset(self, game: SeatView, player: int, seed: int) -> None:
        """Forget the plan."""
        super().reset(game, player, seed)
        self.plan = None
        self.subgoals = []
        self.planned_at = None

    # ------------------------------------------------------------------ the subgoal actor

    async def follow_plan(self, observation: Observation, *sections: str) -> str:
        """The plan's next legal subgoal, else an action call with the plan in memory."""
        game, legal = observation.view, list(observation.legal_actions)
        action = self.next_subgoal(legal)
        if action is not None:
            return action
        memory = self.memory(game, *sections, self.plan_section())
        return (await self.choose_action(game, legal, memory)).action

    def next_subgoal(self, legal: list[str]) -> str | None:
        """The next subgoal as a legal action; a subgoal that is not legal drops the plan."""
        if not self.subgoals:
            return None
        goal = self.subgoals.pop(0)
        action = subgoal_action(goal, offered_options(self.game_name, legal))
        if action is None:
            self.note_event("notes", f"plan dropped: subgoal {goal!r} is not a legal action now")
            self.subgoals = []
            return None
        self._stats.subgoal_actions += 1
        self.note_event("subgoals", goal)
        return action

    def plan_section(self) -> str:
        """The plan as the memory shows it ('' before the first)."""
        return f"My plan: {self.plan}" if self.plan else ""

    # ------------------------------------------------------------------ planning

    async def reflect(self, game: SeatView, memory: str, every: bool = False) -> str:
        """A reflection on the last plan, when one is due; '' otherwise.

        Due when the last plan changed nothing and ``self_reflection`` is on, or whenever there
        was a last plan and ``every`` or ``reflect_every_plan`` is on.
        """
        now = PlanMoment(world_signature(game, self.player), self.working_memory(game))
        before, self.planned_at = self.planned_at, now
        if before is None:
            return ""
        stalled = before.signature == now.signature
        every = every or self.options.reflect_every_plan
        if not (every or (self.options.self_reflection and stalled)):
            return ""
        messages = reflection_messages(
            self.long_term_memory(game), memory, self.plan, self.subgoals, before, now
        )
        self._stats.reflections += 1
        text = await self.ask_labelled(
            "reflection", messages, read_reflection, "no reflection before this plan"
        )
        return text or ""

    async def make_plan(
        self,
        game: SeatView,
        legal: list[str],
        memory: str,
        strategy: str | None,
        hypothesis_id: int | None = None,
        condition: prompts.PlanCondition = "partner",
    ) -> None:
        """The planner, then the subgoal module on its plan: two calls, from ``memory``.

        ``strategy`` is the hypothesis the plan is conditioned on (None: not known yet), and
        ``condition`` what it is about (:data:`~coordqa.agentic.agents.prompts.PLAN_CONDITIONS`:
        HM's partner strategy, none for PlanReAct, HE + HR's hypothesis in use). An unreadable
        plan leaves no plan and asks no subgoals; unreadable subgoals leave the plan in memory
        for the action calls.
        """
        self.plan, self.subgoals = None, []
        messages = prompts.plan_messages(
            self.long_term_memory(game), memory, strategy, legal, condition
        )
        labels = format_labels(messages[0].content)

        def read_plan(reply: Reply) -> tuple[str | None, PlanPayload]:
            plan = section(reply.text, "plan", labels)
            return plan, PlanPayload(hypothesis_id=hypothesis_id, plan=plan, subgoals=[])

        self.plan = await self.ask_labelled("plan", messages, read_plan, "no plan: action calls")
        if self.plan is None:
            return
        plan = self.plan
        messages = prompts.subgoal_messages(self.long_term_memory(game), memory, plan, legal)

        def read_subgoals(reply: Reply) -> tuple[list[str] | None, PlanPayload]:
            goals = subgoals(reply.text)
            payload = PlanPayload(hypothesis_id=hypothesis_id, plan=plan, subgoals=goals)
            return goals or None, payload

        fallback = "no subgoals: action calls with the plan in memory"
        self.subgoals = await self.ask_labelled("subgoals", messages, read_subgoals, fallback) or []

    async def reason_and_act(self, game: SeatView, legal: list[str], memory: str) -> None:
        """ReAct's call: reason about the state and the partner's strategy, then list subgoals.

        A reply with neither its ``Thought:`` nor its ``Subgoals:`` is asked once more, then
        leaves no thought and no subgoals (action calls).
        """
        messages = prompts.react_messages(
            self.game_name, self.long_term_memory(game), memory, legal
        )
        labels = format_labels(messages[0].content)

        def read(reply: Reply) -> tuple[tuple[str | None, list[str]] | None, PlanPayload]:
            thought, goals = section(reply.text, "thought", labels), subgoals(reply.text)
            payload = PlanPayload(hypothesis_id=None, plan=thought, subgoals=goals)
            return ((thought, goals) if thought or goals else None), payload

        fallback = "no thought, no subgoals: action calls"
        found = await self.ask_labelled("react", messages, read, fallback)
        self.plan, self.subgoals = found or (None, [])


class PlanReActAgent(PlanningAgent):
    """PlanReAct: HM's planner and subgoal actor at HM's moments, with no ToM module."""

    name = "planreact"
    version = "planreact-v2"
    observes_partner = True

    def __init__(self, game_name: str, layout: str | None, **settings: Any) -> None:
        """Create the agent; it plans after each behaviour of the partner, as HM updates."""
        super().__init__(game_name, layout, **settings)
        self.behaviour = behaviour_for(game_name)
        self.plan_due = True

    def reset(self, game: SeatView, player: int, seed: int) -> None:
        """Plan at the first decision."""
        super().reset(game, player, seed)
        self.behaviour.reset(game, player)
        self.plan_due = True

    def observe(self, game: SeatView, player: int, result: StepResult) -> None:
        """A behaviour of the partner makes a new plan due."""
        if self.behaviour.observed(game, self.player, result):
            self.plan_due = True
        super().observe(game, player, result)

    async def decide(self, observation: Observation) -> str:
        """A new plan when due, then the plan's next legal subgoal, else an action call."""
        game, legal = observation.view, list(observation.legal_actions)
        if self.plan_due:
            self.plan_due = False
            reflection = await self.reflect(game, self.memory(game))
            memory = self.memory(game, _reflection_note(reflection))
            await self.make_plan(game, legal, memory, None, condition="none")
        return await self.follow_plan(observation)


class ReActAgent(PlanningAgent):
    """ReAct: when the last subgoals ran out, reason about the state and list the next ones."""

    name = "react"
    version = "react-v2"
    reflects: ClassVar[bool] = False
    """Whether a reflection on the last subgoals precedes each new call (Reflexion)."""

    def __init__(self, game_name: str, layout: str | None, **settings: Any) -> None:
        """Create the agent with no reflections yet."""
        super().__init__(game_name, layout, **settings)
        self.reflections: list[str] = []

    def reset(self, game: SeatView, player: int, seed: int) -> None:
        """Forget the reflections."""
        super().reset(game, player, seed)
        self.reflections = []

    async def decide(self, observation: Observation) -> str:
        """Follow the subgoals; when none is left, reason and list new ones first."""
        game, legal = observation.view, list(observation.legal_actions)
        if not self.subgoals:
            reflection = await self.reflect(game, self._memory(game), every=self.reflects)
            if reflection:
                self.reflections.append(reflection)
            await self.reason_and_act(game, legal, self._memory(game))
        return await self.follow_plan(observation, self._reflections_section())

    def _memory(self, game: SeatView) -> str:
        return self.memory(game, self._reflections_section())

    def _reflections_section(self) -> str:
        if not self.reflections:
            return ""
        shown = self.reflections[-REFLECTIONS_SHOWN:]
        return "Reflections on my earlier plans (oldest first):\n" + prompts.bullets(shown)


class ReflexionAgent(ReActAgent):
    """Reflexion: ReAct with a reflection on the last subgoals before each new call."""

    name = "reflexion"
    version = "reflexion-v2"
    reflects = True


def _reflection_note(text: str) -> str:
    return f"Reflection on my last plan: {text}" if text else ""
