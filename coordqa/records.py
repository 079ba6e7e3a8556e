"""The records of a run directory, defined once: what each line of each stream holds.

Every stream of a run (:mod:`coordqa.store`) holds one record type, written with
:meth:`Record.to_json` and read back with :meth:`Record.from_json` (which validates it):

=====================  ==================  ==================================================
file                   record              written by
=====================  ==================  ==================================================
``questions.jsonl``    :class:`Question`   ``coordqa eval``, each question once
``calls.jsonl``        :class:`QACall`     ``coordqa eval``, every model call as it returns
``scores.jsonl``       :class:`Sample`     ``coordqa score`` (and the end of ``eval``): the
                                           scored outcome of each (question, trial)
``exchanges.jsonl``    :class:`Exchange`   the agentic runner: every agent model call, and
                       / :class:`Decision` one :class:`Decision` record per agent decision
``episodes.jsonl``     :class:`Episode`    the agentic runner, each finished episode
``failures.jsonl``     :class:`Failure`    the agentic runner, each episode that raised
=====================  ==================  ==================================================

A model call is stored in one shape wherever it happens (:class:`CallResult`: ``text`` or
``error``, ``usage`` with tokens and cost, latency, attempts, cache): a QA call adds its key
(question, trial), an agent's exchange adds who asked, when and what.

Run format 1 (coordqa before the records were typed) stored QA calls with flat token fields and
agent exchanges with ``reply`` instead of ``text``, and kept a second copy of every outcome in
``samples.jsonl`` that went stale when a run was re-scored. :func:`upgrade` reads those records
into today's types by their shape (a run resumed across the upgrade holds both shapes), and the
reader ignores ``samples.jsonl``: outcomes are always derived from the calls.

Run format 3 types every agent exchange by its role (:data:`AGENT_ROLES`: one record type per
role, :data:`EXCHANGE_TYPES`, with that role's :class:`Payload` fields) and every field of a
:class:`Decision`; none accepts fields it does not declare. Format 2 records already had those
fields, except that HM's single Vanilla Mind Prompting call was role ``tom``: :func:`upgrade`
renames it ``vanilla``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from coordqa.choices import Choice
from coordqa.errors import StoreError
from coordqa.jsonvalues import JSONObject
from coordqa.llm.types import Message, Reply

__all__ = [
    "STATUSES",
    "CallResult",
    "AGENT_ROLES",
    "ActionExchange",
    "AgentExchange",
    "AgentRecord",
    "AgentRole",
    "BeliefCheck",
    "Decision",
    "EXCHANGE_TYPES",
    "Episode",
    "Exchange",
    "Expectation",
    "FailedAction",
    "Failure",
    "Fallback",
    "FallbackReason",
    "HypothesisScore",
    "Judgement",
    "JudgementPayload",
    "LevelScore",
    "Payload",
    "ROLE_TYPES",
    "ActionPayload",
    "BeliefPayload",
    "HypothesisPayload",
    "LadderPayload",
    "OptionPickPayload",
    "PlanPayload",
    "PolicyAgreement",
    "PredictPayload",
    "ReflectionPayload",
    "TargetPayload",
    "TomPayload",
    "ValueUpdate",
    "VanillaPayload",
    "VerifierPayload",
    "Recorder",
    "Rejection",
    "exchange_of",
    "QACall",
    "Question",
    "Record",
    "Sample",
    "SampleKey",
    "Status",
    "TokenUsage",
    "call_result",
    "parse_exchange",
    "upgrade",
]

Status = Literal["answered", "ambiguous", "no_answer", "error"]
STATUSES: tuple[Status, ...] = ("answered", "ambiguous", "no_answer", "error")
"""Every outcome of a (question, trial); see :mod:`coordqa.analysis` for how each counts."""

SampleKey = tuple[str, int]
"""``(question_id, trial)``: the identity of a QA sample."""

_R = TypeVar("_R", bound="Record")


class Record(BaseModel):
    """A line of a run stream: validated when read, serialised one way when written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def to_json(self) -> JSONObject:
        """The JSON object written to the stream (the one serialiser of every record)."""
        return self.model_dump(mode="json")

    @classmethod
    def from_json(cls: type[_R], data: Mapping[str, Any], where: str = "") -> _R:
        """Validate a stored JSON object as this record.

        Raises:
            StoreError: the object does not have this record's fields (the message names the
                file when ``where`` is given, and the fields at fault).
        """
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in error['loc']) or 'record'}: {error['msg']}"
                for error in exc.errors()[:5]
            )
            raise _invalid(cls, where, problems) from exc
        except (LookupError, TypeError) as exc:  # a nested type's own checks (Choice)
            raise _invalid(cls, where, f"{type(exc).__name__}: {exc}") from exc


