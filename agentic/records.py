"""The records of the agentic track: its agents' roles and payloads, decisions and episodes.

An agentic run's streams (:mod:`coordqa.agentic.episodes`) hold these records:

=====================  ==================================  ===================================
file                   record                              written by
=====================  ==================================  ===================================
``exchanges.jsonl``    an exchange of its role's type      every agent model call, and one
                       / :class:`Decision`                 :class:`Decision` per decision
``episodes.jsonl``     :class:`Episode`                    each finished episode
``failures.jsonl``     :class:`Failure`                    each episode that raised
=====================  ==================================  ===================================

An exchange is the core's generic :class:`coordqa.records.Exchange` (who asked, when, what was
sent and answered) plus its role's :class:`~coordqa.records.Payload` fields, flat in the record:
each role's record type is declared once here (:data:`EXCHANGE_TYPES`, whose ``role`` fields
name the roles) and registered into the core's registry of roles
(:data:`coordqa.records.EXCHANGE_ROLES`) by this package's ``coordqa.agent_roles`` entry point
(:data:`ROLES`). A plugin agent registers its own roles the same way, with no change here.

Run format 3 types every agent exchange by its role and every field of a :class:`Decision`;
none accepts fields it does not declare. Formats 1 and 2 recorded HM's single Vanilla Mind
Prompting call as role ``tom``: :func:`parse_record` reads it as ``vanilla`` (told from CAC's
ToM call by its plan).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import Field

from coordqa.choices import Choice
from coordqa.records import Exchange, Payload, Record, parse_exchange, roles_of
from coordqa.registry import Catalog

__all__ = [
    "AGENT_ROLES",
    "EXCHANGE_TYPES",
    "ROLES",
    "ActionExchange",
    "ActionPayload",
    "AgentRecord",
    "BeliefCheck",
    "BeliefExchange",
    "BeliefPayload",
    "Decision",
    "Episode",
    "Expectation",
    "FailedAction",
    "Failure",
    "Fallback",
    "FallbackReason",
    "HypothesisExchange",
    "HypothesisPayload",
    "HypothesisScore",
    "Judgement",
    "JudgementExchange",
    "JudgementPayload",
    "LadderExchange",
    "LadderPayload",
    "LevelExchange",
    "LevelScore",
    "OptionPickPayload",
    "PlanExchange",
    "PlanPayload",
    "PolicyAgreement",
    "PredictExchange",
    "PredictPayload",
    "Recorder",
    "ReflectionExchange",
    "ReflectionPayload",
    "Rejection",
    "TargetExchange",
    "TargetPayload",
    "TomExchange",
    "TomPayload",
    "ValueUpdate",
    "VanillaExchange",
    "VanillaPayload",
    "VerifierExchange",
    "VerifierPayload",
    "parse_record",
]

# -- the payload of each role -------------------------------------------------------------------


class ActionPayload(Payload):
    """An action call (or its format reminder): the lettered options and the one read."""

    options: list[str]
    """The legal actions offered, in letter order."""
    choice: Choice | None
    """How the reply was read (None when the call failed)."""
    action: str | None
    """The action chosen (None when the reply named no single option)."""


class VerifierPayload(Payload):
    """A verifier call (CAC): the proposal checked and the verdict read."""

    verdict: Literal["okay", "not_okay", "missing"]
    """The verdict of the last "Verification:" line; ``missing`` when there was none."""
    proposed_action: str
    """The action the verifier was asked about."""


class TomPayload(Payload):
    """A Theory of Mind call (CAC): the partner's action it interprets."""

    partner_last_action: str
    """The partner's last action, as shown to the model."""


class HypothesisPayload(Payload):
    """A hypothesis generation call (HM)."""

    hypothesis_id: int | None
    """The id the new hypothesis got (None when the reply held none)."""
    hypothesis: str | None
    """The hypothesis read from the reply."""
    refining: list[int]
    """Ids of the earlier hypotheses shown to refine."""


class OptionPickPayload(Payload):
    """A call that picks one lettered option that is not an action (k-level ToM predictions)."""

    options: list[str]
    """The options offered, in letter order."""
    choice: Choice
    """How the reply was read."""
    predicted: str | None
    """The option read (None when the reply named no single option)."""


class PredictPayload(OptionPickPayload):
    """A prediction of the partner's next behaviour by one hypothesis (HM)."""

    hypothesis_id: int
    """The predicting hypothesis."""
    hypothesis_value: float
    """Its value when it predicted."""
    primary: bool
    """Whether it is the prediction of the plan's hypothesis (counted for accuracy)."""


