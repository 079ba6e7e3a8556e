"""HM's HE + HR variant: hypothesis values from reward (Hypothetical Minds, appendix F).

In Hypothesis Evaluation + Hypothesis Refinement the values of HM's hypotheses come from reward,
not from predicting the partner. An *interaction* runs from one ToM update to the next (the
partner's next behaviour, as HM schedules its updates). At each update:

- the hypothesis **in use** during the last interaction (the one that conditioned the plan: the
  validated one, else the best-valued kept one, the newest among equals) is scored by the
  **extrinsic reward** of that interaction: the points the team scored in it, in the game's
  scoring unit (``GameProfile.reward_unit``: a soup in Overcooked, a card in Hanabi, the win in
  the Collab games), times ``extrinsic_scale``;
- every **other kept hypothesis** (the newest and the top-k earlier ones by value, none while
  one is validated) gets a **counterfactual reward** from two model calls: before the
  interaction, the action it would have the agent take (role ``target``; the paper asks for an
  inventory, here one of the legal actions); after it, whether taking that action would have
  gone better than what the agent did (role ``judgement``): positive, neutral or negative, +c, 0
  or -c. A judgement that names none of the three leaves the value as it is (recorded).

Values move by the same Rescorla-Wagner rule as in HM; the paper's constants are alpha 0.3,
c = 3.0, V_thr = 3.0, top_k 5 (:class:`~coordqa.agentic.agents.hm.HMOptions` takes them as the
variant's defaults).

Three decisions the paper leaves open:

- **Which hypothesis is in use.** The appendix scores "the hypothesis used online for goal
  selection" by extrinsic reward, and its code note allows "The highest value hypothesis could
  also be used". coordqa uses the best-valued kept one (the newest while all are equal, as HM
  uses the latest generated): a new hypothesis starts at 0, so the one in use stays in use while
  it is the best valued and collects extrinsic reward over several interactions. Using the
  newest (HM's rule) would put every new hypothesis in use at once, so no hypothesis would ever
  be scored by more than one interaction (measured before: 1 extrinsic update per hypothesis in
  288 of 293 Hanabi and 141 of 141 Overcooked hypotheses, ``benchmarks/bench_he_hr.py``).
- **Reaching V_thr = c.** Rescorla-Wagner moves a value towards its reward and never past it:
  a hypothesis judged positive n times in a row from 0 has 3 (1 - 0.7^n), which never reaches
  3.0. coordqa keeps the paper's rule (validated when V >= V_thr, no tolerance), so only the
  hypothesis in use can be validated, through extrinsic rewards larger than c; counterfactual
  scores rank the other hypotheses for refinement and for taking over the plan, and never
  validate one. That is the paper's own consequence whenever its environment pays more than
  c for an interaction.
- **Scaling the extrinsic reward** (``extrinsic_scale``, default :data:`EXTRINSIC_SCALE`): 5 per
  scoring unit, so one soup, card or win is worth more than a counterfactual +c (3). The routes
  to V_thr: three scoring interactions in a row from 0 while in use (1.5, 2.55, 3.285 >= 3), or
  one scoring interaction of a hypothesis that took over with a value above
  (3 - 0.3 x 5) / 0.7 = 2.14 (reached by positive judgements); an interaction that scores
  nothing pulls the one in use towards 0 (x 0.7).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Literal, Protocol

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.hypotheses import Hypothesis, HypothesisBook
from coordqa.agentic.agents.services import AgentServices
from coordqa.agentic.records import Judgement, JudgementPayload, TargetPayload, ValueUpdate
from coordqa.choices import choose, format_options
from coordqa.games.base import game_profile
from coordqa.games.seat import SeatView
from coordqa.llm import Message, Reply
from coordqa.prompts import MARKERS

Source = Literal["extrinsic", "counterfactual"]
"""Where a value update's reward came from."""

EXTRINSIC_SCALE = 5.0
"""The default reward of one scoring unit to the hypothesis in use (above c = 3)."""

JUDGEMENTS: tuple[tuple[Judgement, str], ...] = (
    ("positive", "Better: it would have helped the team more than what I did"),
    ("neutral", "About the same as what I did"),
    ("negative", "Worse: it would have helped the team less than what I did"),
)
"""The judgement's lettered options, with the verdict each stands for."""

TARGET_DIRECTIVE = (
    "You are the planning module of an agent playing a cooperative game with a partner. Assume "
    "the given hypothesis is true, and choose the action you would take now.\n"
    "Reply in exactly this format:\nExplanation: <one sentence>\nAnswer: <one letter>"
)
"""System prompt of HE + HR's target call."""

JUDGEMENT_DIRECTIVE = (
    "You are the evaluation module of an agent playing a cooperative game with a partner. "
    "Earlier, under another hypothesis, you would have taken another action than the one you "
    "took. From what has happened since, judge whether taking it would have gone "
    "better for the team than what you did, about the same, or worse.\n"
    "Reply in exactly this format:\nExplanation: <one sentence>\nAnswer: <one letter>"
)
"""System prompt of HE + HR's judgement call."""


