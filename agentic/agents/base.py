"""Machinery shared by the LLM agents: recorded model calls and the action call.

Every model exchange goes through :meth:`LLMAgent.ask`, which counts it in the agent's
:class:`~coordqa.agentic.agents.stats.AgentStats` and hands the recorder a typed record: the
exchange type of its role (:data:`coordqa.records.EXCHANGE_ROLES`; this track's in
:mod:`coordqa.agentic.records`), with the payload the call's parser read. Every decision ends
with one :class:`~coordqa.agentic.records.Decision` (role ``events``):
the action taken, whether it was a fallback and why, verifier rejections, HM predictions scored
since the last decision.

Records are frozen and validated when they are made (their lists are copies), so what is stored
is what the model said and what was parsed from it then, and a misnamed field fails at once.

The action call (:meth:`LLMAgent.choose_action`) asks the model to pick one of the lettered legal
actions, reads the reply with :func:`coordqa.choices.choose`, asks once more with a format
reminder when the reply is unreadable (no answer, an empty reply included, or ambiguous), and
otherwise falls back to the game's documented safe action
(:func:`~coordqa.agentic.agents.memory.fallback_action`), recorded as a fallback: an unreadable
reply is the model's own result. Free-text calls (ToM notes, hypotheses, plans, subgoals, ReAct
thoughts, reflections, beliefs) are read as strictly (:meth:`LLMAgent.ask_labelled`): a reply
without the labels its format asks for is unreadable, asked once more with the format restated,
then the role's documented fallback (no note, no hypothesis, no plan...), never kept whole.
Every role's empty and unreadable replies and fallbacks are counted per role
(:class:`~coordqa.agentic.agents.stats.AgentStats`). A model call that failed (after the
gateway's own retries), whatever its role, is not: it is recorded, then
:class:`~coordqa.errors.ModelCallFailed` is raised, so no decision rests on a reply that never
came and the episode is stored as failed, to
be played again, never as a played result.

Every agent's memory (:meth:`LLMAgent.memory`) says when its last high-level action failed and
why (an Overcooked action that became impossible or was blocked), so the model is not asked the
same question again blind; a decision whose state and action repeat the previous decision's is
counted (``repeated_decisions``), which makes deadlocks visible in the statistics.

The agent's ``preset`` (:mod:`coordqa.agentic.presets`) decides the prompt style: the answer
format of the action call, whether the agent adds episodic memory, and the long-term memory text.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.belief import BeliefState
from coordqa.agentic.agents.features import check_features, partner_info_redaction
from coordqa.agentic.agents.ladder import ask_ladder
from coordqa.agentic.agents.memory import (
    fallback_action,
    memory_text,
    offered_options,
    working_memory,
)
from coordqa.agentic.agents.services import Note, NoteKey, ReplyParser
from coordqa.agentic.agents.stats import AgentStats
from coordqa.agentic.presets import DEFAULT_PRESET, game_preset, long_term_memory
from coordqa.agentic.records import (
    ActionPayload,
    AgentRecord,
    Decision,
    FailedAction,
    Fallback,
    FallbackReason,
    Recorder,
)
from coordqa.choices import Choice, choose, option_letter
from coordqa.directives import format_labels, reply_format
from coordqa.errors import ConfigError, GameError, ModelCallFailed
from coordqa.games.base import (
    ANY_GAME,
    PLAYER_NAMES,
    Observation,
    Player,
    PlayerSpec,
    StepResult,
)
from coordqa.games.feed import SeatFeed
from coordqa.games.seat import SeatView
from coordqa.jsonvalues import JSONObject
from coordqa.llm import DEFAULT_CONFIG, GenerateConfig, Message, Model, Reply, get_model
from coordqa.options import OptionValue, PlayerOptions, parse_options
from coordqa.records import call_result, exchange_of

T = TypeVar("T")


@dataclass
class _DecisionNotes:
    """What a decision's record will say beyond its action, gathered while deciding."""

    flags: dict[str, bool] = field(default_factory=dict)
    """``forced``, ``repeated`` or ``final`` when set."""
    lists: dict[str, list[Note]] = field(default_factory=dict)
    """The notes, rejections and scores noted, by the record's field."""
    fallback: Fallback | None = None
    """The fallback taken, if any."""


@dataclass(frozen=True)
class ActionPick:
    """The outcome of an action call."""

    action: str
    """The legal action to take."""
    explanation: str
    """The model's reply (its reason), shown to the verifier; '' for a fallback."""
    fallback: FallbackReason | None = None
    """Why the safe fallback was used (None when the model's choice was readable)."""