class PlanPayload(Payload):
    """A plan call (HM, PlanReAct), its subgoal call, or a ReAct call.

    The plan call gives the strategy, the subgoal call the subgoals for it, a ReAct call both
    (a thought and subgoals).
    """

    hypothesis_id: int | None
    """The hypothesis the plan is conditioned on (None: none yet)."""
    plan: str | None
    """The plan read from the reply (a subgoal call: the plan it was given)."""
    subgoals: list[str]
    """The subgoals, in order (a plan call: none, the subgoal call lists them)."""


class TargetPayload(Payload):
    """HM's HE + HR: the action a hypothesis would have the agent take, before an interaction."""

    hypothesis_id: int
    """The hypothesis assumed."""
    hypothesis_value: float
    """Its value when asked."""
    options: list[str]
    """The agent's legal actions offered, in letter order."""
    choice: Choice
    """How the reply was read."""
    target: str | None
    """The action read (None when the reply named no single option)."""


Judgement = Literal["positive", "neutral", "negative"]
"""HE + HR's verdict on a counterfactual target: better, the same, worse than what was done."""


class JudgementPayload(Payload):
    """HM's HE + HR: whether a hypothesis' target would have gone better (after the interaction)."""

    hypothesis_id: int
    """The hypothesis judged."""
    target: str
    """The action it would have had the agent take."""
    taken: list[str]
    """What the agent did instead, since the target was asked."""
    options: list[str]
    """The three verdicts offered, in letter order."""
    choice: Choice
    """How the reply was read."""
    judgement: Judgement | None
    """The verdict read (None when the reply named no single option: no value update)."""


class VanillaPayload(Payload):
    """HM's single Vanilla Mind Prompting call: hypothesis, prediction and plan at once."""

    hypothesis_id: int | None
    """The id the hypothesis got (None when the reply held none)."""
    options: list[str]
    """The partner behaviours offered for the prediction."""
    choice: Choice
    """How the prediction was read."""
    hypothesis: str | None
    """The hypothesis read."""
    predicted: str | None
    """The predicted partner behaviour."""
    plan: str | None
    """The plan read."""
    subgoals: list[str]
    """The subgoals, in order."""


class BeliefCheck(Record):
    """One checkable fact of a belief against the engine's truth."""

    fact: str
    """The fact's label (``Bob's room``)."""
    believed: str | None
    """What the belief says (normalised); None when the line is missing or unreadable."""
    truth: str
    """The engine's value (normalised)."""
    correct: bool
    """Whether the belief says the truth."""


class BeliefPayload(Payload):
    """A belief-state update: the new belief and its facts checked."""

    belief: str
    """The belief text (bounded)."""
    belief_checks: list[BeliefCheck]
    """Each checkable fact against the engine."""


class ReflectionPayload(Payload):
    """An HM self-reflection on a plan that changed nothing."""

    reflection: str
    """The reflection read."""


class LadderPayload(Payload):
    """A ToM question-ladder side call: never shown to play."""

    side_call: Literal[True] = True
    """Always true: the answer does not reach the agent's decisions."""
    order: str
    """introspection, first_order or second_order."""
    question: str
    """The yes/no question."""
    options: list[str]
    """``["Yes", "No"]``."""
    choice: Choice
    """How the reply was read."""
    truth: bool
    """The engine's answer."""
    correct: bool
    """Whether the reply said the engine's answer."""


# -- one record type per role -------------------------------------------------------------------


class ActionExchange(Exchange, ActionPayload):
    """An action call, or the one re-ask with a format reminder."""

    role: Literal["action", "reprompt"]


class VerifierExchange(Exchange, VerifierPayload):
    """A verifier call."""

    role: Literal["verifier"]


class TomExchange(Exchange, TomPayload):
    """A CAC Theory of Mind call."""

    role: Literal["tom"]


class HypothesisExchange(Exchange, HypothesisPayload):
    """An HM hypothesis generation."""

    role: Literal["hypothesis"]


class PredictExchange(Exchange, PredictPayload):
    """An HM prediction by one hypothesis."""

    role: Literal["predict"]


class PlanExchange(Exchange, PlanPayload):
    """An HM or PlanReAct plan, or a ReAct call."""

    role: Literal["plan", "subgoals", "react"]


class TargetExchange(Exchange, TargetPayload):
    """An HE + HR target call."""

    role: Literal["target"]


class JudgementExchange(Exchange, JudgementPayload):
    """An HE + HR judgement call."""

    role: Literal["judgement"]


class VanillaExchange(Exchange, VanillaPayload):
    """HM's Vanilla Mind Prompting call (variant ``vmp``)."""

    role: Literal["vanilla"]


class LevelExchange(Exchange, OptionPickPayload):
    """A k-level ToM call: the partner's next behaviour, or what the partner expects of me."""

    role: Literal["partner_predict", "partner_belief"]


class BeliefExchange(Exchange, BeliefPayload):
    """A belief-state update."""

    role: Literal["belief"]