class RewardedAgent(AgentServices, Protocol):
    """What HE + HR needs of the agent: its services and its hypotheses."""

    book: HypothesisBook


@dataclass(frozen=True)
class Target:
    """The action a hypothesis would have the agent take, asked before an interaction."""

    hypothesis: int
    """The hypothesis."""
    action: str
    """The action."""
    acted: int
    """How many actions the agent had completed when it was asked."""


@dataclass
class InUse:
    """The hypothesis that conditioned the plan of the current interaction."""

    hypothesis: int
    """Its id."""
    points: float
    """The team's score when the interaction began."""


class RewardEvaluation:
    """HE + HR's scoring of one agent's hypotheses over one episode."""

    def __init__(self, agent: RewardedAgent, c: float, extrinsic_scale: float) -> None:
        """Score ``agent``'s hypotheses with counterfactual reward ``c`` and ``extrinsic_scale``."""
        self.agent, self.c, self.extrinsic_scale = agent, c, extrinsic_scale
        self.unit = game_profile(agent.game_name).agents.reward_unit
        self.in_use: InUse | None = None
        self.targets: list[Target] = []

    async def score(self, game: SeatView, memory: str) -> None:
        """Reward the last interaction's hypotheses: extrinsic for the one in use, judged others.

        ``memory`` is the agent's memory now (what the judgements see).
        """
        if self.in_use is not None:
            gained = (game.score() - self.in_use.points) / self.unit
            self._update(self.in_use.hypothesis, "extrinsic", self.extrinsic_scale * gained, game)
        targets, self.targets = self.targets, []
        judged = await asyncio.gather(*(self._judge(game, memory, t) for t in targets))
        for target, judgement in zip(targets, judged, strict=True):
            if judgement is not None:
                rewards = {"positive": self.c, "neutral": 0.0, "negative": -self.c}
                self._update(target.hypothesis, "counterfactual", rewards[judgement], game)

    async def begin(
        self,
        game: SeatView,
        legal: list[str],
        memory: str,
        in_use: Hypothesis | None,
        others: list[Hypothesis],
    ) -> None:
        """Start an interaction: note the hypothesis in use, ask each other one for its target."""
        self.in_use = None if in_use is None else InUse(in_use.id, game.score())
        acted = len(game.last_actions(self.agent.player))
        asked = await asyncio.gather(*(self._target(game, legal, memory, h) for h in others))
        self.targets = [
            Target(h.id, action, acted)
            for h, action in zip(others, asked, strict=True)
            if action is not None
        ]

    def _update(self, hypothesis: int, source: Source, reward: float, game: SeatView) -> None:
        book = self.agent.book
        before = book.get(hypothesis).value
        after = book.reward(hypothesis, reward, self.agent.decision)
        update = ValueUpdate(
            hypothesis=hypothesis,
            source=source,
            reward=reward,
            value_before=before,
            value_after=after,
            turn=game.turn,
        )
        self.agent.note_event("values_updated", update)

    async def _target(
        self, game: SeatView, legal: list[str], memory: str, hypothesis: Hypothesis
    ) -> str | None:
        text = (
            f"{memory.strip()}\n\nAssume this hypothesis is true: {hypothesis.text}\n\n"
            "Which action would you take now?\n\n"
            f"{MARKERS['JP']}\n{format_options(legal)}"
        )
        messages = self._conversation(game, TARGET_DIRECTIVE, text)

        def read(reply: Reply) -> tuple[str | None, TargetPayload]:
            choice = choose(reply.text, legal)
            target = choice.pick(legal)
            return target, TargetPayload(
                hypothesis_id=hypothesis.id,
                hypothesis_value=hypothesis.value,
                options=legal,
                choice=choice,
                target=target,
            )

        _, target = await self.agent.ask("target", messages, read)
        return target

    async def _judge(self, game: SeatView, memory: str, target: Target) -> Judgement | None:
        taken = game.last_actions(self.agent.player)[target.acted :]
        hypothesis = self.agent.book.get(target.hypothesis)
        options = [text for _, text in JUDGEMENTS]
        did = "; ".join(taken) or "nothing yet"
        text = (
            f"{memory.strip()}\n\nUnder this hypothesis: {hypothesis.text}\n"
            f"you would have taken: {target.action}\nWhat you did instead: "
            f"{did}\n\nWould taking that action have gone better for the team?\n\n"
            f"{MARKERS['ToM']}\n{format_options(options)}"
        )
        messages = self._conversation(game, JUDGEMENT_DIRECTIVE, text)

        def read(reply: Reply) -> tuple[Judgement | None, JudgementPayload]:
            choice = choose(reply.text, options)
            judgement = choice.pick([j for j, _ in JUDGEMENTS])
            return judgement, JudgementPayload(
                hypothesis_id=target.hypothesis,
                target=target.action,
                taken=taken,
                options=options,
                choice=choice,
                judgement=judgement,
            )

        _, judgement = await self.agent.ask("judgement", messages, read)
        return judgement

    def _conversation(self, game: SeatView, directive: str, text: str) -> list[Message]:
        return prompts.conversation(directive, self.agent.long_term_memory(game), text)
