"""k-level Theory of Mind for CAC (Shao et al., level-k reasoning about the partner's beliefs).

Level 0 is CAC's ToM call alone (it interprets the partner's last action). Level 1 adds a
prediction of the partner's next behaviour, reasoned from the partner's point of view (role
``partner_predict``). Level 2 first asks what the partner believes this agent will do (role
``partner_belief``, a lettered choice among the agent's own offered actions), then predicts the
partner's next behaviour given that belief. Both answers join the ToM notes of the action call.

Predictions are lettered choices among the partner's behaviours of
:mod:`~coordqa.agentic.agents.features` (the spaces HM predicts in: each Hanabi move, the kind of
each completed Overcooked object action, each Collab action), so code scores them against what the
partner then does, and CAC's prediction accuracy is comparable with HM's. The paper's nested JSON
answer is replaced by separate lettered calls for that reason.

Decisions this module makes:

- A prediction is made only when none is pending: it is scored at the partner's next observed
  behaviour, and a new one is asked at the agent's next decision after that (HM's schedule).
  Predictions are made from the first decision on (the partner's next move is predictable
  before it has moved once); an unreadable prediction reply leaves nothing pending.
- Level 2's belief is checked against the action this agent then takes in the same decision
  (``expectations_met`` of ``expectations_scored``): how often the agent does what it thinks
  the partner expects, the belief-action alignment of level 2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.features import behaviour_for
from coordqa.agentic.agents.memory import offered_options
from coordqa.agentic.agents.services import AgentServices
from coordqa.agentic.records import Expectation, LevelScore, OptionPickPayload
from coordqa.choices import choose
from coordqa.errors import ConfigError
from coordqa.games.base import PLAYER_NAMES, StepResult
from coordqa.games.seat import SeatView
from coordqa.llm import Reply

TOM_LEVELS = (0, 1, 2)
"""The ToM levels CAC offers."""


def check_level(level: object) -> int:
    """Return ``level`` if it is one of :data:`TOM_LEVELS`.

    Raises:
        ConfigError: any other value, naming the levels.
    """
    if isinstance(level, bool) or level not in TOM_LEVELS:
        raise ConfigError(
            f"tom_level must be 0, 1 or 2 (0: interpret the partner's last action; 1: also "
            f"predict its next action; 2: also infer what it expects of me), got {level!r}"
        )
    return int(level)  # type: ignore[call-overload]


@dataclass(frozen=True)
class LevelPrediction:
    """A pending k-level prediction."""

    level: int
    """The ToM level that made it."""
    behaviour: str
    """The predicted partner behaviour (an option text)."""
    decision: int
    """The agent's decision at which it was made."""


class PartnerPredictor:
    """One agent's k-level predictions of its partner, over one episode."""

    def __init__(self, agent: AgentServices, level: int) -> None:
        """Predict for ``agent`` at ``level`` (1 or 2; level 0 makes no prediction)."""
        self.agent = agent
        self.level = check_level(level)
        self.behaviour = behaviour_for(agent.game_name)
        self.pending: LevelPrediction | None = None
        self.expected_of_me: str | None = None

    def reset(self, game: SeatView, player: int) -> None:
        """Start a new episode."""
        self.behaviour.reset(game, player)
        self.pending = None
        self.expected_of_me = None

    async def predict(self, game: SeatView, legal: list[str]) -> list[str]:
        """Make this decision's predictions when none is pending; their notes for the prompt."""
        self.expected_of_me = None
        if self.level == 0 or self.pending is not None:
            return []
        agent, partner = self.agent, PLAYER_NAMES[1 - self.agent.player]
        memory = agent.memory(game)
        description = agent.long_term_memory(game)
        notes = []
        if self.level == 2:
            options = offered_options(agent.game_name, legal)
            messages = prompts.level_belief_messages(description, memory, partner, options)
            _, self.expected_of_me = await agent.ask("partner_belief", messages, _reader(options))
            if self.expected_of_me is not None:
                notes.append(f"{partner} expects me to: {self.expected_of_me}.")
        behaviours = self.behaviour.options(game, agent.player)
        question = self.behaviour.question(agent.player)
        messages = prompts.level_predict_messages(
            description, memory, question, behaviours, self.expected_of_me
        )
        _, predicted = await agent.ask("partner_predict", messages, _reader(behaviours))
        if predicted is not None:
            self.pending = LevelPrediction(self.level, predicted, agent.decision)
            notes.append(f"I predict {partner}'s next behaviour: {predicted}.")
        return notes

    def took(self, action: str) -> None:
        """Check level 2's belief against the action the agent took in this decision."""
        if self.expected_of_me is None:
            return
        met = action == self.expected_of_me
        self.agent.counters.count_expectation(met)
        self.agent.note_event(
            "expectation", Expectation(expected=self.expected_of_me, taken=action, met=met)
        )
        self.expected_of_me = None

    def observe(self, game: SeatView, result: StepResult) -> None:
        """Score the pending prediction at the partner's next observed behaviour."""
        for behaviour in self.behaviour.observed(game, self.agent.player, result):
            if self.pending is None:
                continue
            correct = self.pending.behaviour == behaviour
            self.agent.counters.count_prediction(correct)
            self.agent.defer_event(
                "predictions_scored",
                LevelScore(
                    level=self.pending.level,
                    predicted=self.pending.behaviour,
                    observed=behaviour,
                    correct=correct,
                    made_at_decision=self.pending.decision,
                    turn=game.turn,
                ),
            )
            self.pending = None


def _reader(options: list[str]) -> Callable[[Reply], tuple[str | None, OptionPickPayload]]:
    """A parse function for :meth:`LLMAgent.ask`: the lettered option chosen, or None."""

    def read(reply: Reply) -> tuple[str | None, OptionPickPayload]:
        choice = choose(reply.text, options)
        picked = choice.pick(options)
        return picked, OptionPickPayload(options=options, choice=choice, predicted=picked)

    return read