def choice_problem(choice: Choice, options: Sequence[str]) -> str:
    """Why a reply was not a choice, in words the model can act on."""
    if choice.outcome == "ambiguous":
        named = ", ".join(option_letter(i) for i in choice.candidates)
        return f"it named several actions: {named}"
    if choice.method == "empty_reply":
        return "it was empty"
    return "no action letter was found"


def reask_messages(messages: Sequence[Message], reply: str, reminder: Message) -> list[Message]:
    """The conversation that asks the action model once more: its reply, then ``reminder``.

    An empty reply is not sent back as an assistant turn (Anthropic refuses empty turns);
    the reminder then joins the last user turn, so that turns still alternate, as chat
    templates such as Gemma's require.
    """
    if reply.strip() or not messages or messages[-1].role != "user":
        return [*messages, Message("assistant", reply), reminder]
    asked = messages[-1]
    return [*messages[:-1], Message("user", f"{asked.content}\n\n{reminder.content}")]


class LLMAgent(Player):
    """A player whose decisions come from a language model through ``coordqa.llm``.

    Subclasses implement :meth:`decide`; :meth:`act` wraps it with the decision counter, the
    single-legal-action shortcut and the per-decision ``events`` record. An agent with switches
    names their dataclass in ``options_class``; :func:`agent_factory` builds it from the
    registry's keyword options.
    """

    name: ClassVar[str]
    """The agent's player-registry name (each concrete agent sets it)."""
    version: ClassVar[str]
    """Bumped whenever the agent's prompts or decision rules change; stamped on every record
    and in ``stats()``, so stored runs say which agent produced them."""
    options_class: ClassVar[type | None] = None
    """The dataclass of this agent's options (None: the agent takes none)."""
    observes_partner: ClassVar[bool] = False
    """Whether the agent always predicts or observes its partner's behaviours (HM, PlanReAct),
    and so needs the game's behaviour space (CAC needs it for k-level ToM only)."""

    def __init__(
        self,
        game_name: str,
        layout: str | None,
        *,
        model: Model | str,
        generate: GenerateConfig | None = None,
        recorder: Recorder | None = None,
        options: Any = None,
        preset: str = DEFAULT_PRESET,
    ) -> None:
        """Create the agent for ``game_name`` on ``layout`` with ``model`` (a Model or a name).

        ``options`` is an instance of ``options_class`` (its defaults when None); ``preset``
        names the prompt style (:mod:`coordqa.agentic.presets`).
        """
        if options is None and self.options_class is not None:
            options = self.options_class()
        self.check_game(game_name, options)
        self.options: Any = options
        self.game_name = game_name
        self.layout = layout
        self.model = get_model(model) if isinstance(model, str) else model
        if not isinstance(self.model, Model):
            raise ConfigError(
                f"model must be a coordqa.llm.Model or a model name, got {type(model).__name__}"
            )
        self.config = generate or DEFAULT_CONFIG
        self.recorder = recorder
        self.preset = preset
        self.style = game_preset(preset, game_name).prompt
        self.player = 0
        self.seed = 0
        self.decision = 0
        self.turn: int | None = None
        self._stats = AgentStats()
        self._events = _DecisionNotes()
        self._pending_events: dict[NoteKey, list[Note]] = {}
        self._failure: tuple[str, str] | None = None
        self._last_decision: tuple[str, tuple[str, ...], str] | None = None
        self.feed: SeatFeed | None = None
        """What this seat was handed this episode, kept only for a model that plays from it
        (``Model.reads_context``: the offline ``bot``) and passed with every call."""
        self.belief = (
            BeliefState(self, game_name) if getattr(options, "belief_state", False) else None
        )
        """The explicit belief state (agents whose options have ``belief_state`` on)."""
        self.ladder_every: int = getattr(options, "tom_ladder", 0)
        """Ask the ToM question ladder every this many decisions (0: never)."""
        self.redact = partner_info_redaction(game_name, getattr(options, "partner_info", True))
        """Rewrites the game's description without the partner's inventory and location
        (``partner_info`` off), else None."""

    @classmethod
    def check_game(cls, game_name: str, options: Any) -> None:
        """Refuse what ``options`` turn on that ``game_name`` cannot serve, naming it.

        The game's profile must give what each feature reads: belief facts for
        ``belief_state``, a ToM ladder for ``tom_ladder``, a redaction for ``partner_info``
        off, a behaviour space for an agent that predicts its partner (:attr:`observes_partner`,
        or k-level ToM: ``tom_level`` above 0). Called when a grid (or
        ``coordqa agentic run``) is read (:attr:`coordqa.games.PlayerSpec.game_check`), and
        again when an agent is built.

        Raises:
            ConfigError: the first feature the game cannot serve.
        """
        check_features(game_name, options, observes_partner=cls.observes_partner)

    # ------------------------------------------------------------------ Player protocol

    def reset(self, game: SeatView, player: int, seed: int) -> None:
        """Start a new episode: forget counters and statistics."""
        self.player = player
        self.seed = seed
        self.decision = 0
        self.turn = game.turn
        self._stats = AgentStats()
        self._events = _DecisionNotes()
        self._pending_events = {}
        self._failure = None
        self._last_decision = None
        self.feed = SeatFeed() if self.model.reads_context else None
        if self.feed is not None:
            self.feed.reset(game, player, seed)
        if self.belief is not None:
            self.belief.reset()

    async def act(self, observation: Observation) -> str:
        """Decide a legal action; a single legal action is taken without asking the model."""
        legal = list(observation.legal_actions)
        if not legal:
            raise GameError(f"{self.name} agent was asked to act with no legal action")
        if self.feed is not None:
            self.feed.act(observation)
        self.decision += 1
        self.turn = observation.view.turn
        self._stats.decisions += 1
        self._events = _DecisionNotes()
        if len(legal) == 1:
            self._stats.forced += 1
            self._events.flags["forced"] = True
            action = legal[0]
        else:
            if self.belief is not None:
                await self.belief.update(observation.view)
            action = await self.decide(observation)
        if action not in legal:
            raise GameError(f"{self.name} agent chose {action!r}, which is not legal: {legal}")
        if self.ladder_every and (self.decision - 1) % self.ladder_every == 0:
            await ask_ladder(self, observation.view, (self.decision - 1) // self.ladder_every)
        decision = (observation.description(), tuple(legal), action)
        if decision == self._last_decision:
            self._stats.repeated_decisions += 1
            self._events.flags["repeated"] = True
        self._last_decision = decision
        self._failure = None
        self._emit_events(action)
        return action

    def observe(self, game: SeatView, player: int, result: StepResult) -> None:
        """Remember a failed action of this agent's; flush events when the episode ends."""
        if self.feed is not None:
            self.feed.observe(game, player, result)
        failed = result.failed.get(self.player)
        if failed is not None:
            reason = result.failure_reasons.get(self.player, "it could not be completed")
            self._failure = (failed, reason)
            self._stats.failed_actions += 1
            self.defer_event("failed_actions", FailedAction(action=failed, reason=reason))
        if result.terminal and any(self._pending_events.values()):
            self._events = _DecisionNotes(flags={"final": True})
            self._emit_events(None)

    @abc.abstractmethod
    async def decide(self, observation: Observation) -> str:
        """Choose one of ``observation.legal_actions`` (called with at least two)."""

    @property
    def counters(self) -> AgentStats:
        """This episode's live counters (for the agent's modules; :meth:`stats` to report)."""
        return self._stats

    def stats(self) -> JSONObject:
        """This episode's statistics (see :class:`AgentStats`), with the agent's version."""
        return {"agent_version": self.version, "preset": self.preset, **self._stats.to_dict()}

    # ------------------------------------------------------------------ memory

    def long_term_memory(self, game: SeatView) -> str:
        """The game description this agent is given (its preset's texts)."""
        return long_term_memory(game, self.style)

    def memory(self, game: SeatView, *sections: str) -> str:
        """The agent's memory text for one call.

        Working memory, episodic memory (unless the preset is stateless), the last failure,
        the belief state (when kept), then ``sections`` (ToM notes, rejections, plans).
        """
        failure = ""
        if self._failure is not None:
            action, reason = self._failure
            failure = (
                f"My last action, {action!r}, could not be completed: {reason}. Choose an "
                "action that can be done now."
            )
        episodic = not self.style.stateless
        belief = "" if self.belief is None else self.belief.section()
        return memory_text(
            game, self.player, failure, belief, *sections, episodic=episodic, redact=self.redact
        )

    def working_memory(self, game: SeatView) -> str:
        """The state as this agent's memory shows it (its first section), without the rest."""
        episodic = not self.style.stateless
        return working_memory(game, self.player, episodic=episodic, redact=self.redact)

    # ------------------------------------------------------------------ recording

    def _stamp(self) -> dict[str, str | int | None]:
        """The fields every record of this agent's now carries."""
        return {
            "agent": self.name,
            "agent_version": self.version,
            "player": self.player,
            "decision": self.decision,
            "turn": self.turn,
        }

    def _emit(self, record: AgentRecord) -> None:
        if self.recorder is not None:
            self.recorder(record)

    def note_event(self, key: NoteKey, value: Note) -> None:
        """Add ``value`` to the list ``key`` of the current decision's record."""
        self._events.lists.setdefault(key, []).append(value)

    def defer_event(self, key: NoteKey, value: Note) -> None:
        """Add ``value`` to ``key`` of the *next* decision's record (what happens between turns)."""
        self._pending_events.setdefault(key, []).append(value)

    def _emit_events(self, action: str | None) -> None:
        for key, values in self._pending_events.items():
            self._events.lists.setdefault(key, []).extend(values)
        self._pending_events = {}
        events = self._events
        self._emit(
            Decision.from_json(
                {
                    **self._stamp(),
                    "action": action,
                    "fallback": events.fallback,
                    **events.flags,
                    **events.lists,
                },
                f"{self.name} decision",
            )
        )

    async def ask(
        self, role: str, messages: Sequence[Message], parse: ReplyParser[T]
    ) -> tuple[Reply, T]:
        """Call the model, parse its reply, count it and record the exchange.

        Args:
            role: the kind of call (:data:`coordqa.agentic.records.AGENT_ROLES`, or a role a
                plugin agent registers in :data:`coordqa.records.EXCHANGE_ROLES`).
            messages: the conversation.
            parse: turns the reply into a value plus the role's payload.

        Raises:
            ModelCallFailed: the call failed after the gateway's retries (its exchange is
                recorded first, with the error).
        """
        reply = await self.model.generate(
            messages, self.config, trial=self.seed, role=role, context=self.feed
        )
        self._stats.count_call(role, reply)
        value, payload = parse(reply)
        result = dict(call_result(reply))
        self._emit(exchange_of(role, payload, **self._stamp(), messages=messages, **result))
        if not reply.ok:
            raise ModelCallFailed(str(reply.error), reply.error_kind or "failed", role)
        if value is None:
            self._stats.count_unreadable(role)
        return reply, value

    async def ask_labelled(
        self,
        role: str,
        messages: Sequence[Message],
        parse: ReplyParser[T | None],
        fallback: str,
    ) -> T | None:
        """A free-text call read as strictly as an action: once, once more, or the fallback.

        ``parse`` gives None for a reply without the labels the call's format asks for (stated
        in its system prompt after "Reply in exactly this format"). Such a reply is asked once
        more with that format restated; a second one is the role's fallback: None is returned,
        counted (``role_fallbacks``) and noted in the decision's record with ``fallback`` (what
        the agent does instead). The unreadable text reaches no later prompt.

        Raises:
            ModelCallFailed: as :meth:`ask`.
        """
        value: T | None
        reply, value = await self.ask(role, messages, parse)
        if value is not None:
            return value
        system = messages[0].content if messages else ""
        labels = format_labels(system)
        problem = _label_problem(reply.text, labels)
        reminder = prompts.label_reminder(problem, reply_format(system))
        reply, value = await self.ask(
            role, reask_messages(messages, reply.text or "", reminder), parse
        )
        if value is None:
            self._stats.count_role_fallback(role)
            problem = _label_problem(reply.text, labels)
            self.note_event(
                "notes", f"{role} reply unreadable after one reminder ({problem}): {fallback}"
            )
        return value

    # ------------------------------------------------------------------ the action call

    def fall_back(
        self,
        legal: Sequence[str],
        reason: FallbackReason,
        detail: str,
        avoid: Sequence[str] = (),
    ) -> ActionPick:
        """Take the game's safe action, counted and recorded as a fallback.

        The safe action is chosen among ``legal`` minus ``avoid`` (actions the verifier just
        rejected); only when every legal action is to be avoided is it chosen among all of them,
        and the record says so.
        """
        allowed = [action for action in legal if action not in avoid]
        action = fallback_action(self.game_name, allowed or legal)
        self._stats.count_fallback(reason)
        note = None if allowed else "every legal action was to be avoided"
        self._events.fallback = Fallback(reason=reason, detail=detail, action=action, note=note)
        return ActionPick(action, "", fallback=reason)

    async def choose_action(
        self,
        game: SeatView,
        legal: Sequence[str],
        memory: str,
        exclude: Sequence[str] = (),
    ) -> ActionPick:
        """Ask the model for one of ``legal`` (minus ``exclude``): once, once more, or fall back."""
        options = offered_options(self.game_name, [a for a in legal if a not in exclude])
        if not options:
            return self.fall_back(legal, "no_options", "every legal action was excluded")
        answer_only = self.style.answer_only
        messages = prompts.action_messages(
            self.game_name,
            self.long_term_memory(game),
            memory,
            options,
            turn_based=game.turn_based,
            answer_only=answer_only,
        )

        def read(reply: Reply) -> tuple[Choice, ActionPayload]:
            # The reply may plan for both players: only this seat's labelled line is its action.
            choice = choose(reply.text or "", options, speaker=PLAYER_NAMES[self.player])
            if not reply.ok:  # recorded as failed; ask() raises, so the choice is never used
                return choice, ActionPayload(options=options, choice=None, action=None)
            action = choice.pick(options)
            return choice, ActionPayload(options=options, choice=choice, action=action)

        choice: Choice
        reply, choice = await self.ask("action", messages, read)
        if choice.index is not None:
            return ActionPick(options[choice.index], reply.text or "")
        self._stats.count_unreadable("action")
        problem = choice_problem(choice, options)
        self._stats.reprompts += 1
        letters = ", ".join(option_letter(i) for i in range(len(options)))
        reminder = prompts.reminder_message(problem, letters, answer_only)
        retry = reask_messages(messages, reply.text or "", reminder)
        reply, choice = await self.ask("reprompt", retry, read)
        if choice.index is not None:
            return ActionPick(options[choice.index], reply.text or "")
        self._stats.count_unreadable("reprompt")
        detail = choice_problem(choice, options)
        return self.fall_back(legal, "unreadable", f"after one format reminder: {detail}")


def _label_problem(text: str | None, labels: Sequence[str]) -> str:
    """Why a free-text reply was unreadable, in words the model can act on."""
    if not (text or "").strip():
        return "it was empty"
    named = ", ".join(f"'{label}:'" for label in labels) or "a labelled line"
    return f"it has no {named} line" if len(labels) <= 1 else f"it has none of the lines {named}"


def agent_factory(cls: type[LLMAgent]) -> Callable[..., LLMAgent]:
    """The player-registry factory of an agent class.

    Its signature is the contract with matches and runners: ``factory(game_name, layout, *,
    model, generate=None, recorder=None, preset="coordqa", options=None, **agent_options)``.
    ``options`` are the agent's options as parsed where the grid or command was read
    (:class:`~coordqa.options.PlayerOptions`), handed on as they are; without them the keyword
    ``agent_options`` (fields of ``cls.options_class``) are parsed here, for Python callers.

    Raises:
        ConfigError: both, or options parsed for another class.
    """

    def factory(
        game_name: str,
        layout: str | None,
        *,
        model: Model | str,
        generate: GenerateConfig | None = None,
        recorder: Recorder | None = None,
        preset: str = DEFAULT_PRESET,
        options: PlayerOptions | None = None,
        **agent_options: OptionValue,
    ) -> LLMAgent:
        if options is None:
            value = parse_options(cls.name, cls.options_class, agent_options)
        elif agent_options or not _options_of(cls, options.value):
            raise ConfigError(
                f"agent {cls.name!r} was given {options!r} and {sorted(agent_options)}: give "
                f"its options once, as a {_class_name(cls)}"
            )
        else:
            value = options.value
        return cls(
            game_name,
            layout,
            model=model,
            generate=generate,
            recorder=recorder,
            options=value,
            preset=preset,
        )

    factory.__name__ = f"make_{cls.name}"
    factory.__doc__ = f"Build a {cls.__name__} (options: :class:`{cls.options_class}`)."
    return factory


def _options_of(cls: type[LLMAgent], value: object) -> bool:
    """Whether ``value`` is an instance of ``cls``'s options class (None when it has none)."""
    return value is None if cls.options_class is None else isinstance(value, cls.options_class)


def _class_name(cls: type[LLMAgent]) -> str:
    return "no options" if cls.options_class is None else cls.options_class.__name__


def agent_spec(cls: type[LLMAgent], description: str) -> PlayerSpec:
    """The player-registry entry of an agent class: its factory and options.

    It plays every registered game: an agent reads only the seat view.
    """
    factory = agent_factory(cls)
    return PlayerSpec(
        cls.name,
        (ANY_GAME,),
        factory,
        description,
        kind="llm",
        options=cls.options_class,
        game_check=cls.check_game,
    )
