"""HM, Hypothetical Minds (Theory of Mind by hypothesis generation, evaluation and refinement).

The ToM module runs at the agent's first decision and then at its next decision after each
observed partner behaviour (:mod:`~coordqa.agentic.agents.features`: each Hanabi move, each
completed Overcooked object action, each Collab turn). One update, in the full ``hm`` variant:

1. unless a hypothesis is validated, generate a new one, shown the top-k earlier hypotheses with
   a positive value to refine (role ``hypothesis``); skipped until the partner has been seen to
   do something (there is nothing to form a hypothesis from);
2. each predicting hypothesis (the validated one, else the top-k with the newest) predicts the
   partner's next behaviour as a lettered choice (role ``predict``);
3. plan conditioned on the best hypothesis (validated, else newest; ``he_hr``: else the
   best-valued kept one): a strategy (role ``plan``, eq. 3), then the subgoal module's 3-6
   subgoals for it (role ``subgoals``, eq. 4), a second call.

So an update without a validated hypothesis makes the paper's 3 + top_k ToM-module calls
(generation, top_k + 1 predictions, the plan) plus the subgoal call, and one with a validated
hypothesis 2 plus the subgoal call.

Code scores the predictions when the behaviour is observed (Rescorla-Wagner values, in
:mod:`~coordqa.agentic.agents.hypotheses`). Each decision then takes the plan's next subgoal
while it names a legal action, and otherwise makes an action call (same machinery as CAC) with
the hypothesis and plan in memory.

Variants (paper ablations): ``vmp`` Vanilla Mind Prompting, one call for hypothesis, prediction
and plan (skipped, like generation, until the partner has acted); ``mmp`` Modular Mind
Prompting, separate calls, no evaluation or refinement (the newest hypothesis predicts and
plans); ``mmp_eval`` adds evaluation (values, validation, top-k predictors) without refinement;
``hm`` adds refinement. Predictions are scored in every variant for the accuracy statistic; only
``mmp_eval`` and ``hm`` act on the values. ``he_hr`` (Hypothesis Evaluation + Hypothesis
Refinement, the paper's appendix F) makes no predictions: the values come from reward
(:mod:`~coordqa.agentic.agents.counterfactual`), with the appendix's constants (alpha 0.3,
c = 3.0, V_thr = 3.0, top_k 5); its plan rests on the best-valued kept hypothesis, so the one
in use collects extrinsic reward over interactions. An update then makes generation, a target
call per other kept hypothesis, the plan, and at the next update a judgement per target: 2 + 2
top_k calls once top_k earlier hypotheses exist, 1 (the plan) while a hypothesis is validated,
each plus the subgoal call.

The planner, the subgoal actor and self-reflection are shared with HM's baselines
(:mod:`~coordqa.agentic.agents.planning`).

Partner-prediction accuracy counts the *primary* prediction of each update: the one of the
hypothesis that conditions the plan.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.counterfactual import EXTRINSIC_SCALE, RewardEvaluation
from coordqa.agentic.agents.features import behaviour_for
from coordqa.agentic.agents.hypotheses import HMParams, Hypothesis, HypothesisBook
from coordqa.agentic.agents.planning import PlanningAgent, PlanningOptions
from coordqa.agentic.agents.replies import section, subgoals
from coordqa.agentic.records import (
    HypothesisPayload,
    HypothesisScore,
    PredictPayload,
    VanillaPayload,
)
from coordqa.choices import choose
from coordqa.errors import ConfigError
from coordqa.games.base import PLAYER_NAMES, Observation, StepResult
from coordqa.games.seat import SeatView
from coordqa.jsonvalues import JSONObject, JSONValue
from coordqa.llm import Reply
from coordqa.options import flag

Variant = Literal["hm", "vmp", "mmp", "mmp_eval", "he_hr"]
"""Full HM, Vanilla Mind Prompting, Modular Mind Prompting, MMP + hypothesis evaluation,
Hypothesis Evaluation + Hypothesis Refinement by reward."""
VARIANTS: tuple[Variant, ...] = get_args(Variant)
"""Every HM variant."""

PAPER_CONSTANTS: dict[str, tuple[float, float]] = {"he_hr": (3.0, 3.0)}
"""(c, V_thr) of the variants whose constants differ from HM's 1.0 and 0.7 (the appendix's
hyperparameter table)."""


@dataclass(frozen=True)
class HMOptions(PlanningOptions):
    """HM's variant and constants (paper defaults), with the planning switches."""

    variant: Variant = field(default="hm", metadata=flag("--variant"))
    """hm (full), vmp (one call: Vanilla Mind Prompting), mmp (separate calls, no evaluation),
    mmp_eval (mmp with hypothesis evaluation) or he_hr (values from reward: the appendix's
    Hypothesis Evaluation + Hypothesis Refinement)."""
    alpha: float = field(default=0.3, metadata=flag("--alpha"))
    """Learning rate of the Rescorla-Wagner update."""
    c: float | None = field(default=None, metadata=flag("--reward"))
    """Magnitude of the intrinsic reward (+c right, -c wrong; he_hr: the counterfactual
    reward); none: the variant's paper value (1.0, he_hr 3.0)."""
    threshold: float | None = field(default=None, metadata=flag("--threshold"))
    """Value at which a hypothesis is validated (V >= threshold); none: the variant's paper
    value (0.7, he_hr 3.0)."""
    top_k: int = field(default=5, metadata=flag("--top-k"))
    """How many earlier hypotheses, the best by value, predict next to the newest (he_hr: are
    judged counterfactually) and are shown for refinement (those with a positive value); 0:
    the newest alone predicts and nothing is refined (the paper's sweep point k = 0, Modular
    Mind Prompting's single hypothesis)."""
    initial_value: float = field(default=0.0, metadata=flag("--initial-value"))
    """Value of a new hypothesis (not given in the paper; 0 means no evidence yet)."""
    history_window: int | None = field(default=None, metadata=flag("--history-window"))
    """How many of the partner's latest observed behaviours HM's memory lists; none: the entire
    interaction history, as the paper generates hypotheses "given the entire interaction
    history". Set it to keep long episodes within a model's context."""
    extrinsic_scale: float = field(default=EXTRINSIC_SCALE, metadata=flag("--extrinsic-scale"))
    """he_hr: the reward to the hypothesis in use per scoring unit the team scores in an
    interaction (a soup, a card, the win); above c, so that only it can reach V_thr = c."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.variant not in VARIANTS:
            raise ConfigError(
                f"HM variant {self.variant!r} is unknown; use one of {', '.join(VARIANTS)}"
            )
        window = self.history_window
        if window is not None and (isinstance(window, bool) or window < 1):
            raise ConfigError(
                f"HM option history_window={window!r} is invalid: it must be an integer >= 1, "
                "or none for the entire interaction history"
            )
        if not self.extrinsic_scale > 0:
            raise ConfigError(
                f"HM option extrinsic_scale={self.extrinsic_scale!r} is invalid: it must be > 0"
            )
        self.params()

    def params(self) -> HMParams:
        """The constants the hypothesis book runs on (the variant's paper values filled in).

        Raises:
            ConfigError: a constant out of its range.
        """
        c, threshold = PAPER_CONSTANTS.get(self.variant, (1.0, 0.7))
        return HMParams(
            alpha=self.alpha,
            c=c if self.c is None else self.c,
            threshold=threshold if self.threshold is None else self.threshold,
            top_k=self.top_k,
            initial_value=self.initial_value,
            in_use="best" if self.variant == "he_hr" else "newest",
        )

    @property
    def evaluate(self) -> bool:
        """Whether values, validation and top-k predictors steer the agent."""
        return self.variant in ("hm", "mmp_eval", "he_hr")

    @property
    def refine(self) -> bool:
        """Whether generation is shown earlier hypotheses to refine."""
        return self.variant in ("hm", "he_hr")


@dataclass(frozen=True)
class Prediction:
    """A pending prediction of the partner's next behaviour."""

    hypothesis: int | None
    """The predicting hypothesis (None when generation failed in the single-call variant)."""
    behaviour: str
    """The predicted behaviour (an option text)."""
    primary: bool
    """Whether it is the prediction of the plan's hypothesis (counted for accuracy)."""


class HMAgent(PlanningAgent):
    """The Hypothetical Minds agent."""

    name = "hm"
    version = "hm-v9"
    options_class = HMOptions
    options: HMOptions
    observes_partner = True

    def __init__(self, game_name: str, layout: str | None, **settings: Any) -> None:
        """Create the agent (settings as :class:`LLMAgent`; options default to full HM)."""
        super().__init__(game_name, layout, **settings)
        self.behaviour = behaviour_for(game_name)
        self.params = self.options.params()
        self.book = HypothesisBook(self.params)
        self.rewards = self._rewards()
        self.pending: list[Prediction] = []
        self.observed_log: list[tuple[str, bool | None]] = []
        self.tom_due = True

    def _rewards(self) -> RewardEvaluation | None:
        if self.options.variant != "he_hr":
            return None
        return RewardEvaluation(self, self.params.c, self.options.extrinsic_scale)

    def reset(self, game: SeatView, player: int, seed: int) -> None:
        """Forget hypotheses, predictions and plans."""
        super().reset(game, player, seed)
        self.behaviour.reset(game, player)
        self.book = HypothesisBook(self.params)
        self.rewards = self._rewards()
        self.pending = []
        self.observed_log = []
        self.tom_due = True

    def stats(self) -> JSONObject:
        """As every agent's, plus the episode's hypotheses and the first one validated.

        Each hypothesis with its text, final value, the decision that made it and its
        predictions right; ``first_validated`` is its id (None: none was). What the report shows
        of HM's theory of mind.
        """
        hypotheses: list[JSONValue] = [h.to_dict() for h in self.book.hypotheses]
        return {
            **super().stats(),
            "hypotheses": hypotheses,
            "first_validated": self.book.first_validated,
        }

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
        self._note_first_validation(turn)

    def _note_first_validation(self, turn: int | None) -> None:
        if self.book.first_validation is not None and self._stats.first_validation_decision is None:
            self._stats.first_validation_decision = self.book.first_validation
            self._stats.first_validation_turn = turn

    # ------------------------------------------------------------------ deciding

    async def decide(self, observation: Observation) -> str:
        """ToM update when due, then the plan's next legal subgoal, else an action call."""
        game, legal = observation.view, list(observation.legal_actions)
        if self.tom_due:
            self.tom_due = False
            if self.options.variant == "vmp":
                if self.observed_log:
                    await self._vanilla(game, legal)
                else:
                    self._note_nothing_observed()
            else:
                await self._modular(game, legal)
        return await self.follow_plan(observation, self._observed_section())

    def _note_nothing_observed(self) -> None:
        partner = PLAYER_NAMES[1 - self.player]
        self.note_event("notes", f"hypothesis generation skipped: {partner} has not acted yet")

    # ------------------------------------------------------------------ memory sections

    def _observed_section(self) -> str:
        partner = PLAYER_NAMES[1 - self.player]
        if not self.observed_log:
            return f"Observed behaviour of {partner}: nothing yet."
        marks = {True: " (as I predicted)", False: " (not as I predicted)", None: ""}
        window, seen = self.options.history_window, len(self.observed_log)
        shown = self.observed_log if window is None else self.observed_log[-window:]
        lines = [f"- {behaviour}{marks[predicted]}" for behaviour, predicted in shown]
        which = "" if len(shown) == seen else f"the latest {len(shown)} of {seen}, "
        return f"Observed behaviour of {partner} ({which}oldest first):\n" + "\n".join(lines)

    def plan_section(self) -> str:
        """The hypothesis the plan rests on, with its status, then the plan."""
        hypothesis = self._plan_hypothesis()
        partner = PLAYER_NAMES[1 - self.player]
        parts = []
        if hypothesis is not None:
            status = "validated" if self.book.validated() is hypothesis else "not yet validated"
            about = "Hypothesis in use" if self.rewards is not None else f"{partner}'s strategy"
            parts.append(f"{about} (my hypothesis, {status}): {hypothesis.text}")
        parts.append(super().plan_section())
        return "\n".join(part for part in parts if part)

    def _memory(self, game: SeatView) -> str:
        return self.memory(game, self._observed_section())

    def _plan_hypothesis(self) -> Hypothesis | None:
        if self.options.evaluate:
            return self.book.for_plan()
        return self.book.hypotheses[-1] if self.book.hypotheses else None

    # ------------------------------------------------------------------ the ToM module

    async def _modular(self, game: SeatView, legal: list[str]) -> None:
        """Generation (unless validated), predictions or rewards, plan: separate calls."""
        if self.rewards is not None:
            await self.rewards.score(game, self._memory(game))
            self._note_first_validation(game.turn)
        validated = self.options.evaluate and self.book.validated() is not None
        if not validated and self.observed_log:
            await self._generate(game)
        elif not validated:
            self._note_nothing_observed()
        primary = self._plan_hypothesis()
        if self.rewards is not None:
            others = self.book.others(primary)
            await self.rewards.begin(game, legal, self._memory(game), primary, others)
        else:
            await self._predict_all(game, primary)
        await self._plan(game, legal, primary)

    async def _predict_all(self, game: SeatView, primary: Hypothesis | None) -> None:
        if self.options.evaluate:
            predictors = self.book.predictors()
        else:
            predictors = self.book.hypotheses[-1:]
        options = self.behaviour.options(game, self.player)
        made = await asyncio.gather(
            *(self._predict(game, h, options, h is primary) for h in predictors)
        )
        self.pending = [p for p in made if p is not None]

    def _add_hypothesis(self, text: str) -> Hypothesis:
        self._stats.hypotheses_generated += 1
        return self.book.add(text, self.decision)

    async def _generate(self, game: SeatView) -> None:
        shown = self.book.for_refinement() if self.options.refine else []
        messages = prompts.hypothesis_messages(
            self.long_term_memory(game),
            self._memory(game),
            [(h.text, h.value) for h in shown],
            mind_prompting=self.options.variant != "he_hr",
        )
        next_id = len(self.book.hypotheses)

        def read(reply: Reply) -> tuple[str | None, HypothesisPayload]:
            text = section(reply.text, "hypothesis")
            return text, HypothesisPayload(
                hypothesis_id=next_id if text else None,
                hypothesis=text,
                refining=[h.id for h in shown],
            )

        text = await self.ask_labelled("hypothesis", messages, read, "no new hypothesis")
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
            predicted = choice.pick(options)
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

    async def _plan(self, game: SeatView, legal: list[str], hypothesis: Hypothesis | None) -> None:
        reflection = await self.reflect(game, self._memory(game))
        note = f"Reflection on my last plan: {reflection}" if reflection else ""
        memory = self.memory(game, self._observed_section(), note)
        text, conditioned = (None, None) if hypothesis is None else (hypothesis.text, hypothesis.id)
        condition: prompts.PlanCondition = (
            "hypothesis" if self.options.variant == "he_hr" else "partner"
        )
        await self.make_plan(game, legal, memory, text, conditioned, condition)

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

        def read(reply: Reply) -> tuple[VanillaPayload | None, VanillaPayload]:
            choice = choose(reply.text, options)
            hypothesis = section(reply.text, "hypothesis")
            parsed = VanillaPayload(
                hypothesis_id=next_id if hypothesis else None,
                options=options,
                choice=choice,
                hypothesis=hypothesis,
                predicted=choice.pick(options),
                plan=section(reply.text, "plan"),
                subgoals=subgoals(reply.text),
            )
            return (parsed if hypothesis else None), parsed

        fallback = "no hypothesis, prediction or plan at this update"
        parsed = await self.ask_labelled("vanilla", messages, read, fallback)
        if parsed is None:
            return
        self.plan, self.subgoals = parsed.plan, list(parsed.subgoals)
        added = self._add_hypothesis(parsed.hypothesis) if parsed.hypothesis else None
        if parsed.predicted is not None:
            self.pending = [Prediction(None if added is None else added.id, parsed.predicted, True)]
