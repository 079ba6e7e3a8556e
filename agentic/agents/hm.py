"""HM, Hypothetical Minds (Theory of Mind by hypothesis generation, evaluation and refinement).

The ToM module runs at the agent's first decision and then at its next decision after each
observed partner behaviour (:mod:`~coordqa.agentic.agents.behaviour`: each Hanabi move, each
completed Overcooked object action, each Collab turn). One update, in the full ``hm`` variant:

1. unless a hypothesis is validated, generate a new one, shown the top-k earlier hypotheses with
   a positive value to refine (role ``hypothesis``); skipped until the partner has been seen to
   do something (there is nothing to form a hypothesis from);
2. each predicting hypothesis (the validated one, else the top-k with the newest) predicts the
   partner's next behaviour as a lettered choice (role ``predict``);
3. plan conditioned on the best hypothesis (validated, else newest): a strategy plus 1-6 subgoals
   (role ``plan``).

Code scores the predictions when the behaviour is observed (Rescorla-Wagner values, in
:mod:`~coordqa.agentic.agents.hypotheses`). Each decision then takes the plan's next subgoal
while it names a legal action, and otherwise makes an action call (same machinery as CAC) with
the hypothesis and plan in memory.

Variants (paper ablations): ``vmp`` Vanilla Mind Prompting, one call for hypothesis, prediction
and plan (skipped, like generation, until the partner has acted); ``mmp`` Modular Mind
Prompting, separate calls, no evaluation or refinement (the newest hypothesis predicts and
plans); ``mmp_eval`` adds evaluation (values, validation, top-k predictors) without refinement;
``hm`` adds refinement. Predictions are scored in every variant for the accuracy statistic; only
``mmp_eval`` and ``hm`` act on the values.

Partner-prediction accuracy counts the *primary* prediction of each update: the one of the
hypothesis that conditions the plan.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.base import LLMAgent
from coordqa.agentic.agents.behaviour import behaviour_for
from coordqa.agentic.agents.hypotheses import HMParams, Hypothesis, HypothesisBook
from coordqa.agentic.agents.memory import offered_options
from coordqa.agentic.agents.reflection import (
    Signature,
    read_reflection,
    reflection_messages,
    world_signature,
)
from coordqa.agentic.agents.replies import MAX_SECTION_CHARS, section, subgoal_action, subgoals
from coordqa.choices import choose
from coordqa.errors import ConfigError
from coordqa.games.base import PLAYER_NAMES, Observation, StepResult
from coordqa.games.seat import SeatView
from coordqa.llm import Reply
from coordqa.options import OPTIONS_CONFIG, flag
from coordqa.records import (
    HypothesisPayload,
    HypothesisScore,
    PlanPayload,
    PredictPayload,
    VanillaPayload,
)

Variant = Literal["hm", "vmp", "mmp", "mmp_eval"]
"""Full HM, Vanilla Mind Prompting, Modular Mind Prompting, MMP + hypothesis evaluation."""
VARIANTS: tuple[Variant, ...] = get_args(Variant)
"""Every HM variant."""

OBSERVED_SHOWN = 8
"""How many of the partner's latest observed behaviours the HM memory lists."""


@dataclass(frozen=True)
class HMOptions(HMParams):
    """HM's constants (paper defaults, see :class:`HMParams`) and variant."""

    __pydantic_config__ = OPTIONS_CONFIG

    variant: Variant = field(default="hm", metadata=flag("--variant"))
    """hm (full), vmp (one call: Vanilla Mind Prompting), mmp (separate calls, no evaluation)
    or mmp_eval (mmp with hypothesis evaluation)."""
    self_reflection: bool = field(default=False, metadata=flag("--self-reflection", sets=True))
    """Before a new plan, reflect on the last one when it changed nothing."""
    tom_ladder: int = field(default=0, metadata=flag("--tom-ladder"))
    """Ask the ToM question ladder (side calls) at decision 1 and every N-th after it; 0: never
    (Hanabi only)."""
    belief_state: bool = field(default=False, metadata=flag("--belief-state", sets=True))
    """Keep an explicit belief state, rewritten at each decision and checked against the
    engine."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.variant not in VARIANTS:
            raise ConfigError(
                f"HM variant {self.variant!r} is unknown; use one of {', '.join(VARIANTS)}"
            )

    @property
    def evaluate(self) -> bool:
        """Whether values, validation and top-k predictors steer the agent."""
        return self.variant in ("hm", "mmp_eval")

    @property
    def refine(self) -> bool:
        """Whether generation is shown earlier hypotheses to refine."""
        return self.variant == "hm"


@dataclass(frozen=True)
class Prediction:
    """A pending prediction of the partner's next behaviour."""

    hypothesis: int | None
    """The predicting hypothesis (None when generation failed in the single-call variant)."""
    behaviour: str
    """The predicted behaviour (an option text)."""
    primary: bool
    """Whether it is the prediction of the plan's hypothesis (counted for accuracy)."""