class ReflectionExchange(Exchange, ReflectionPayload):
    """An HM self-reflection."""

    role: Literal["reflection"]


class LadderExchange(Exchange, LadderPayload):
    """A ToM question-ladder side call."""

    role: Literal["ladder"]


EXCHANGE_TYPES: tuple[type[Exchange], ...] = (
    TomExchange,
    ActionExchange,
    VerifierExchange,
    HypothesisExchange,
    PredictExchange,
    PlanExchange,
    TargetExchange,
    JudgementExchange,
    VanillaExchange,
    LevelExchange,
    BeliefExchange,
    ReflectionExchange,
    LadderExchange,
)
"""The record type of every role of coordqa's agents, in the order a decision makes them (the
one list of them: each type's ``role`` field names its roles)."""

AGENT_ROLES: tuple[str, ...] = tuple(role for cls in EXCHANGE_TYPES for role in roles_of(cls))
"""Every role of coordqa's agents (the ``role`` of an exchange), in that order."""

ROLES: Catalog[type[Exchange]] = Catalog(
    {role: cls for cls in EXCHANGE_TYPES for role in roles_of(cls)}
)
"""Role -> its record type: what this package's ``coordqa.agent_roles`` entry point registers
into :data:`coordqa.records.EXCHANGE_ROLES`."""


# -- decisions ----------------------------------------------------------------------------------

FallbackReason = Literal["unreadable", "model_error", "verifier_cap", "no_options"]
"""Why an agent fell back to its game's safe action (``model_error``: stored runs only)."""


class Fallback(Record):
    """An agent's fallback to its game's safe action."""

    reason: FallbackReason
    """Why the model's choice could not stand: ``unreadable``, ``verifier_cap`` or
    ``no_options`` (``model_error`` only in runs made before a failed model call failed its
    episode instead)."""
    detail: str
    """What went wrong, in words."""
    action: str
    """The safe action taken."""
    note: str | None = None
    """``every legal action was to be avoided`` when the fallback had to pick among actions
    the verifier had rejected."""


class Rejection(Record):
    """A proposal the verifier rejected."""

    action: str
    """The action rejected."""
    reason: str
    """The verifier's explanation."""


class FailedAction(Record):
    """An action of the agent's that the game could not complete."""

    action: str
    """The action."""
    reason: str
    """Why it failed (blocked, became impossible...)."""


class HypothesisScore(Record):
    """An HM prediction scored against the partner's observed behaviour."""

    hypothesis: int | None
    """The predicting hypothesis (None when generation failed in the single-call variant)."""
    predicted: str
    """The predicted behaviour."""
    observed: str
    """The behaviour observed."""
    correct: bool
    """Whether they are the same."""
    primary: bool
    """Whether it was the plan's hypothesis (counted for accuracy)."""
    turn: int | None
    """The game's turn when it was observed."""
    value_before: float | None = None
    """The hypothesis' value before the update (variants that evaluate)."""
    value_after: float | None = None
    """Its value after the Rescorla-Wagner update."""


class ValueUpdate(Record):
    """HM's HE + HR: a hypothesis value moved by a reward (Rescorla-Wagner)."""

    hypothesis: int
    """The hypothesis."""
    source: Literal["extrinsic", "counterfactual"]
    """The game's reward to the hypothesis in use, or the judgement of another's target."""
    reward: float
    """The reward of the update."""
    value_before: float
    """The value before."""
    value_after: float
    """The value after."""
    turn: int | None
    """The game's turn when it was scored."""


class LevelScore(Record):
    """A k-level ToM prediction scored against the partner's observed behaviour."""

    level: int
    """The ToM level that predicted."""
    predicted: str
    """The predicted behaviour."""
    observed: str
    """The behaviour observed."""
    correct: bool
    """Whether they are the same."""
    made_at_decision: int
    """The agent's decision at which it was made."""
    turn: int | None
    """The game's turn when it was observed."""


class Expectation(Record):
    """Level-2 ToM: what the partner was believed to expect of the agent, against its action."""

    expected: str
    """The action the partner was believed to expect."""
    taken: str
    """The action the agent took."""
    met: bool
    """Whether they are the same."""