def _invalid(record: type[Record], where: str, problems: str) -> StoreError:
    place = f"{where}: " if where else ""
    return StoreError(
        f"{place}not a valid {record.__name__} record ({problems}); the file was written by "
        "another program or a newer coordqa"
    )


def _without_false(data: Any, flags: tuple[str, ...]) -> Any:
    """``data`` without the flags that are false.

    So records stored before a flag existed, and readers of that time, see the same lines as
    long as nothing was flagged.
    """
    if isinstance(data, dict):
        for flag in flags:
            if data.get(flag) is False:
                del data[flag]
    return data


class TokenUsage(Record):
    """Tokens and cost of one model call."""

    prompt_tokens: int = 0
    """Tokens sent."""
    completion_tokens: int = 0
    """Tokens received."""
    cost: float | None = None
    """US dollars; None when the price is unknown (never 0 for unknown)."""
    implausible: bool = False
    """The endpoint reported token counts that cannot be right (negative, not integers, more
    than the call could hold: :func:`coordqa.llm.bounds.checked_usage`); the tokens are stored
    as 0 and the cost as unknown. Written only when true."""

    @model_serializer(mode="wrap")
    def _flags_when_set(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_false(handler(self), ("implausible",))


class CallResult(Record):
    """The outcome of one model call, in the one shape QA calls and agent exchanges share."""

    text: str | None
    """The reply text; None when the call failed."""
    error: str | None = None
    """Why the call failed after its retries; None for a reply."""
    usage: TokenUsage = Field(default_factory=TokenUsage)
    """Tokens and cost (of the original call when the reply came from the cache)."""
    latency_s: float = 0.0
    """Wall time of the call, retries included."""
    attempts: int = 1
    """Attempts made (0 when served from the cache)."""
    cached: bool = False
    """Whether the reply came from the response cache."""
    model: str = ""
    """The model string that answered."""
    finish_reason: str | None = None
    """Why the model stopped, where the provider said (``stop``; ``length``: it hit the token
    cap, so an empty or cut reply asks for a higher ``--max-tokens``); None when it did not say
    (and in records stored before it was kept)."""
    truncated: bool = False
    """The reply was longer than :data:`coordqa.llm.bounds.MAX_REPLY_CHARS`: ``text`` holds its
    beginning and end, with a line saying how much was cut. Written only when true."""

    @model_serializer(mode="wrap")
    def _flags_when_set(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_false(handler(self), ("truncated",))

    @model_validator(mode="after")
    def _text_or_error(self) -> CallResult:
        if (self.text is None) == (self.error is None):
            raise ValueError("exactly one of 'text' (a reply) and 'error' (a failed call)")
        return self

    @property
    def ok(self) -> bool:
        """Whether the call produced a reply text."""
        return self.text is not None


def call_result(reply: Reply) -> CallResult:
    """The stored form of a gateway reply (a failed call keeps its error, never a text)."""
    return CallResult(
        text=reply.text if reply.ok else None,
        error=None if reply.ok else (reply.error or "no reply text"),
        usage=TokenUsage(
            prompt_tokens=reply.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens,
            cost=reply.usage.cost,
            implausible=bool(reply.usage.implausible_counts),
        ),
        latency_s=round(reply.latency_s, 6),
        attempts=reply.attempts,
        cached=reply.cached,
        model=reply.model,
        finish_reason=reply.finish_reason,
        truncated=reply.truncated,
    )


def _now() -> datetime:
    return datetime.now(timezone.utc)


class QACall(CallResult):
    """One model call of a QA run (``calls.jsonl``); a retried key's later call supersedes."""

    question_id: str
    """The question asked."""
    trial: int = Field(ge=0)
    """Trial index (0-based)."""
    prompt_hash: str
    """Hash of the messages sent (they are stored once, in ``questions.jsonl``)."""
    time: datetime = Field(default_factory=_now)
    """When the call returned (UTC)."""
    settings: str | None = None
    """Hash of the run settings that shape a reply (model, sampling parameters, model
    arguments, prompt layout...: :func:`coordqa.evaluation.reply_settings`). A resumed run
    counts a stored call only when they are its own; None in calls stored before it was kept
    (matched on their model and prompt alone)."""

    @property
    def key(self) -> SampleKey:
        """``(question_id, trial)``."""
        return (self.question_id, self.trial)

    @classmethod
    def of(
        cls,
        question_id: str,
        trial: int,
        prompt_hash: str,
        reply: Reply,
        settings: str | None = None,
    ) -> QACall:
        """The record of ``reply`` to ``question_id`` in ``trial``, asked with ``settings``."""
        return cls(
            question_id=question_id,
            trial=trial,
            prompt_hash=prompt_hash,
            settings=settings,
            **dict(call_result(reply)),
        )


QuestionType = Literal["EC", "ToM", "JP"]
"""Environment comprehension, theory of mind, joint planning: the kinds of question."""

QUESTION_TYPES: tuple[QuestionType, ...] = get_args(QuestionType)
"""The question types, in the order tables show them (the one list every module uses)."""


class Question(Record):
    """One question of a QA run (``questions.jsonl``): what scoring needs without the dataset."""

    question_id: str
    """Unique id."""
    scenario_id: str
    """The scenario the question was built from (EC, ToM and JP share one)."""
    game: str
    """Game registry name."""
    layout: str | None = None
    """Layout or map."""
    question_type: str
    """EC, ToM or JP."""
    options: list[str]
    """The lettered options, in order."""
    correct: list[int]
    """0-based indices of the correct options."""
    question_hash: str
    """Hash of the question content."""
    prompt_hash: str
    """Hash of the messages."""
    target_hash: str
    """Hash of the answer key."""
    messages: list[Message]
    """The chat messages sent."""


class Sample(Record):
    """The scored outcome of one (question, trial) (``scores.jsonl``), derived from its call.

    Derived, never appended: ``coordqa score`` rewrites every sample from the stored calls, so
    no copy can go stale.
    """

    question_id: str
    """The question."""
    scenario_id: str
    """Its scenario."""
    game: str
    """Its game."""
    question_type: str
    """EC, ToM or JP."""
    trial: int = Field(ge=0)
    """Trial index (0-based)."""
    status: Status
    """``answered``, ``ambiguous``, ``no_answer`` or ``error`` (the call failed)."""
    correct: bool
    """Answered and right by the answer key (False for every other status)."""
    choice: Choice | None
    """How the reply was read (None for an error)."""
    n_options: int
    """Options of the question (for the random baseline)."""
    n_correct: int
    """Correct options of the question."""
    error: str | None = None
    """The call's error text for an ``error`` sample."""
    finish_reason: str | None = None
    """The call's finish reason, where the provider gave one (``length`` with an empty reply:
    the model spent its token budget before answering)."""

    @property
    def key(self) -> SampleKey:
        """``(question_id, trial)``."""
        return (self.question_id, self.trial)

    @property
    def empty_reply(self) -> bool:
        """Whether the model replied with nothing (``no_answer``, method ``empty_reply``)."""
        return self.choice is not None and self.choice.method == "empty_reply"

    @property
    def letter(self) -> str | None:
        """The chosen option's letter (``"C"``); None unless exactly one option was chosen."""
        from coordqa.choices import option_letter

        index = None if self.choice is None else self.choice.index
        return None if index is None else option_letter(index)


AgentRole = Literal[
    "tom",
    "action",
    "reprompt",
    "verifier",
    "hypothesis",
    "predict",
    "plan",
    "react",
    "target",
    "judgement",
    "vanilla",
    "partner_predict",
    "partner_belief",
    "belief",
    "reflection",
    "ladder",
]
"""Every kind of model call an agent makes (the ``role`` of an :class:`Exchange`)."""

AGENT_ROLES: tuple[AgentRole, ...] = get_args(AgentRole)
"""The roles, in the order an agent's decision makes them."""


class Payload(Record):
    """What one role of agent call adds to its exchange: the options offered, the reading..."""


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
    """A plan call (HM, PlanReAct) or a ReAct call: a strategy or thought, and its subgoals."""

    hypothesis_id: int | None
    """The hypothesis the plan is conditioned on (None: none yet)."""
    plan: str | None
    """The plan read from the reply."""
    subgoals: list[str]
    """The subgoals, in order."""


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


class Exchange(CallResult):
    """One model call of an agent (``exchanges.jsonl``), stamped by the match that played it.

    A stored exchange is one of the role classes below (:data:`AgentExchange`): these fields,
    plus its role's :class:`Payload` fields, flat in the record.
    """

    kind: Literal["exchange"] = "exchange"
    """Discriminator of the exchanges stream."""
    role: AgentRole
    """The kind of call (each role class narrows it)."""
    agent: str
    """Player registry name of the agent."""
    agent_version: str | None = None
    """Version of the agent's behaviour (None in records of agents that had none)."""
    player: int
    """The seat the agent was reset with."""
    decision: int
    """The agent's decision counter (1-based) when it asked."""
    turn: int | None = None
    """The game's turn or timestep, where the game has one."""
    messages: list[Message]
    """The conversation sent."""
    episode: str | None = None
    """Key of the episode (stamped by the match)."""
    attempt: str | None = None
    """Id of the attempt that played the episode."""
    seat: int | None = None
    """Seat of the agent in the episode."""
    step: int | None = None
    """Trajectory step at which the call was made."""


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

    role: Literal["plan", "react"]


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
    ActionExchange,
    VerifierExchange,
    TomExchange,
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
"""One record type per role (a test checks that every role has exactly one)."""

ROLE_TYPES: dict[str, type[Exchange]] = {
    role: cls for cls in EXCHANGE_TYPES for role in get_args(cls.model_fields["role"].annotation)
}
"""Role -> the record type of its exchanges."""

AgentExchange = Annotated[
    ActionExchange
    | VerifierExchange
    | TomExchange
    | HypothesisExchange
    | PredictExchange
    | PlanExchange
    | TargetExchange
    | JudgementExchange
    | VanillaExchange
    | LevelExchange
    | BeliefExchange
    | ReflectionExchange
    | LadderExchange,
    Field(discriminator="role"),
]
"""A stored agent exchange, of its role's type."""


def exchange_of(role: AgentRole, payload: Payload, **fields: Any) -> Exchange:
    """The exchange record of a ``role`` call: the shared ``fields`` plus its ``payload``.

    Raises:
        StoreError: ``payload`` is not the payload of ``role``.
    """
    return ROLE_TYPES[role].from_json({**fields, "role": role, **dict(payload)}, f"{role} call")


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


def parse_exchange(data: Mapping[str, Any], where: str = "") -> AgentRecord:
    """A line of ``exchanges.jsonl``: a :class:`Decision`, or the exchange type of its role."""
    if data.get("kind") == "events":
        return Decision.from_json(data, where)
    role = data.get("role")
    if role not in ROLE_TYPES:
        raise _invalid(Exchange, where, f"role: {role!r} is none of {', '.join(AGENT_ROLES)}")
    return ROLE_TYPES[str(role)].from_json(data, where)


# -- run format 1 ------------------------------------------------------------------------------


def _upgrade_call(data: JSONObject) -> JSONObject:
    """Format 1 QA call: tokens and cost were top-level fields."""
    if "usage" in data or "prompt_tokens" not in data:
        return data
    out = dict(data)
    fields = ("prompt_tokens", "completion_tokens", "cost")
    out["usage"] = {name: out.pop(name) for name in fields if name in out}
    return out


def _upgrade_exchange(data: JSONObject) -> JSONObject:
    """Format 1 agent exchange: the reply text was ``reply``, and a failed call could lack both.

    Formats 1 and 2 also recorded HM's Vanilla Mind Prompting call as role ``tom``; it is told
    from CAC's ToM call by its plan.
    """
    if data.get("kind") != "exchange":
        return data
    if data.get("role") == "tom" and "plan" in data:
        data = {**data, "role": "vanilla"}
    if "reply" not in data:
        return data
    out = dict(data)
    out["text"] = out.pop("reply")
    if out["text"] is not None and out.get("error") is not None:
        out["text"] = None
    if out["text"] is None and out.get("error") is None:
        out["error"] = "no reply text"
    return out


_UPGRADES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "calls": _upgrade_call,
    "exchanges": _upgrade_exchange,
}


def upgrade(stream: str, data: JSONObject) -> JSONObject:
    """A stored record of ``stream`` in today's shape (format 1 records are converted).

    Decided per record by its shape, not by the run's format version, because a format 1 run
    resumed by this coordqa holds both shapes.

    >>> upgrade("calls", {"text": "A", "prompt_tokens": 3, "completion_tokens": 1})["usage"]
    {'prompt_tokens': 3, 'completion_tokens': 1}
    """
    convert = _UPGRADES.get(stream)
    return data if convert is None else convert(data)