class HMAgent(LLMAgent):
    """The Hypothetical Minds agent."""

    name = "hm"
    version = "hm-v7"
    options_class = HMOptions
    options: HMOptions

    def __init__(self, game_name: str, layout: str | None, **settings: Any) -> None:
        """Create the agent (settings as :class:`LLMAgent`; options default to full HM)."""
        super().__init__(game_name, layout, **settings)
        self.behaviour = behaviour_for(game_name)
        self.book = HypothesisBook(self.options)
        self.pending: list[Prediction] = []
        self.observed_log: list[tuple[str, bool | None]] = []
        self.tom_due = True
        self.plan: str | None = None
        self.subgoals: list[str] = []
        self.planned_at: Signature | None = None

    def reset(self, game: SeatView, player: int, seed: int) -> None:
        """Forget hypotheses, predictions and plans."""
        super().reset(game, player, seed)
        self.behaviour.reset(game, player)
        self.book = HypothesisBook(self.options)
        self.pending = []
        self.observed_log = []
        self.tom_due = True
        self.plan = None
        self.subgoals = []
        self.planned_at = None

    # ------------------------------------------------------------------ observing the partner

    def observe(self, game: SeatView, player: int, result: StepResult) -> None:
        """Score pending predictions against the partner's behaviour; schedule a ToM update."""
        for behaviour in self.behaviour.observed(game, self.player, result):
            self.tom_due = True
            self._score(behaviour, game.turn)
        super().observe(game, player, result)

    def _score(self, behaviour: str, turn: int | None) -> None:
        predicted: bool | None = None
        for prediction in self.pending:
            correct = prediction.behaviour == behaviour
            if prediction.primary:
                predicted = correct
                self._stats.count_prediction(correct)
            before = after = None
            if self.options.evaluate and prediction.hypothesis is not None:
                before = self.book.get(prediction.hypothesis).value
                after = self.book.score(prediction.hypothesis, correct, self.decision)
            scored = HypothesisScore(
                hypothesis=prediction.hypothesis,
                predicted=prediction.behaviour,
                observed=behaviour,
                correct=correct,
                primary=prediction.primary,
                turn=turn,
                value_before=before,
                value_after=after,
            )
            self.defer_event("predictions_scored", scored)
        self.pending = []
        self.observed_log.append((behaviour, predicted))
        if self.book.first_validation is not None and self._stats.first_validation_decision is None:
            self._stats.first_validation_decision = self.book.first_validation
            self._stats.first_validation_turn = turn

    # ------------------------------------------------------------------ deciding

    async def decide(self, observation: Observation) -> str:
        """ToM update when due, then the plan's next legal subgoal, else an action call."""
        game, legal = observation.view, list(observation.legal_actions)
        if self.tom_due:
            self.tom_due = False
            if self.options.variant != "vmp":
                await self._modular(game, legal)
            elif self.observed_log:
                await self._vanilla(game, legal)
            else:
                self._note_nothing_observed()
        action = self._next_subgoal(legal)
        if action is not None:
            return action
        memory = self.memory(game, self._observed_section(), self._plan_section())
        return (await self.choose_action(game, legal, memory)).action

    def _note_nothing_observed(self) -> None:
        partner = PLAYER_NAMES[1 - self.player]
        self.note_event("notes", f"hypothesis generation skipped: {partner} has not acted yet")

    def _next_subgoal(self, legal: list[str]) -> str | None:
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

    # ------------------------------------------------------------------ memory sections

    def _observed_section(self) -> str:
        partner = PLAYER_NAMES[1 - self.player]
        if not self.observed_log:
            return f"Observed behaviour of {partner}: nothing yet."
        marks = {True: " (as I predicted)", False: " (not as I predicted)", None: ""}
        recent = self.observed_log[-OBSERVED_SHOWN:]
        lines = [f"- {behaviour}{marks[predicted]}" for behaviour, predicted in recent]
        return f"Observed behaviour of {partner} (oldest first):\n" + "\n".join(lines)

    def _plan_section(self) -> str:
        hypothesis = self._plan_hypothesis()
        partner = PLAYER_NAMES[1 - self.player]
        parts = []
        if hypothesis is not None:
            status = "validated" if self.book.validated() is hypothesis else "not yet validated"
            parts.append(f"{partner}'s strategy (my hypothesis, {status}): {hypothesis.text}")
        if self.plan:
            parts.append(f"My plan: {self.plan}")
        return "\n".join(parts)

    def _memory(self, game: SeatView) -> str:
        return self.memory(game, self._observed_section())

    def _plan_hypothesis(self) -> Hypothesis | None:
        if self.options.evaluate:
            return self.book.for_plan()
        return self.book.hypotheses[-1] if self.book.hypotheses else None

    # ------------------------------------------------------------------ the ToM module

    async def _modular(self, game: SeatView, legal: list[str]) -> None:
        """Generation (unless validated), predictions, plan: separate calls."""
        validated = self.options.evaluate and self.book.validated() is not None
        if not validated and self.observed_log:
            await self._generate(game)
        elif not validated:
            self._note_nothing_observed()
        if self.options.evaluate:
            predictors = self.book.predictors()
        else:
            predictors = self.book.hypotheses[-1:]
        primary = self._plan_hypothesis()
        options = self.behaviour.options(game, self.player)
        made = await asyncio.gather(
            *(self._predict(game, h, options, h is primary) for h in predictors)
        )
        self.pending = [p for p in made if p is not None]
        await self._plan(game, legal, primary)

    def _add_hypothesis(self, text: str) -> Hypothesis:
        self._stats.hypotheses_generated += 1
        return self.book.add(text, self.decision)

    async def _generate(self, game: SeatView) -> None:
        shown = self.book.for_refinement() if self.options.refine else []
        messages = prompts.hypothesis_messages(
            self.long_term_memory(game), self._memory(game), [(h.text, h.value) for h in shown]
        )
        next_id = len(self.book.hypotheses)

        def read(reply: Reply) -> tuple[str | None, HypothesisPayload]:
            text = section(reply.text, "hypothesis") or _plain(reply.text)
            return text, HypothesisPayload(
                hypothesis_id=next_id if text else None,
                hypothesis=text,
                refining=[h.id for h in shown],
            )

        _, text = await self.ask("hypothesis", messages, read)
        if text:
            self._add_hypothesis(text)

    async def _predict(
        self, game: SeatView, hypothesis: Hypothesis, options: list[str], primary: bool
    ) -> Prediction | None:
        question = self.behaviour.question(self.player)
        messages = prompts.predict_messages(
            self.game_name,
            self.long_term_memory(game),
            self._memory(game),
            hypothesis.text,
            question,
            options,
        )

        def read(reply: Reply) -> tuple[str | None, PredictPayload]:
            choice = choose(reply.text, options)
            predicted = options[choice.index] if choice.index is not None else None
            return predicted, PredictPayload(
                hypothesis_id=hypothesis.id,
                hypothesis_value=hypothesis.value,
                options=options,
                choice=choice,
                predicted=predicted,
                primary=primary,
            )

        _, predicted = await self.ask("predict", messages, read)
        return None if predicted is None else Prediction(hypothesis.id, predicted, primary)

    async def _reflect(self, game: SeatView) -> str:
        """A reflection note when self-reflection is on and the last plan changed nothing."""
        now = world_signature(game, self.player)
        stalled = self.planned_at == now
        self.planned_at = now
        if not (self.options.self_reflection and stalled):
            return ""
        messages = reflection_messages(
            self.long_term_memory(game), self._memory(game), self.plan, self.subgoals
        )
        _, text = await self.ask("reflection", messages, read_reflection)
        self._stats.reflections += 1
        return f"Reflection on my last plan: {text}" if text else ""

    async def _plan(self, game: SeatView, legal: list[str], hypothesis: Hypothesis | None) -> None:
        reflection = await self._reflect(game)
        messages = prompts.plan_messages(
            self.long_term_memory(game),
            self.memory(game, self._observed_section(), reflection),
            None if hypothesis is None else hypothesis.text,
            legal,
        )

        def read(reply: Reply) -> tuple[tuple[str | None, list[str]], PlanPayload]:
            plan, goals = section(reply.text, "plan") or _plain(reply.text), subgoals(reply.text)
            conditioned = None if hypothesis is None else hypothesis.id
            return (plan, goals), PlanPayload(hypothesis_id=conditioned, plan=plan, subgoals=goals)

        _, (self.plan, self.subgoals) = await self.ask("plan", messages, read)

    async def _vanilla(self, game: SeatView, legal: list[str]) -> None:
        """Vanilla Mind Prompting: hypothesis, prediction and plan from one call."""
        options = self.behaviour.options(game, self.player)
        messages = prompts.vanilla_messages(
            self.long_term_memory(game),
            self._memory(game),
            self.behaviour.question(self.player),
            options,
            legal,
        )
        next_id = len(self.book.hypotheses)

        def read(reply: Reply) -> tuple[VanillaPayload, VanillaPayload]:
            choice = choose(reply.text, options)
            hypothesis = section(reply.text, "hypothesis")
            parsed = VanillaPayload(
                hypothesis_id=next_id if hypothesis else None,
                options=options,
                choice=choice,
                hypothesis=hypothesis,
                predicted=options[choice.index] if choice.index is not None else None,
                plan=section(reply.text, "plan"),
                subgoals=subgoals(reply.text),
            )
            return parsed, parsed

        _, parsed = await self.ask("vanilla", messages, read)
        self.plan, self.subgoals = parsed.plan, list(parsed.subgoals)
        added = self._add_hypothesis(parsed.hypothesis) if parsed.hypothesis else None
        if parsed.predicted is not None:
            self.pending = [Prediction(None if added is None else added.id, parsed.predicted, True)]


def _plain(text: str | None) -> str | None:
    """A reply without the expected label, kept whole (bounded) when it says anything."""
    body = " ".join((text or "").split())
    return body[:MAX_SECTION_CHARS] or None