class Decision(Record):
    """What an agent did at one decision (``exchanges.jsonl``, ``kind: events``).

    The action, whether it was a fallback and why, and what the agent noted while deciding
    (each list empty when the agent noted nothing of its kind).
    """

    kind: Literal["events"] = "events"
    """Discriminator of the exchanges stream."""
    role: Literal["events"] = "events"
    """Always ``events``."""
    agent: str
    """Player registry name of the agent."""
    agent_version: str | None = None
    """Version of the agent's behaviour (None in records of agents that had none)."""
    player: int
    """The seat the agent was reset with."""
    decision: int
    """The agent's decision counter."""
    turn: int | None = None
    """The game's turn or timestep."""
    action: str | None = None
    """The action taken (None for the record closing an episode)."""
    fallback: Fallback | None = None
    """Why the safe fallback action was taken; None when the model's choice stood."""
    forced: bool = False
    """The only legal action was taken without asking the model."""
    repeated: bool = False
    """The state, legal actions and action repeat the previous decision's."""
    final: bool = False
    """The record closing an episode (what happened after the agent's last decision)."""
    verifier_rejections: list[Rejection] = Field(default_factory=list)
    """Proposals the verifier rejected (CAC)."""
    notes: list[str] = Field(default_factory=list)
    """Remarks in words (a skipped call, a dropped plan, a missing verdict)."""
    failed_actions: list[FailedAction] = Field(default_factory=list)
    """The agent's actions the game could not complete since its last decision."""
    predictions_scored: list[HypothesisScore | LevelScore] = Field(default_factory=list)
    """Predictions scored since the last decision (HM hypotheses, k-level ToM)."""
    values_updated: list[ValueUpdate] = Field(default_factory=list)
    """HE + HR hypothesis values moved by rewards at this decision."""
    subgoals: list[str] = Field(default_factory=list)
    """The HM plan's subgoal taken as the action."""
    belief_accuracy: list[float] = Field(default_factory=list)
    """The fraction of checkable facts the belief state got right."""
    expectation: list[Expectation] = Field(default_factory=list)
    """Level-2 ToM expectations checked against the action taken."""
    episode: str | None = None
    """Key of the episode (stamped by the match)."""
    attempt: str | None = None
    """Id of the attempt that played the episode."""
    seat: int | None = None
    """Seat of the agent in the episode."""
    step: int | None = None
    """Trajectory step of the decision."""


AgentRecord = Exchange | Decision
"""A line of ``exchanges.jsonl``."""

Recorder = Callable[[AgentRecord], None]
"""What an agent hands each record to as it makes it (one per model call, one per decision)."""


def parse_record(data: Mapping[str, Any], where: str = "") -> AgentRecord:
    """A line of ``exchanges.jsonl``: a :class:`Decision`, or the exchange type of its role.

    A format 1 or 2 Vanilla Mind Prompting call (role ``tom`` with a plan) reads as
    ``vanilla``.

    Raises:
        StoreError: the line is neither (an unknown role, a field its type does not declare).
    """
    if data.get("kind") == "events":
        return Decision.from_json(data, where)
    if data.get("role") == "tom" and "plan" in data:
        data = {**data, "role": "vanilla"}
    return parse_exchange(data, where)


# -- episodes -----------------------------------------------------------------------------------


class PolicyAgreement(Record):
    """How often an agent's seat chose what the game's strong policy would have chosen."""

    policy: str
    """The strong policy compared with (the game profile's ``strong_policy``)."""
    decisions: int
    """The seat's decisions with more than one legal action, while the policy ran."""
    agreed: int
    """Those where the agent's action was the policy's."""
    error: str | None = None
    """Why the policy stopped before the episode ended (it failed on a state the agent reached);
    None when it followed the whole episode."""


class Episode(Record):
    """One finished agentic episode (``episodes.jsonl``).

    ``spec`` and ``trajectory`` are validated by the agentic track, which owns their types
    (:class:`coordqa.agentic.EpisodeSpec`, :class:`coordqa.games.episode.Trajectory`).
    """

    key: str
    """The spec's key, unique in the run."""
    spec: dict[str, Any]
    """The episode spec as JSON."""
    attempt: str
    """Id of the attempt that played it (links it to its exchanges)."""
    trajectory: dict[str, Any]
    """The trajectory as JSON."""
    score: float
    """The game's final score."""
    metrics: dict[str, float]
    """The game's final metrics."""
    agent_stats: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Seat (as a string) -> the player's ``stats()``."""
    decisions: dict[str, int] = Field(default_factory=dict)
    """Seat (as a string) -> decisions in the trajectory."""
    agreement: dict[str, PolicyAgreement] = Field(default_factory=dict)
    """Seat (as a string) of an LLM agent -> its agreement with the game's strong policy (empty
    in runs made before it was measured, and for games with no strong policy)."""
    wall_s: float | None = None
    """Wall-clock seconds the episode took."""


class Failure(Record):
    """An episode that raised instead of finishing (``failures.jsonl``): played again on resume."""

    key: str
    """The episode's key."""
    error: str
    """Exception type and message (for a failed model call: the role and the provider's
    words)."""
    error_kind: str | None = None
    """For a failed model call, the gateway's kind: ``failed``, ``fatal`` (refused) or
    ``unreachable``; ``not_ready`` for an episode skipped because a player is not ready (no
    weights); None for any other exception."""
