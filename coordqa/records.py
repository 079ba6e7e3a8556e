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
``exchanges.jsonl``    :class:`Exchange`   an agent's model calls (the agentic track's runs)
=====================  ==================  ==================================================

A model call is stored in one shape wherever it happens (:class:`CallResult`: ``text`` or
``error``, ``usage`` with tokens and cost, latency, attempts, cache): a QA call adds its key
(question, trial), an agent's exchange adds who asked, when and what (:class:`Exchange`), plus
the fields of its *role*'s :class:`Payload`. This module knows no role: the record type of each
is registered in :data:`EXCHANGE_ROLES` by the track whose agents make those calls (coordqa's
agentic track registers its sixteen, with its decision and episode records, in
``coordqa.agentic.records``), and a plugin agent registers its own the same way.

Run format 1 (coordqa before the records were typed) stored QA calls with flat token fields and
agent exchanges with ``reply`` instead of ``text``, and kept a second copy of every outcome in
``samples.jsonl`` that went stale when a run was re-scored. :func:`upgrade` reads those records
into today's types by their shape (a run resumed across the upgrade holds both shapes), and the
reader ignores ``samples.jsonl``: outcomes are always derived from the calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any, Literal, TypeVar, get_args

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
from coordqa.errors import StoreError, UnknownNameError
from coordqa.jsonvalues import JSONObject
from coordqa.llm.types import Message, Reply
from coordqa.registry import Registry
from coordqa.schema_problems import schema_problems

__all__ = [
    "EXCHANGE_ROLES",
    "QUESTION_TYPES",
    "STATUSES",
    "CallResult",
    "Exchange",
    "Payload",
    "QACall",
    "Question",
    "QuestionType",
    "Record",
    "Sample",
    "SampleKey",
    "Status",
    "TokenUsage",
    "call_result",
    "exchange_of",
    "exchange_type",
    "parse_exchange",
    "roles_of",
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
            raise _invalid(cls, where, schema_problems(exc, "record", shown=5)) from exc
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


class Payload(Record):
    """What one role of agent call adds to its exchange: the options offered, the reading..."""


class Exchange(CallResult):
    """One model call of an agent (``exchanges.jsonl``), stamped by the match that played it.

    A stored exchange is of its role's registered type (:data:`EXCHANGE_ROLES`): a subclass of
    this one and of the role's :class:`Payload`, whose ``role`` field is a ``Literal`` of the
    roles it records; these fields and the payload's are flat in the record.
    """

    kind: Literal["exchange"] = "exchange"
    """Discriminator of the exchanges stream."""
    role: str
    """The kind of call (each role's type narrows it to a ``Literal``)."""
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


EXCHANGE_ROLES: Registry[type[Exchange]] = Registry("agent role", "coordqa.agent_roles")
"""Role -> the record type of its exchanges. Filled by the ``coordqa.agent_roles`` entry points:
a :class:`~coordqa.registry.Catalog` of ``{role: type}`` (coordqa's agentic track registers its
roles so, in ``pyproject.toml``), or one type under its role's name."""


def roles_of(record: type[Exchange]) -> tuple[str, ...]:
    """The roles a record type records: the values of its ``role`` field's ``Literal``."""
    return tuple(str(role) for role in get_args(record.model_fields["role"].annotation))


def exchange_type(role: str, where: str = "") -> type[Exchange]:
    """The registered record type of ``role``'s exchanges.

    Raises:
        StoreError: no package registers ``role`` (its agent's package is not installed
            here), or what is registered does not record it (``where`` starts the message).
    """
    try:
        found = EXCHANGE_ROLES.get(role)
    except UnknownNameError:
        roles = ", ".join(EXCHANGE_ROLES.names())
        raise _invalid(
            Exchange,
            where,
            f"role: {role!r} is none of {roles}; the agent that made it is of a package not "
            "installed here, which registers its roles (entry point group coordqa.agent_roles)",
        ) from None
    if not (isinstance(found, type) and issubclass(found, Exchange) and role in roles_of(found)):
        raise StoreError(
            f"the record type registered for agent role {role!r} is {found!r}: it must be a "
            f"coordqa.records.Exchange subclass whose role field names {role!r}"
        )
    return found


def exchange_of(role: str, payload: Payload, **fields: Any) -> Exchange:
    """The exchange record of a ``role`` call: the shared ``fields`` plus its ``payload``.

    Raises:
        StoreError: an unregistered role, or ``payload`` is not the payload of ``role``.
    """
    where = f"{role} call"
    return exchange_type(role, where).from_json({**fields, "role": role, **dict(payload)}, where)


def parse_exchange(data: Mapping[str, Any], where: str = "") -> Exchange:
    """A stored exchange (a ``kind: exchange`` line), as the record type of its role.

    Raises:
        StoreError: the role is not registered here, or the record does not fit its type.
    """
    role = data.get("role")
    return exchange_type(str(role), where).from_json(data, where)


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
    """Format 1 agent exchange: the reply text was ``reply``, and a failed call could lack both."""
    if data.get("kind") != "exchange" or "reply" not in data:
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
